"""The modules split for issue 27 (item 4, "largest module under 800 lines") stay split:
each is under the cap (a package by its ``__init__``), and each old home still offers
every name it had, as the very object of the new home (so ``P.X is messages.X``, and
importers, monkeypatching of the new home and the wire are unchanged)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 800

SPLIT = {
    "rami_lan.net.protocol": ("rami_lan.net.wire_checks", "rami_lan.net.messages", "rami_lan.net.session"),
    "rami_lan.net.mdns": ("rami_lan.net.ad_fields",),
    "rami_lan.net.record": ("rami_lan.net.record_bounds",),
    "rami_lan.core.round": ("rami_lan.core.round_state", "rami_lan.core.openings"),
    "rami_lan.core.solver.sweep": ("rami_lan.core.solver.sweep_options",),
    "rami_lan.table.verifier": tuple(f"rami_lan.table.verifier.{m}" for m in (
        "inputs", "outputs", "state", "replay", "protocol", "play", "checkpoint", "describe", "seat")),
    "rami_lan.masked.session": tuple(f"rami_lan.masked.session.{m}" for m in (
        "results", "deck_state", "base", "queries", "receive", "participant")),
    "rami_lan.net.presence": ("rami_lan.net.invitations", "rami_lan.net.ad_fields"),
    "rami_lan.net.client": ("rami_lan.net.client_link", "rami_lan.net.client_fairness",
                            "rami_lan.net.client_private"),
    "rami_lan.table.masked_seat": ("rami_lan.table.masked_seat_errors", "rami_lan.table.masked_seat_hold",
                                   "rami_lan.table.masked_seat_voids",
                                   "rami_lan.table.masked_seat_relaunch"),
    "rami_lan.table.machine": ("rami_lan.table.match_flow", "rami_lan.table.cards_chat",
                               "rami_lan.table.error_msgs"),
}

# Names the old homes must keep offering (what importers, tests and benchmarks use).
KEPT = {
    "rami_lan.net.protocol": (
        "Session", "Message", "KINDS", "Hello", "Masked", "PakeConfirm", "RemoteProtocolError",
        "LocalProtocolError", "ProtocolError", "check_plain", "MAX_FRAME", "MAX_ERROR_TEXT",
        "HOST_SEAT", "ROUND_TAG_PREFIX", "_HEADER", "_show", "_wire", "_Spec", "_int_in", "_text",
        "_uint", "_bool", "_bytes", "_bytes_upto", "_choice", "_nick", "_plain_map", "_plain_maps",
    ),
    "rami_lan.net.mdns": (
        "check_text", "check_int", "check_bool", "check_table_id", "check_fingerprint",
        "check_loose_fingerprint", "check_endpoint", "check_txt_sizes", "decode_txt", "parse_int",
        "parse_bool", "instance_name", "normalize_address", "MAX_TXT_ITEM_BYTES", "ServiceBrowser",
    ),
    "rami_lan.net.record": (
        "check_record", "check_round_entry", "RecordBoundsError", "MAX_ROUNDS", "MAX_FAILING_ROUNDS",
        "MAX_RECORD_BYTES", "RecordTooLargeError", "verify", "MatchRecord",
    ),
    "rami_lan.core.round": (
        "RoundState", "replace", "_set", "_remove", "_meld_fits", "_timeout_card",
        "opening_lay_downs", "legal_actions", "candidate_actions", "MAX_LISTED_OPENINGS",
    ),
    "rami_lan.core.solver.sweep": ("Sweep", "SweepTables", "shared_tables"),
    "rami_lan.table.verifier": (
        "SeatVerifier", "TableFacts", "Status", "Finding", "RoundFairness", "Input", "OBSERVER",
        "CommitAsked", "EventsSeen", "ViewSeen", "SecretsSeen", "MaskedOrders", "MaskedRoundSeen",
        "MaskedRefused", "audited_refills", "RELAUNCHED", "round_tag",
    ),
    "rami_lan.masked.session": (
        "Participant", "Phase", "Result", "Outgoing", "Event", "MaskedProtocolError",
        "MaskedStateError", "DeckReady", "CardReceived", "CardPublic", "FaultFound", "AuditComplete",
    ),
    "rami_lan.net.presence": (
        "PlayerAd", "PlayerBrowser", "PlayerAdvertiser", "PLAYER_SERVICE_TYPE", "MAX_NICK_BYTES",
        "Guestlist", "WhoMaySit", "Invitation", "InvitationInbox", "InviteAnswer", "InviteReply",
        "INVITATION_TTL", "cancel_to_plain", "decode_invite_message",
    ),
    "rami_lan.net.client": (
        "RemoteTableSession", "open_session", "JoinRefused", "PakeFailed", "FingerprintMismatch",
        "refusal_of", "_owner_masked", "_local_ipv4", "new_secret", "TABLE_NOTICE",
    ),
    "rami_lan.table.masked_seat": ("MaskedSeat", "MaskedSeatError", "Refusal", "RELAUNCH_SEQ_BASE", "_Tape"),
    "rami_lan.table.machine": ("Stage", "NOTICE_GRACE", "MAX_MESSAGE", "_clip", "_fits"),
}


def _lines(module: str) -> int:
    base = ROOT / module.replace(".", "/")
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    return len(path.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("module", sorted({m for old, new in SPLIT.items() for m in (old, *new)}))
def test_split_modules_are_under_the_cap(module: str) -> None:
    assert _lines(module) < MAX_LINES, f"{module} has {_lines(module)} lines (cap {MAX_LINES})"


@pytest.mark.parametrize("old", sorted(KEPT))
def test_old_homes_offer_their_names_as_the_same_objects(old: str) -> None:
    home = importlib.import_module(old)
    news = [importlib.import_module(m) for m in SPLIT[old]]
    for name in KEPT[old]:
        assert hasattr(home, name), f"{old} no longer offers {name}"
        value = getattr(home, name)
        for new in news:
            if name in vars(new):
                assert vars(new)[name] is value, f"{old}.{name} is a copy, not {new.__name__}'s"
