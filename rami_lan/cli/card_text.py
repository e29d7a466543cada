"""The "Info joueur" card as players read it: its title, the connection states' names and
the card's lines (English and French), for the table's panel and the lobby's statistics
page. The card itself is a pure value (`rami_lan.player_card`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rami_lan.i18n import _, language
from rami_lan.player_card import Connection, PlayerCard, PlayerStats

__all__ = ["card_lines", "card_title", "connection_label"]


def card_title() -> str:
    """The translated title of the panel ("Info joueur")."""
    return _("Player info")


def connection_label(connection: Connection) -> str:
    """The translated name of a connection state."""
    labels = {
        Connection.YOU: _("you"),
        Connection.CONNECTED: _("connected"),
        Connection.RECONNECTING: _("reconnecting…"),
        Connection.STAND_IN: _("away: a bot plays for them"),
        Connection.LEFT: _("left the table"),
        Connection.BOT: _("bot"),
    }
    return labels[connection]


def _stats_lines(stats: PlayerStats) -> list[str]:
    lines = [
        _("Matches: {played} played, {won} won").format(
            played=stats.matches_played, won=stats.matches_won
        ),
        _("Rounds: {played} played, {won} won").format(
            played=stats.rounds_played, won=stats.rounds_won
        ),
    ]
    avg = stats.average_penalty
    if avg is not None:
        shown = f"{avg:.1f}"
        if language() == "fr":
            shown = shown.replace(".", ",")
        lines.append(_("Average penalty: {avg} points").format(avg=shown))
    lines.append(_("Rami secs: {n}").format(n=stats.rami_secs))
    lines.append(_("Best streak: {best} (current: {current})").format(
        best=stats.best_streak, current=stats.current_streak
    ))
    return lines


def card_lines(card: PlayerCard, *, variants: Sequence[str] | None = None) -> list[str]:
    """The card as translated text lines, for the "Info joueur" panel.

    ``variants`` limits the per-variant sections (e.g. to the table's variant);
    None shows all of them.
    """
    title = card.nickname if card.player_id is None else f"{card.nickname} ({card.player_id[:6]})"
    lines = [title, _("Connection: {state}").format(state=connection_label(card.connection))]
    if card.stats is None:
        lines.append(_("No statistics."))
        return lines
    if card.reported:
        lines.append(_("Statistics reported by the player (not verified)."))
    lines += _stats_lines(card.stats)
    for stats in card.by_variant:
        if variants is not None and stats.variant not in variants:
            continue
        lines.append(_("Variant {variant}:").format(variant=stats.variant))
        lines += ["  " + line for line in _stats_lines(stats)]
    return lines
