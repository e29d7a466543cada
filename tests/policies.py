"""Scripted bot policies the tests share (imported by test modules, not collected)."""

from __future__ import annotations

from typing import Any

from rami_lan.core import actions as A


class StockOnly:
    """Draws from the stock and throws the drawn card back: the stock runs out."""

    think_delay = 0.0

    def choose(self, view: Any, new_events: Any) -> Any:
        if view.phase == "draw":
            return A.DrawStock(view.seat)
        naturals = [c for c in view.hand if not c.is_joker]
        card = view.hand[-1] if not view.hand[-1].is_joker else naturals[0]
        return A.Discard(view.seat, card)

    def wants_knock(self, view: Any, new_events: Any = ()) -> bool:
        return False
