"""Table discovery on the LAN with mDNS / DNS-SD (zeroconf).

Theory of operation
-------------------
A host advertises one DNS-SD service per table, of type ``_rami._tcp.local.``. The
service instance name is the table name made DNS-SD safe, plus a short id taken from
the table id (``"Chez Marie (3fa2c1)"``), so ``avahi-browse -a`` and
``dns-sd -B _rami._tcp`` list something readable and two tables never share a name.
The SRV record gives the port, the A/AAAA records the host's addresses, and the TXT
record the table's public description (:class:`TableAd`, see :meth:`TableAd.to_txt`).

Three layers, from pure to I/O:

* :class:`TableAd` is a frozen value. Its constructor validates every field, so an
  invalid ad cannot exist; :meth:`TableAd.from_txt` parses a received TXT record and
  raises :class:`ValueError` on anything malformed. Anyone on the LAN can publish
  records of our type, so received data is never trusted.
* :class:`TableAdvertiser` registers / updates (``async_update_service``, e.g. when
  seats change) / unregisters the service around an ``AsyncZeroconf``.
* :class:`TableBrowser` browses the type, resolves each service (with a timeout),
  parses its TXT and keeps a live dict of valid tables. A record that cannot be
  resolved or parsed is logged and skipped: it never reaches the lobby and never
  stops the browser.

Probing: RFC 6762 probing costs about 1.2 s before a table can be seen. Instance
names already carry a random id, so by default the advertiser skips probing
(``probe=False``) and the table appears within milliseconds; ``probe=True`` restores
probing with automatic renaming on conflict.

TXT revisions: python-zeroconf keeps superseded TXT records in its cache for a while,
and a TXT identical to a cached one neither fires an update nor wins the cache lookup.
So a flip back (seats 2 -> 3 -> 2) would never be seen. The advertiser therefore adds
a revision key ``r`` (random start, +1 per change) so every published TXT is new;
:meth:`TableAd.from_txt` ignores it.

Ghost tables: a host that dies without its goodbye (``kill -9``, a machine that left the
network) stays in every mDNS cache for the records' TTL (python-zeroconf keeps a PTR at
least 1125 s, whatever TTL was sent). So a browsed table is confirmed by connecting:
:func:`probe_table` opens a TCP connection to its address and port and closes it at once
(no TLS, no ``hello``: the host counts no join attempt). :class:`TableBrowser` with
``probe_interval`` probes every table when it appears and every ``probe_interval``
seconds; a table whose port refuses the connection, or that did not answer
:data:`PROBE_MISSES` probes in a row, is left out of :meth:`TableBrowser.snapshot` (and a
``removed`` event is sent) until a probe or a new record shows it again. With the
lobby's 2 s interval a killed host leaves the list within about 2 s on a machine that is
still up (the connection is refused) and within about 8 s when the machine is gone (two
1.5 s timeouts). A host that closes (SIGTERM, SIGHUP, Ctrl-C) sends mDNS goodbyes and is
removed at once.

The zeroconf machinery shared with player presence (advertiser, browser, TXT and
name helpers) is in :mod:`rami_lan.net.mdns`.

Network rule for tests: only ``interfaces=["127.0.0.1"]`` with ``IPVersion.V4Only``.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Unpack

from zeroconf import IPVersion
from zeroconf.asyncio import AsyncZeroconf

from rami_lan.ids import env_interfaces
from rami_lan.net.mdns import (
    REVISION_KEY,
    SHORT_ID_LEN,
    BrowseOptions,
    Interfaces,
    ServiceAdvertiser,
    ServiceBrowser,
    browse_once,
    check_bool,
    check_endpoint,
    check_fingerprint,
    check_int,
    check_table_id,
    check_text,
    check_txt_sizes,
    decode_txt,
    instance_name,
    parse_bool,
    parse_int,
    service_type,
)

__all__ = [
    "DISCOVERY_VERSION",
    "MAX_HOST_BYTES",
    "MAX_NAME_BYTES",
    "MAX_SEATS",
    "MIN_SEATS",
    "OPTIONAL_TXT_KEYS",
    "PROTOCOL_VERSION",
    "REVISION_KEY",
    "SERVICE_TYPE",
    "TXT_KEYS",
    "VARIANT_IDS",
    "Interfaces",
    "TableAd",
    "TableAdvertiser",
    "TableBrowser",
    "TableEvent",
    "TableEventKind",
    "default_interfaces",
    "find_table",
    "find_tables",
    "host_label",
    "instance_name_for",
    "matches",
    "probe_table",
    "service_name_for",
]

log = logging.getLogger(__name__)

SERVICE_TYPE: Final = service_type("rami")
"""``_rami._tcp.local.`` (tagged by ``$RAMI_LAN_MDNS_TAG``, see :data:`~rami_lan.net.mdns.MDNS_TAG_ENV`)."""
PROTOCOL_VERSION: Final = 1
"""rami-lan protocol version, carried in TXT as ``pv``; the TXT schema is tied to it."""
DISCOVERY_VERSION: Final = PROTOCOL_VERSION

VARIANT_IDS: Final = ("rami", "classique", "multi", "500", "40")
MIN_SEATS: Final = 2
MAX_SEATS: Final = 4
"""A table has 2 to 4 seats (the protocol's seats are 0..3)."""
MAX_NAME_BYTES: Final = 64
MAX_HOST_BYTES: Final = 32
MAX_POINT_LIMIT: Final = 99_999
MAX_TIMER: Final = 3600
MAX_PROTOCOL_VERSION: Final = 255

# TXT keys, in the order they are published ("pv" first, as RFC 6763 6.7 advises).
_K_PV: Final = "pv"
_K_ID: Final = "id"
_K_NAME: Final = "n"
_K_HOST: Final = "h"
_K_VARIANT: Final = "v"
_K_TAKEN: Final = "st"
_K_TOTAL: Final = "sn"
_K_CODE: Final = "c"
_K_POINTS: Final = "pl"
_K_FRAPPER: Final = "f"
_K_TIMER: Final = "t"
_K_FINGERPRINT: Final = "fp"
_K_PRIVATE: Final = "pd"
OPTIONAL_TXT_KEYS: Final = (_K_PRIVATE,)
"""Keys a browser reads when present (an older host's TXT has none): ``pd`` is ``1`` when
the table deals privately (masked deck: the host sees only its own cards)."""
TXT_KEYS: Final = (
    _K_PV,
    _K_ID,
    _K_NAME,
    _K_HOST,
    _K_VARIANT,
    _K_TAKEN,
    _K_TOTAL,
    _K_CODE,
    _K_POINTS,
    _K_FRAPPER,
    _K_TIMER,
    _K_FINGERPRINT,
)


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, kw_only=True)
class TableAd:
    """A table as advertised on the LAN. Construction validates every field.

    ``addresses``, ``port`` and ``service_name`` are not in the TXT record: they are
    filled from the SRV/A records and the DNS-SD name once a table is browsed (and by
    :class:`TableAdvertiser` for its own ad).
    """

    table_id: str
    """Lowercase hex, 8 to 32 digits (e.g. ``secrets.token_hex(8)``)."""
    name: str
    host: str
    """The host player's nickname (never the OS login name unless the player chose it:
    see :func:`host_label`)."""
    variant: str
    """One of :data:`VARIANT_IDS`."""
    seats_taken: int
    seats_total: int
    point_limit: int
    code_required: bool = False
    frapper: bool = False
    timer: int = 0
    """Seconds per turn, 0 = off."""
    protocol_version: int = PROTOCOL_VERSION
    fingerprint: str = ""
    """SHA-256 of the host's TLS certificate (DER form), as 64 lowercase hex digits;
    empty only for a table without TLS (none today)."""
    private_deal: bool = False
    """The table deals privately (docs/masked_deck.md); TXT ``pd``, optional."""
    addresses: tuple[str, ...] = ()
    port: int | None = None
    service_name: str = ""

    def __post_init__(self) -> None:
        check_table_id(self.table_id)
        check_text("name", self.name, MAX_NAME_BYTES)
        check_text("host", self.host, MAX_HOST_BYTES)
        if self.variant not in VARIANT_IDS:
            raise ValueError(f"unknown variant {self.variant!r}")
        check_int("seats_total", self.seats_total, MIN_SEATS, MAX_SEATS)
        check_int("seats_taken", self.seats_taken, 0, MAX_SEATS)
        if self.seats_taken > self.seats_total:
            raise ValueError(
                f"seats_taken={self.seats_taken} exceeds seats_total={self.seats_total}"
            )
        check_int("point_limit", self.point_limit, 0, MAX_POINT_LIMIT)
        check_bool("code_required", self.code_required)
        check_bool("frapper", self.frapper)
        check_int("timer", self.timer, 0, MAX_TIMER)
        check_int("protocol_version", self.protocol_version, 1, MAX_PROTOCOL_VERSION)
        check_fingerprint(self.fingerprint)
        check_bool("private_deal", self.private_deal)
        check_endpoint(self)

    @property
    def compatible(self) -> bool:
        """True when the table speaks our protocol version."""
        return self.protocol_version == PROTOCOL_VERSION

    @property
    def is_full(self) -> bool:
        return self.seats_taken >= self.seats_total

    def to_txt(self) -> dict[str, str]:
        """The TXT record: short keys (see :data:`TXT_KEYS`), every value a str."""
        return check_txt_sizes(
            {
                _K_PV: str(self.protocol_version),
                _K_ID: self.table_id,
                _K_NAME: self.name,
                _K_HOST: self.host,
                _K_VARIANT: self.variant,
                _K_TAKEN: str(self.seats_taken),
                _K_TOTAL: str(self.seats_total),
                _K_CODE: "1" if self.code_required else "0",
                _K_POINTS: str(self.point_limit),
                _K_FRAPPER: "1" if self.frapper else "0",
                _K_TIMER: str(self.timer),
                _K_FINGERPRINT: self.fingerprint,
                _K_PRIVATE: "1" if self.private_deal else "0",
            }
        )

    @classmethod
    def from_txt(cls, props: Mapping[bytes, bytes | None], *, addresses: Iterable[str] = (),
                 port: int | None = None, service_name: str = "") -> TableAd:
        """Parse a received TXT record (as ``ServiceInfo.properties``).

        Raises :class:`ValueError` on a missing key, a key without a value, a value
        that is not UTF-8, too long, not of the expected form, or out of range.
        Unknown keys are ignored (RFC 6763 6.4), so later versions may add keys.
        """
        fields = decode_txt(props, TXT_KEYS)
        present = [k for k in OPTIONAL_TXT_KEYS if isinstance(props, Mapping)
                   and props.get(k.encode("ascii")) is not None]
        fields.update(decode_txt(props, present))
        return cls(
            protocol_version=parse_int(_K_PV, fields[_K_PV]),
            table_id=fields[_K_ID],
            name=fields[_K_NAME],
            host=fields[_K_HOST],
            variant=fields[_K_VARIANT],
            seats_taken=parse_int(_K_TAKEN, fields[_K_TAKEN]),
            seats_total=parse_int(_K_TOTAL, fields[_K_TOTAL]),
            code_required=parse_bool(_K_CODE, fields[_K_CODE]),
            point_limit=parse_int(_K_POINTS, fields[_K_POINTS]),
            frapper=parse_bool(_K_FRAPPER, fields[_K_FRAPPER]),
            timer=parse_int(_K_TIMER, fields[_K_TIMER]),
            fingerprint=fields[_K_FINGERPRINT],
            private_deal=parse_bool(_K_PRIVATE, fields.get(_K_PRIVATE, "0")),
            addresses=tuple(addresses),
            port=port,
            service_name=service_name,
        )


def instance_name_for(ad: TableAd) -> str:
    """DNS-SD instance name: the table name, cleaned, plus ``" (<short id>)"``.

    At most 63 UTF-8 bytes, NFC, no dots, backslashes or control characters, so it
    displays as-is in ``avahi-browse`` / ``dns-sd -B``.
    """
    return instance_name(ad.name, ad.table_id[:SHORT_ID_LEN], "Rami")


def service_name_for(ad: TableAd) -> str:
    """Full DNS-SD service name: ``<instance>._rami._tcp.local.``."""
    return f"{instance_name_for(ad)}.{SERVICE_TYPE}"


# --------------------------------------------------------------------------- advertiser


class TableAdvertiser(ServiceAdvertiser[TableAd]):
    """Advertise one table with DNS-SD while it is open.

    ``async with TableAdvertiser(ad, port, interfaces=["127.0.0.1"]) as adv: ...`` or
    ``start()`` / ``update(seats_taken=3)`` / ``stop()``. ``ad.addresses``,
    ``ad.port`` and ``ad.service_name`` are ignored: the advertiser sets them.
    Pass ``zeroconf`` to share an ``AsyncZeroconf`` (it is then not closed here).

    ``update`` cannot change ``table_id``, ``protocol_version``, ``addresses``,
    ``port`` and ``service_name``. The DNS-SD instance name is fixed at start
    (browsers show the TXT ``name``).
    """

    _service_type = SERVICE_TYPE
    _fixed_fields = frozenset({"table_id", "protocol_version", "addresses", "port", "service_name"})
    _log = log
    _service_name_for = staticmethod(service_name_for)

    @staticmethod
    def _server_for(ad: TableAd) -> str:
        return f"rami-{ad.table_id}.local."


# --------------------------------------------------------------------------- browser


class TableEventKind(enum.StrEnum):
    ADDED = "added"
    UPDATED = "updated"
    REMOVED = "removed"


@dataclass(frozen=True)
class TableEvent:
    """A change in the browsed tables; for REMOVED, ``table`` is the last known ad."""

    kind: TableEventKind
    table: TableAd


PROBE_TIMEOUT: Final = 1.5
"""Seconds a reachability probe waits for the table's TCP port to accept."""
PROBE_MISSES: Final = 2
"""Probes in a row without an answer (timeouts) before a table is taken for gone; a
refused connection (the port is closed: the host process is gone) counts at once."""


class Reach(enum.StrEnum):
    """What the last probes of a table said."""

    UNKNOWN = "unknown"
    """Not probed yet (or no address)."""
    UP = "up"
    GONE = "gone"


async def probe_table(ad: TableAd, timeout: float = PROBE_TIMEOUT) -> bool | None:
    """Whether ``ad``'s host accepts a TCP connection on its first address and port:
    True (it does), False (refused: nothing listens there), None (no answer within
    ``timeout`` seconds, or no address). The connection is closed at once, before TLS."""
    if not ad.addresses or ad.port is None:
        return None
    try:
        _reader, writer = await asyncio.wait_for(
            asyncio.open_connection(ad.addresses[0], ad.port), timeout)
    except (ConnectionRefusedError, ConnectionResetError):
        return False
    except (OSError, TimeoutError):
        return None
    writer.transport.abort()
    return True


class TableBrowser(ServiceBrowser[TableAd, TableEvent]):
    """Browse ``_rami._tcp`` and keep a live dict of valid tables by service name.

    Changes are delivered to ``on_change`` (called in the event loop; exceptions are
    logged) and put on :attr:`events` (bounded: the oldest event is dropped when
    nobody reads it). Invalid or unresolvable records are logged and skipped.
    :meth:`snapshot` sorts by name (case-insensitive), then service name.

    ``probe_interval`` (seconds; None: no probes) confirms every table by connecting to
    it (see the module doc, "Ghost tables"): :meth:`snapshot` then leaves out the tables
    found gone, :meth:`reach` tells what the probes said, and :meth:`mark_gone` lets a
    caller whose connection was refused hide a table at once.
    """

    _service_type = SERVICE_TYPE
    _ad_type = TableAd
    _noun = "table"
    _task_prefix = "rami-discovery-resolve"
    _log = log

    def __init__(
        self,
        *,
        on_change: Callable[[TableEvent], None] | None = None,
        max_tables: int = 256,
        probe_interval: float | None = None,
        probe_timeout: float = PROBE_TIMEOUT,
        **options: Unpack[BrowseOptions],
    ) -> None:
        super().__init__(on_change=on_change, max_ads=max_tables, **options)
        if probe_interval is not None and probe_interval <= 0:
            raise ValueError("probe_interval must be positive")
        self._probe_interval = probe_interval
        self._probe_timeout = probe_timeout
        self._reach: dict[str, tuple[TableAd, Reach, int]] = {}
        """service name -> (the ad probed, what the probes said, timeouts in a row)."""
        self._prober: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    @property
    def tables(self) -> Mapping[str, TableAd]:
        """Read-only live view: service name -> TableAd (gone or not)."""
        return self._view()

    def snapshot(self) -> list[TableAd]:
        """The tables, sorted; without those the probes found gone."""
        return [ad for ad in super().snapshot() if self.reach(ad) is not Reach.GONE]

    def reach(self, ad: TableAd) -> Reach:
        """What the probes said about this very ad (a new record starts UNKNOWN)."""
        known = self._reach.get(ad.service_name)
        return known[1] if known is not None and known[0] == ad else Reach.UNKNOWN

    def mark_gone(self, ad: TableAd) -> None:
        """A connection to ``ad`` was refused: hide it now (a probe or record may bring
        it back)."""
        self._set_reach(ad, Reach.GONE, PROBE_MISSES)

    def _set_reach(self, ad: TableAd, reach: Reach, misses: int) -> None:
        before = self.reach(ad)
        self._reach[ad.service_name] = (ad, reach, misses)
        if ad.service_name not in self._ads or before is reach:
            return
        if reach is Reach.GONE:
            self._log.info("table %s does not answer: not listed", ad.service_name[:60])
            self._emit(self._event("removed", ad))
        elif before is Reach.GONE:
            self._emit(self._event("added", ad))

    async def start(self) -> None:
        await super().start()
        if self._probe_interval is not None:
            self._prober = asyncio.get_running_loop().create_task(
                self._probe_loop(self._probe_interval), name="rami-discovery-probe")

    async def stop(self) -> None:
        prober, self._prober = self._prober, None
        if prober is not None:
            prober.cancel()
            await asyncio.gather(prober, return_exceptions=True)
        await super().stop()

    def _emit(self, event: TableEvent) -> None:
        if event.kind is TableEventKind.ADDED and self.reach(event.table) is Reach.UNKNOWN:
            self._wake.set()  # a new table: probe it now
        super()._emit(event)

    async def _probe_loop(self, interval: float) -> None:
        while True:
            ads = list(self._ads.values())
            results = await asyncio.gather(*(probe_table(ad, self._probe_timeout) for ad in ads))
            for ad, up in zip(ads, results, strict=True):
                if self._ads.get(ad.service_name) != ad:
                    continue  # changed or gone while probing
                misses = self._reach.get(ad.service_name, (ad, Reach.UNKNOWN, 0))[2]
                if up:
                    self._set_reach(ad, Reach.UP, 0)
                elif up is False or misses + 1 >= PROBE_MISSES:
                    self._set_reach(ad, Reach.GONE, misses + 1)
                else:
                    self._set_reach(ad, self.reach(ad), misses + 1)
            for name in [n for n in self._reach if n not in self._ads]:
                del self._reach[name]
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), interval)

    @staticmethod
    def _sort_key(ad: TableAd) -> tuple[str, str]:
        return (ad.name.casefold(), ad.service_name)

    def _event(self, kind: str, ad: TableAd) -> TableEvent:
        return TableEvent(TableEventKind(kind), ad)


async def find_tables(
    timeout: float = 2.0,
    interfaces: Interfaces = "all",
    *,
    ip_version: IPVersion = IPVersion.V4Only,
    zeroconf: AsyncZeroconf | None = None,
    until: Callable[[TableAd], bool] | None = None,
    on_table: Callable[[TableAd], None] | None = None,
    on_invalid: Callable[[str, str], None] | None = None,
) -> list[TableAd]:
    """Browse for ``timeout`` seconds and return the valid tables seen, sorted by name.

    ``on_table`` sees each table as soon as it is resolved; with ``until``, browsing
    ends as soon as a table satisfies it; ``on_invalid(name, reason)`` hears about each
    skipped record (both printable).
    """
    return await browse_once(
        TableBrowser,
        timeout,
        until=until,
        on_ad=on_table,
        interfaces=interfaces,
        ip_version=ip_version,
        zeroconf=zeroconf,
        on_invalid=on_invalid,
    )


def matches(ad: TableAd, wanted: str) -> bool:
    """Whether ``wanted`` (as typed after ``rami-lan join``) names ``ad``: its name
    (any case), the start of its table id, or the start of its DNS-SD service name."""
    want = wanted.casefold()
    return bool(want) and (
        ad.name.casefold() == want
        or ad.table_id.startswith(want)
        or ad.service_name.casefold().startswith(want)
    )


async def find_table(
    wanted: str | Callable[[TableAd], bool],
    timeout: float = 3.0,
    interfaces: Interfaces = "all",
    *,
    ip_version: IPVersion = IPVersion.V4Only,
    zeroconf: AsyncZeroconf | None = None,
    on_invalid: Callable[[str, str], None] | None = None,
) -> TableAd | None:
    """The first reachable table (with an address and a port) that ``wanted`` names
    (see :func:`matches`, or a predicate), as soon as it resolves; None after
    ``timeout`` seconds without one."""

    def ok(ad: TableAd) -> bool:
        if not ad.addresses or ad.port is None:
            return False
        return wanted(ad) if callable(wanted) else matches(ad, wanted)

    tables = await find_tables(
        timeout, interfaces, ip_version=ip_version, zeroconf=zeroconf, until=ok,
        on_invalid=on_invalid,
    )
    return next((t for t in tables if ok(t)), None)


def default_interfaces(environ: Mapping[str, str] | None = None) -> Interfaces:
    """``$RAMI_LAN_INTERFACES`` as a list of addresses, else ``"all"``."""
    return env_interfaces(environ)


def ad_text(value: str | None, max_bytes: int, fallback: str) -> str:
    """``value`` made fit for a TXT text field: printable characters only (the space is
    the only separator kept), stripped, cut to ``max_bytes`` UTF-8 bytes; ``fallback``
    when nothing is left. A host builds its :class:`TableAd` text fields with it (or
    :func:`host_label`), so a name typed with an odd character never stops it."""
    text = "".join(ch for ch in (value or "") if ch == " " or ch.isprintable()).strip()
    encoded = text.encode("utf-8")
    if len(encoded) > max_bytes:
        text = encoded[:max_bytes].decode("utf-8", errors="ignore").rstrip()
    return text or fallback


def host_label(nickname: str | None, fallback: str = "Rami") -> str:
    """The TXT ``h`` for a host: the player's nickname made printable and cut to
    :data:`MAX_HOST_BYTES`; ``fallback`` when empty. Callers pass the nickname the
    player chose (settings or ``--nick``), never the OS login name."""
    return ad_text(nickname, MAX_HOST_BYTES, fallback)
