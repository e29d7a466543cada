"""The lobby: tables and players found on the LAN (live), New table, Solo,
statistics, settings, invitations.

The list comes from a `TableBrowser` started in the background after the first
frame, so the lobby appears at once. Presence (`rami_lan.net.presence`) runs beside
it: the lobby advertises the player (`PlayerAdvertiser`, with the port of its
invitation listener), lists the others (`PlayerBrowser`) and prompts for each
invitation received (Enter joins, Esc declines). ``interfaces`` (or
``$RAMI_LAN_INTERFACES``, comma-separated) limits all of it, e.g. to 127.0.0.1.
Joining and opening a table use the network layer's entry points
(`rami_lan.net.client.open_session`, `rami_lan.net.host`); when they are not
installed the lobby says so and stays usable (Solo always works).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from prompt_toolkit.application import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from rami_lan.cli.messages import (
    bot_mark,
    invitation_prompt,
    join_refused_text,
    level_name,
    player_status_text,
)
from rami_lan.cli.settings import Settings, clean_nickname, save_settings
from rami_lan.cli.ui.forms import Field, Form
from rami_lan.cli.ui.shell import Shell, screen_window
from rami_lan.cli.ui.text import Lines, on_click
from rami_lan.i18n import _, detect_language, language, set_language
from rami_lan.ids import env_interfaces
from rami_lan.profile import localized_nickname
from rami_lan.textsafe import safe_text

log = logging.getLogger(__name__)
BrowserFactory = Callable[[], Any]
LEVELS = ("debutant", "moyen", "expert")
NO_BROWSE_ENV = "RAMI_LAN_NO_BROWSE"


def level_text(level: str) -> str:
    return level_name(level)


def limit_choices(v: Any) -> list[tuple[Any, str]]:
    """The point limits a variant offers (elimination: a single round too; quick rounds)."""
    if v.match_rule == "elimination":
        return [(n, _("single round") if n == 1 else str(n)) for n in v.point_limits]
    out: list[tuple[Any, str]] = [(n, str(n)) for n in v.point_limits]
    if v.quick_rounds:
        out.append(("quick", _("quick: {n} rounds").format(n=v.quick_rounds)))
    return out


def reset_for_variant(values: dict[str, Any]) -> None:
    """A new variant: its own default limit, Frapper off where it has none."""
    from rami_lan.core.variants import get_variant

    v = get_variant(values["variant"])
    values["limit"] = v.default_limit
    if not v.knock_supported:
        values["knock"] = False


def variant_fields(values: dict[str, Any]) -> list[Field]:
    """Variant and seats: the first fields of both table forms (New table and Solo)."""
    from rami_lan.core.variants import VARIANTS

    return [
        Field("variant", lambda: _("Variant"),
              lambda: [(k, f"{v.name} ({k})") for k, v in VARIANTS.items()],
              on_change=lambda: reset_for_variant(values)),
        Field("seats", lambda: _("Seats"), lambda: [(n, str(n)) for n in (2, 3, 4)]),
    ]


def match_option_fields(values: dict[str, Any]) -> list[Field]:
    """Points, move timer and Frapper (only where the variant has it): the last fields of
    both table forms."""
    from rami_lan.core.variants import get_variant

    def variant() -> Any:
        return get_variant(values["variant"])

    return [
        Field("limit", lambda: _("Points"), lambda: limit_choices(variant())),
        Field("timer", lambda: _("Move timer"),
              lambda: [(0, _("off"))] + [(n, _("{n} s").format(n=n)) for n in (15, 30, 60)]),
        Field("knock", lambda: _("Frapper"),
              lambda: [(False, _("off")), (True, _("on"))],
              visible=lambda: variant().knock_supported),
    ]


SOLO_KEYS = ("variant", "seats", "seat1", "seat2", "seat3", "limit", "knock", "timer")


def solo_choices_path() -> Any:
    from rami_lan.cli.settings import config_dir

    return config_dir() / "solo.json"


def load_solo_choices() -> dict[str, Any]:
    """The Solo form's choices of last time (nothing when unreadable or invalid)."""
    import json

    from rami_lan.core.variants import VARIANTS, get_variant

    try:
        data = json.loads(solo_choices_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("variant") not in VARIANTS:
        return {}
    out = {k: data[k] for k in SOLO_KEYS if k in data}
    if out.get("seats") not in (2, 3, 4):
        out.pop("seats", None)
    for s in (1, 2, 3):
        if out.get(f"seat{s}") not in LEVELS:
            out.pop(f"seat{s}", None)
    if out.get("limit") not in [c for c, _t in limit_choices(get_variant(out["variant"]))]:
        out.pop("limit", None)
    if out.get("timer") not in (0, 15, 30, 60):
        out.pop("timer", None)
    out["knock"] = out.get("knock") is True
    return out


def save_solo_choices(values: dict[str, Any]) -> None:
    import json

    path = solo_choices_path()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({k: values.get(k) for k in SOLO_KEYS}), encoding="utf-8")


def _short_fp(fp: str) -> str:
    """A certificate fingerprint the way players compare it aloud (``3F2A-91BC-…``)."""
    try:
        from rami_lan.net.tls import short_fingerprint

        return short_fingerprint(fp)
    except (ImportError, ValueError):
        return safe_text(fp, 16)


PROBE_INTERVAL = 2.0
"""Seconds between two reachability probes of each listed table (ghost tables leave the
list: `rami_lan.net.discovery.TableBrowser`)."""


def default_browser() -> Any:
    from rami_lan.net.discovery import TableBrowser

    return TableBrowser(interfaces=env_interfaces(), probe_interval=PROBE_INTERVAL)


def item_key(item: tuple[str, Any]) -> tuple[str, str]:
    """What a lobby row is, whatever its position: a table by its id, an entry by kind."""
    kind, ad = item
    return (kind, str(getattr(ad, "table_id", "") or getattr(ad, "service_name", ""))
            if kind == "table" else "")


class Lobby:
    """The first screen of ``rami-lan``."""

    def __init__(
        self,
        shell: Shell,
        settings: Settings,
        *,
        browser_factory: BrowserFactory | None = default_browser,
        save: Callable[[Settings], object] = save_settings,
        solo_think: float = 0.5,
        profile: Any = None,
        presence: bool | None = None,
        interfaces: list[str] | str | None = None,
        open_session: Callable[..., Any] | None = None,
    ) -> None:
        """``profile``: the local `Profile` (None: ``load_profile()``); ``presence``:
        advertise the player, list the others and take invitations (None: unless
        ``$RAMI_LAN_NO_BROWSE``); ``interfaces``: where (None: ``$RAMI_LAN_INTERFACES``
        or all); ``open_session``: how to join a table (tests inject it)."""
        self.shell = shell
        self.settings = settings
        # a nickname never chosen is the language's default ("Player" / "Joueur")
        settings.nickname = localized_nickname(settings.nickname)
        if profile is None:
            from rami_lan.profile import load_profile

            profile = load_profile()
        self.profile = self._synced(profile)
        self.presence = (not os.environ.get(NO_BROWSE_ENV)) if presence is None else presence
        self.interfaces = env_interfaces() if interfaces is None else interfaces
        self._open_session = open_session
        self.players: list[Any] = []
        self.player_browser: Any = None
        self.advertiser: Any = None
        self.listener: Any = None
        self.inbox: Any = None
        self.invites: list[Any] = []  # invitations waiting for an answer, newest last
        self._presence_task: asyncio.Task[None] | None = None
        self.stats_lines: list[str] = []
        self.browser_factory = browser_factory
        self.save = save
        self.solo_think = solo_think
        self.browser: Any = None
        self.tables: list[Any] = []
        self.index = 0
        self.mode = "main"  # main, new, settings, code
        self.message: str | None = None
        self.busy = False
        self.host: Any = None
        self.session: Any = None
        """The seat being played from this lobby (closed at exit)."""
        from rami_lan.net.seats import SeatStore

        self.seat_store = SeatStore()
        self.kept: dict[str, Any] = {}
        """table id -> our `SeatCredentials` there (the lobby says "Rejoin")."""
        self._browsed: list[Any] = []
        self.pending_join: Any = None
        self._new_form: Form | None = None  # built on first use: it needs the rules core
        self._solo_form_obj: Form | None = None
        self.browse_error: str | None = None  # why the network can not be searched
        self._w = 80
        self.settings_form = self._settings_form()
        self.code_form = Form(
            title=lambda: _("This table needs a join code"),
            fields=[Field("code", lambda: _("Join code"), max_len=16)],
            values={"code": ""},
            submit_label=lambda: _("Join"),
        )
        self.control, self.focus = screen_window(self.fragments)
        self.container = self.focus
        self.key_bindings = self._bindings()
        self._browse_task: asyncio.Task[None] | None = None

    @property
    def new_form(self) -> Form:
        if self._new_form is None:
            self._new_form = self._new_table_form()
        return self._new_form

    # --- life cycle ---------------------------------------------------------------

    def attach(self, shell: Shell) -> None:
        self.shell = shell
        if self.browser_factory is not None and self._browse_task is None:
            self._browse_task = shell.app.create_background_task(self._browse())
        if self.presence and self._presence_task is None:
            self._presence_task = shell.app.create_background_task(self._run_presence())
        self._set_busy(False)

    # --- profile ------------------------------------------------------------------

    def _synced(self, profile: Any) -> Any:
        """The profile with the settings' nickname and language (settings win)."""
        from rami_lan.profile import save_profile

        new = profile
        try:
            if self.settings.nickname and self.settings.nickname != profile.nickname:
                new = new.renamed(self.settings.nickname)
            lang = self.settings.lang or language()
            if lang in ("fr", "en") and lang != new.lang:
                new = new.with_lang(lang)
        except ValueError:
            return profile
        if new != profile:
            with contextlib.suppress(OSError):
                save_profile(new)
        return new

    # --- presence and invitations ---------------------------------------------------

    def _listen_host(self) -> str | list[str] | None:
        return None if self.interfaces == "all" else list(self.interfaces)

    async def _run_presence(self) -> None:
        await asyncio.sleep(0.05)
        try:
            from rami_lan.cli.ui.invites import InviteListener
            from rami_lan.net.presence import (
                InvitationInbox,
                PlayerAd,
                PlayerAdvertiser,
                PlayerBrowser,
            )
            from rami_lan.net.tls import load_or_create_identity

            self.inbox = InvitationInbox()
            try:  # invitations over TLS, with our own certificate (advertised as ``fp``)
                identity = await asyncio.to_thread(load_or_create_identity, "rami-lan player")
            except OSError:
                identity = None
            self.listener = InviteListener(self.inbox, self._on_invite, self._on_cancel,
                                           identity=identity)
            port = await self.listener.start(self._listen_host())
            p = self.profile
            self.advertiser = PlayerAdvertiser(
                PlayerAd(player_id=p.player_id, nickname=p.nickname, lang=p.lang,
                         fingerprint=self.listener.fingerprint),
                port, interfaces=self.interfaces)
            await self.advertiser.start()
            self.player_browser = PlayerBrowser(
                exclude_player_id=p.player_id, interfaces=self.interfaces)
            await self.player_browser.start()
        except Exception as e:  # noqa: BLE001 - no network: the lobby still works
            self.message = _("Can not look for players on the network: {err}").format(err=e)
            self._invalidate()
            await self._stop_presence()
            return
        try:
            while True:
                snap = list(self.player_browser.snapshot())
                if snap != self.players:
                    self.players = snap
                    self._invalidate()
                await asyncio.sleep(0.1)
        finally:
            await self._stop_presence()

    async def _stop_presence(self) -> None:
        for obj in (self.player_browser, self.advertiser, self.listener):
            if obj is not None:
                with contextlib.suppress(Exception):
                    await obj.stop()
        self.player_browser = self.advertiser = self.listener = None

    def _on_invite(self, inv: Any) -> None:
        self.invites.append(inv)
        self._invalidate()

    def _on_cancel(self, invitation_id: str) -> None:
        self.invites = [i for i in self.invites if i.invitation_id != invitation_id]
        self._invalidate()

    def _set_busy(self, busy: bool, table_id: str = "") -> None:
        """At a table: invitations are answered "busy" and presence says so."""
        if self.inbox is not None:
            self.inbox.busy = busy
        adv = self.advertiser
        if adv is None or self.shell is None or not self.shell.app.is_running:
            return
        from rami_lan.net.presence import PlayerStatus

        async def update() -> None:
            with contextlib.suppress(Exception):
                if busy and table_id:
                    await adv.update(status=PlayerStatus.AT_TABLE, table_id=table_id)
                elif not busy:
                    await adv.update(status=PlayerStatus.LOBBY)

        self.shell.app.create_background_task(update())

    def accept_invite(self) -> None:
        """Join the newest invitation's table (one key)."""
        if not self.invites or self.inbox is None:
            return
        inv = self.invites.pop()
        try:
            inv, reply = self.inbox.accept(inv.invitation_id)
        except KeyError:
            self.message = _("This invitation has expired.")
            return
        listener = self.listener
        ad = SimpleNamespace(
            addresses=inv.addresses, port=inv.port, fingerprint=inv.fingerprint or None,
            code_required=inv.code_required or inv.ticket is not None,
            invitation=inv.invitation_id if inv.ticket is not None else None,
            table_id=inv.table_id, service_name="")
        code = inv.hello_code()
        if listener is None:
            self.join(ad, code)
            return
        if code is None and ad.code_required and inv.table_id not in self.kept:
            listener.answer(inv.invitation_id, reply)  # the code form decides the rest
            self.join(ad, code)
            return

        def answered(seated: bool) -> None:
            # Told "accepted" only once seated: a refused join is not an acceptance.
            listener.answer(inv.invitation_id, reply if seated else self.inbox.decline(
                inv.invitation_id))

        self._run_async(self._join(ad, code, answered))

    def decline_invite(self) -> None:
        if not self.invites or self.inbox is None:
            return
        inv = self.invites.pop()
        reply = self.inbox.decline(inv.invitation_id)
        if self.listener is not None:
            self.listener.answer(inv.invitation_id, reply)

    def show_stats(self) -> None:
        """The "Statistiques" page: overall and per variant, from the local database."""
        from rami_lan.stats import StatsDB, card_lines

        try:
            with StatsDB() as db:
                card = db.own_card(self.profile.nickname, self.profile.player_id)
            self.stats_lines = card_lines(card)
        except Exception as e:  # noqa: BLE001 - a broken database never stops the lobby
            self.stats_lines = [_("Statistics unavailable: {err}").format(err=e)]
        self.mode = "stats"

    async def _browse(self) -> None:
        await asyncio.sleep(0.05)  # the first frame first (zeroconf takes a while to import)
        try:
            self.browser = self.browser_factory()  # type: ignore[misc]
            await self.browser.start()
        except Exception as e:  # noqa: BLE001 - no network: the lobby still works
            self.browse_error = safe_text(" ".join(str(e).split()) or type(e).__name__, 60)
            self.message = _("No network: tables can not be listed ({err}). Solo works.").format(
                err=self.browse_error)
            self.browser = None
            self._invalidate()
            return
        try:
            while True:
                snap = list(self.browser.snapshot())
                if snap != self._browsed:
                    self._browsed = snap
                    self.refresh_kept()
                    self.set_tables(snap)
                    self._invalidate()
                # Redraw as soon as the browser reports a change (or every 0.25 s).
                events = getattr(self.browser, "events", None)
                if isinstance(events, asyncio.Queue):
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(events.get(), 0.25)
                else:
                    await asyncio.sleep(0.25)
        finally:
            with contextlib.suppress(Exception):
                await self.browser.stop()

    def set_tables(self, tables: list[Any]) -> None:
        """Show ``tables``; the highlight stays on the row the player chose (a table, by
        its id) when rows appear or leave above it."""
        items = self.items()
        chosen = item_key(items[self.index]) if 0 <= self.index < len(items) else None
        if not self.tables and self.index == 0:
            chosen = None  # the first row before any table: the first table once one shows
        # Our own seats first (stable sort: the browser's order otherwise).
        self.tables = sorted(tables, key=lambda t: str(getattr(t, "table_id", "")) not in self.kept)
        keys = [item_key(it) for it in self.items()]
        self.index = keys.index(chosen) if chosen in keys else min(self.index, len(keys) - 1)

    def _invalidate(self) -> None:
        self.shell.app.invalidate()

    # --- the main list ------------------------------------------------------------

    def items(self) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = [("table", t) for t in self.tables]
        out += [("new", None), ("solo", None), ("stats", None), ("settings", None),
                ("quit", None)]
        return out

    def activate(self, i: int | None = None) -> None:
        items = self.items()
        if i is not None:
            self.index = i
        kind, ad = items[self.index]
        self.message = None
        if kind == "table":
            self.join(ad)
        elif kind == "new":
            self.mode = "new"
        elif kind == "solo":
            self.open_solo()
        elif kind == "stats":
            self.show_stats()
        elif kind == "settings":
            self.settings_form.values = self._settings_values()
            self.mode = "settings"
        elif kind == "quit":
            self.quit()

    async def aclose(self, wait: float = 5.0) -> None:
        """The program ends (Quit, SIGTERM, a closed terminal): the seat played here and
        the table opened here say goodbye (its mDNS ad is withdrawn at once)."""
        session, self.session = self.session, None
        host, self.host = self.host, None
        for close in (getattr(session, "close", None), getattr(host, "stop", None)):
            if close is not None:
                try:
                    await asyncio.wait_for(close(), wait)
                except Exception as exc:  # noqa: BLE001 - the next goodbye still goes
                    log.info("closing at exit: %s", safe_text(str(exc) or type(exc).__name__, 120))

    def quit(self) -> None:
        if self._browse_task is not None:
            self._browse_task.cancel()
        if self._presence_task is not None:
            self._presence_task.cancel()
        self.shell.exit(0)

    # --- starting a table -------------------------------------------------------------

    def _table_done(self) -> None:
        """Back from a table to the lobby."""

        async def back() -> None:
            self.session = None
            self.refresh_kept()
            self.set_tables(list(self._browsed))
            if self.host is not None:
                host, self.host = self.host, None
                with contextlib.suppress(Exception):
                    await host.stop()
            self.mode = "main"
            self.message = None  # what was said before the table is old news
            self._set_busy(False)
            self.shell.show(self)

        self.shell.app.create_background_task(back())

    def _show_table(self, session: Any, inviter: Any = None, intro: list[str] | None = None) -> None:
        from rami_lan.cli.ui.table_screen import TableScreen

        self.session = session
        tid = getattr(session, "table_id", b"")
        tid = tid.hex() if isinstance(tid, bytes | bytearray) else ""
        self._set_busy(True, tid)
        screen = TableScreen(
            session, four_colour=self.settings.four_colour, on_leave=self._table_done,
            profile=self.profile, inviter=inviter, settings=self.settings, save_settings=self.save,
            intro=intro or (),
        )
        self.shell.show(screen)

    def open_solo(self) -> None:
        """Show the Solo form (variant, seats, levels, options; Enter plays)."""
        if self._solo_form_obj is None:
            self._solo_form_obj = self._solo_form()
        self._solo_form_obj.index = len(self._solo_form_obj.shown())
        self.mode = "solo"

    @property
    def solo_form(self) -> Form:
        if self._solo_form_obj is None:
            self._solo_form_obj = self._solo_form()
        return self._solo_form_obj

    def solo(self) -> None:
        """Start a solo table with the Solo form's choices (and remember them)."""
        self._run_async(self._open_solo())

    def _owner(self) -> Any:
        from rami_lan.cli.open_table import Owner

        return Owner(self.settings.nickname, language(),
                     getattr(self.profile, "player_id", None))

    async def _open_solo(self) -> None:
        """Solo: `open_table` on loopback, bots on every other seat (as ``rami-lan solo``)."""
        from rami_lan.cli.open_table import open_table, solo_config

        vals = self.solo_form.values
        save_solo_choices(vals)
        bots = {s: vals.get(f"seat{s}", "moyen") for s in range(1, vals["seats"])}
        bots = {s: (lvl if lvl in LEVELS else "moyen") for s, lvl in bots.items()}
        lim = vals.get("limit")
        limit, quick = (None, True) if lim == "quick" else (lim, False)
        owner = self._owner()
        config = solo_config(owner, variant=vals["variant"], players=vals["seats"], bots=bots,
                             limit=limit, quick=quick, knock=bool(vals.get("knock")),
                             timer=int(vals.get("timer") or 0), bot_delay=self.solo_think)
        table = await open_table(config, owner)
        self.host = table.host
        self.mode = "main"
        self._show_table(table.session)

    def join(self, ad: Any, code: str | None = None) -> None:
        if getattr(ad, "code_required", False) and code is None:
            self.pending_join = ad
            self.code_form.values = {"code": ""}
            self.code_form.index = 0
            self.mode = "code"
            return
        self._run_async(self._join(ad, code))

    def _opener(self) -> Callable[..., Any] | None:
        if self._open_session is not None:
            return self._open_session
        from rami_lan.net.client import open_session

        return open_session

    async def _join(self, ad: Any, code: str | None,
                    answered: Callable[[bool], None] | None = None) -> None:
        seated = False
        try:
            seated = await self._join_table(ad, code)
        finally:
            if answered is not None:
                answered(seated)

    async def _join_table(self, ad: Any, code: str | None) -> bool:
        """Join ``ad``'s table (our own seat again if we kept its credentials); True once
        seated."""
        open_session = self._opener()
        if open_session is None:
            self.message = _("Joining a table is not available in this version yet.")
            return False
        if not ad.addresses or not ad.port:
            self.message = _("This table has no address yet; try again in a moment.")
            return False
        from rami_lan.net.client import FingerprintMismatch, JoinRefused, PakeFailed

        extra: dict[str, Any] = {"seat_store": self.seat_store}
        kept = self.kept.get(str(getattr(ad, "table_id", "")))
        invitation = getattr(ad, "invitation", None)
        if kept is not None:  # back to our own seat: its token, and the code it was won with
            extra["token"] = kept.token
            code = code or kept.code
            invitation = None
        elif invitation:
            extra["invitation"] = invitation
        if getattr(self.profile, "player_id", None):
            extra["player_id"] = self.profile.player_id
        from rami_lan.net.joining import RETRY_WINDOW, join_retrying

        try:  # a rate_limited refusal (a neighbour joining now) is waited out and retried
            session = await join_retrying(lambda: open_session(
                ad.addresses[0], ad.port, nickname=self.settings.nickname, lang=language(),
                code=code or None, fingerprint=getattr(ad, "fingerprint", None) or None,
                code_required=bool(getattr(ad, "code_required", False)), **extra,
            ), RETRY_WINDOW)
        except FingerprintMismatch:
            self.message = _("The table's certificate is not the announced one: someone may "
                             "be intercepting the connection. Not joined.")
            return False
        except PakeFailed:
            self.message = _("Wrong join code, or the connection is being intercepted.")
            if not invitation:
                self._ask_code(ad)
            return False
        except JoinRefused as e:
            if kept is not None and e.code in ("bad_token", "in_progress"):
                self.forget_seat(kept.table_id)  # the host no longer knows that seat
                self.message = join_refused_text(e)
            elif e.code == "bad_code" and not invitation:
                self.message = (_("Wrong join code.") if code else
                                _("This table needs a join code."))
                self._ask_code(ad)
            else:
                self.message = join_refused_text(e)
            return False
        except (ConnectionRefusedError, TimeoutError) as e:  # nothing listens there any more
            log.info("could not join %s:%s: %s", ad.addresses[0], ad.port, e)
            self.message = _("This table is gone: its host no longer answers.")
            mark_gone = getattr(self.browser, "mark_gone", None)
            if mark_gone is not None and getattr(ad, "service_name", ""):
                mark_gone(ad)
            return False
        except OSError as e:
            from rami_lan.cli.messages import os_error_text

            self.message = _("Could not reach the table: {err}").format(err=os_error_text(e))
            return False
        self._show_table(session)
        return True

    def refresh_kept(self) -> None:
        """Read the seats kept on disk (`rami_lan.net.seats`): their tables say "Rejoin"."""
        try:
            self.kept = {c.table_id: c for c in self.seat_store.all()}
        except Exception as exc:  # noqa: BLE001 - a bad seat folder never stops the lobby
            log.info("kept seats unreadable: %s", safe_text(str(exc), 120))
            self.kept = {}

    def forget_seat(self, table_id: str) -> None:
        self.seat_store.remove(table_id)
        self.kept.pop(table_id, None)
        self.set_tables(list(self.tables))

    def _ask_code(self, ad: Any) -> None:
        """Ask for the table's join code, then join again."""
        self.pending_join = ad
        self.code_form.values = {"code": ""}
        self.code_form.index = 0
        self.mode = "code"

    def _limit_value(self) -> tuple[int | None, bool]:
        lim = self.new_form.values.get("limit")
        if lim == "quick":
            return None, True
        return lim, False

    def open_table(self) -> None:
        if self.busy or self.host is not None:  # a second Enter while it opens: one table
            return
        self._run_async(self._open_table())

    async def _open_table(self) -> None:
        from rami_lan.cli.open_table import open_table, table_config
        from rami_lan.core.variants import get_variant

        vals = self.new_form.values
        v = get_variant(vals["variant"])
        bots = {
            s: vals[f"seat{s}"] for s in range(1, vals["seats"]) if vals.get(f"seat{s}") != "human"
        }
        limit, quick = self._limit_value()
        who = vals.get("who") or "anyone"
        code = vals.get("code") if who == "code" else None
        if who == "code" and not code:
            self.message = _("A table with a join code needs a code.")
            self.mode = "new"
            return
        owner = self._owner()
        config = table_config(
            owner,
            name=vals.get("name") or _("{nick}'s table").format(nick=self.settings.nickname),
            variant=v.id,
            seats=vals["seats"],
            bots=bots,
            limit=limit if limit is not None else v.default_limit,
            quick=quick,
            knock=bool(vals.get("knock")) and v.knock_supported,
            timer=vals.get("timer", 0),
            private_deal=bool(vals.get("private")),
            join_code=code or None,
            who_may_sit=who,
            advertise=True,
            interfaces=self.interfaces,
            port=0,
        )
        table = await open_table(config, owner)
        self.host = table.host
        self._show_table(table.session,
                         self._make_inviter(table.host, config, table.port, code or None),
                         intro=self._waiting_intro(table.host, table.port, code or None))

    def _waiting_intro(self, host: Any, port: int, code: str | None) -> list[str]:
        """What the host's waiting screen tells the owner to pass on: the join code to
        give, the fingerprint to compare aloud, where the table listens."""
        lines = []
        if code:
            lines.append(_("Join code: {code} (give it to the players you expect)").format(code=code))
        fp = getattr(host, "short_fingerprint", "") or ""
        if fp:
            lines.append(_("Table fingerprint: {fp} (players compare it with the one on their "
                           "screen)").format(fp=fp))
        if port:
            lines.append(_("The table listens on port {port}.").format(port=port))
        return lines

    def _make_inviter(self, host: Any, config: Any, port: int, code: str | None) -> Any:
        """The owner's "Inviter" for a table opened here (None without presence)."""
        if self.advertiser is None or self.player_browser is None:
            return None
        from rami_lan.cli.ui.invites import LanInviter
        from rami_lan.net.presence import Guestlist, WhoMaySit

        guestlist = getattr(host, "guestlist", None) or Guestlist(
            WhoMaySit.CODE if code else WhoMaySit.ANYONE, join_code=code)
        browser = self.player_browser
        try:
            return LanInviter(
                lambda: browser.snapshot(), guestlist,
                table_id=host.table_id.hex(), table_name=config.name, variant=config.variant,
                from_nick=self.profile.nickname, from_player_id=self.profile.player_id,
                addresses=self.advertiser.ad.addresses, port=port,
                fingerprint=str(getattr(host, "fingerprint", "") or ""),
                seat_for=getattr(getattr(host, "machine", None), "dropped_seat_of", None),
            )
        except Exception:  # noqa: BLE001 - no invitations, the table still works
            return None

    def _run_async(self, coro: Any) -> None:
        async def guarded() -> None:
            self.busy = True
            self._invalidate()
            try:
                await coro
            except Exception as e:  # noqa: BLE001 - a failed join must not crash the lobby
                self.message = _("That did not work: {err}").format(err=e)
                self.mode = "main"
            finally:
                self.busy = False
                self._invalidate()

        self.shell.app.create_background_task(guarded())

    # --- forms ------------------------------------------------------------------------

    def _new_table_form(self) -> Form:
        def seat_field(s: int) -> Field:
            return Field(
                f"seat{s}",
                lambda: _("Seat {n}").format(n=s + 1),
                lambda: [("human", _("a player"))] + [(lv, bot_mark(lv)) for lv in LEVELS],
                visible=lambda: values["seats"] > s,
            )

        values: dict[str, Any] = {
            "name": "",
            "variant": "rami",
            "seats": 2,
            "seat1": "moyen",
            "seat2": "moyen",
            "seat3": "moyen",
            "who": "anyone",
            "code": "",
            "limit": 100,
            "timer": 0,
            "knock": False,
            "private": True,
        }
        fields = [
            Field("name", lambda: _("Table name"), max_len=32),
            *variant_fields(values),
            seat_field(1),
            seat_field(2),
            seat_field(3),
            Field("who", lambda: _("Who may sit"),
                  lambda: [("anyone", _("anyone")), ("code", _("with a join code")),
                           ("invited", _("invited only"))]),
            Field("code", lambda: _("Join code"), visible=lambda: values["who"] == "code",
                  max_len=16),
            *match_option_fields(values),
            Field("private", lambda: _("Private deal"),
                  lambda: [(False, _("off (the host can see the deck)")),
                           (True, _("on (the host sees only its cards)"))]),
        ]
        form = Form(lambda: _("New table"), fields, values,
                    submit_label=lambda: _("Open the table"))
        form.fix()
        return form

    def _solo_form(self) -> Form:
        """Solo: the variant, the seats, each bot's level and the options, in sight.

        Opened with the cursor on "Play", so ``s`` then Enter starts at once with the
        choices of last time (remembered in the config folder)."""
        values: dict[str, Any] = {
            "variant": "rami", "seats": 2, "seat1": "moyen", "seat2": "moyen",
            "seat3": "moyen", "limit": 100, "knock": False, "timer": 0,
        }
        values.update(load_solo_choices())

        def seat_field(s: int) -> Field:
            return Field(
                f"seat{s}",
                lambda: _("Seat {n}").format(n=s + 1),
                lambda: [(lv, bot_mark(lv)) for lv in LEVELS],
                visible=lambda: values["seats"] > s,
            )

        fields = [
            *variant_fields(values),
            seat_field(1),
            seat_field(2),
            seat_field(3),
            *match_option_fields(values),
        ]
        form = Form(lambda: _("Solo — against bots"), fields, values,
                    submit_label=lambda: _("Play"))
        form.fix()
        form.index = len(form.shown())
        return form

    def _settings_values(self) -> dict[str, Any]:
        return {
            "nickname": self.settings.nickname,
            "lang": self.settings.lang or "auto",
            "four": self.settings.four_colour,
        }

    def _settings_form(self) -> Form:
        fields = [
            Field("nickname", lambda: _("Nickname")),
            Field("lang", lambda: _("Language"),
                  lambda: [("auto", _("from the system")), ("fr", "Français"), ("en", "English")]),
            Field("four", lambda: _("Four-colour deck"),
                  lambda: [(False, _("off")), (True, _("on"))]),
        ]
        return Form(lambda: _("Settings"), fields, self._settings_values(),
                    submit_label=lambda: _("Save"))

    def submit(self) -> None:
        if self.mode == "solo":
            self.solo()
        elif self.mode == "new":
            self.open_table()
        elif self.mode == "settings":
            vals = self.settings_form.values
            self.settings.nickname = clean_nickname(vals["nickname"]) or self.settings.nickname
            self.settings.lang = None if vals["lang"] == "auto" else vals["lang"]
            self.settings.four_colour = bool(vals["four"])
            set_language(self.settings.lang or detect_language())
            self.settings.nickname = localized_nickname(self.settings.nickname)
            self.profile = self._synced(self.profile)
            if self.advertiser is not None and self.shell.app.is_running:
                adv, p = self.advertiser, self.profile

                async def readvertise() -> None:
                    with contextlib.suppress(Exception):
                        await adv.update(nickname=p.nickname, lang=p.lang)

                self.shell.app.create_background_task(readvertise())
            try:
                self.save(self.settings)
                self.message = _("Settings saved.")
            except OSError as e:
                self.message = _("Could not save the settings: {err}").format(err=e)
            self.mode = "main"
        elif self.mode == "code":
            ad, self.pending_join = self.pending_join, None
            self.mode = "main"
            if ad is not None:
                self.join(ad, self.code_form.values.get("code") or "")

    def form(self) -> Form | None:
        if self.mode == "new":
            return self.new_form
        if self.mode == "solo":
            return self.solo_form
        return {"settings": self.settings_form, "code": self.code_form}.get(self.mode)

    # --- rendering ----------------------------------------------------------------------

    def size(self) -> tuple[int, int]:
        try:
            s = get_app().output.get_size()
            return max(40, s.columns), max(12, s.rows)
        except Exception:  # noqa: BLE001 - no app (tests rendering directly)
            return 80, 24

    def text(self, width: int = 80, height: int = 24) -> str:
        """The screen as plain text at ``width`` x ``height`` (tests, snapshots)."""
        frags = self.fragments(width)
        rows = "".join(f[1] for f in frags).split("\n")
        return "\n".join(row[:width] for row in rows[:height])

    def fragments(self, width: int | None = None):  # type: ignore[no-untyped-def]
        self._w = width or self.size()[0]
        lines = Lines()
        title = " rami-lan — " + _("Lobby")
        who = _("Nickname: {nick}").format(nick=self.settings.nickname) + " "
        lines.add("class:lobby.title",
                  (title + " " * max(1, self._w - len(title) - len(who)) + who)[: self._w])
        lines.nl()
        lines.nl()
        form = self.form()
        if self.invites:
            self._render_invite(lines)
        elif form is not None:
            self._render_form(lines, form)
        elif self.mode == "stats":
            self._render_stats(lines)
        else:
            self._render_main(lines)
        lines.nl()
        if self.busy:
            lines.add("class:warn", _("Please wait…"))
        elif self.message:
            lines.add("class:error", self.message[: self._w - 1])
        lines.nl()
        return lines.frags

    def _render_main(self, lines: Lines) -> None:
        lines.add("class:label", _("Tables on the network"))
        lines.nl()
        if not self.tables:
            if self.browser_factory is None:
                note = _("(the network is not searched: browsing is off)")
            elif self.browse_error is not None:
                note = _("(no network: no table can be found)")
            else:
                note = _("(no table found yet — looking…)")
            lines.add("class:dim", "  " + note)
            lines.nl()
        any_private = any(getattr(t, "private_deal", False) for t in self.tables)
        for i, (kind, ad) in enumerate(self.items()):
            if kind != "table":
                continue
            style = "class:lobby.current" if i == self.index else "class:lobby.item"
            seats = _("{taken}/{total} seats").format(taken=ad.seats_taken, total=ad.seats_total)
            code = _("code") if ad.code_required else ""
            nw, hw = ((18, 10) if any_private else (20, 12)) if self._w >= 80 else (10, 7)
            private = " " + _("private") if getattr(ad, "private_deal", False) else ""
            text = (f"  {ad.name[:nw]:<{nw}} {ad.host[:hw]:<{hw}} {ad.variant:<9} "
                    f"{seats:<10} {code:<5} {_('limit {n}').format(n=ad.point_limit)}{private}")
            if str(getattr(ad, "table_id", "")) in self.kept:  # our own seat, kept on disk
                text = "  " + _("Rejoin") + " · " + text[2:]
            lines.add(style, text[: self._w - 1], on_click(lambda i=i: self.activate(i)))
            lines.nl()
        if self.presence:
            lines.add("class:label", _("Players on the network"))
            lines.nl()
            if not self.players:
                lines.add("class:dim", "  " + _("(nobody seen yet)"))
                lines.nl()
            for ad in self.players[:6]:
                style = "class:lobby.item" if ad.invitable else "class:dim"
                lines.add(style, f"  {ad.nickname[:24]:<24} {player_status_text(ad.status)}"[: self._w - 1])
                lines.nl()
        lines.nl()
        labels = {
            "new": _("New table — open a table on the network"),
            "solo": _("Solo — play at once against bots"),
            "stats": _("Statistics — your matches, per variant"),
            "settings": _("Settings — nickname, language, colours"),
            "quit": _("Quit"),
        }
        keys = {"new": "n", "solo": "s", "stats": "t", "settings": "o", "quit": "q"}
        for i, (kind, _ad) in enumerate(self.items()):
            if kind == "table":
                continue
            style = "class:lobby.current" if i == self.index else "class:lobby.item"
            lines.add(style, f"  [{keys[kind]}] {labels[kind]}  ",
                      on_click(lambda i=i: self.activate(i)))
            lines.nl()
        lines.nl()
        self._status(lines, _("↑ ↓ choose · Enter: join / open · n s t o q · ? rules in game"))
        lines.nl()

    def _status(self, lines: Lines, text: str) -> None:
        """A key reminder, wrapped between words on narrow terminals."""
        from rami_lan.cli.ui.layout import wrap_text

        for i, part in enumerate(wrap_text(text, self._w - 1)):
            if i:
                lines.nl()
            lines.add("class:status", part)

    def _render_form(self, lines: Lines, form: Form) -> None:
        lines.add("class:label", form.title())
        lines.nl()
        lines.nl()
        for i, f in enumerate(form.shown()):
            cur = i == form.index
            style = "class:lobby.current" if cur else "class:lobby.item"

            def click(i: int = i, f: Field = f) -> None:
                form.index = i
                form.change(1)

            lines.add(style, f"  {f.label():<22}", on_click(click))
            val = form.value_text(f)
            if f.choices is None:
                lines.add("class:lobby.value", " ")
                if cur:  # the typing position, shown on the character it is on
                    i = form.text_cursor()
                    lines.add("class:lobby.value", val[:i])
                    lines.add("class:lobby.value reverse", val[i:i + 1] or " ")
                    lines.add("class:lobby.value", val[i + 1:])
                else:
                    lines.add("class:lobby.value", val)
            else:
                lines.add("class:lobby.value", f" ‹ {val} ›", on_click(click))
            lines.nl()
        lines.nl()
        style = "class:lobby.current" if form.on_submit else "class:button"
        lines.add(style, f"  [ {form.submit_label()} ]  ", on_click(self.submit))
        lines.add("", "  ")
        lines.add("class:button.off", "[ " + _("Back (Esc)") + " ]", on_click(self.back))
        lines.nl()
        lines.nl()
        self._status(lines, _("↑ ↓ field · ← → change · type text · Enter confirm · Esc back"))
        lines.nl()

    def _render_invite(self, lines: Lines) -> None:
        inv = self.invites[-1]
        lines.add("class:label", _("Invitation"))
        lines.nl()
        lines.nl()
        lines.add("class:winner", " " + invitation_prompt(inv)[: self._w - 3] + " ")
        lines.nl()
        host = f"{inv.addresses[0]}:{inv.port}" if inv.addresses else "?"
        lines.add("", "  " + _("Table: {table} · host {host}").format(
            table=inv.table_name, host=host)[: self._w - 3])
        lines.nl()
        fp = _short_fp(inv.fingerprint) if inv.fingerprint else _("none (no TLS yet)")
        lines.add("class:dim", "  " + _("Fingerprint: {fp}").format(fp=fp)[: self._w - 3])
        lines.nl()
        if inv.needs_typed_code:
            lines.add("class:warn", "  " + _("This table needs a join code: you will type it."))
            lines.nl()
        lines.nl()
        lines.add("class:button", "  [ " + _("Join (Enter)") + " ]  ", on_click(self.accept_invite))
        lines.add("class:button.off", "[ " + _("Decline (Esc)") + " ]",
                  on_click(self.decline_invite))
        lines.nl()

    def _render_stats(self, lines: Lines) -> None:
        lines.add("class:label", _("Statistics"))
        lines.nl()
        lines.nl()
        for line in self.stats_lines[:16]:
            lines.add("", "  " + line[: self._w - 3])
            lines.nl()
        lines.nl()
        lines.add("class:button.off", "  [ " + _("Back (Esc)") + " ]", on_click(self.back))
        lines.nl()

    def back(self) -> None:
        self.mode = "main"
        self.message = None

    # --- keys -----------------------------------------------------------------------

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        inviting = Condition(lambda: bool(self.invites))
        stats = Condition(lambda: self.mode == "stats") & ~inviting
        main = Condition(lambda: self.mode == "main") & ~inviting
        in_form = Condition(lambda: self.mode not in ("main", "stats")) & ~inviting
        text = in_form & Condition(lambda: self.form() is not None and self.form().editing_text())  # type: ignore[union-attr]

        def items_move(d: int) -> None:
            self.index = (self.index + d) % len(self.items())

        def act(fn: Callable[[], None]) -> Callable[[KeyPressEvent], None]:
            def handler(e: KeyPressEvent) -> None:
                self.message = None  # "Settings saved." answers one key, not the next screens
                fn()
                self._invalidate()

            return handler

        kb.add("up", filter=main)(act(lambda: items_move(-1)))
        kb.add("k", filter=main)(act(lambda: items_move(-1)))
        kb.add("down", filter=main)(act(lambda: items_move(1)))
        kb.add("j", filter=main)(act(lambda: items_move(1)))
        kb.add("enter", filter=main)(act(self.activate))
        kb.add("n", filter=main)(act(lambda: setattr(self, "mode", "new")))
        kb.add("s", filter=main)(act(self.open_solo))
        kb.add("o", filter=main)(act(lambda: self.activate(len(self.items()) - 2)))
        kb.add("t", filter=main)(act(self.show_stats))
        kb.add("escape", filter=stats)(act(self.back))
        kb.add("q", filter=stats)(act(self.back))
        kb.add("enter", filter=stats)(act(self.back))
        kb.add("enter", filter=inviting)(act(self.accept_invite))
        kb.add("y", filter=inviting)(act(self.accept_invite))
        kb.add("escape", filter=inviting)(act(self.decline_invite))
        kb.add("n", filter=inviting)(act(self.decline_invite))
        kb.add("q", filter=main)(act(self.quit))
        kb.add("c-c")(act(self.quit))

        def form_do(fn: Callable[[Form], None]) -> Callable[[], None]:
            return lambda: fn(self.form()) if self.form() is not None else None  # type: ignore[arg-type]

        kb.add("up", filter=in_form)(act(form_do(lambda f: f.move(-1))))
        kb.add("s-tab", filter=in_form)(act(form_do(lambda f: f.move(-1))))
        kb.add("down", filter=in_form)(act(form_do(lambda f: f.move(1))))
        kb.add("tab", filter=in_form)(act(form_do(lambda f: f.move(1))))
        kb.add("left", filter=in_form & ~text)(act(form_do(lambda f: f.change(-1))))
        kb.add("right", filter=in_form & ~text)(act(form_do(lambda f: f.change(1))))
        kb.add("left", filter=text)(act(form_do(lambda f: f.move_text(-1))))
        kb.add("right", filter=text)(act(form_do(lambda f: f.move_text(1))))
        kb.add("home", filter=text)(act(form_do(lambda f: f.text_home())))
        kb.add("end", filter=text)(act(form_do(lambda f: f.text_end())))
        kb.add("c-a", filter=text)(act(form_do(lambda f: f.text_home())))
        kb.add("c-e", filter=text)(act(form_do(lambda f: f.text_end())))
        kb.add("delete", filter=text)(act(form_do(lambda f: f.delete())))
        kb.add("space", filter=in_form & ~text)(act(form_do(lambda f: f.change(1))))
        kb.add("escape", filter=in_form)(act(self.back))

        def enter() -> None:
            f = self.form()
            if f is None:
                return
            # a short form (the join code, the settings) is saved by Enter on its last
            # field, as by its button
            if f.on_submit or self.mode == "code" or (self.mode == "settings" and f.on_last_field()):
                self.submit()
            else:
                f.move(1)

        kb.add("enter", filter=in_form)(act(enter))
        kb.add("backspace", filter=text)(act(form_do(lambda f: f.backspace())))

        @kb.add(Keys.Any, filter=text)
        def _type(e: KeyPressEvent) -> None:
            self.message = None
            f = self.form()
            if f is not None:
                f.type_text(e.data)
            self._invalidate()

        return kb
