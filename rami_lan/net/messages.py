"""Old home of :mod:`rami_lan.wire.messages`, kept importable: this name is that module."""

import sys

from rami_lan.wire import messages

sys.modules[__name__] = messages
