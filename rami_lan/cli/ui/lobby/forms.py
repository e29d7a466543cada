"""The lobby's forms, as data: New table, Solo (with its choices of last time), Settings and
the join code. Each builder returns a fresh `Form`; what a submitted form does is the
lobby's job (`rami_lan.cli.ui.lobby.Lobby.submit`).
"""

from __future__ import annotations

import contextlib
from typing import Any

from rami_lan.cli.messages import bot_mark
from rami_lan.cli.settings import Settings
from rami_lan.cli.ui.forms import Field, Form
from rami_lan.cli.ui.lobby.model import LEVELS
from rami_lan.i18n import _


def limit_choices(v: Any) -> list[tuple[Any, str]]:
    """The point limits a variant offers (elimination: a single round too; quick rounds)."""
    if v.match_rule == "elimination":
        return [(n, _("single round") if n == 1 else str(n)) for n in v.point_limits]
    out: list[tuple[Any, str]] = [(n, str(n)) for n in v.point_limits]
    if v.quick_rounds:
        out.append(("quick", _("quick: {n} rounds").format(n=v.quick_rounds)))
    return out


def reset_for_variant(values: dict[str, Any]) -> None:
    """A new variant: its own default limit, Frapper off where it has none."""
    from rami_lan.core.variants import get_variant

    v = get_variant(values["variant"])
    values["limit"] = v.default_limit
    if not v.knock_supported:
        values["knock"] = False


def variant_fields(values: dict[str, Any]) -> list[Field]:
    """Variant and seats: the first fields of both table forms (New table and Solo)."""
    from rami_lan.core.variants import VARIANTS

    return [
        Field("variant", lambda: _("Variant"),
              lambda: [(k, f"{v.name} ({k})") for k, v in VARIANTS.items()],
              on_change=lambda: reset_for_variant(values)),
        Field("seats", lambda: _("Seats"), lambda: [(n, str(n)) for n in (2, 3, 4)]),
    ]


def match_option_fields(values: dict[str, Any]) -> list[Field]:
    """Points, move timer and Frapper (only where the variant has it): the last fields of
    both table forms."""
    from rami_lan.core.variants import get_variant

    def variant() -> Any:
        return get_variant(values["variant"])

    return [
        Field("limit", lambda: _("Points"), lambda: limit_choices(variant())),
        Field("timer", lambda: _("Move timer"),
              lambda: [(0, _("off"))] + [(n, _("{n} s").format(n=n)) for n in (15, 30, 60)]),
        Field("knock", lambda: _("Frapper"),
              lambda: [(False, _("off")), (True, _("on"))],
              visible=lambda: variant().knock_supported),
    ]


SOLO_KEYS = ("variant", "seats", "seat1", "seat2", "seat3", "limit", "knock", "timer")


def solo_choices_path() -> Any:
    from rami_lan.cli.settings import config_dir

    return config_dir() / "solo.json"


def load_solo_choices() -> dict[str, Any]:
    """The Solo form's choices of last time (nothing when unreadable or invalid)."""
    import json

    from rami_lan.core.variants import VARIANTS, get_variant

    try:
        data = json.loads(solo_choices_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("variant") not in VARIANTS:
        return {}
    out = {k: data[k] for k in SOLO_KEYS if k in data}
    if out.get("seats") not in (2, 3, 4):
        out.pop("seats", None)
    for s in (1, 2, 3):
        if out.get(f"seat{s}") not in LEVELS:
            out.pop(f"seat{s}", None)
    if out.get("limit") not in [c for c, _t in limit_choices(get_variant(out["variant"]))]:
        out.pop("limit", None)
    if out.get("timer") not in (0, 15, 30, 60):
        out.pop("timer", None)
    out["knock"] = out.get("knock") is True
    return out


def save_solo_choices(values: dict[str, Any]) -> None:
    import json

    path = solo_choices_path()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({k: values.get(k) for k in SOLO_KEYS}), encoding="utf-8")


def new_table_form() -> Form:
    """New table: name, variant, seats (a player or a bot each), who may sit, options."""

    def seat_field(s: int) -> Field:
        return Field(
            f"seat{s}",
            lambda: _("Seat {n}").format(n=s + 1),
            lambda: [("human", _("a player"))] + [(lv, bot_mark(lv)) for lv in LEVELS],
            visible=lambda: values["seats"] > s,
        )

    values: dict[str, Any] = {
        "name": "",
        "variant": "rami",
        "seats": 2,
        "seat1": "moyen",
        "seat2": "moyen",
        "seat3": "moyen",
        "who": "anyone",
        "code": "",
        "limit": 100,
        "timer": 0,
        "knock": False,
        "private": True,
    }
    fields = [
        Field("name", lambda: _("Table name"), max_len=32),
        *variant_fields(values),
        seat_field(1),
        seat_field(2),
        seat_field(3),
        Field("who", lambda: _("Who may sit"),
              lambda: [("anyone", _("anyone")), ("code", _("with a join code")),
                       ("invited", _("invited only"))]),
        Field("code", lambda: _("Join code"), visible=lambda: values["who"] == "code",
              max_len=16),
        *match_option_fields(values),
        Field("private", lambda: _("Private deal"),
              lambda: [(False, _("off (the host can see the deck)")),
                       (True, _("on (the host sees only its cards)"))]),
    ]
    form = Form(lambda: _("New table"), fields, values,
                submit_label=lambda: _("Open the table"))
    form.fix()
    return form


def solo_form() -> Form:
    """Solo: the variant, the seats, each bot's level and the options, in sight.

    Opened with the cursor on "Play", so ``s`` then Enter starts at once with the
    choices of last time (remembered in the config folder)."""
    values: dict[str, Any] = {
        "variant": "rami", "seats": 2, "seat1": "moyen", "seat2": "moyen",
        "seat3": "moyen", "limit": 100, "knock": False, "timer": 0,
    }
    values.update(load_solo_choices())

    def seat_field(s: int) -> Field:
        return Field(
            f"seat{s}",
            lambda: _("Seat {n}").format(n=s + 1),
            lambda: [(lv, bot_mark(lv)) for lv in LEVELS],
            visible=lambda: values["seats"] > s,
        )

    fields = [
        *variant_fields(values),
        seat_field(1),
        seat_field(2),
        seat_field(3),
        *match_option_fields(values),
    ]
    form = Form(lambda: _("Solo — against bots"), fields, values,
                submit_label=lambda: _("Play"))
    form.fix()
    form.index = len(form.shown())
    return form


def settings_values(settings: Settings) -> dict[str, Any]:
    """The Settings form's values from ``settings``."""
    return {
        "nickname": settings.nickname,
        "lang": settings.lang or "auto",
        "four": settings.four_colour,
    }


def settings_form(settings: Settings) -> Form:
    """Settings: nickname, language, four-colour deck."""
    fields = [
        Field("nickname", lambda: _("Nickname")),
        Field("lang", lambda: _("Language"),
              lambda: [("auto", _("from the system")), ("fr", "Français"), ("en", "English")]),
        Field("four", lambda: _("Four-colour deck"),
              lambda: [(False, _("off")), (True, _("on"))]),
    ]
    return Form(lambda: _("Settings"), fields, settings_values(settings),
                submit_label=lambda: _("Save"))


def code_form() -> Form:
    """The join code a table asks for."""
    return Form(
        title=lambda: _("This table needs a join code"),
        fields=[Field("code", lambda: _("Join code"), max_len=16)],
        values={"code": ""},
        submit_label=lambda: _("Join"),
    )
