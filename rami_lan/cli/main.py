"""The ``rami-lan`` command: the lobby UI by default, plus sub-commands.

Each sub-command lives in its own module of ``rami_lan.cli`` exposing
``add_arguments(parser)`` and ``run(args) -> int``; modules are imported only when
needed so ``rami-lan --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from rami_lan import __version__
from rami_lan.i18n import _, ngettext, set_language
from rami_lan.net.signals import ignore_shutdown_signals, install_early, restore_early, take_pending

# name -> (module, help text)
COMMANDS: dict[str, tuple[str, str]] = {
    "host": ("rami_lan.cli.cmd_host", "open a table on the LAN and host it"),
    "list": ("rami_lan.cli.cmd_list", "list the tables on the LAN"),
    "join": ("rami_lan.cli.cmd_join", "join a table (by name or HOST:PORT)"),
    "verify": ("rami_lan.cli.cmd_verify", "re-check a match record's fair shuffle offline"),
    "simulate": ("rami_lan.cli.cmd_simulate", "play bot matches headless and print statistics"),
    "solo": ("rami_lan.cli.cmd_solo", "play at once against bots"),
    "replay": ("rami_lan.cli.cmd_replay", "step through a recorded match, every hand shown"),
    "tournament": ("rami_lan.cli.cmd_tournament", "organise a LAN tournament and host its tables"),
    "watch": ("rami_lan.cli.cmd_watch", "watch a tournament's tables as a spectator"),
}


def _lang_from_argv(argv: Sequence[str]) -> str | None:
    for i, a in enumerate(argv):
        if a == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--lang="):
            return a.split("=", 1)[1]
    return None


def _chosen_command(argv: Sequence[str]) -> str | None:
    """The sub-command named in ``argv`` (the first word that is one), if any."""
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "--lang":
            skip = True
            continue
        if a.startswith("-"):
            continue
        return a if a in COMMANDS else None
    return None


def _argparse_speaks_ui_language() -> None:
    """argparse builds its own messages (``invalid choice: ...``, ``the following
    arguments are required``, ``%(prog)s: error: ...``) with the module-level gettext
    functions it imported; point them at ours so they read in the UI language (French in
    ``ui.po``; English, or an untranslated string, is unchanged)."""
    argparse._ = _  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's own words (``usage:``) in the UI language."""

    def add_usage(self, usage, actions, groups, prefix=None):  # type: ignore[no-untyped-def]
        return super().add_usage(usage, actions, groups, prefix if prefix is not None else _("usage: "))


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose section titles and built-in help read in the UI language."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        kwargs.setdefault("formatter_class", _HelpFormatter)
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        self._positionals.title = _("positional arguments")
        self._optionals.title = _("options")
        self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS,
                          help=_("show this help message and exit"))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; only the chosen sub-command's module is imported."""
    p = _Parser(
        prog="rami-lan",
        description=_("Rami (French rummy) on your local network. With no command: the lobby."),
    )
    p.add_argument("--version", action="version", version=f"rami-lan {__version__}",
                   help=_("show program's version number and exit"))
    p.add_argument("--lang", choices=("en", "fr"), help=_("language (default: from the locale)"))
    sub = p.add_subparsers(dest="command", metavar="COMMAND", title=_("commands"),
                           parser_class=_Parser)
    for name, (module, helptext) in COMMANDS.items():
        sp = sub.add_parser(name, help=_(helptext), description=_(helptext))
        sp.set_defaults(_module=module)
        sp.add_argument("--lang", choices=("en", "fr"), default=argparse.SUPPRESS,
                        help=_("language (default: from the locale)"))
        if name != only:
            continue
        importlib.import_module(module).add_arguments(sp)
    return p


FULL_SCREEN = {"rami_lan.cli.app", "rami_lan.cli.cmd_solo", "rami_lan.cli.cmd_replay"}
"""Commands that draw the full-screen UI: nothing may write to the terminal under it."""


def setup_logging(full_screen: bool) -> None:
    """Log to a private, rotated file in the log folder (``rami_lan.logsetup``); warnings
    also to stderr unless the full-screen UI owns the terminal (a stray line would tear
    the screen apart)."""
    from rami_lan.logsetup import setup

    setup(full_screen)


def main(argv: Sequence[str] | None = None) -> int:
    # A closed terminal (SIGHUP) or SIGTERM from the first instant takes the Ctrl-C path:
    # before the command's event loop handles them (about 0.4 s after the start, more
    # than a second on a loaded machine) they killed the process on the spot.
    before = install_early()
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM or SIGHUP, also before the command ran
        _handled_interrupt()
        return 130
    finally:
        if argv is None:  # the program ends here: a late signal must not cut the exit short
            ignore_shutdown_signals()
        else:  # called in-process (tests): the caller's handlers again
            restore_early(before)


def _handled_interrupt() -> None:
    """CPython notes a ``KeyboardInterrupt`` that escapes code compiled from a string (a
    dataclass's generated methods, while a module is being imported) and then ends the
    process with SIGINT after a clean exit (status -2, nothing printed), even though we
    caught it. Each evaluation of such code resets that note: one, harmless, after we
    handled the interrupt, makes the exit status our 130."""
    exec("None")  # noqa: S102 - a constant: see the docstring


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    lang = _lang_from_argv(argv)
    try:
        set_language(lang)
    except ValueError:  # --lang de: argparse refuses it below, in the locale's language
        set_language(None)
    _argparse_speaks_ui_language()
    args = build_parser(_chosen_command(argv)).parse_args(argv)
    module = getattr(args, "_module", "rami_lan.cli.app")
    interactive_table = (module == "rami_lan.cli.cmd_host" and not getattr(args, "headless", True)) or (
        module == "rami_lan.cli.cmd_join" and not getattr(args, "bot", None)
    )
    setup_logging(module in FULL_SCREEN or (interactive_table and sys.stdout.isatty()))
    mod = importlib.import_module(module)
    if take_pending() is not None:  # a hang-up or SIGTERM during the start: nothing opened yet
        raise KeyboardInterrupt
    try:
        return int(mod.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # ``rami-lan list | head``: the reader went away. No traceback, and none either
        # when Python flushes stdout at exit (it now points at the null device).
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):  # no real stdout (tests, pythonw)
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())
