"""Bot plug-ins: load a player's own bot from a Python file for `rami-lan simulate`.

``path/to/mybot.py:MyBot`` names a file and an attribute in it. The attribute is
called as ``MyBot(seat, seed)`` (a class or any factory) and must return an object
with ``choose(view, new_events) -> Action`` and ``wants_knock(view, new_events) ->
bool``. The interface is documented in docs/bots.md ("Writing a bot").

`check_action(view, action)` answers "legal, and if not, why" in one call, from the
view alone, for plug-ins and the project's own bots alike.

Loading runs the file's code in this process: only load files you trust (as with any
Python script you run).
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from rami_lan.core import actions as A
from rami_lan.core import round as R
from rami_lan.core.errors import RulesError
from rami_lan.core.events import Event
from rami_lan.core.shadow import shadow_state
from rami_lan.core.views import SeatView


class BotLike(Protocol):
    """What a seat player must offer (the project's bots and plug-ins alike)."""

    def choose(self, view: SeatView, new_events: Sequence[Event]) -> A.Action: ...

    def wants_knock(self, view: SeatView, new_events: Sequence[Event]) -> bool: ...


PLUGIN_TEMPLATES: dict[str, str] = {
    "spec_form": "{spec} is not of the form path/to/file.py:Name",
    "no_file": "bot file {path} does not exist",
    "not_module": "{path} can not be loaded as a Python module",
    "load_failed": "loading {path} failed: {err}",
    "no_callable": "{path} has no callable {name}",
    "no_method": "{name} from {path} has no method {method}(view, new_events)",
}
"""The English of each `PluginError` code (``spec``, ``path``, ``name``: quoted as
``repr`` does)."""


class PluginError(ValueError):
    """A plug-in spec that can not be loaded: a ``code`` of `PLUGIN_TEMPLATES` and its
    ``data`` (the layers above word them; ``str()`` is the English)."""

    def __init__(self, code: str, **data: str) -> None:
        self.code = code
        self.data = dict(data)
        super().__init__(PLUGIN_TEMPLATES[code].format(**data))


def is_plugin_spec(text: str) -> bool:
    """``file.py:Name`` (a plug-in) rather than a level name."""
    path, sep, name = text.rpartition(":")
    return bool(sep and path.endswith(".py") and name.isidentifier())


_counter = itertools.count()


def load_plugin(spec: str) -> Callable[[int, int], BotLike]:
    """The factory named by ``path.py:Name``; raises `PluginError` saying what is wrong."""
    if not is_plugin_spec(spec):
        raise PluginError("spec_form", spec=repr(spec))
    path_text, _, name = spec.rpartition(":")
    path = Path(path_text).expanduser()
    if not path.is_file():
        raise PluginError("no_file", path=repr(path_text))
    mod_name = f"rami_lan_plugin_{next(_counter)}_{path.stem}"
    mod_spec = importlib.util.spec_from_file_location(mod_name, path)
    if mod_spec is None or mod_spec.loader is None:
        raise PluginError("not_module", path=repr(path_text))
    module = importlib.util.module_from_spec(mod_spec)
    sys.modules[mod_name] = module  # dataclasses and pickling look modules up by name
    try:
        mod_spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - report any error of foreign code plainly
        sys.modules.pop(mod_name, None)
        raise PluginError("load_failed", path=repr(path_text), err=f"{type(e).__name__}: {e}") from e
    factory = getattr(module, name, None)
    if factory is None or not callable(factory):
        raise PluginError("no_callable", path=repr(path_text), name=repr(name))

    def make(seat: int, seed: int) -> BotLike:
        bot = factory(seat, seed)
        for method in ("choose", "wants_knock"):
            if not callable(getattr(bot, method, None)):
                raise PluginError("no_method", name=name, path=repr(path_text), method=method)
        return PluginSeat(bot)

    return make


class PluginSeat:
    """Adapts a plug-in to the match runner: events always passed, knocks always asked
    with the events (possibly none) so a plug-in may declare both parameters plainly."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.seat = getattr(bot, "seat", None)

    def choose(self, view: SeatView, new_events: Sequence[Event] = ()) -> A.Action:
        return self.bot.choose(view, list(new_events))

    def wants_knock(self, view: SeatView, new_events: Sequence[Event] = ()) -> bool:
        return bool(self.bot.wants_knock(view, list(new_events)))


def check_action(view: SeatView, action: A.Action) -> str | None:
    """None if the host would accept ``action`` from the viewing seat now, else why not."""
    if view.seat is None:
        return "a spectator's view can not act"
    if getattr(action, "seat", None) != view.seat:
        return f"the action is for seat {getattr(action, 'seat', None)}, this view is seat {view.seat}"
    st = shadow_state(view)
    if st is None:
        return f"no round is being played (phase {view.phase})"
    try:
        R.apply(st, action)
    except RulesError as e:
        return str(e)
    return None
