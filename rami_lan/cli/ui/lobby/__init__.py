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

The package: `model` (the list, the chosen row, the page, the kept seats), `presence`
(advertising, players seen, invitations), `forms` (New table, Solo, Settings, join code)
and `view` (the screen and its keys); `Lobby`, here, composes them and does what the
player asks: join, open a table, play solo, save the settings.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from rami_lan.cli.messages import join_refused_text
from rami_lan.cli.settings import Settings, clean_nickname, save_settings
from rami_lan.cli.ui.forms import Form
from rami_lan.cli.ui.lobby.forms import (
    SOLO_KEYS,
    code_form,
    limit_choices,
    load_solo_choices,
    match_option_fields,
    new_table_form,
    reset_for_variant,
    save_solo_choices,
    settings_form,
    settings_values,
    solo_choices_path,
    solo_form,
    variant_fields,
)
from rami_lan.cli.ui.lobby.model import (
    LEVELS,
    NO_BROWSE_ENV,
    PROBE_INTERVAL,
    LobbyModel,
    default_browser,
    item_key,
    level_text,
    log,
)
from rami_lan.cli.ui.lobby.presence import Presence
from rami_lan.cli.ui.lobby.view import LobbyView, lobby_bindings
from rami_lan.cli.ui.shell import Shell, screen_window
from rami_lan.i18n import _, detect_language, language, set_language
from rami_lan.ids import env_interfaces
from rami_lan.profile import localized_nickname
from rami_lan.textsafe import safe_text

__all__ = [
    "LEVELS", "NO_BROWSE_ENV", "PROBE_INTERVAL", "SOLO_KEYS", "BrowserFactory", "Lobby", "LobbyModel",
    "Presence", "default_browser", "item_key", "level_text", "limit_choices", "load_solo_choices",
    "match_option_fields", "reset_for_variant", "save_solo_choices", "solo_choices_path",
    "variant_fields",
]
BrowserFactory = Callable[[], Any]


def _delegated(name: str) -> property:
    """A `Presence` attribute read and written as the lobby's own (``lobby.invites``)."""
    return property(lambda self: getattr(self.people, name),
                    lambda self, value: setattr(self.people, name, value))


class Lobby(LobbyModel):
    """The first screen of ``rami-lan``: a `LobbyModel` with its `Presence` service
    (``people``), its forms and its `LobbyView`."""

    players = _delegated("players")
    player_browser = _delegated("player_browser")
    advertiser = _delegated("advertiser")
    listener = _delegated("listener")
    inbox = _delegated("inbox")
    invites = _delegated("invites")
    interfaces = _delegated("interfaces")

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
        super().__init__()
        self.shell = shell
        self.settings = settings
        # a nickname never chosen is the language's default ("Player" / "Joueur")
        settings.nickname = localized_nickname(settings.nickname)
        if profile is None:
            from rami_lan.profile import load_profile

            profile = load_profile()
        self.profile = self._synced(profile)
        self.presence = (not os.environ.get(NO_BROWSE_ENV)) if presence is None else presence
        self.people = Presence(env_interfaces() if interfaces is None else interfaces,
                               lambda: self.profile, self._invalidate, self._say)
        self._open_session = open_session
        self._presence_task: asyncio.Task[None] | None = None
        self.browser_factory = browser_factory
        self.save = save
        self.solo_think = solo_think
        self.browser: Any = None
        self.host: Any = None
        self.session: Any = None
        """The seat being played from this lobby (closed at exit)."""
        self._new_form: Form | None = None  # built on first use: it needs the rules core
        self._solo_form_obj: Form | None = None
        self.settings_form = settings_form(settings)
        self.code_form = code_form()
        self.view = LobbyView(self)
        self.control, self.focus = screen_window(self.fragments)
        self.container = self.focus
        self.key_bindings = lobby_bindings(self)
        self._browse_task: asyncio.Task[None] | None = None

    @property
    def new_form(self) -> Form:
        if self._new_form is None:
            self._new_form = new_table_form()
        return self._new_form

    def _say(self, text: str) -> None:
        self.message = text

    # --- life cycle ---------------------------------------------------------------

    def attach(self, shell: Shell) -> None:
        self.shell = shell
        if self.browser_factory is not None and self._browse_task is None:
            self._browse_task = shell.app.create_background_task(self._browse())
        if self.presence and self._presence_task is None:
            self._presence_task = shell.app.create_background_task(self.people.run())
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

    # --- invitations ----------------------------------------------------------------

    def _set_busy(self, busy: bool, table_id: str = "") -> None:
        """At a table: invitations are answered "busy" and presence says so."""
        self.people.set_busy(busy, table_id, None if self.shell is None else self.shell.app)

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
        self.people.decline()

    def show_stats(self) -> None:
        """The "Statistiques" page: overall and per variant, from the local database."""
        from rami_lan.cli.card_text import card_lines
        from rami_lan.stats import StatsDB

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

    def _invalidate(self) -> None:
        self.shell.app.invalidate()

    # --- the main list ------------------------------------------------------------

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
            self.settings_form.values = settings_values(self.settings)
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
            self._solo_form_obj = solo_form()
        self._solo_form_obj.index = len(self._solo_form_obj.shown())
        self.mode = "solo"

    @property
    def solo_form(self) -> Form:
        if self._solo_form_obj is None:
            self._solo_form_obj = solo_form()
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
            if e.code == "tournament":  # a tournament's organiser: register there instead
                from rami_lan.cli.ui.lobby_tournament import register

                register(self, ad, code)
                return False
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
        from rami_lan.net.invitations import Guestlist, WhoMaySit

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
            self.people.readvertise(self.shell.app)
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

    # --- rendering (`LobbyView`) ----------------------------------------------------------

    def size(self) -> tuple[int, int]:
        return self.view.size()

    def text(self, width: int = 80, height: int = 24) -> str:
        """The screen as plain text at ``width`` x ``height`` (tests, snapshots)."""
        return self.view.text(width, height)

    def fragments(self, width: int | None = None):  # type: ignore[no-untyped-def]
        return self.view.fragments(width)
