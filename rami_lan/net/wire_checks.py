"""Old home of :mod:`rami_lan.wire.checks`, kept importable: this name is that module."""

import sys

from rami_lan.wire import checks

sys.modules[__name__] = checks
