"""Tests for rami_lan.net.discovery: TXT codec, instance names, and live mDNS on loopback.

Live tests only ever start zeroconf with ``interfaces=["127.0.0.1"]`` and
``IPVersion.V4Only``. Other processes on this machine may browse or advertise on
loopback at the same time, so assertions only look at this test's own table ids.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import secrets
import statistics
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from aio_helpers import poll_until, run
from hypothesis import given, settings
from hypothesis import strategies as st
from zeroconf import IPVersion, ServiceInfo, service_type_name
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from rami_lan.net.discovery import (
    MAX_HOST_BYTES,
    MAX_NAME_BYTES,
    MAX_SEATS,
    OPTIONAL_TXT_KEYS,
    PROTOCOL_VERSION,
    REVISION_KEY,
    SERVICE_TYPE,
    TXT_KEYS,
    VARIANT_IDS,
    TableAd,
    TableAdvertiser,
    TableBrowser,
    TableEvent,
    TableEventKind,
    find_tables,
    instance_name_for,
    service_name_for,
)

LOOPBACK: dict[str, Any] = {"interfaces": ["127.0.0.1"], "ip_version": IPVersion.V4Only}
LIVE_TIMEOUT = 10.0  # hard cap per live test
SEEN_WITHIN = 2.0  # seconds a browser may take to see a change
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def make_ad(**changes: Any) -> TableAd:
    fields: dict[str, Any] = {
        "table_id": secrets.token_hex(8),
        "name": "Chez Marie",
        "host": "marie",
        "variant": "rami",
        "seats_taken": 1,
        "seats_total": 4,
        "point_limit": 100,
        "code_required": False,
        "frapper": True,
        "timer": 30,
    }
    fields.update(changes)
    return TableAd(**fields)


def txt_bytes(ad: TableAd) -> dict[bytes, bytes | None]:
    return {k.encode(): v.encode() for k, v in ad.to_txt().items()}


def run_live(test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    run(test(), LIVE_TIMEOUT)


wait_until = functools.partial(poll_until, timeout=SEEN_WITHIN)


def mine(browser: TableBrowser, *ads: TableAd) -> dict[str, TableAd]:
    """The browsed tables among ``ads``, by table id."""
    ids = {ad.table_id for ad in ads}
    return {t.table_id: t for t in browser.snapshot() if t.table_id in ids}


def drain(queue: asyncio.Queue[TableEvent]) -> list[TableEvent]:
    events = []
    while not queue.empty():
        events.append(queue.get_nowait())
    return events


# --------------------------------------------------------------------------- TXT codec

text_chars = st.characters(exclude_categories=("Cc", "Cs", "Zl", "Zp"), exclude_characters=BIDI)


def label(max_bytes: int) -> st.SearchStrategy[str]:
    return st.text(text_chars, min_size=1, max_size=max_bytes).filter(
        lambda s: s.strip() == s and bool(s) and len(s.encode()) <= max_bytes
        and all(ch == " " or ch.isprintable() for ch in s)
    )


@st.composite
def table_ads(draw: st.DrawFn) -> TableAd:
    seats_total = draw(st.integers(2, MAX_SEATS))
    return TableAd(
        table_id=draw(st.from_regex(r"[0-9a-f]{8,32}", fullmatch=True)),
        name=draw(label(MAX_NAME_BYTES)),
        host=draw(label(MAX_HOST_BYTES)),
        variant=draw(st.sampled_from(VARIANT_IDS)),
        seats_taken=draw(st.integers(0, seats_total)),
        seats_total=seats_total,
        code_required=draw(st.booleans()),
        point_limit=draw(st.integers(0, 99_999)),
        frapper=draw(st.booleans()),
        timer=draw(st.integers(0, 3600)),
        protocol_version=draw(st.integers(1, 255)),
        fingerprint=draw(st.one_of(st.just(""), st.from_regex(r"[0-9a-f]{64}", fullmatch=True))),
        private_deal=draw(st.booleans()),
    )


@settings(max_examples=200, deadline=None)
@given(table_ads())
def test_txt_round_trip(ad: TableAd) -> None:
    txt = ad.to_txt()
    assert list(txt) == [*TXT_KEYS, *OPTIONAL_TXT_KEYS]
    assert all(isinstance(v, str) for v in txt.values())
    assert all(len(f"{k}={v}".encode()) <= 255 for k, v in txt.items())
    assert TableAd.from_txt(txt_bytes(ad)) == ad
    # Through zeroconf's own TXT wire encoding too.
    info = ServiceInfo(SERVICE_TYPE, service_name_for(ad), port=1, properties=txt)
    parsed = ServiceInfo(SERVICE_TYPE, service_name_for(ad), port=1, properties=info.text)
    assert TableAd.from_txt(parsed.properties) == ad


def test_from_txt_fills_browse_fields_and_ignores_unknown_keys() -> None:
    ad = make_ad(code_required=True, fingerprint="ab12" * 16)
    props = txt_bytes(ad) | {b"zz": b"future", b"flag": None, REVISION_KEY.encode(): b"7"}
    got = TableAd.from_txt(props, addresses=["127.0.0.1"], port=4242, service_name="x")
    assert got == dataclasses.replace(ad, addresses=("127.0.0.1",), port=4242, service_name="x")
    assert got.compatible and not got.is_full and got.protocol_version == PROTOCOL_VERSION


def _set(key: str, value: bytes | None) -> Callable[[dict[bytes, bytes | None]], None]:
    def mutate(props: dict[bytes, bytes | None]) -> None:
        props[key.encode()] = value

    return mutate


def _drop(key: str) -> Callable[[dict[bytes, bytes | None]], None]:
    def mutate(props: dict[bytes, bytes | None]) -> None:
        del props[key.encode()]

    return mutate


MALFORMED = {
    **{f"missing-{key}": _drop(key) for key in TXT_KEYS},
    "no-value": _set("st", None),
    "not-utf8": _set("n", b"\xff\xfe"),
    "int-word": _set("st", b"two"),
    "int-float": _set("pl", b"1.5"),
    "int-sign": _set("st", b"+1"),
    "int-leading-zero": _set("st", b"01"),
    "int-space": _set("st", b" 1"),
    "int-underscore": _set("pl", b"1_000"),
    "int-non-ascii-digit": _set("st", "\u0661".encode()),
    "int-huge": _set("pl", b"9" * 40),
    "bool-word": _set("c", b"true"),
    "bool-two": _set("f", b"2"),
    "name-too-long": _set("n", b"x" * (MAX_NAME_BYTES + 1)),
    "host-too-long": _set("h", b"x" * (MAX_HOST_BYTES + 1)),
    "item-over-255": _set("fp", b"a" * 300),
    "name-blank": _set("n", b"   "),
    "name-empty": _set("n", b""),
    "name-control": _set("n", b"evil\x1b[2Jname"),
    "name-newline": _set("n", b"two\nlines"),
    "name-bidi": _set("n", "abc\u202edef".encode()),
    "name-zero-width": _set("n", "ab\u200bcd".encode()),
    "name-nbsp": _set("h", "a\u00a0b".encode()),
    "name-edge-space": _set("n", b" padded"),
    "unknown-variant": _set("v", b"poker"),
    "variant-case": _set("v", b"Rami"),
    "seats-taken-over-total": lambda props: props.update({b"st": b"3", b"sn": b"2"}),
    "seats-total-one": _set("sn", b"1"),
    "seats-total-too-many": _set("sn", b"9"),
    "timer-too-long": _set("t", b"3601"),
    "pv-zero": _set("pv", b"0"),
    "table-id-upper": _set("id", b"ABCDEF0123"),
    "table-id-short": _set("id", b"abc"),
    "table-id-not-hex": _set("id", b"zzzzzzzzzz"),
    "fingerprint-space": _set("fp", b"sha256 ab"),
    "fingerprint-zz": _set("fp", b"zz"),
    "fingerprint-short": _set("fp", b"ab" * 31),
    "fingerprint-upper": _set("fp", b"AB" * 32),
    "fingerprint-colons": _set("fp", b":".join([b"ab"] * 32)),
    "seats-total-five": _set("sn", b"5"),
    "seats-total-eight": _set("sn", b"8"),
}


@pytest.mark.parametrize("mutate", MALFORMED.values(), ids=MALFORMED.keys())
def test_from_txt_rejects_malformed(mutate: Callable[[dict[bytes, bytes | None]], None]) -> None:
    props = txt_bytes(make_ad())
    mutate(props)
    with pytest.raises(ValueError):
        TableAd.from_txt(props)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("seats_taken", True),
        ("seats_total", "4"),
        ("code_required", 1),
        ("frapper", "yes"),
        ("point_limit", -1),
        ("timer", 1.5),
        ("port", 0),
        ("addresses", "127.0.0.1"),
        ("addresses", ["not-an-ip"]),
    ],
)
def test_table_ad_rejects_bad_values(field: str, value: Any) -> None:
    with pytest.raises(ValueError):
        make_ad(**{field: value})


def test_from_txt_rejects_bad_browse_fields() -> None:
    props = txt_bytes(make_ad())
    with pytest.raises(ValueError):
        TableAd.from_txt(props, port=0)
    with pytest.raises(ValueError):
        TableAd.from_txt(props, addresses=["999.1.1.1"])


# --------------------------------------------------------------------------- names


def test_instance_name_examples() -> None:
    ad = make_ad(table_id="ab12cd34ef56", name="Chez Marie")
    assert instance_name_for(ad) == "Chez Marie (ab12cd)"
    assert service_name_for(ad) == f"Chez Marie (ab12cd).{SERVICE_TYPE}"
    assert instance_name_for(dataclasses.replace(ad, name="a.b\\c  d")) == "a b c d (ab12cd)"
    assert instance_name_for(dataclasses.replace(ad, name="...")) == "Rami (ab12cd)"
    assert instance_name_for(dataclasses.replace(ad, name="_x")) == "x (ab12cd)"
    long_name = instance_name_for(dataclasses.replace(ad, name="é" * 32))
    assert len(long_name.encode()) <= 63 and long_name.endswith("é (ab12cd)")


@settings(max_examples=100, deadline=None)
@given(table_ads())
def test_instance_name_is_dns_sd_safe(ad: TableAd) -> None:
    instance = instance_name_for(ad)
    assert len(instance.encode()) <= 63
    assert instance.endswith(f" ({ad.table_id[:6]})")
    assert "." not in instance and "\\" not in instance
    assert instance == instance.strip()
    assert service_type_name(service_name_for(ad), strict=True) == SERVICE_TYPE
    AsyncServiceInfo(SERVICE_TYPE, service_name_for(ad))  # zeroconf accepts it


def test_interfaces_are_validated() -> None:
    for bad in ("127.0.0.1", [], ["eth0"]):
        with pytest.raises(ValueError):
            TableBrowser(interfaces=bad)
        with pytest.raises(ValueError):
            TableAdvertiser(make_ad(), 4000, interfaces=bad)


def test_update_validates_without_network() -> None:
    async def scenario() -> None:
        adv = TableAdvertiser(make_ad(), 4000, **LOOPBACK)
        assert adv.ad.addresses == ("127.0.0.1",) and adv.ad.port == 4000
        assert (await adv.update(seats_taken=2)).seats_taken == 2
        for bad in ({"table_id": "ab12cd34"}, {"port": 1}, {"seats_taken": 9}):
            with pytest.raises(ValueError):
                await adv.update(**bad)
        with pytest.raises(TypeError):
            await adv.update(no_such_field=1)
        assert adv.ad.seats_taken == 2 and not adv.running

    asyncio.run(scenario())


# --------------------------------------------------------------------------- live, loopback


def test_browser_sees_table_then_updates_then_removal() -> None:
    async def scenario() -> None:
        ad = make_ad(code_required=True, fingerprint="00ff" * 16)
        async with TableBrowser(**LOOPBACK) as browser:
            adv = TableAdvertiser(ad, 47123, **LOOPBACK)
            await adv.start()
            try:
                await wait_until(lambda: ad.table_id in mine(browser, ad), "table seen")
                seen = mine(browser, ad)[ad.table_id]
                assert seen == dataclasses.replace(
                    ad, port=47123, addresses=("127.0.0.1",), service_name=adv.service_name
                )
                assert adv.service_name == f"Chez Marie ({ad.table_id[:6]}).{SERVICE_TYPE}"
                assert browser.tables[adv.service_name] == seen
                assert [e.kind for e in drain(browser.events) if e.table == seen] == ["added"]

                # Seats change, including flips back to an earlier value.
                for seats in (2, 1, 3, 1):
                    await adv.update(seats_taken=seats)
                    await wait_until(
                        lambda s=seats: mine(browser, ad)[ad.table_id].seats_taken == s,
                        f"seats_taken={seats} seen",
                    )
                events = [e for e in drain(browser.events) if e.table.table_id == ad.table_id]
                assert events and all(e.kind is TableEventKind.UPDATED for e in events)
                assert events[-1].table.seats_taken == 1
            finally:
                await adv.stop()
            await wait_until(lambda: not mine(browser, ad), "table removed")
            removed = [e for e in drain(browser.events) if e.table.table_id == ad.table_id]
            assert [e.kind for e in removed] == ["removed"]
            assert not adv.running

    run_live(scenario)


def test_two_tables_on_a_shared_zeroconf() -> None:
    async def scenario() -> None:
        first = make_ad(name="Zèbre", variant="500", seats_total=3)
        second = make_ad(name="avant", variant="40", seats_taken=2, seats_total=2)
        changes: list[TableEvent] = []
        shared = AsyncZeroconf(**LOOPBACK)
        try:
            async with TableBrowser(**LOOPBACK, on_change=changes.append) as browser:
                async with (
                    TableAdvertiser(first, 47001, zeroconf=shared, **LOOPBACK),
                    TableAdvertiser(second, 47002, zeroconf=shared, **LOOPBACK),
                ):
                    await wait_until(lambda: len(mine(browser, first, second)) == 2, "both seen")
                    ours = [
                        t for t in browser.snapshot() if t.table_id in mine(browser, first, second)
                    ]
                    assert [t.name for t in ours] == ["avant", "Zèbre"]  # sorted by name
                    assert [t.port for t in ours] == [47002, 47001]
                    assert ours[0].is_full
                assert not shared.zeroconf.done  # a shared instance is not closed
                await wait_until(lambda: not mine(browser, first, second), "both removed")
            kinds = {(e.kind, e.table.table_id) for e in changes}
            for ad in (first, second):
                assert {
                    (TableEventKind.ADDED, ad.table_id),
                    (TableEventKind.REMOVED, ad.table_id),
                } <= kinds
        finally:
            await shared.async_close()

    run_live(scenario)


def test_garbage_records_are_skipped(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="rami_lan.net.discovery")
    token = secrets.token_hex(4)
    good = make_ad(name="Valid")
    base = {k: v for k, v in good.to_txt().items()}
    good_text = ServiceInfo(SERVICE_TYPE, service_name_for(good), properties=base).text
    garbage_txt: dict[str, dict[str, str] | dict[bytes, bytes] | bytes] = {
        "missing": {"pv": "1", "n": "x"},
        "seats": base | {"st": "5"},
        "variant": base | {"v": "poker"},
        "not-utf8": {k.encode(): v.encode() for k, v in base.items()} | {b"n": b"\xff\xfe"},
        "empty": b"",
        "truncated": b"\x40" + good_text,  # a length byte that swallows the next items
        "fp-zz": base | {"fp": "zz"},
        "seats-five": base | {"sn": "5", "st": "1"},
        "seats-eight": base | {"sn": "8"},
    }

    async def scenario() -> None:
        garbage_names = [f"junk-{label_}-{token}.{SERVICE_TYPE}" for label_ in garbage_txt]
        async with TableBrowser(**LOOPBACK, resolve_timeout=1.0) as browser:
            async with AsyncZeroconf(**LOOPBACK) as spoofer:
                for name, props in zip(garbage_names, garbage_txt.values(), strict=True):
                    info = AsyncServiceInfo(
                        SERVICE_TYPE,
                        name,
                        port=47999,
                        properties=props,
                        server=f"junk-{token}.local.",
                        parsed_addresses=["127.0.0.1"],
                    )
                    await spoofer.async_register_service(info, cooperating_responders=True)
                # A port-0 SRV with a valid TXT is rejected too.
                bad_port = AsyncServiceInfo(
                    SERVICE_TYPE,
                    f"junk-port-{token}.{SERVICE_TYPE}",
                    port=0,
                    properties=make_ad().to_txt(),
                    server=f"junk-{token}.local.",
                    parsed_addresses=["127.0.0.1"],
                )
                await spoofer.async_register_service(bad_port, cooperating_responders=True)
                garbage_names.append(bad_port.name)

                async with TableAdvertiser(good, 47010, **LOOPBACK):
                    await wait_until(lambda: good.table_id in mine(browser, good), "valid seen")

                    def all_rejected() -> bool:
                        logged = caplog.text
                        return all(repr(name) in logged for name in garbage_names)

                    await wait_until(all_rejected, "every garbage record logged as skipped")
                    assert not set(garbage_names) & set(browser.tables)
                    assert "\x1b" not in caplog.text and "\x07" not in caplog.text
                    for rec in caplog.records:
                        assert "\n" not in rec.getMessage()
                    assert browser.running

                    # The browser keeps working after the garbage.
                    later = make_ad(name="Later")
                    async with TableAdvertiser(later, 47011, **LOOPBACK):
                        await wait_until(lambda: later.table_id in mine(browser, later), "later")
                    assert good.table_id in mine(browser, good)

    run_live(scenario)


def test_find_tables_on_loopback() -> None:
    async def scenario() -> None:
        ad = make_ad(name="Listed")
        async with TableAdvertiser(ad, 47020, **LOOPBACK):
            tables = await find_tables(0.5, ["127.0.0.1"])
        assert [t.port for t in tables if t.table_id == ad.table_id] == [47020]

    run_live(scenario)


def test_on_change_errors_do_not_stop_the_browser(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        def explode(event: TableEvent) -> None:
            raise RuntimeError("lobby bug")

        ad = make_ad()
        async with TableBrowser(**LOOPBACK, on_change=explode) as browser:
            async with TableAdvertiser(ad, 47030, **LOOPBACK) as adv:
                await wait_until(lambda: ad.table_id in mine(browser, ad), "seen")
                await adv.update(seats_taken=3)
                await wait_until(lambda: mine(browser, ad)[ad.table_id].seats_taken == 3, "3")
        assert "on_change callback failed" in caplog.text

    run_live(scenario)


# --------------------------------------------------------------------------- several mDNS stacks


def test_browser_and_resolver_ask_only_qm_questions() -> None:
    """A QU question's unicast answer reaches only one of the sockets bound to port 5353
    (avahi-daemon, another rami-lan): the browser must ask QM questions only."""
    from zeroconf import DNSOutgoing

    async def scenario() -> None:
        ad = make_ad(name="QM only")
        lobby_zc = AsyncZeroconf(**LOOPBACK)
        sent: list[tuple[str, bool]] = []
        original = lobby_zc.zeroconf.async_send

        def spy(out: DNSOutgoing, *args: Any, **kwargs: Any) -> None:
            sent.extend((q.name, q.unicast) for q in out.questions)
            original(out, *args, **kwargs)

        lobby_zc.zeroconf.async_send = spy  # type: ignore[method-assign]
        try:
            async with TableAdvertiser(ad, 47040, **LOOPBACK):
                async with TableBrowser(zeroconf=lobby_zc, resolve_timeout=0.5, **LOOPBACK) as browser:
                    await wait_until(lambda: any(n == SERVICE_TYPE for n, _ in sent), "browsed")
                    await wait_until(lambda: ad.table_id in mine(browser, ad), "seen")
                    # A name not in the cache makes the resolver ask too.
                    await browser._resolve(f"absent {ad.table_id}.{SERVICE_TYPE}")
        finally:
            await lobby_zc.async_close()
        assert any(name.startswith("absent") for name, _ in sent), sent
        assert not [name for name, unicast in sent if unicast], "QU question sent"

    run_live(scenario)


LISTED_WITHIN = 0.5  # seconds, for the median: QU questions take ~1.1 s every time
LISTED_AT_WORST = 2.5  # one slow listing on a loaded CI machine is not a regression
# (the 0.5 s p99 target over 20 runs is checked by python -m benchmarks.discovery)


@pytest.mark.parametrize("lobby_first", [True, False], ids=["lobby-first", "tables-first"])
def test_tables_listed_fast_beside_an_independent_responder(lobby_first: bool) -> None:
    """Two tables (each its own zeroconf, as separate processes would be), a lobby, and an
    independent responder sharing port 5353 on loopback: every table is listed quickly,
    whether the lobby is running before the tables start or starts after them."""

    async def one_run(i: int) -> list[float]:
        ads = [make_ad(name=f"Stack {i}-{k}") for k in range(2)]
        seen: dict[str, float] = {}
        t0 = 0.0

        def on_change(event: TableEvent) -> None:
            seen.setdefault(event.table.table_id, asyncio.get_running_loop().time() - t0)

        other = AsyncZeroconf(**LOOPBACK)  # an independent mDNS stack on port 5353
        noise = AsyncServiceInfo(
            "_http._tcp.local.", f"noise {i}._http._tcp.local.", port=8080,
            properties={"x": "1"}, server="noise.local.", parsed_addresses=["127.0.0.1"],
        )
        await other.async_register_service(noise, cooperating_responders=True)
        advertisers = [TableAdvertiser(ad, 47050 + k, **LOOPBACK) for k, ad in enumerate(ads)]
        browser = TableBrowser(**LOOPBACK, on_change=on_change)
        try:
            loop = asyncio.get_running_loop()
            if lobby_first:
                await browser.start()
                await asyncio.sleep(0)
                t0 = loop.time()
                for adv in advertisers:
                    await adv.start()
            else:
                for adv in advertisers:
                    await adv.start()
                # The tables have been open a while: their announcements are over, and
                # (RFC 6762 section 6) a responder may multicast a record again only a
                # second after it last did, so only a QM answer reaches every socket.
                await asyncio.sleep(1.2)
                t0 = loop.time()
                await browser.start()
            ids = {ad.table_id for ad in ads}
            await poll_until(lambda: ids <= set(seen), "both tables listed", 5.0)
            return [seen[ad.table_id] for ad in ads]
        finally:
            await browser.stop()
            for adv in advertisers:
                await adv.stop()
            await other.async_close()

    async def scenario() -> None:
        times = [t for i in range(2) for t in await one_run(i)]
        assert statistics.median(times) <= LISTED_WITHIN, times
        assert max(times) <= LISTED_AT_WORST, times

    run(scenario(), 40.0)


def test_find_table_returns_as_soon_as_the_table_resolves() -> None:
    from rami_lan.net.discovery import find_table

    async def scenario() -> None:
        ad = make_ad(name="Early bird")
        async with TableAdvertiser(ad, 47060, **LOOPBACK):
            # A 30 s timeout is only the longest wait: the call ends once it resolves.
            found = await asyncio.wait_for(find_table("early BIRD", 30.0, ["127.0.0.1"]), 10.0)
            assert found is not None and found.table_id == ad.table_id and found.port == 47060
            by_id = await asyncio.wait_for(find_table(ad.table_id[:10], 30.0, ["127.0.0.1"]), 10.0)
            assert by_id is not None and by_id.table_id == ad.table_id
        assert await find_table("no such table", 0.3, ["127.0.0.1"]) is None

    run_live(scenario)


# --------------------------------------------------------------------------- update storm


class FakeZeroconf:
    """Stands in for an AsyncZeroconf: counts announcement series, sends nothing."""

    def __init__(self) -> None:
        self.updates: list[dict[bytes, bytes | None]] = []
        self.registered = 0
        self.unregistered = 0
        self.zeroconf = type("Z", (), {"done": False})()

    async def async_register_service(self, info: Any, **kw: Any) -> asyncio.Future[None]:
        self.registered += 1
        return self._done()

    async def async_update_service(self, info: Any) -> asyncio.Future[None]:
        self.updates.append(dict(info.properties))
        return self._done()

    async def async_unregister_service(self, info: Any) -> asyncio.Future[None]:
        self.unregistered += 1
        return self._done()

    @staticmethod
    def _done() -> asyncio.Future[None]:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        fut.set_result(None)
        return fut


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        wake = self.now + seconds
        while self.now < wake:
            await asyncio.sleep(0)


def test_join_leave_storm_is_coalesced_to_one_announcement_per_second() -> None:
    """13.4: 2,338 join/leave cycles in 10 s used to send one announcement series per
    change (4,676); now at most one per second per service, and the latest state wins."""
    from rami_lan.net.mdns import MIN_UPDATE_INTERVAL

    async def scenario() -> None:
        zc, clock = FakeZeroconf(), FakeClock()
        ad = make_ad(seats_taken=1, seats_total=4)
        adv = TableAdvertiser(ad, 47070, zeroconf=zc, clock=clock,  # type: ignore[arg-type]
                              sleep=clock.sleep, **LOOPBACK)
        await adv.start()
        cycles, span = 2338, 10.0
        for _ in range(cycles):
            for seats in (2, 1):  # a player joins, then leaves
                await adv.update(seats_taken=seats)
                clock.now += span / cycles / 2
                for _ in range(3):
                    await asyncio.sleep(0)
        assert adv.ad.seats_taken == 1
        bound = int(span / MIN_UPDATE_INTERVAL) + 1
        assert span / MIN_UPDATE_INTERVAL / 2 <= len(zc.updates) <= bound, len(zc.updates)
        assert adv.announcements == len(zc.updates)
        # Latest state wins: a final change is announced once the interval has passed.
        await adv.update(seats_taken=3)
        clock.now += MIN_UPDATE_INTERVAL
        await asyncio.wait_for(adv.flush(), 5.0)
        assert zc.updates[-1][b"st"] == b"3"
        # A change undone within the interval is never announced.
        count = len(zc.updates)
        await adv.update(seats_taken=2)
        await adv.update(seats_taken=3)
        clock.now += MIN_UPDATE_INTERVAL
        await asyncio.wait_for(adv.flush(), 5.0)
        assert len(zc.updates) == count
        await adv.stop()
        assert zc.unregistered == 1

    run(scenario(), 60.0)


def test_announce_limiter_numbers() -> None:
    from rami_lan.net.mdns import AnnounceLimiter

    lim = AnnounceLimiter(1.0)
    assert lim.delay(5.0) == 0.0
    lim.sent(5.0)
    assert lim.delay(5.25) == pytest.approx(0.75)
    assert lim.delay(6.0) == 0.0
    with pytest.raises(ValueError):
        AnnounceLimiter(-1)


# --------------------------------------------------------------------------- foreign text


def test_zeroconf_log_records_are_one_safe_line() -> None:
    import io

    from rami_lan.net import mdns

    mdns.install_safe_zeroconf_logging()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    zlog = logging.getLogger("zeroconf")
    zlog.addHandler(handler)
    try:
        try:
            raise ValueError("bad name b'\x1b[2Jevil\nline'")
        except ValueError:
            zlog.warning("Received invalid packet from %s: %s", "1.2.3.4", "\x1b]0;title\x07" + "x" * 5000,
                         exc_info=True)
    finally:
        zlog.removeHandler(handler)
    out = stream.getvalue()
    assert out.count("\n") == 1, out
    assert "\x1b" not in out and "\x07" not in out
    assert "Traceback" not in out and "ValueError" in out
    assert len(out) <= 400


def test_escape_sequences_in_a_received_instance_name_never_reach_a_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """zeroconf refuses to register such a name, but anyone can send the packet: a PTR
    to an instance name with an escape sequence, with a TXT record. The browser skips
    it; its log line and zeroconf's carry no control character."""
    from zeroconf import DNSOutgoing, DNSPointer, DNSText, const

    caplog.set_level(logging.DEBUG)
    token = secrets.token_hex(4)
    bad = f"evil\x1b]0;pwned\x07\x1b[2J{token}.{SERVICE_TYPE}"

    async def scenario() -> None:
        async with TableBrowser(**LOOPBACK, resolve_timeout=0.5) as browser:
            async with AsyncZeroconf(**LOOPBACK) as spoofer:
                await spoofer.zeroconf.async_wait_for_start()
                out = DNSOutgoing(const._FLAGS_QR_RESPONSE | const._FLAGS_AA)
                out.add_answer_at_time(
                    DNSPointer(SERVICE_TYPE, const._TYPE_PTR, const._CLASS_IN, 120, bad), 0)
                out.add_answer_at_time(
                    DNSText(bad, const._TYPE_TXT, const._CLASS_IN | const._CLASS_UNIQUE, 120,
                            b"\x05pv=1\x07n=\x1b[2J"), 0)
                for _ in range(3):
                    spoofer.zeroconf.async_send(out)
                    await asyncio.sleep(0.05)
                await wait_until(lambda: token in caplog.text, "the spoofed record was handled")
                good = make_ad(name="After the spoof")
                async with TableAdvertiser(good, 47080, **LOOPBACK):
                    await wait_until(lambda: good.table_id in mine(browser, good), "still works")
            assert not any(token in name for name in browser.tables)
        for rec in caplog.records:
            text = rec.getMessage()
            assert "\x1b" not in text and "\x07" not in text, text
            assert rec.exc_info is None or rec.name != "rami_lan.net.discovery"

    run_live(scenario)


def test_ad_text_and_host_label_always_make_a_valid_ad() -> None:
    from rami_lan.net.discovery import ad_text, host_label

    name = ad_text("  Chez\u00a0Marie\u200b \x1b[2J" + "é" * 80, MAX_NAME_BYTES, "Rami")
    host = host_label("\u202eanne\u202c")
    ad = make_ad(name=name, host=host)
    assert ad.host == "anne" and "\x1b" not in ad.name and len(ad.name.encode()) <= MAX_NAME_BYTES
    assert host_label("") == "Rami" and host_label(None) == "Rami"
    assert host_label("x" * 40) == "x" * MAX_HOST_BYTES


def test_a_group_tag_gives_tables_and_players_their_own_service_types(monkeypatch) -> None:
    from rami_lan.net.mdns import MDNS_TAG_ENV, service_type

    monkeypatch.delenv(MDNS_TAG_ENV, raising=False)
    assert service_type("rami") == "_rami._tcp.local."
    assert service_type("rami-player") == "_rami-player._tcp.local."
    monkeypatch.setenv(MDNS_TAG_ENV, "b7")
    assert service_type("rami") == "_rami-b7._tcp.local."
    assert service_type_name(f"x.{service_type('rami-player')}", strict=True) == "_rami-player-b7._tcp.local."
    for bad in ("ABC", "toolong", "a.b", "é"):
        monkeypatch.setenv(MDNS_TAG_ENV, bad)
        assert service_type("rami") == "_rami._tcp.local."  # ignored, with a warning
