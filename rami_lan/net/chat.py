"""Moved to `rami_lan.table.chat` (the table machine applies the chat limits)."""

from rami_lan.table.chat import *  # noqa: F403
from rami_lan.table.chat import __all__  # noqa: F401
