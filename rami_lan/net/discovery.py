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

A browsed table may be stale (the PTR and TXT records have long TTLs): confirm it by
connecting before showing it as joinable.

Network rule for tests: only ``interfaces=["127.0.0.1"]`` with ``IPVersion.V4Only``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import ipaddress
import logging
import re
import secrets
import types
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from zeroconf import (
    BadTypeInNameException,
    InterfaceChoice,
    IPVersion,
    ServiceStateChange,
    Zeroconf,
    get_all_addresses,
    get_all_addresses_v6,
)
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

__all__ = [
    "DISCOVERY_VERSION",
    "MAX_HOST_BYTES",
    "MAX_NAME_BYTES",
    "MAX_SEATS",
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
    "find_tables",
    "instance_name_for",
    "service_name_for",
]

log = logging.getLogger(__name__)

SERVICE_TYPE: Final = "_rami._tcp.local."
PROTOCOL_VERSION: Final = 1
"""rami-lan protocol version, carried in TXT as ``pv``; the TXT schema is tied to it."""
DISCOVERY_VERSION: Final = PROTOCOL_VERSION

VARIANT_IDS: Final = ("rami", "classique", "multi", "500", "40")
MAX_SEATS: Final = 8
MAX_NAME_BYTES: Final = 64
MAX_HOST_BYTES: Final = 32
MAX_POINT_LIMIT: Final = 99_999
MAX_TIMER: Final = 3600
MAX_PROTOCOL_VERSION: Final = 255
MAX_FINGERPRINT_CHARS: Final = 128
MAX_TXT_ITEM_BYTES: Final = 255
"""One TXT string (``key=value``) is length-prefixed by a single byte (RFC 6763 6.1)."""

SHORT_ID_LEN: Final = 6
MAX_INSTANCE_BYTES: Final = 63

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

REVISION_KEY: Final = "r"
"""Added by TableAdvertiser to every published TXT; not part of TableAd."""

_TABLE_ID_RE: Final = re.compile(r"[0-9a-f]{8,32}")
_FINGERPRINT_RE: Final = re.compile(r"[A-Za-z0-9:+/=_.-]*")
# Plain ASCII decimal, no sign, no leading zero, no "_" (int() accepts all of those).
_DECIMAL_RE: Final = re.compile(r"0|[1-9][0-9]{0,5}")
# Bidirectional controls can make a name display as something else in a terminal.
_BIDI_CONTROLS: Final = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_BAD_CATEGORIES: Final = frozenset({"Cc", "Cs", "Zl", "Zp"})

Interfaces = Sequence[str] | Literal["all"]
"""``"all"`` (production) or a list of local IP addresses, e.g. ``["127.0.0.1"]``."""


# --------------------------------------------------------------------------- values


def _is_unsafe_char(ch: str) -> bool:
    return ch in _BIDI_CONTROLS or unicodedata.category(ch) in _BAD_CATEGORIES


def _check_text(field: str, value: object, max_bytes: int) -> None:
    if not isinstance(value, str):
        raise ValueError(f"{field} must be a str, got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{field} must not be blank")
    if value != value.strip():
        raise ValueError(f"{field} must not start or end with whitespace")
    if any(_is_unsafe_char(ch) for ch in value):
        raise ValueError(f"{field} contains a control or bidi character")
    if len(value.encode("utf-8")) > max_bytes:
        raise ValueError(f"{field} is longer than {max_bytes} UTF-8 bytes")


def _check_int(field: str, value: object, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{field} must be an int, got {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{field}={value} is outside {low}..{high}")


def _check_bool(field: str, value: object) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{field} must be a bool, got {type(value).__name__}")


def _normalize_address(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"address must be a str, got {type(value).__name__}")
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise ValueError(f"not an IP address: {value!r}") from None


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
    """The host player's nickname."""
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
    """TLS certificate fingerprint, empty until TLS exists."""
    addresses: tuple[str, ...] = ()
    port: int | None = None
    service_name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.table_id, str) or not _TABLE_ID_RE.fullmatch(self.table_id):
            raise ValueError("table_id must be 8 to 32 lowercase hex digits")
        _check_text("name", self.name, MAX_NAME_BYTES)
        _check_text("host", self.host, MAX_HOST_BYTES)
        if self.variant not in VARIANT_IDS:
            raise ValueError(f"unknown variant {self.variant!r}")
        _check_int("seats_total", self.seats_total, 2, MAX_SEATS)
        _check_int("seats_taken", self.seats_taken, 0, MAX_SEATS)
        if self.seats_taken > self.seats_total:
            raise ValueError(
                f"seats_taken={self.seats_taken} exceeds seats_total={self.seats_total}"
            )
        _check_int("point_limit", self.point_limit, 0, MAX_POINT_LIMIT)
        _check_bool("code_required", self.code_required)
        _check_bool("frapper", self.frapper)
        _check_int("timer", self.timer, 0, MAX_TIMER)
        _check_int("protocol_version", self.protocol_version, 1, MAX_PROTOCOL_VERSION)
        if (
            not isinstance(self.fingerprint, str)
            or len(self.fingerprint) > MAX_FINGERPRINT_CHARS
            or not _FINGERPRINT_RE.fullmatch(self.fingerprint)
        ):
            raise ValueError("fingerprint must be at most 128 chars of [A-Za-z0-9:+/=_.-]")
        if isinstance(self.addresses, str | bytes) or not isinstance(self.addresses, Iterable):
            raise ValueError("addresses must be a sequence of IP address strings")
        object.__setattr__(self, "addresses", tuple(_normalize_address(a) for a in self.addresses))
        if self.port is not None:
            _check_int("port", self.port, 1, 65535)
        if not isinstance(self.service_name, str):
            raise ValueError("service_name must be a str")

    @property
    def compatible(self) -> bool:
        """True when the table speaks our protocol version."""
        return self.protocol_version == PROTOCOL_VERSION

    @property
    def is_full(self) -> bool:
        return self.seats_taken >= self.seats_total

    def to_txt(self) -> dict[str, str]:
        """The TXT record: short keys (see :data:`TXT_KEYS`), every value a str."""
        txt = {
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
        }
        for key, value in txt.items():
            if len(key.encode("utf-8")) + 1 + len(value.encode("utf-8")) > MAX_TXT_ITEM_BYTES:
                raise ValueError(f"TXT item {key!r} is longer than {MAX_TXT_ITEM_BYTES} bytes")
        return txt

    @classmethod
    def from_txt(
        cls,
        props: Mapping[bytes, bytes | None],
        *,
        addresses: Iterable[str] = (),
        port: int | None = None,
        service_name: str = "",
    ) -> TableAd:
        """Parse a received TXT record (as ``ServiceInfo.properties``).

        Raises :class:`ValueError` on a missing key, a key without a value, a value
        that is not UTF-8, too long, not of the expected form, or out of range.
        Unknown keys are ignored (RFC 6763 6.4), so later versions may add keys.
        """
        if not isinstance(props, Mapping):
            raise ValueError("TXT properties must be a mapping")
        fields: dict[str, str] = {}
        for key in TXT_KEYS:
            raw = props.get(key.encode("ascii"))
            if raw is None:
                raise ValueError(f"TXT key {key!r} is missing or has no value")
            if not isinstance(raw, bytes):
                raise ValueError(f"TXT value for {key!r} is not bytes")
            if len(key) + 1 + len(raw) > MAX_TXT_ITEM_BYTES:
                raise ValueError(f"TXT item {key!r} is too long")
            try:
                fields[key] = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"TXT value for {key!r} is not UTF-8") from None
        return cls(
            protocol_version=_parse_int(_K_PV, fields[_K_PV]),
            table_id=fields[_K_ID],
            name=fields[_K_NAME],
            host=fields[_K_HOST],
            variant=fields[_K_VARIANT],
            seats_taken=_parse_int(_K_TAKEN, fields[_K_TAKEN]),
            seats_total=_parse_int(_K_TOTAL, fields[_K_TOTAL]),
            code_required=_parse_bool(_K_CODE, fields[_K_CODE]),
            point_limit=_parse_int(_K_POINTS, fields[_K_POINTS]),
            frapper=_parse_bool(_K_FRAPPER, fields[_K_FRAPPER]),
            timer=_parse_int(_K_TIMER, fields[_K_TIMER]),
            fingerprint=fields[_K_FINGERPRINT],
            addresses=tuple(addresses),
            port=port,
            service_name=service_name,
        )


def _parse_int(key: str, text: str) -> int:
    if not _DECIMAL_RE.fullmatch(text):
        raise ValueError(f"TXT value for {key!r} is not a small decimal integer: {text!r}")
    return int(text)


def _parse_bool(key: str, text: str) -> bool:
    if text == "1":
        return True
    if text == "0":
        return False
    raise ValueError(f"TXT value for {key!r} must be '0' or '1': {text!r}")


def instance_name_for(ad: TableAd) -> str:
    """DNS-SD instance name: the table name, cleaned, plus ``" (<short id>)"``.

    At most 63 UTF-8 bytes, NFC, no dots, backslashes or control characters, so it
    displays as-is in ``avahi-browse`` / ``dns-sd -B``.
    """
    suffix = f" ({ad.table_id[:SHORT_ID_LEN]})"
    text = unicodedata.normalize("NFC", ad.name).replace(".", " ").replace("\\", " ")
    text = "".join(" " if _is_unsafe_char(ch) else ch for ch in text)
    text = " ".join(text.split()).lstrip("_ ")
    budget = MAX_INSTANCE_BYTES - len(suffix.encode("utf-8"))
    encoded = text.encode("utf-8")
    if len(encoded) > budget:
        text = encoded[:budget].decode("utf-8", errors="ignore").rstrip()
    return (text or "Rami") + suffix


def service_name_for(ad: TableAd) -> str:
    """Full DNS-SD service name: ``<instance>._rami._tcp.local.``."""
    return f"{instance_name_for(ad)}.{SERVICE_TYPE}"


# --------------------------------------------------------------------------- interfaces


def _zeroconf_interfaces(interfaces: Interfaces) -> InterfaceChoice | list[str]:
    if interfaces == "all":
        return InterfaceChoice.All
    if isinstance(interfaces, str | bytes) or not isinstance(interfaces, Sequence):
        raise ValueError('interfaces must be "all" or a list of IP addresses')
    if not interfaces:
        raise ValueError("interfaces must not be empty")
    return [_normalize_address(a) for a in interfaces]


def _default_addresses(interfaces: Interfaces, ip_version: IPVersion) -> tuple[str, ...]:
    """Addresses to publish: the given interfaces, or every non-loopback one for "all"."""
    want_v4 = ip_version in (IPVersion.V4Only, IPVersion.All)
    want_v6 = ip_version in (IPVersion.V6Only, IPVersion.All)
    if interfaces == "all":
        candidates = list(get_all_addresses()) if want_v4 else []
        if want_v6:
            candidates += [addr[0][0] for addr in get_all_addresses_v6()]
        found = []
        for text in candidates:
            ip = ipaddress.ip_address(text.split("%", 1)[0])
            if not ip.is_loopback and not ip.is_unspecified:
                found.append(str(ip))
        if found:
            return tuple(dict.fromkeys(found))
        return ("127.0.0.1",) if want_v4 else ("::1",)
    result = []
    for text in _zeroconf_interfaces(interfaces):
        assert isinstance(text, str)
        version = ipaddress.ip_address(text).version
        if (version == 4 and want_v4) or (version == 6 and want_v6):
            result.append(text)
    if not result:
        raise ValueError("no interface address matches the IP version")
    return tuple(result)


# --------------------------------------------------------------------------- advertiser


_FIXED_FIELDS: Final = frozenset(
    {"table_id", "protocol_version", "addresses", "port", "service_name"}
)


async def _cancel_quietly(task: asyncio.Future[Any] | None) -> None:
    """Cancel a future/task and wait for it to finish, without raising."""
    if task is None or task.done():
        return
    task.cancel()
    await asyncio.wait([task])


class TableAdvertiser:
    """Advertise one table with DNS-SD while it is open.

    ``async with TableAdvertiser(ad, port, interfaces=["127.0.0.1"]) as adv: ...`` or
    ``start()`` / ``update(seats_taken=3)`` / ``stop()``. ``ad.addresses``,
    ``ad.port`` and ``ad.service_name`` are ignored: the advertiser sets them.
    Pass ``zeroconf`` to share an ``AsyncZeroconf`` (it is then not closed here).
    """

    def __init__(
        self,
        ad: TableAd,
        port: int,
        *,
        interfaces: Interfaces = "all",
        addresses: Sequence[str] | None = None,
        ip_version: IPVersion = IPVersion.V4Only,
        zeroconf: AsyncZeroconf | None = None,
        probe: bool = False,
    ) -> None:
        _check_int("port", port, 1, 65535)
        self._zc_interfaces = _zeroconf_interfaces(interfaces)
        self._ip_version = ip_version
        if addresses is None:
            published = _default_addresses(interfaces, ip_version)
        else:
            published = tuple(_normalize_address(a) for a in addresses)
            if not published:
                raise ValueError("addresses must not be empty")
        self._ad = dataclasses.replace(
            ad, port=port, addresses=published, service_name=service_name_for(ad)
        )
        self._server = f"rami-{ad.table_id}.local."
        self._azc = zeroconf
        self._owns_zc = zeroconf is None
        self._probe = probe
        self._revision = secrets.randbelow(1 << 32)
        self._info: AsyncServiceInfo | None = None
        self._broadcast: asyncio.Future[Any] | None = None
        self._lock = asyncio.Lock()

    @property
    def ad(self) -> TableAd:
        """The current ad, with port, addresses and service name filled in."""
        return self._ad

    @property
    def service_name(self) -> str:
        return self._ad.service_name

    @property
    def running(self) -> bool:
        return self._info is not None

    def _make_info(self, ad: TableAd) -> AsyncServiceInfo:
        txt = ad.to_txt()
        txt[REVISION_KEY] = f"{self._revision:x}"
        return AsyncServiceInfo(
            SERVICE_TYPE,
            ad.service_name,
            port=ad.port,
            properties=txt,
            server=self._server,
            parsed_addresses=list(ad.addresses),
        )

    async def start(self) -> None:
        """Register the service; returns once the first announcement is queued."""
        async with self._lock:
            if self._info is not None:
                raise RuntimeError("advertiser already started")
            if self._azc is None:
                self._azc = AsyncZeroconf(
                    interfaces=self._zc_interfaces, ip_version=self._ip_version
                )
            info = self._make_info(self._ad)
            try:
                self._broadcast = await self._azc.async_register_service(
                    info,
                    allow_name_change=self._probe,
                    cooperating_responders=not self._probe,
                )
            except BaseException:
                await self._close_owned_zc()
                raise
            self._info = info
            if info.name != self._ad.service_name:  # renamed by probing
                self._ad = dataclasses.replace(self._ad, service_name=info.name)
            log.debug("advertising %s on port %s", info.name, info.port)

    async def update(self, **changes: Any) -> TableAd:
        """Change TXT fields (e.g. ``seats_taken=3``) and re-announce if they changed.

        ``table_id``, ``protocol_version``, ``addresses``, ``port`` and
        ``service_name`` cannot change. The DNS-SD instance name is fixed at start
        (browsers show the TXT ``name``). Raises ValueError/TypeError like TableAd.
        """
        fixed = _FIXED_FIELDS.intersection(changes)
        if fixed:
            raise ValueError(f"cannot update {', '.join(sorted(fixed))}")
        async with self._lock:
            new = dataclasses.replace(self._ad, **changes)
            if new == self._ad:
                return new
            new.to_txt()  # validates the TXT sizes before committing
            self._ad = new
            self._revision = (self._revision + 1) % (1 << 32)
            info = self._make_info(new)
            if self._info is None or self._azc is None:
                return new
            # A still-running announcement series of the old TXT must not go out
            # after the new one, or browsers would flip back to stale data.
            await _cancel_quietly(self._broadcast)
            self._broadcast = await self._azc.async_update_service(info)
            self._info = info
            return new

    async def stop(self) -> None:
        """Unregister (sending goodbyes) and close the zeroconf instance if owned."""
        async with self._lock:
            info, self._info = self._info, None
            try:
                await _cancel_quietly(self._broadcast)
                self._broadcast = None
                if info is not None and self._azc is not None and not self._azc.zeroconf.done:
                    goodbye = await self._azc.async_unregister_service(info)
                    await goodbye
            finally:
                await self._close_owned_zc()

    async def _close_owned_zc(self) -> None:
        if self._owns_zc and self._azc is not None:
            azc, self._azc = self._azc, None
            await azc.async_close()

    async def __aenter__(self) -> TableAdvertiser:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()


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


def _sort_key(ad: TableAd) -> tuple[str, str]:
    return (ad.name.casefold(), ad.service_name)


class TableBrowser:
    """Browse ``_rami._tcp`` and keep a live dict of valid tables by service name.

    Changes are delivered to ``on_change`` (called in the event loop; exceptions are
    logged) and put on :attr:`events` (bounded: the oldest event is dropped when
    nobody reads it). Invalid or unresolvable records are logged and skipped.
    """

    def __init__(
        self,
        *,
        interfaces: Interfaces = "all",
        ip_version: IPVersion = IPVersion.V4Only,
        zeroconf: AsyncZeroconf | None = None,
        resolve_timeout: float = 3.0,
        on_change: Callable[[TableEvent], None] | None = None,
        max_tables: int = 256,
        queue_size: int = 1024,
    ) -> None:
        if resolve_timeout <= 0:
            raise ValueError("resolve_timeout must be positive")
        self._zc_interfaces = _zeroconf_interfaces(interfaces)
        self._ip_version = ip_version
        self._azc = zeroconf
        self._owns_zc = zeroconf is None
        self._resolve_timeout_ms = resolve_timeout * 1000.0
        self._on_change = on_change
        self._max_tables = max_tables
        self._tables: dict[str, TableAd] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._dirty: set[str] = set()
        self._warned: set[tuple[str, str]] = set()
        self._browser: AsyncServiceBrowser | None = None
        self.events: asyncio.Queue[TableEvent] = asyncio.Queue(maxsize=queue_size)

    @property
    def tables(self) -> Mapping[str, TableAd]:
        """Read-only live view: service name -> TableAd."""
        return types.MappingProxyType(self._tables)

    @property
    def running(self) -> bool:
        return self._browser is not None

    def snapshot(self) -> list[TableAd]:
        """The current tables sorted by name (case-insensitive), then service name."""
        return sorted(self._tables.values(), key=_sort_key)

    async def start(self) -> None:
        if self._browser is not None:
            raise RuntimeError("browser already started")
        if self._azc is None:
            self._azc = AsyncZeroconf(interfaces=self._zc_interfaces, ip_version=self._ip_version)
        self._browser = AsyncServiceBrowser(
            self._azc.zeroconf, SERVICE_TYPE, handlers=[self._on_service_state_change]
        )

    async def stop(self) -> None:
        browser, self._browser = self._browser, None
        try:
            if browser is not None:
                await browser.async_cancel()
            tasks = list(self._tasks.values())
            self._tasks.clear()
            self._dirty.clear()
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.wait(tasks)
        finally:
            if self._owns_zc and self._azc is not None:
                azc, self._azc = self._azc, None
                await azc.async_close()

    async def __aenter__(self) -> TableBrowser:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    # zeroconf calls this in the event loop, after its cache holds the new records.
    def _on_service_state_change(
        self,
        zeroconf: Zeroconf,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        if self._browser is None:
            return
        if state_change is ServiceStateChange.Removed:
            task = self._tasks.pop(name, None)
            if task is not None:
                task.cancel()
            self._dirty.discard(name)
            self._remove(name)
            return
        if name in self._tasks:  # resolve again once the running resolution ends
            self._dirty.add(name)
            return
        self._tasks[name] = asyncio.get_running_loop().create_task(
            self._resolve_loop(name), name=f"rami-discovery-resolve:{name}"
        )

    async def _resolve_loop(self, name: str) -> None:
        try:
            while True:
                self._dirty.discard(name)
                await self._resolve(name)
                if name not in self._dirty:
                    return
        finally:
            if self._tasks.get(name) is asyncio.current_task():
                del self._tasks[name]

    async def _resolve(self, name: str) -> None:
        azc = self._azc
        if azc is None:
            return
        try:
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            found = await info.async_request(azc.zeroconf, self._resolve_timeout_ms)
            if not found:
                log.debug("could not resolve %r in time; skipped", name)
                return
            ad = TableAd.from_txt(
                info.properties,
                addresses=info.parsed_addresses(),
                port=info.port,
                service_name=name,
            )
        except asyncio.CancelledError:
            raise
        except (ValueError, BadTypeInNameException) as exc:
            self._warn_invalid(name, str(exc))
            self._remove(name)  # a table whose record turned invalid is no longer listed
            return
        except Exception:  # a hostile record must never stop the browser
            log.exception("unexpected error resolving %r; skipped", name)
            return
        old = self._tables.get(name)
        if old == ad:
            return
        if old is None and len(self._tables) >= self._max_tables:
            self._warn_invalid(name, f"more than {self._max_tables} tables")
            return
        self._tables[name] = ad
        self._emit(TableEvent(TableEventKind.ADDED if old is None else TableEventKind.UPDATED, ad))

    def _remove(self, name: str) -> None:
        old = self._tables.pop(name, None)
        if old is not None:
            self._emit(TableEvent(TableEventKind.REMOVED, old))

    def _warn_invalid(self, name: str, reason: str) -> None:
        key = (name, reason)
        if key in self._warned:
            log.debug("skipping invalid table record %r: %s", name, reason)
            return
        if len(self._warned) >= 1024:
            self._warned.clear()
        self._warned.add(key)
        log.warning("skipping invalid table record %r: %s", name, reason)

    def _emit(self, event: TableEvent) -> None:
        if self.events.full():
            with contextlib.suppress(asyncio.QueueEmpty):
                self.events.get_nowait()
        self.events.put_nowait(event)
        if self._on_change is not None:
            try:
                self._on_change(event)
            except Exception:
                log.exception("table browser on_change callback failed")


async def find_tables(
    timeout: float = 2.0,
    interfaces: Interfaces = "all",
    *,
    ip_version: IPVersion = IPVersion.V4Only,
    zeroconf: AsyncZeroconf | None = None,
) -> list[TableAd]:
    """Browse for ``timeout`` seconds and return the valid tables seen, sorted by name."""
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    browser = TableBrowser(
        interfaces=interfaces,
        ip_version=ip_version,
        zeroconf=zeroconf,
        resolve_timeout=timeout,
    )
    await browser.start()
    try:
        await asyncio.sleep(timeout)
        return browser.snapshot()
    finally:
        await browser.stop()
