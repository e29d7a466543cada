"""Shared DNS-SD machinery for table discovery and player presence (zeroconf).

:mod:`rami_lan.net.discovery` (tables) and :mod:`rami_lan.net.presence` (players) each
advertise one service type whose TXT record is a frozen, validated "ad" value. What
they share lives here:

* validation helpers for ad fields and received TXT records, and DNS-SD instance names
  (in :mod:`rami_lan.net.ad_fields`, re-exported here);
* :class:`ServiceAdvertiser`: register / update (``async_update_service``) /
  unregister one service around an ``AsyncZeroconf``; every published TXT carries a
  revision key ``r`` (random start, +1 per change) because python-zeroconf keeps
  superseded TXT records cached and would not see a flip back to an earlier value.
  TXT changes are **coalesced and rate-limited** (:class:`AnnounceLimiter`): at most one
  announcement series per :data:`MIN_UPDATE_INTERVAL` seconds per service, and the
  latest state wins, so a join/leave storm costs a handful of packets, not thousands;
* :class:`ServiceBrowser`: browse a type, resolve each service with a timeout, parse
  its TXT into an ad, keep a live dict of valid ads, and report changes to a callback
  and a bounded queue. A record that cannot be resolved or parsed is logged (one
  clipped, printable line) and skipped: it never stops the browser.

Several mDNS stacks on one machine
----------------------------------
Every mDNS stack (avahi-daemon, Bonjour, another rami-lan) binds UDP port 5353 with
``SO_REUSEPORT``. A multicast packet reaches every one of those sockets, but a
*unicast* packet sent to port 5353 reaches only one of them, chosen by the kernel.
python-zeroconf's first browse and resolve queries ask for unicast answers (the QU
bit, RFC 6762 5.4), so with a second stack on the machine the answers often went to
the wrong socket and a table was seen only after the next query, seconds later. Our
browser and resolver therefore ask every question as QM (:data:`QUESTION_TYPE`):
answers are multicast and every socket sees them. Measured on loopback with two
tables, a lobby and an independent responder: listed in ~0.15 s instead of ~1.1 s
(see ``benchmarks/discovery.py``).

Foreign text
------------
Every name, TXT value and exception text that came from the network goes through
:func:`rami_lan.textsafe.clip` before a log line is written, and
:func:`install_safe_zeroconf_logging` (called on import) makes python-zeroconf's own
log records one printable, clipped line without a traceback (its exception texts can
carry the raw bytes of a hostile record).

An ad class used with these provides ``to_txt()``, ``from_txt(props, *, addresses,
port, service_name)``, and ``port`` / ``addresses`` / ``service_name`` fields.

Network rule for tests: only ``interfaces=["127.0.0.1"]`` with ``IPVersion.V4Only``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
import logging
import os
import re
import secrets
import time
import types
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ClassVar, Final, Generic, Literal, Self, TypedDict, TypeVar

from zeroconf import (
    BadTypeInNameException,
    DNSQuestionType,
    InterfaceChoice,
    IPVersion,
    ServiceStateChange,
    Zeroconf,
    get_all_addresses,
    get_all_addresses_v6,
)
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from rami_lan.net.ad_fields import (  # noqa: F401  (re-exported: discovery and presence import them here)
    _BAD_CATEGORIES,
    _BIDI_CONTROLS,
    _DECIMAL_RE,
    _LOOSE_FINGERPRINT_RE,
    FINGERPRINT_RE,
    MAX_FINGERPRINT_CHARS,
    MAX_INSTANCE_BYTES,
    MAX_TXT_ITEM_BYTES,
    SHORT_ID_LEN,
    TABLE_ID_RE,
    check_bool,
    check_endpoint,
    check_fingerprint,
    check_int,
    check_loose_fingerprint,
    check_table_id,
    check_text,
    check_txt_sizes,
    decode_txt,
    instance_name,
    is_unsafe_char,
    normalize_address,
    parse_bool,
    parse_int,
)
from rami_lan.textsafe import clip

REVISION_KEY: Final = "r"
"""Added by the advertisers to every published TXT; not part of any ad."""

QUESTION_TYPE: Final = DNSQuestionType.QM
"""Every browse and resolve question asks for multicast answers (see the module doc)."""

MIN_UPDATE_INTERVAL: Final = 1.0
"""Seconds between two announcement series of a changed TXT record of one service.

RFC 6762 section 6: a responder MUST NOT multicast a record on an interface until at
least one second has elapsed since it last multicast that record; section 8.4: a
change of rdata is announced by repeating the announcing step of section 8.3 (at
least two packets, one second apart). Changes within the interval are coalesced: the
latest state is announced once the interval has passed."""

MDNS_TAG_ENV: Final = "RAMI_LAN_MDNS_TAG"
"""Environment variable naming a *group* on the network: with ``RAMI_LAN_MDNS_TAG=ab1``
tables and players advertise and browse ``_rami-ab1._tcp`` and ``_rami-player-ab1._tcp``,
so two groups sharing one network (two classes in one room, two test runs on one
machine) each see only their own. 1 to 3 lowercase letters or digits (a DNS-SD service
label holds at most 15 characters); anything else is ignored with a warning."""

_MDNS_TAG_RE: Final = re.compile(r"[a-z0-9]{1,3}")


def service_type(base: str) -> str:
    """The DNS-SD type ``_<base>._tcp.local.``, tagged by ``$RAMI_LAN_MDNS_TAG`` if set."""
    tag = os.environ.get(MDNS_TAG_ENV, "")
    if tag and _MDNS_TAG_RE.fullmatch(tag):
        return f"_{base}-{tag}._tcp.local."
    if tag:
        logging.getLogger(__name__).warning(
            "%s=%r ignored: 1 to 3 lowercase letters or digits", MDNS_TAG_ENV, clip(tag, LOG_CLIP))
    return f"_{base}._tcp.local."


LOG_CLIP: Final = 120
"""Longest piece of foreign text (a record name, a reason) in one log line."""


Interfaces = Sequence[str] | Literal["all"]
"""``"all"`` (production) or a list of local IP addresses, e.g. ``["127.0.0.1"]``."""


# --------------------------------------------------------------------------- interfaces


def zeroconf_interfaces(interfaces: Interfaces) -> InterfaceChoice | list[str]:
    if interfaces == "all":
        return InterfaceChoice.All
    if isinstance(interfaces, str | bytes) or not isinstance(interfaces, Sequence):
        raise ValueError('interfaces must be "all" or a list of IP addresses')
    if not interfaces:
        raise ValueError("interfaces must not be empty")
    return [normalize_address(a) for a in interfaces]


def default_addresses(interfaces: Interfaces, ip_version: IPVersion) -> tuple[str, ...]:
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
    for text in zeroconf_interfaces(interfaces):
        assert isinstance(text, str)
        version = ipaddress.ip_address(text).version
        if (version == 4 and want_v4) or (version == 6 and want_v6):
            result.append(text)
    if not result:
        raise ValueError("no interface address matches the IP version")
    return tuple(result)


# --------------------------------------------------------------------------- logging


class SafeLogFilter(logging.Filter):
    """Rewrite every record into one printable line of at most ``limit`` characters.

    The arguments are formatted first, an exception is appended as ``(Type: text)``
    instead of a traceback, and the result goes through :func:`~rami_lan.textsafe.clip`:
    no escape sequence or line break from a hostile record reaches a terminal or a log.
    """

    def __init__(self, limit: int = 300) -> None:
        super().__init__()
        self.limit = limit

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string must not stop logging
            text = str(record.msg)
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            text = clip(text, self.limit * 2 // 3)
            text = f"{text} ({type(exc).__name__}: {clip(exc, self.limit // 3)})"
        record.msg = clip(text, self.limit)
        record.args = None
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True


def install_safe_zeroconf_logging() -> None:
    """Make python-zeroconf's log records safe (idempotent; called on import)."""
    logger = logging.getLogger("zeroconf")
    if not any(isinstance(f, SafeLogFilter) for f in logger.filters):
        logger.addFilter(SafeLogFilter())


install_safe_zeroconf_logging()


# --------------------------------------------------------------------------- rate limit


class AnnounceLimiter:
    """When a changed record may be announced: at most once per ``interval`` seconds.

    Sans-I/O: the caller passes the time (``clock`` seconds, monotonic). :meth:`delay`
    is how long to wait before announcing now; :meth:`sent` records an announcement.
    The first change is announced at once; changes made while waiting are coalesced by
    the caller (the latest state is announced).
    """

    def __init__(self, interval: float = MIN_UPDATE_INTERVAL) -> None:
        if interval < 0:
            raise ValueError("interval must not be negative")
        self.interval = interval
        self._last: float | None = None

    def delay(self, now: float) -> float:
        if self._last is None:
            return 0.0
        return max(0.0, self._last + self.interval - now)

    def sent(self, now: float) -> None:
        self._last = now


# --------------------------------------------------------------------------- advertiser


AdT = TypeVar("AdT")
EventT = TypeVar("EventT")


async def cancel_quietly(task: asyncio.Future[Any] | None) -> None:
    """Cancel a future/task and wait for it to finish, without raising."""
    if task is None or task.done():
        return
    task.cancel()
    await asyncio.wait([task])


class _ZeroconfUser:
    """Owns an ``AsyncZeroconf`` made on first use, unless one was given to share."""

    def __init__(
        self, interfaces: Interfaces, ip_version: IPVersion, zeroconf: AsyncZeroconf | None
    ) -> None:
        self._zc_interfaces = zeroconf_interfaces(interfaces)
        self._ip_version = ip_version
        self._azc = zeroconf
        self._owns_zc = zeroconf is None

    def _zeroconf(self) -> AsyncZeroconf:
        if self._azc is None:
            self._azc = AsyncZeroconf(interfaces=self._zc_interfaces, ip_version=self._ip_version)
        return self._azc

    async def _close_owned_zc(self) -> None:
        if self._owns_zc and self._azc is not None:
            azc, self._azc = self._azc, None
            await azc.async_close()

    async def start(self) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()


class ServiceAdvertiser(_ZeroconfUser, Generic[AdT]):
    """Advertise one ad with DNS-SD while it lives (base of the table/player advertisers).

    A subclass sets :attr:`_service_type`, :attr:`_fixed_fields` and :attr:`_log`, and
    implements :meth:`_service_name_for` and :meth:`_server_for`.
    """

    _service_type: ClassVar[str]
    _fixed_fields: ClassVar[frozenset[str]]
    _log: ClassVar[logging.Logger]

    def __init__(
        self,
        ad: AdT,
        port: int,
        *,
        interfaces: Interfaces = "all",
        addresses: Sequence[str] | None = None,
        ip_version: IPVersion = IPVersion.V4Only,
        zeroconf: AsyncZeroconf | None = None,
        probe: bool = False,
        min_update_interval: float = MIN_UPDATE_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        """``min_update_interval``, ``clock`` and ``sleep`` pace the TXT updates (see
        :class:`AnnounceLimiter`); tests inject a fake clock and sleep."""
        check_int("port", port, 1, 65535)
        super().__init__(interfaces, ip_version, zeroconf)
        if addresses is None:
            published = default_addresses(interfaces, ip_version)
        else:
            published = tuple(normalize_address(a) for a in addresses)
            if not published:
                raise ValueError("addresses must not be empty")
        self._ad: AdT = dataclasses.replace(
            ad,  # type: ignore[type-var]
            port=port,
            addresses=published,
            service_name=self._service_name_for(ad),
        )
        self._server = self._server_for(ad)
        self._probe = probe
        self._revision = secrets.randbelow(1 << 32)
        self._info: AsyncServiceInfo | None = None
        self._broadcast: asyncio.Future[Any] | None = None
        self._lock = asyncio.Lock()
        self._published: AdT | None = None
        self._limiter = AnnounceLimiter(min_update_interval)
        self._clock = clock
        self._sleep = sleep
        self._flush_task: asyncio.Task[None] | None = None
        self.announcements = 0
        """Announcement series started for TXT changes (not counting the first one)."""

    @staticmethod
    def _service_name_for(ad: Any) -> str:
        raise NotImplementedError

    @staticmethod
    def _server_for(ad: Any) -> str:
        raise NotImplementedError

    def _prepare_changes(self, changes: dict[str, Any]) -> dict[str, Any]:
        """Hook: adjust the fields given to :meth:`update` (already checked)."""
        return changes

    @property
    def ad(self) -> AdT:
        """The current ad, with port, addresses and service name filled in."""
        return self._ad

    @property
    def service_name(self) -> str:
        return self._ad.service_name  # type: ignore[attr-defined,no-any-return]

    @property
    def running(self) -> bool:
        return self._info is not None

    def _make_info(self, ad: Any) -> AsyncServiceInfo:
        txt = ad.to_txt()
        txt[REVISION_KEY] = f"{self._revision:x}"
        return AsyncServiceInfo(
            self._service_type,
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
            azc = self._zeroconf()
            info = self._make_info(self._ad)
            try:
                self._broadcast = await azc.async_register_service(
                    info,
                    allow_name_change=self._probe,
                    cooperating_responders=not self._probe,
                )
            except BaseException:
                await self._close_owned_zc()
                raise
            self._info = info
            if info.name != self.service_name:  # renamed by probing
                self._ad = dataclasses.replace(self._ad, service_name=info.name)  # type: ignore[type-var]
            self._published = self._ad
            self._log.debug("advertising %s on port %s", info.name, info.port)

    async def update(self, **changes: Any) -> AdT:
        """Change TXT fields; the change is announced at once, or coalesced with later
        ones when the last announcement is less than ``min_update_interval`` old (the
        latest state wins; a change undone in time is never announced).

        Returns the new ad (also :attr:`ad` from now on). The fields in
        :attr:`_fixed_fields` cannot change; the DNS-SD instance name is fixed at
        start. Raises ValueError/TypeError like the ad's constructor.
        """
        fixed = self._fixed_fields.intersection(changes)
        if fixed:
            raise ValueError(f"cannot update {', '.join(sorted(fixed))}")
        changes = self._prepare_changes(changes)
        async with self._lock:
            new = dataclasses.replace(self._ad, **changes)  # type: ignore[type-var]
            if new == self._ad:
                return new
            new.to_txt()  # validates the TXT sizes before committing
            self._ad = new
            if self._info is not None and (self._flush_task is None or self._flush_task.done()):
                self._flush_task = asyncio.get_running_loop().create_task(
                    self._flush(), name=f"mdns-update:{self.service_name}"
                )
            return new

    async def flush(self) -> None:
        """Wait until the pending change (if any) has been announced."""
        task = self._flush_task
        if task is not None and not task.done():
            await asyncio.wait([task])

    async def _flush(self) -> None:
        delay = self._limiter.delay(self._clock())
        if delay > 0:
            await self._sleep(delay)
        async with self._lock:
            if self._info is None or self._azc is None or self._ad == self._published:
                return
            self._revision = (self._revision + 1) % (1 << 32)
            info = self._make_info(self._ad)
            # A still-running announcement series of the old TXT must not go out
            # after the new one, or browsers would flip back to stale data.
            await cancel_quietly(self._broadcast)
            self._broadcast = await self._azc.async_update_service(info)
            self._info = info
            self._published = self._ad
            self._limiter.sent(self._clock())
            self.announcements += 1

    async def stop(self) -> None:
        """Unregister (sending goodbyes) and close the zeroconf instance if owned."""
        await cancel_quietly(self._flush_task)
        self._flush_task = None
        async with self._lock:
            info, self._info = self._info, None
            try:
                await cancel_quietly(self._broadcast)
                self._broadcast = None
                if info is not None and self._azc is not None and not self._azc.zeroconf.done:
                    goodbye = await self._azc.async_unregister_service(info)
                    await goodbye
            finally:
                await self._close_owned_zc()


# --------------------------------------------------------------------------- browser


class BrowseOptions(TypedDict, total=False):
    """The options every `ServiceBrowser` takes whatever it browses (see its ``__init__``):
    a subclass's ``**options``."""

    interfaces: Interfaces
    ip_version: IPVersion
    zeroconf: AsyncZeroconf | None
    resolve_timeout: float
    queue_size: int
    on_invalid: Callable[[str, str], None] | None


class ServiceBrowser(_ZeroconfUser, Generic[AdT, EventT]):
    """Browse one service type and keep a live dict of valid ads by service name.

    Changes are delivered to ``on_change`` (called in the event loop; exceptions are
    logged) and put on :attr:`events` (bounded: the oldest event is dropped when
    nobody reads it). Invalid or unresolvable records are logged and skipped.

    A subclass sets :attr:`_service_type`, :attr:`_ad_type` (the ad class, for
    ``from_txt``), :attr:`_noun` (``"table"``, for logs and task names:
    :attr:`_task_prefix`) and :attr:`_log`, and implements :meth:`_event` and
    :meth:`_sort_key`; :meth:`_accept` may hide some valid ads.
    """

    _service_type: ClassVar[str]
    _ad_type: ClassVar[Any]
    _noun: ClassVar[str]
    _task_prefix: ClassVar[str]
    _log: ClassVar[logging.Logger]

    def __init__(
        self,
        *,
        interfaces: Interfaces = "all",
        ip_version: IPVersion = IPVersion.V4Only,
        zeroconf: AsyncZeroconf | None = None,
        resolve_timeout: float = 3.0,
        on_change: Callable[[EventT], None] | None = None,
        max_ads: int = 256,
        queue_size: int = 1024,
        on_invalid: Callable[[str, str], None] | None = None,
    ) -> None:
        """``on_invalid(name, reason)`` (both printable and clipped) is called once per
        skipped record and reason, e.g. for ``rami-lan list`` to say what it skipped."""
        if resolve_timeout <= 0:
            raise ValueError("resolve_timeout must be positive")
        super().__init__(interfaces, ip_version, zeroconf)
        self._resolve_timeout_ms = resolve_timeout * 1000.0
        self._on_change = on_change
        self._on_invalid = on_invalid
        self._max_ads = max_ads
        self._ads: dict[str, AdT] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._dirty: set[str] = set()
        self._warned: set[tuple[str, str]] = set()
        self._browser: AsyncServiceBrowser | None = None
        self.events: asyncio.Queue[EventT] = asyncio.Queue(maxsize=queue_size)

    def _event(self, kind: str, ad: AdT) -> EventT:
        """The event for ``kind`` (``"added"`` / ``"updated"`` / ``"removed"``)."""
        raise NotImplementedError

    @staticmethod
    def _sort_key(ad: Any) -> tuple[str, str]:
        raise NotImplementedError

    def _accept(self, ad: AdT) -> bool:
        """Hook: False hides a valid ad (it is then neither listed nor reported)."""
        return True

    def _view(self) -> Mapping[str, AdT]:
        return types.MappingProxyType(self._ads)

    @property
    def running(self) -> bool:
        return self._browser is not None

    def snapshot(self) -> list[AdT]:
        """The current ads sorted by :meth:`_sort_key`."""
        return sorted(self._ads.values(), key=self._sort_key)

    async def start(self) -> None:
        if self._browser is not None:
            raise RuntimeError("browser already started")
        self._browser = AsyncServiceBrowser(
            self._zeroconf().zeroconf,
            self._service_type,
            handlers=[self._on_service_state_change],
            question_type=QUESTION_TYPE,
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
            await self._close_owned_zc()

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
            self._resolve_loop(name), name=f"{self._task_prefix}:{name}"
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
            info = AsyncServiceInfo(self._service_type, name)
            found = await info.async_request(
                azc.zeroconf, self._resolve_timeout_ms, question_type=QUESTION_TYPE
            )
            if not found:
                self._log.debug(
                    "could not resolve %s %s in time; skipped", self._noun, clip(repr(name), LOG_CLIP)
                )
                return
            ad: AdT = self._ad_type.from_txt(
                info.properties,
                addresses=info.parsed_addresses(),
                port=info.port,
                service_name=name,
            )
        except asyncio.CancelledError:
            raise
        except (ValueError, BadTypeInNameException) as exc:
            self._warn_invalid(name, str(exc))
            self._remove(name)  # an ad whose record turned invalid is no longer listed
            return
        except Exception as exc:  # a hostile record must never stop the browser
            self._warn_invalid(name, f"unexpected {type(exc).__name__}: {exc}")
            return
        if not self._accept(ad):
            return
        old = self._ads.get(name)
        if old == ad:
            return
        if old is None and len(self._ads) >= self._max_ads:
            self._warn_invalid(name, f"more than {self._max_ads} {self._noun}s")
            return
        self._ads[name] = ad
        self._emit(self._event("added" if old is None else "updated", ad))

    def _remove(self, name: str) -> None:
        old = self._ads.pop(name, None)
        if old is not None:
            self._emit(self._event("removed", old))

    def _warn_invalid(self, name: str, reason: str) -> None:
        """Log one printable line: the record's name (as ``repr``, clipped) and why it
        was skipped; the same (name, reason) is logged at WARNING once."""
        shown, why = clip(repr(name), LOG_CLIP), clip(reason, LOG_CLIP)
        key = (shown, why)
        level = logging.DEBUG if key in self._warned else logging.WARNING
        if len(self._warned) >= 1024:
            self._warned.clear()
        self._warned.add(key)
        self._log.log(level, "skipping invalid %s record %s: %s", self._noun, shown, why)
        if self._on_invalid is not None and level == logging.WARNING:
            try:
                self._on_invalid(shown, why)
            except Exception:  # noqa: BLE001 - a caller's bug must not stop the browser
                self._log.warning("%s browser on_invalid callback failed", self._noun)

    def _emit(self, event: EventT) -> None:
        if self.events.full():
            with contextlib.suppress(asyncio.QueueEmpty):
                self.events.get_nowait()
        self.events.put_nowait(event)
        if self._on_change is not None:
            try:
                self._on_change(event)
            except Exception as exc:  # noqa: BLE001 - a caller's bug must not stop the browser
                self._log.error(
                    "%s browser on_change callback failed: %s: %s",
                    self._noun, type(exc).__name__, clip(exc, LOG_CLIP),
                )


async def browse_once(
    browser_type: Callable[..., ServiceBrowser[AdT, Any]],
    timeout: float,
    *,
    until: Callable[[AdT], bool] | None = None,
    on_ad: Callable[[AdT], None] | None = None,
    **options: Any,
) -> list[AdT]:
    """Browse with ``browser_type(resolve_timeout=timeout, **options)`` for ``timeout``
    seconds and return its snapshot.

    ``on_ad`` is called with each ad as it is added (to show it at once); with
    ``until``, browsing stops as soon as an added or updated ad satisfies it (the
    snapshot then holds that ad), so a caller looking for one table does not wait for
    the whole ``timeout``.
    """
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    found = asyncio.Event()
    log = logging.getLogger(__name__)

    def on_change(event: Any) -> None:
        kind = str(getattr(event, "kind", ""))
        ad = getattr(event, "table", None) or getattr(event, "player", None)
        if ad is None or kind == "removed":
            return
        if on_ad is not None and kind == "added":
            try:
                on_ad(ad)
            except Exception as exc:  # noqa: BLE001
                log.error("on_ad callback failed: %s: %s", type(exc).__name__, clip(exc, LOG_CLIP))
        if until is not None and until(ad):
            found.set()

    browser = browser_type(resolve_timeout=timeout, on_change=on_change, **options)
    await browser.start()
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(found.wait(), timeout)
        return browser.snapshot()
    finally:
        await browser.stop()
