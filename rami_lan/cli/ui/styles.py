"""Colours of the terminal UI (one prompt_toolkit Style for every screen).

One palette for dark and light terminals and for 16, 256 and true colour: only the 16
ANSI colour names (the same escape codes at every colour depth; the terminal's theme
decides their shades). Text on the terminal's own background uses only colours that
read on black and on white alike (red, magenta, bright black, bright blue, the default);
green, yellow and cyan only as a background under black text, so a light theme never
shows yellow on white nor a dark one blue on black. ``tests/cli/test_ui_palette.py``
measures every cell of real screens, on a dark and a light theme, at the three depths.

prompt_toolkit gives a class ``a.b`` the rules of ``a`` too: a dotted style that must
not inherit its parent's colours or reverse video resets them (``noreverse``,
``bg:default``).
"""

from __future__ import annotations

from prompt_toolkit.styles import Style

PALETTE: dict[str, str] = {
    "header": "bg:ansiblue fg:ansiwhite",
    "header.clock": "bg:ansiblue fg:ansiyellow bold",
    "header.clock.low": "bg:ansired fg:ansiwhite bold",
    "header.warn": "bg:ansired fg:ansiwhite",
    "chip": "bg:ansiwhite fg:ansiblack",
    "card.black": "bg:ansiwhite fg:ansiblack",
    "card.red": "bg:ansiwhite fg:ansired",
    "card.clubs": "bg:ansigreen fg:ansiblack",
    "card.diamonds": "bg:ansiwhite fg:ansiblue",
    "card.joker": "bg:ansiwhite fg:ansimagenta bold",
    "cardframe": "",
    # the hand: the cursor is the card in reverse video; selected cards lift; the
    # cards that make a meld have a blue line under them (the seed's "trait bleu")
    "hint": "",
    "cursor": "reverse",
    "meldline": "fg:ansibrightblue bold noreverse",
    "mark": "noreverse",
    "mark.cursor": "bg:ansiyellow fg:ansiblack bold noreverse",
    "mark.staged": "bg:ansicyan fg:ansiblack bold noreverse",
    "mark.fresh": "bg:ansigreen fg:ansiblack bold noreverse",
    "staged": "fg:ansimagenta bold",
    "depth": "bg:ansiyellow fg:ansiblack",
    "stock": "bold",
    "label": "bold",
    "dim": "fg:ansibrightblack",
    "turn.arrow": "bg:ansigreen fg:ansiblack bold",
    "turn.mine": "fg:ansired bold",
    "player": "",
    "player.me": "bold",
    "eliminated": "fg:ansired bold",
    "opened": "bold",
    "warn": "bg:ansiyellow fg:ansiblack",
    "meld.label": "fg:ansibrightblack",
    "meld.target": "reverse",
    "meld.frame": "fg:ansibrightblack",
    "meld.frame.on": "bold",
    # a table meld's ends: blue where the selected card (or joker) can go (the core's
    # legal lay-offs), grey on the chosen run where it can not
    "meld.end": "fg:ansibrightblack",
    "meld.end.ok": "fg:ansibrightblue bold",
    "meld.end.on": "underline",
    "drag": "bg:ansiblue fg:ansiwhite bold",
    "button": "bg:ansigreen fg:ansiblack",
    "button.off": "bg:default fg:default noreverse",
    "button.knock": "bg:ansired fg:ansiwhite bold",
    "error": "fg:ansired bold",
    "log": "",
    "chat.input": "bg:ansiblue fg:ansiwhite",
    "status": "",
    "winner": "bg:ansiyellow fg:ansiblack bold",
    "alarm": "bg:ansired fg:ansiwhite bold blink",
    "points": "fg:ansibrightblack",
    "total": "bold",
    "help": "bg:ansiblack fg:ansiwhite",
    "lobby.title": "bg:ansiblue fg:ansiwhite bold",
    "lobby.item": "",
    "lobby.current": "reverse",
    "lobby.value": "bold",
    "lobby.disabled": "fg:ansibrightblack",
}
"""class -> prompt_toolkit style: the one palette."""

STYLE = Style.from_dict(PALETTE)
