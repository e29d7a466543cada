"""Generate the schema tables of ``docs/protocol.md`` from the code's own schemas.

The wire protocol's tables (message fields, TXT keys, action / view / event payloads,
timers, limits) and the join-code test vector are written between markers in
``docs/protocol.md``::

    <!-- BEGIN GENERATED: messages -->
    ... (rewritten by this module) ...
    <!-- END GENERATED: messages -->

so they cannot drift from the code: ``tests/net/test_protocol.py`` fails when the
document is stale. Everything is derived from the code that validates the data: the
message classes of :mod:`rami_lan.net.protocol` (each field's check function, its
arguments read from the function itself), the TXT codec of
:mod:`rami_lan.net.discovery`, the action codec and the event / view dataclasses of
:mod:`rami_lan.core`. A check function or a type this module does not know makes it
raise, so a new kind of field cannot be published undocumented.

    python -m rami_lan.net.schema_doc            # rewrite docs/protocol.md
    python -m rami_lan.net.schema_doc --check    # exit 1 if it is stale
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import hmac
import re
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

__all__ = ["DOC_PATH", "SECTIONS", "generate", "pake_test_vector", "render", "update_text"]

DOC_PATH: Final = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
_BEGIN = "<!-- BEGIN GENERATED: {name} -->"
_END = "<!-- END GENERATED: {name} -->"


# --------------------------------------------------------------------------- messages


def _cell(fn: Callable[..., Any], name: str) -> Any:
    """The value of the closure variable ``name`` of a check function."""
    code = fn.__code__
    closure = fn.__closure__ or ()
    return dict(zip(code.co_freevars, (c.cell_contents for c in closure), strict=True))[name]


def describe_check(fn: Callable[..., Any]) -> str:
    """Human description of one of protocol.py's field checks (read from the function)."""
    from rami_lan.net import protocol as P

    qual = fn.__qualname__
    if qual == "_int_in.<locals>.parse":
        low, high, extra = _cell(fn, "low"), _cell(fn, "high"), _cell(fn, "extra")
        if (low, high) == (0, P.MAX_UINT) and not extra:
            return "uint (int 0..2^63-1)"
        more = "".join(f" or {x}" for x in extra)
        return f"int {low}..{high}{more}"
    if qual == "_text.<locals>.parse":
        return f"printable text, {_cell(fn, 'low')}..{_cell(fn, 'high')} characters"
    if qual == "_choice.<locals>.parse":
        return "one of " + ", ".join(f"`{o}`" for o in sorted(_cell(fn, "options")))
    if qual == "_bytes.<locals>.parse":
        return f"bin, exactly {_cell(fn, 'length')} bytes"
    if qual == "_bytes_upto.<locals>.parse":
        return f"bin, 1..{_cell(fn, 'high')} bytes"
    named = {
        "_bool": "bool",
        "_nick": f"printable text, 1..{P.MAX_NICK} characters, no leading/trailing space",
        "_ident": "identifier `[a-z][a-z0-9_]{0,31}`",
        "_round_tag": f"bin, {P.ROUND_TAG_LEN} bytes: `rami-lan/v1` + table id (16) + "
        "u32 match (>= 1) + u32 round (>= 1)",
        "_plain_map": "map of plain data (see Plain data)",
        "_plain_maps": "array of maps of plain data",
        "_masked_map": "map of plain data whose `k` is a masked-deck kind (docs/masked_deck.md)",
        "_card_map": f"map of plain data, depth <= {P.MAX_CARD_DEPTH}, <= {P.MAX_CARD_ITEMS} "
        f"values, <= {P.MAX_CARD} bytes encoded",
        "_invitation_id": "str, 32 lowercase hex digits",
        "_seat_bytes_map": "map: decimal seat (`\"0\"`..`\"3\"`, `\"255\"`) -> bin 32 bytes",
        "_seat_list": "array of distinct participant seats (0..3 or 255)",
        "_reason_map": f"map `code` (identifier) + `data` (<= {P.MAX_REASON_DATA} identifier "
        f"keys -> int, text <= {P.MAX_MESSAGE} characters, or a nested reason map; nested <= "
        f"{P.MAX_REASON_DEPTH}, <= {P.MAX_REASON_VALUES} values in all)",
        "_seat_reasons": "map: decimal seat -> reason code `[a-z][a-z0-9_]{0,31}` "
        "(`bad_reveal`, `no_reveal`)",
    }
    if qual in named:
        return named[qual]
    raise ValueError(f"schema_doc does not know the field check {qual}: describe it")


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def messages_section() -> str:
    from rami_lan.net import protocol as P

    out = []
    for kind, cls in P.KINDS.items():
        senders = " and ".join(
            {"client": "client -> host", "host": "host -> client"}[s] for s in sorted(cls.SENDERS)
        )
        rows = []
        for spec in cls._SPEC:
            default = ""
            f = next(x for x in dataclasses.fields(cls) if x.name == spec.name)
            if not spec.required:
                shown = "omitted" if f.default is None else f"{f.default!r}".lower()
                default = f"optional (absent: {shown})"
            else:
                default = "required"
            rows.append((f"`{spec.name}`", describe_check(spec.parse), default))
        out.append(f"#### `{kind}` ({senders})\n\n" + _table(("field", "type", "presence"), rows))
    return "\n\n".join(out)


# --------------------------------------------------------------------------- discovery


def txt_section() -> str:
    from rami_lan.net import discovery as D
    from rami_lan.net import mdns as M

    meaning = {
        "pv": ("protocol version", f"decimal 1..{D.MAX_PROTOCOL_VERSION}; this spec is 1"),
        "id": ("table id", "8..32 lowercase hex digits (the host sends the 32 hex digits of "
               "`welcome.table_id`)"),
        "n": ("table name", f"UTF-8, 1..{D.MAX_NAME_BYTES} bytes of printable text (section 3: no "
              "control, format or bidi character; the space is the only separator), no "
              "leading or trailing space"),
        "h": ("host player's nickname", f"UTF-8, 1..{D.MAX_HOST_BYTES} bytes, same rules as `n`"),
        "v": ("variant", "one of " + ", ".join(f"`{v}`" for v in D.VARIANT_IDS)),
        "st": ("seats taken (bots and seats held for dropped players count)",
               "decimal 0..`sn`"),
        "sn": ("seats in all", f"decimal {D.MIN_SEATS}..{D.MAX_SEATS}"),
        "c": ("a join code (or an invitation) is needed", "`0` or `1`"),
        "pl": ("point limit of the match (0: none)", f"decimal 0..{D.MAX_POINT_LIMIT}"),
        "f": ("frapper (knocking) allowed", "`0` or `1`"),
        "t": ("move timer, seconds per turn (0: off)", f"decimal 0..{D.MAX_TIMER}"),
        "fp": ("TLS fingerprint to pin", "64 lowercase hex digits (SHA-256 of the certificate "
               "DER), or empty"),
    }
    meaning["pd"] = ("private dealing (masked deck: the host sees only its own cards); "
                     "optional, absent: `0`", "`0` or `1`")
    missing = set(D.TXT_KEYS + D.OPTIONAL_TXT_KEYS) - set(meaning)
    if missing:
        raise ValueError(f"schema_doc does not describe TXT keys {sorted(missing)}")
    rows = [(f"`{k}`", meaning[k][0], meaning[k][1]) for k in D.TXT_KEYS + D.OPTIONAL_TXT_KEYS]
    rows.append((f"`{M.REVISION_KEY}`", "revision (ignore it)",
                 "lowercase hex; changes with every update so caches see a flip back"))
    return _table(("key", "meaning", "value (all values are UTF-8 text)"), rows)


# --------------------------------------------------------------------------- payloads

_ACTION_FIELDS: Final = {
    "kind": "the action kind (this row's name)",
    "seat": "int 0..255: the sender's own seat (another seat is refused)",
    "depth": "int 1..200, optional (default 1): how deep in the discard pile to take",
    "melds": "array of 1..20 maps `{\"cards\": [card id, ...] (1..14), \"kind\"?: \"set\"|\"run\"|nil}`",
    "card": "card id (int)",
    "target": "int 0..500: index of a meld on the table",
    "end": "`\"low\"`, `\"high\"` or nil, optional: which end of a run to extend",
    "cards": "array of 1..2 card ids",
}
_ACTION_REQUIRED_OPTIONAL: Final = {"depth", "end"}


def actions_section() -> str:
    from rami_lan.core import codec

    rows = []
    for kind, names in codec._FIELDS.items():
        unknown = set(names) - set(_ACTION_FIELDS)
        if unknown:
            raise ValueError(f"schema_doc does not describe action fields {sorted(unknown)}")
        cols = []
        for name in sorted(names, key=lambda n: (n != "kind", n != "seat", n)):
            opt = "?" if name in _ACTION_REQUIRED_OPTIONAL else ""
            cols.append(f"`{name}`{opt}")
        rows.append((f"`{kind}`", ", ".join(cols)))
    fields = _table(("field", "type"), [(f"`{k}`", v) for k, v in _ACTION_FIELDS.items()])
    return _table(("`kind`", "fields (`?`: optional)"), rows) + "\n\n" + fields


def wire_type(hint: Any) -> str:
    """How a core dataclass field travels (``rami_lan.core.codec._enc_value``)."""
    from rami_lan.core.cards import Card
    from rami_lan.core.events import Event
    from rami_lan.core.melds import Meld
    from rami_lan.core.views import PlayerInfo

    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is int:
        return "int"
    if hint is bool:
        return "bool"
    if hint is str:
        return "str"
    if hint is bytes:
        return "bin"
    if hint is type(None):
        return "nil"
    if hint is Card:
        return "card"
    if hint is Meld:
        return "meld"
    if hint is PlayerInfo:
        return "PlayerInfo"
    if isinstance(hint, type) and issubclass(hint, Event):
        return f"event {hint.__name__}"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(wire_type(a) for a in args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"array of ({wire_type(args[0])})"
        return "array [" + ", ".join(wire_type(a) for a in args) + "]"
    if origin is typing.Literal:
        return " or ".join(f"`{a!r}`" for a in args)
    if isinstance(hint, str):  # an unresolved alias such as Kind
        return "str"
    raise ValueError(f"schema_doc does not know how {hint!r} travels")


def _dataclass_table(cls: type) -> str:
    hints = typing.get_type_hints(cls)
    rows = [(f"`{f.name}`", wire_type(hints[f.name])) for f in dataclasses.fields(cls)]
    return _table(("field", "type"), rows)


def events_section() -> str:
    from rami_lan.core import codec

    out = []
    for name, cls in sorted(codec._EVENT_TYPES.items()):
        out.append(f"#### `{name}`\n\n" + _dataclass_table(cls))
    return "\n\n".join(out)


def views_section() -> str:
    from rami_lan.core.melds import Meld
    from rami_lan.core.views import PlayerInfo, SeatView

    meld_rows = [
        ("`k`", "str: `set` or `run`"),
        ("`c`", "array of card ids (plain ints), in meld order"),
        ("`r`", "array of int: the rank each card stands for (1..13, 14 = high ace; jokers too)"),
        ("`s`", "array of str or nil: the suit each card stands for"),
        ("`o`", "int: seat that laid the meld (-1: unknown)"),
    ]
    if [f.name for f in dataclasses.fields(Meld)] != ["kind", "cards", "ranks", "suits", "owner"]:
        raise ValueError("Meld fields changed: update the meld table of schema_doc")
    return (
        "#### `SeatView` (the `view` payload)\n\n" + _dataclass_table(SeatView)
        + "\n\n#### `PlayerInfo` (items of `SeatView.players`)\n\n" + _dataclass_table(PlayerInfo)
        + "\n\n#### meld (a map without `type`)\n\n" + _table(("key", "type"), meld_rows)
    )


def timers_section() -> str:
    from rami_lan.net import guard as G
    from rami_lan.net import mdns as M
    from rami_lan.net import protocol as P

    cfg = G.GuardConfig()
    rows = [
        ("`PING_INTERVAL`", f"{G.PING_INTERVAL:g} s", "a peer with nothing to send sends `ping` "
         "this often"),
        ("`IDLE_TIMEOUT`", f"{G.IDLE_TIMEOUT:g} s", "the host drops an established peer it "
         "received no byte from for this long"),
        ("`TLS_HANDSHAKE_TIMEOUT`", f"{G.TLS_HANDSHAKE_TIMEOUT:g} s", "TLS handshake after the "
         "TCP accept"),
        ("`HELLO_DEADLINE`", f"{G.HELLO_DEADLINE:g} s", "from the end of TLS to a complete `hello`"),
        ("`HANDSHAKE_DEADLINE`", f"{G.HANDSHAKE_DEADLINE:g} s", "from the end of TLS to `welcome` "
         "(join-code exchange included); then `refused`"),
        ("`WRITE_TIMEOUT`", f"{G.WRITE_TIMEOUT:g} s", "a peer that does not read for this long "
         "is dropped"),
        ("`MAX_FRAME`", f"{P.MAX_FRAME} bytes", "largest frame body"),
        ("`messages_per_s` / `message_burst`", f"{cfg.messages_per_s:g} / {cfg.message_burst:g}",
         "messages a connection may send per second on average / at once (token bucket); "
         "beyond: `error` `rate_limited`, then the connection is closed"),
        ("`bytes_per_s` / `byte_burst`", f"{cfg.bytes_per_s:g} / {cfg.byte_burst:g}",
         "the same for bytes"),
        ("`MIN_UPDATE_INTERVAL`", f"{M.MIN_UPDATE_INTERVAL:g} s", "mDNS: at most one TXT update "
         "per service this often (RFC 6762 sections 6 and 8.4)"),
    ]
    return _table(("name", "value", "meaning"), rows)


# --------------------------------------------------------------------------- PAKE vector


def _entropy(label: bytes) -> Callable[[int], bytes]:
    def entropy(n: int) -> bytes:
        out = b""
        counter = 0
        while len(out) < n:
            out += hashlib.sha256(label + counter.to_bytes(4, "big")).digest()
            counter += 1
        return out[:n]

    return entropy


def pake_test_vector() -> dict[str, str]:
    """A deterministic run of the join-code exchange, with every intermediate value (hex).

    The SPAKE2 scalars come from fixed "entropy" (SHA-256 of a label and a counter), as
    python-spake2 reduces 64 entropy bytes (big-endian) modulo L.
    """
    from spake2 import SPAKE2_A, SPAKE2_B
    from spake2.ed25519_basic import L, scalar_to_bytes

    from rami_lan.net import pake

    code = "Tulipe-42"
    fingerprint = hashlib.sha256(b"rami-lan test certificate").hexdigest()
    password = pake.normalize_code(code)
    client_e, host_e = _entropy(b"rami-lan test client"), _entropy(b"rami-lan test host")
    x = int.from_bytes(_entropy(b"rami-lan test client")(64), "big") % L
    y = int.from_bytes(_entropy(b"rami-lan test host")(64), "big") % L
    a = SPAKE2_A(password, idA=pake._ID_CLIENT, idB=pake._ID_HOST, entropy_f=client_e)
    b = SPAKE2_B(password, idA=pake._ID_CLIENT, idB=pake._ID_HOST, entropy_f=host_e)
    host_msg = b.start()
    client_msg = a.start()
    k_client = a.finish(host_msg)
    k_host = b.finish(client_msg)
    assert k_client == k_host
    group = a.params.group
    inbound = group.bytes_to_element(host_msg[1:])
    k_elem = inbound.add(a.params.N.scalarmult(-a.pw_scalar)).scalarmult(a.xy_scalar)
    k_confirm = hmac.digest(k_client, pake._KEY_LABEL_CONFIRM, hashlib.sha256)
    fp = bytes.fromhex(fingerprint)

    def mac(role: bytes) -> bytes:
        data = pake._CONFIRM_LABEL + b"\x00" + role + b"\x00" + fp
        return hmac.digest(k_confirm, data, hashlib.sha256)

    params = a.params
    return {
        "code": code,
        "password": password.hex(),
        "pw_scalar_le": scalar_to_bytes(a.pw_scalar).hex(),
        "M": params.M.to_bytes().hex(),
        "N": params.N.to_bytes().hex(),
        "idA": pake._ID_CLIENT.decode(),
        "idB": pake._ID_HOST.decode(),
        "client_scalar_x_le": scalar_to_bytes(x).hex(),
        "host_scalar_y_le": scalar_to_bytes(y).hex(),
        "host_pake_msg": host_msg.hex(),
        "client_pake_msg": client_msg.hex(),
        "K": k_elem.to_bytes().hex(),
        "spake2_key": k_client.hex(),
        "k_confirm": k_confirm.hex(),
        "fingerprint": fingerprint,
        "client_mac": mac(b"client").hex(),
        "host_mac": mac(b"host").hex(),
    }


def pake_section() -> str:
    vec = pake_test_vector()
    lines = ["```text"]
    width = max(len(k) for k in vec)
    lines += [f"{k.ljust(width)} = {v}" for k, v in vec.items()]
    lines.append("```")
    return "\n".join(lines)


# --------------------------------------------------------------------------- the file

SECTIONS: Final[dict[str, Callable[[], str]]] = {
    "txt-keys": txt_section,
    "messages": messages_section,
    "actions": actions_section,
    "events": events_section,
    "views": views_section,
    "timers": timers_section,
    "pake-vector": pake_section,
}


def render() -> dict[str, str]:
    return {name: make() for name, make in SECTIONS.items()}


def update_text(text: str, generated: dict[str, str] | None = None) -> str:
    """``text`` with every generated section rewritten. Raises ValueError if a marker
    pair is missing."""
    generated = render() if generated is None else generated
    for name, body in generated.items():
        begin, end = _BEGIN.format(name=name), _END.format(name=name)
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
        if not pattern.search(text):
            raise ValueError(f"docs/protocol.md has no {begin} ... {end} pair")
        replacement = f"{begin}\n\n{body}\n\n{end}"
        text = pattern.sub(lambda _m, r=replacement: r, text, count=1)
    return text


def generate(path: Path = DOC_PATH, *, check: bool = False) -> bool:
    """Rewrite ``path`` (or, with ``check``, only compare); True if it was up to date."""
    old = path.read_text(encoding="utf-8")
    new = update_text(old)
    if new == old:
        return True
    if not check:
        path.write_text(new, encoding="utf-8")
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the document is stale")
    parser.add_argument("path", nargs="?", type=Path, default=DOC_PATH)
    args = parser.parse_args(argv)
    fresh = generate(args.path, check=args.check)
    if args.check and not fresh:
        print(f"{args.path} is stale: run python -m rami_lan.net.schema_doc", file=sys.stderr)
        return 1
    if not args.check:
        print(f"{args.path}: {'unchanged' if fresh else 'updated'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
