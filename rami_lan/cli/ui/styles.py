"""Colours of the terminal UI (one prompt_toolkit Style for every screen)."""

from __future__ import annotations

from prompt_toolkit.styles import Style

STYLE = Style.from_dict(
    {
        "header": "bg:ansiblue fg:ansiwhite",
        "header.clock": "bg:ansiblue fg:ansiyellow bold",
        "header.clock.low": "bg:ansired fg:ansiwhite bold",
        "header.warn": "bg:ansired fg:ansiwhite",
        "chip": "bg:ansiwhite fg:ansibrightblack",
        "card.black": "bg:ansiwhite fg:ansiblack",
        "card.red": "bg:ansiwhite fg:ansired",
        "card.clubs": "bg:ansiwhite fg:ansigreen",
        "card.diamonds": "bg:ansiwhite fg:ansiblue",
        "card.joker": "bg:ansiwhite fg:ansimagenta bold",
        "hint": "underline",
        "cursor": "reverse",
        "cursor.mark": "fg:ansiyellow bold",
        "staged": "fg:ansicyan bold",
        "depth": "bg:ansiyellow",
        "stock": "fg:ansicyan bold",
        "label": "bold",
        "dim": "fg:ansibrightblack",
        "turn.arrow": "fg:ansigreen bold",
        "turn.mine": "fg:ansired bold",
        "player": "",
        "player.me": "bold",
        "eliminated": "fg:ansired bold",
        "opened": "fg:ansigreen",
        "warn": "fg:ansiyellow bold",
        "meld.label": "fg:ansibrightblack",
        "meld.target": "reverse",
        "button": "bg:ansigreen fg:ansiblack",
        "button.off": "fg:ansibrightblack",
        "button.knock": "bg:ansired fg:ansiwhite bold",
        "error": "fg:ansired bold",
        "log": "fg:ansicyan",
        "chat.input": "bg:ansiblue fg:ansiwhite",
        "status": "fg:ansibrightblack",
        "winner": "fg:ansiyellow bold",
        "alarm": "bg:ansired fg:ansiwhite bold blink",
        "points": "fg:ansibrightblack",
        "total": "bold",
        "help": "bg:ansiblack fg:ansiwhite",
        "lobby.title": "bg:ansiblue fg:ansiwhite bold",
        "lobby.item": "",
        "lobby.current": "reverse",
        "lobby.value": "fg:ansicyan",
        "lobby.disabled": "fg:ansibrightblack",
    }
)
