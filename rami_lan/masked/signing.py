"""Signed masked-deck messages and the host's receipts: blame that can not be framed.

Every participant of a private table holds an Ed25519 **seat key** (`SeatKey`, from
``cryptography``): a client draws one when it joins the table (kept in its keys journal,
so a relaunched client signs with the same key) and announces its public key to the host
(``mk_seatkey``, self-signed over the table id, the seat and the key). The host's own key
is drawn per round from the round's journaled secret seed (`host_key`), so a restarted
host signs with it again. The host lists every participant's announcement and its own key
in each round's ``mk_round`` (the **roster**); a seat checks that its own key is listed
as it announced it and every other announcement's self-signature.

**What is signed.** Every masked message a participant originates (shuffle steps, key
releases, reveals, hand gifts and hand-overs, audits) carries ``sig``: its author's
signature over `signed_bytes`: a domain string, the roster's digest (`Roster.digest`:
the round tag, the host, every participant's key) and the message's canonical encoding
(`canonical`: msgpack of its plain form without ``sig``, map keys sorted), which holds
its round tag ``tag``, its channel (``to`` for a key, the kind for the others) and its
sequence number ``n``. Two seats given different rosters by the host can not take each
other's genuine messages: every signature fails, and the host, their only relay, is
named. A relayed message whose signature does not verify under its author's announced
key is refused: at a client, naming the host (it relayed, or forged, it); at the host,
naming its sender (it came on that seat's own connection).

**Receipts.** For each masked message the host takes from a seat (used, or named as
faulty and kept back), it returns a `Receipt` to that seat, signed with the host's key:
the author, kind, deck, position, recipient, channel and number of the message, the
digest of its signed form, and the seats the host relays it to. A seat keeps the
receipts of what it sent and lists them in its audit. A "sent" claim is believed only
with the host's receipt: a receipted message relayed to a seat that never got it is the
host's fault (``DROPPED``, proven by the host's own signature); a claim without a
receipt is its author's word alone, and names nobody.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from rami_lan.masked import kinds as MK

__all__ = [
    "ANNOUNCE",
    "PUBLIC_SIZE",
    "SIG_SIZE",
    "Roster",
    "SeatKey",
    "SeatKeyAnnouncement",
    "SignatureError",
    "canonical",
    "check_announcement",
    "host_key",
    "signed_bytes",
]

PUBLIC_SIZE = 32
SIG_SIZE = 64
SEED_SIZE = 32
ANNOUNCE = MK.SEATKEY
"""Table-level message kind: a seat announces its public key (see the module docstring)."""

_MESSAGE_DOMAIN = b"rami-lan masked message signature v1\x00"
_RECEIPT_DOMAIN = b"rami-lan masked receipt v1\x00"
_ANNOUNCE_DOMAIN = b"rami-lan seat key announcement v1\x00"
_ROSTER_DOMAIN = b"rami-lan masked roster v1\x00"
_HOST_DOMAIN = b"rami-lan host signing key v1\x00"


class SignatureError(ValueError):
    """A signature, a receipt or an announcement does not verify (the text says whose)."""


def canonical(plain: Mapping[str, Any]) -> bytes:
    """The canonical bytes of a message's plain form, its ``sig`` left out: msgpack with
    the map's keys sorted (its values are ints, bytes, None and lists, as `to_plain` gives)."""
    items = sorted((k, _norm(v)) for k, v in plain.items() if k != "sig")
    return msgpack.packb(dict(items), use_bin_type=True)


def _norm(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return [_norm(v) for v in value]
    return value


class SeatKey:
    """One participant's Ed25519 signing key (from a 32-byte seed)."""

    def __init__(self, seed: bytes) -> None:
        if not isinstance(seed, bytes) or len(seed) != SEED_SIZE:
            raise ValueError(f"a seat key's seed is {SEED_SIZE} bytes")
        self.seed = seed
        self._key = Ed25519PrivateKey.from_private_bytes(seed)
        self.public = self._key.public_key().public_bytes_raw()

    @classmethod
    def generate(cls, entropy: Callable[[int], bytes]) -> SeatKey:
        return cls(entropy(SEED_SIZE))

    def sign(self, data: bytes) -> bytes:
        return self._key.sign(data)

    def announcement(self, table_id: str, seat: int) -> dict[str, Any]:
        """The ``mk_seatkey`` message announcing this key for ``seat`` at ``table_id``."""
        plain = {"k": ANNOUNCE, "seat": seat, "pub": self.public, "table": table_id}
        return {**plain, "sig": self.sign(_ANNOUNCE_DOMAIN + canonical(plain))}


def host_key(round_seed: bytes) -> SeatKey:
    """The host's signing key for one round, from the round's 32-byte secret seed (which
    the host journals): the same key after a restart."""
    return SeatKey(hashlib.sha256(_HOST_DOMAIN + round_seed).digest())


def verify(public: bytes, sig: object, data: bytes) -> bool:
    """Does ``sig`` sign ``data`` under the public key ``public``?"""
    if not isinstance(sig, bytes) or len(sig) != SIG_SIZE:
        return False
    try:
        _public(public).verify(sig, data)
    except (InvalidSignature, ValueError):
        return False
    return True


_PUBLIC_CACHE: dict[bytes, Ed25519PublicKey] = {}


def _public(public: bytes) -> Ed25519PublicKey:
    key = _PUBLIC_CACHE.get(public)
    if key is None:
        if len(_PUBLIC_CACHE) > 4096:
            _PUBLIC_CACHE.clear()
        key = _PUBLIC_CACHE[public] = Ed25519PublicKey.from_public_bytes(public)
    return key


def _announcement_fields(plain: object) -> tuple[int, bytes, str]:
    """A ``mk_seatkey`` map's (seat, pub, table); raises `SignatureError` if malformed."""
    if not isinstance(plain, Mapping) or set(plain) != {"k", "seat", "pub", "table", "sig"}:
        raise SignatureError("a seat key announcement has exactly the fields k, seat, pub, table, sig")
    seat, pub, table = plain["seat"], plain["pub"], plain["table"]
    if (plain["k"] != ANNOUNCE or not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 255
            or not isinstance(pub, bytes) or len(pub) != PUBLIC_SIZE or not isinstance(table, str)
            or len(table) > 128):
        raise SignatureError("a seat key announcement's fields are out of range")
    return seat, pub, table


@dataclass(frozen=True, slots=True)
class SeatKeyAnnouncement:
    """A ``mk_seatkey`` message, its fields checked (`from_plain`); its self-signature is
    checked by `check_announcement` where the key is taken."""

    seat: int
    pub: bytes
    table: str
    sig: object

    @classmethod
    def from_plain(cls, plain: object) -> SeatKeyAnnouncement:
        seat, pub, table = _announcement_fields(plain)
        assert isinstance(plain, Mapping)
        return cls(seat, pub, table, plain["sig"])

    def to_plain(self) -> dict[str, Any]:
        return {"k": ANNOUNCE, "seat": self.seat, "pub": self.pub, "table": self.table, "sig": self.sig}


def check_announcement(plain: object, table_id: str = "") -> tuple[int, bytes]:
    """A ``mk_seatkey`` message -> (seat, public key); raises `SignatureError` if it is
    malformed, not self-signed, or (``table_id`` given) of another table."""
    seat, pub, table = _announcement_fields(plain)
    assert isinstance(plain, Mapping)
    if table_id and table and table != table_id:
        raise SignatureError(f"seat {seat}'s key is announced for another table")
    try:
        _public(pub)
    except ValueError:
        raise SignatureError(f"seat {seat}'s announced key is not an Ed25519 key") from None
    if not verify(pub, plain["sig"], _ANNOUNCE_DOMAIN + canonical(plain)):
        raise SignatureError(f"seat {seat}'s key announcement is not signed by that key")
    return seat, pub


@dataclass(frozen=True, slots=True)
class Roster:
    """One round's keys: each participant's public key, the host's among them."""

    tag: bytes
    host: int
    keys: Mapping[int, bytes]
    announcements: tuple[dict[str, Any], ...] = ()
    """The seats' own ``mk_seatkey`` messages (the host's key needs none: it is the relay)."""

    @property
    def digest(self) -> bytes:
        """What every signature of the round is bound to (see the module docstring)."""
        body = [self.tag, self.host, [[s, k] for s, k in sorted(self.keys.items())]]
        return hashlib.sha256(_ROSTER_DOMAIN + msgpack.packb(body, use_bin_type=True)).digest()

    def to_plain(self) -> dict[str, Any]:
        """The ``mk_round`` fields that carry it: ``hkey`` (the host's key), ``keys``."""
        return {"hkey": self.keys[self.host], "keys": [dict(a) for a in self.announcements]}

    @classmethod
    def from_plain(cls, tag: bytes, host: int, participants: Iterable[int], plain: Mapping[str, Any],
                   table_id: str = "") -> Roster:
        """From a ``mk_round``'s ``hkey`` and ``keys``; raises `SignatureError` unless every
        participant but the host has exactly one self-signed announcement."""
        hkey, items = plain.get("hkey"), plain.get("keys")
        if not isinstance(hkey, bytes) or len(hkey) != PUBLIC_SIZE or not isinstance(items, list):
            raise SignatureError("mk_round's roster needs hkey (the host's key) and keys")
        keys: dict[int, bytes] = {host: hkey}
        for item in items[:256]:
            seat, pub = check_announcement(item, table_id)
            if seat in keys:
                raise SignatureError(f"the roster lists seat {seat}'s key twice")
            keys[seat] = pub
        if set(keys) != set(participants) | {host}:
            raise SignatureError(f"the roster's keys are of seats {sorted(keys)}, the round's participants "
                                 f"are {sorted(participants)}")
        return cls(tag, host, keys, tuple(dict(a) for a in items))


def signed_bytes(digest: bytes, plain: Mapping[str, Any]) -> bytes:
    """What a message's ``sig`` signs: the domain, the roster digest, its canonical form."""
    return _MESSAGE_DOMAIN + digest + canonical(plain)


class Signing:
    """One participant's signing state for a round: its key and the round's roster."""

    def __init__(self, roster: Roster, key: SeatKey | None) -> None:
        self.roster = roster
        self.key = key
        self.digest = roster.digest

    def sign(self, plain: Mapping[str, Any]) -> bytes:
        assert self.key is not None
        return self.key.sign(signed_bytes(self.digest, plain))

    def valid(self, author: int, plain: Mapping[str, Any]) -> bool:
        public = self.roster.keys.get(author)
        return public is not None and verify(public, plain.get("sig"), signed_bytes(self.digest, plain))

    def message_digest(self, plain: Mapping[str, Any]) -> bytes:
        """The digest a receipt names a message by (its signed form, ``sig`` included)."""
        return hashlib.sha256(canonical(plain) + bytes(plain.get("sig", b""))).digest()

    def receipt(self, r: Receipt) -> Receipt:
        """``r`` signed with our key (the host's)."""
        assert self.key is not None
        return replace(r, sig=self.key.sign(_RECEIPT_DOMAIN + self.digest + canonical(r.to_plain())))

    def receipt_valid(self, r: Receipt) -> bool:
        """Is ``r`` signed by the round's host?"""
        return verify(self.roster.keys[self.roster.host], r.sig,
                      _RECEIPT_DOMAIN + self.digest + canonical(r.to_plain()))


@dataclass(frozen=True, slots=True)
class Receipt:
    """The host's signed word that it took one masked message from ``author``.

    ``kind``, ``deck``, ``position`` (-1: none), ``to`` (a key's recipient, None: all)
    say which message; ``channel`` and ``n`` are its stamp; ``digest`` the hash of its
    signed form; ``relayed`` the seats the host passes it on to (empty: kept, e.g. a key
    for the host, or a faulty key it names and keeps back)."""

    author: int
    kind: str
    deck: int
    position: int
    to: int | None
    channel: int
    n: int
    digest: bytes
    relayed: tuple[int, ...]
    sig: bytes = b""

    KIND = MK.RECEIPT

    def to_plain(self) -> dict[str, Any]:
        plain: dict[str, Any] = {"k": self.KIND, "seat": self.author, "kind": self.kind, "deck": self.deck,
                                 "pos": self.position, "to": self.to, "ch": self.channel, "n": self.n,
                                 "d": self.digest, "relayed": list(self.relayed)}
        if self.sig:
            plain["sig"] = self.sig
        return plain

    def for_(self, kind: str, deck: int, position: int, to: int | None) -> bool:
        return (self.kind, self.deck, self.position, self.to) == (kind, deck, position, to)

    @classmethod
    def parse(cls, plain: object) -> Receipt:
        """Strictly; raises `SignatureError` (a ValueError) if malformed."""
        fields = {"k", "seat", "kind", "deck", "pos", "to", "ch", "n", "d", "relayed", "sig"}
        if not isinstance(plain, Mapping) or set(plain) != fields or plain["k"] != cls.KIND:
            raise SignatureError("a receipt has exactly the fields " + ", ".join(sorted(fields)))

        def num(name: str, low: int, high: int) -> int:
            v = plain[name]
            if not isinstance(v, int) or isinstance(v, bool) or not low <= v <= high:
                raise SignatureError(f"a receipt's {name} must be an int in {low} .. {high}")
            return v

        kind, digest, relayed = plain["kind"], plain["d"], plain["relayed"]
        sig, to = plain["sig"], plain["to"]
        if not isinstance(kind, str) or len(kind) > 16:
            raise SignatureError("a receipt's kind must be a message kind")
        if (not isinstance(digest, bytes) or len(digest) != 32
                or not isinstance(sig, bytes) or len(sig) != SIG_SIZE):
            raise SignatureError("a receipt's digest is 32 bytes and its signature 64")
        if not isinstance(relayed, list | tuple) or len(relayed) > 256 or not all(
                isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= 255 for s in relayed):
            raise SignatureError("a receipt's relayed seats must be a list of seats")
        if to is not None and (not isinstance(to, int) or isinstance(to, bool) or not 0 <= to <= 255):
            raise SignatureError("a receipt's to must be a seat or nil")
        return cls(num("seat", 0, 255), kind, num("deck", -1, 2**32 - 1), num("pos", -1, 2**16),
                   to, num("ch", -1, 255), num("n", 0, 2**32 - 1), digest, tuple(relayed), sig)
