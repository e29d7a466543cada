"""The host's ``error`` messages, within the wire's bounds: the English text clipped
and made printable (`MAX_MESSAGE`), a refusal's coded reason only if it fits what the
wire checks (`_fits`), the message itself (`error_msg`).

Split out of `rami_lan.table.machine` (its ``_error`` sends these), which still offers
`MAX_MESSAGE`, `_clip` and `_fits`.
"""

from __future__ import annotations

from rami_lan.core.reasons import MAX_NESTING, Reason
from rami_lan.wire import messages as W

__all__ = ["MAX_MESSAGE", "error_msg"]

MAX_MESSAGE = 500
"""Longest error text on the wire (`rami_lan.net.protocol.MAX_MESSAGE`)."""


def _clip(text: str) -> str:
    text = "".join(ch if ch.isprintable() else " " for ch in text)
    return text[:MAX_MESSAGE]


def _fits(reason: Reason, depth: int = MAX_NESTING) -> bool:
    """Does ``reason`` fit the bounds the wire checks (`rami_lan.wire.checks`): a
    known code, at most 8 data, printable texts of at most `MAX_MESSAGE` characters,
    nested at most `MAX_NESTING` deep? (Else the ``error`` goes without it.)"""
    if depth < 1 or len(reason.data) > 8:
        return False
    for v in reason.data.values():
        if isinstance(v, Reason):
            if not _fits(v, depth - 1):
                return False
        elif isinstance(v, str) and not (len(v) <= MAX_MESSAGE and v.isprintable()):
            return False
        elif isinstance(v, int) and not -(2**63) <= v < 2**63:
            return False
    return len(reason.code) <= 32



def error_msg(code: str, message: str, ref: int | None = None,
              reason: Reason | None = None) -> W.Error:
    """``error``: ``code``, the English ``message``, and, for a refusal of the rules, its
    coded ``reason`` (plain, when it fits the wire's bounds)."""
    return W.Error(code=code, message=_clip(message), ref=ref,
                   reason=reason.to_plain() if reason is not None and _fits(reason) else None)
