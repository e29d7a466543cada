"""``rami-lan simulate``: bot matches played headless, with statistics.

Every deal (one seed) is played once per rotation of the bots over the seats, so each
bot meets the same cards from every seat. Prints per-bot match wins with a 95 % Wilson
interval, round wins, mean rounds per match, decision times and rounds per second;
``--json`` prints one JSON object instead (keys documented in docs/bots.md).

A player is a level (``debutant``, ``moyen``, ``expert``, and the measurement levels
``expert_v1``, ``expert_v2``, ``conceal``) or a plug-in ``path/to/mybot.py:MyBot`` (`rami_lan.bots.plugin`).
Decision times are process (CPU) time, so a busy machine does not inflate them.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any

from rami_lan.i18n import _, ngettext
from rami_lan.ids import BOT_LEVELS, VARIANT_IDS

LEVELS = (*BOT_LEVELS, "expert_v1", "expert_v2", "expert_v3", "conceal")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", default="rami", choices=VARIANT_IDS, help=_("the variant"))
    p.add_argument(
        "--players",
        default="expert,moyen",
        help=_(
            "comma-separated players, 2 to 4: bot levels (debutant, moyen, expert, "
            "expert_v1, expert_v2, conceal) or plug-ins path/to/bot.py:Name"
        ),
    )
    p.add_argument("--matches", type=int, default=100, help=_("number of matches"))
    p.add_argument("--seed", type=int, default=1, help=_("seed of the deals"))
    p.add_argument("--limit", type=int, default=None, help=_("point limit or target"))
    p.add_argument("--knock", "--frapper", dest="knock", action="store_true",
                   help=_("enable frapper (rami, classique)"))
    p.add_argument("--json", action="store_true", help=_("print one JSON object"))


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


def _p99(xs: list[float]) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, int(0.99 * len(s)))]


def _progress(done: int, total: int) -> None:
    width = 30
    fill = width * done // max(total, 1)
    sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


_PLUGIN_ERRORS: dict[str, Any] = {
    "spec_form": lambda d: _("{spec} is not of the form path/to/file.py:Name").format(**d),
    "no_file": lambda d: _("the file {path} does not exist").format(**d),
    "not_module": lambda d: _("{path} can not be loaded as a Python module").format(**d),
    "load_failed": lambda d: _("loading {path} failed: {err}").format(**d),
    "no_callable": lambda d: _("{path} has no callable {name}").format(**d),
    "no_method": lambda d: _("{name} from {path} has no method {method}(view, new_events)").format(**d),
}


def plugin_error_text(exc: BaseException) -> str:
    """A `rami_lan.bots.plugin.PluginError` (a code and its data) in the player's
    language; any other error as its text."""
    from rami_lan.cli.messages import coded_error_text

    return coded_error_text(exc, _PLUGIN_ERRORS)


class PluginCrashed(Exception):
    """A plug-in's own code raised while it was made or asked to play (foreign code:
    reported in one line, never a traceback)."""

    def __init__(self, name: str, method: str, exc: BaseException) -> None:
        super().__init__(f"{name}.{method}: {type(exc).__name__}: {exc}")
        self.name = name
        self.method = method
        self.error = f"{type(exc).__name__}: {exc}"


class _Guarded:
    """A plug-in seat whose exceptions become `PluginCrashed` (the rest is delegated).

    The table machine treats a bot whose ``wants_knock`` raises as "no knock" (a broken
    bot must not stop a table); simulate is where a plug-in author learns of the bug,
    so the crash is kept in ``pending`` and raised at the next ``choose`` (or by
    `simulate` after the match)."""

    def __init__(self, inner: Any, name: str) -> None:
        self._inner = inner
        self._name = name
        self.seat = getattr(inner, "seat", None)
        self.pending: PluginCrashed | None = None

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._inner, attr)

    def choose(self, view: Any, new_events: Any = ()) -> Any:
        if self.pending is not None:
            raise self.pending
        try:
            return self._inner.choose(view, new_events)
        except Exception as e:  # noqa: BLE001 - foreign code
            raise PluginCrashed(self._name, "choose", e) from e

    def wants_knock(self, view: Any, new_events: Any = ()) -> bool:
        try:
            return bool(self._inner.wants_knock(view, new_events))
        except Exception as e:  # noqa: BLE001 - foreign code
            self.pending = PluginCrashed(self._name, "wants_knock", e)
            raise self.pending from e


def simulate(
    variant: str,
    levels: list[str],
    matches: int,
    seed: int,
    limit: int | None = None,
    knock: bool = False,
    progress: bool = False,
) -> dict[str, Any]:
    """Play the matches and return the statistics as plain data."""
    from rami_lan.bots import make_bot
    from rami_lan.bots.plugin import PluginError, is_plugin_spec, load_plugin
    from rami_lan.core.match import MatchOptions
    from rami_lan.table.selfplay import play_match

    factories: dict[str, Any] = {}
    for lv in levels:
        if is_plugin_spec(lv) and lv not in factories:
            factories[lv] = load_plugin(lv)

    def build(level: str, seat: int, seed: int) -> Any:
        if level in factories:
            name = level.rpartition(":")[2]
            try:
                return _Guarded(factories[level](seat, seed), name)
            except PluginError:
                raise
            except Exception as e:  # noqa: BLE001 - foreign code
                raise PluginCrashed(name, "__init__", e) from e
        return make_bot(level, seat, seed)

    n = len(levels)
    options = MatchOptions(limit=limit, knock=knock)
    deals = max(1, math.ceil(matches / n))
    total = deals * n
    wins = [0] * n
    round_wins = [0] * n
    dec: list[list[float]] = [[] for _ in range(n)]
    rounds = 0
    no_winner = 0
    engine = 0.0
    knocks = 0
    start = time.perf_counter()
    done = 0
    for d in range(deals):
        deal_seed = seed * 1_000_003 + d
        for rot in range(n):
            # seat s is played by bot index (s + rot) % n
            who = [(s + rot) % n for s in range(n)]
            bots = [build(levels[who[s]], s, deal_seed * 31 + who[s]) for s in range(n)]
            res = play_match(variant, bots, deal_seed, options, clock=time.process_time)
            for b in bots:
                if isinstance(b, _Guarded) and b.pending is not None:
                    raise b.pending
            rounds += res.rounds
            engine += res.engine_time
            knocks += res.knocks
            if res.winner is None:
                no_winner += 1
            else:
                wins[who[res.winner]] += 1
            for w in res.round_winners:
                if w is not None:
                    round_wins[who[w]] += 1
            for s in range(n):
                dec[who[s]].extend(res.decision_times[s])
            done += 1
            if progress:
                _progress(done, total)
    elapsed = time.perf_counter() - start
    names = []
    for i, lv in enumerate(levels):
        short = lv.rpartition(":")[2] if lv in factories else lv
        names.append(f"{short}#{levels[:i].count(lv) + 1}" if levels.count(lv) > 1 else short)
    all_dec = [t for ts in dec for t in ts]
    bots_out = []
    for i in range(n):
        lo, hi = wilson(wins[i], total)
        bots_out.append(
            {
                "name": names[i],
                "level": levels[i],
                "match_wins": wins[i],
                "win_rate": wins[i] / total,
                "ci95": [lo, hi],
                "round_wins": round_wins[i],
                "decisions": len(dec[i]),
                "decision_ms_mean": 1000 * sum(dec[i]) / max(len(dec[i]), 1),
                "decision_ms_median": 1000 * (sorted(dec[i])[len(dec[i]) // 2] if dec[i] else 0),
                "decision_ms_p99": 1000 * _p99(dec[i]),
            }
        )
    return {
        "variant": variant,
        "players": levels,
        "seed": seed,
        "matches": total,
        "deals": deals,
        "no_winner": no_winner,
        "rounds": rounds,
        "rounds_per_match": rounds / total,
        "rounds_per_second": rounds / elapsed if elapsed > 0 else 0.0,
        "elapsed_s": elapsed,
        "engine_share": engine / elapsed if elapsed > 0 else 0.0,
        "knocks": knocks,
        "decision_ms": {
            "mean": 1000 * sum(all_dec) / max(len(all_dec), 1),
            "median": 1000 * (sorted(all_dec)[len(all_dec) // 2] if all_dec else 0.0),
            "p99": 1000 * _p99(all_dec),
        },
        "bots": bots_out,
    }


def _print_table(stats: dict[str, Any]) -> None:
    print(
        ngettext("{variant}: {matches} matches ({deals} deal x every seat rotation), seed {seed}",
                 "{variant}: {matches} matches ({deals} deals x every seat rotation), seed {seed}",
                 stats["deals"]).format(**stats)
    )
    for b in stats["bots"]:
        lo, hi = b["ci95"]
        print(
            _(
                "  {name:<10} match wins {wins:>5} ({rate:5.1%}, 95% CI {lo:5.1%}-{hi:5.1%})"
                "  round wins {rounds:>5}  decision {mean:.1f} ms mean, {p99:.1f} ms p99"
            ).format(
                name=b["name"],
                wins=b["match_wins"],
                rate=b["win_rate"],
                lo=lo,
                hi=hi,
                rounds=b["round_wins"],
                mean=b["decision_ms_mean"],
                p99=b["decision_ms_p99"],
            )
        )
    print(
        _(
            "  {rpm:.2f} rounds per match, {rps:.1f} rounds per second, "
            "decisions {mean:.1f} ms mean / {p99:.1f} ms p99"
        ).format(
            rpm=stats["rounds_per_match"],
            rps=stats["rounds_per_second"],
            mean=stats["decision_ms"]["mean"],
            p99=stats["decision_ms"]["p99"],
        )
    )
    if stats["no_winner"]:
        print(_("  {n} matches ended without a winner").format(n=stats["no_winner"]))


def run(args: argparse.Namespace) -> int:
    from rami_lan.bots.plugin import PluginError, is_plugin_spec
    from rami_lan.core.errors import RulesError
    from rami_lan.textsafe import safe_text

    levels = [x.strip() for x in str(args.players).split(",") if x.strip()]
    bad = [x for x in levels if x not in LEVELS and not is_plugin_spec(x)]
    if bad:
        print(
            _("unknown bot level {level}; choose from {levels} or a plug-in file.py:Name").format(
                level=safe_text(bad[0]), levels=", ".join(LEVELS)
            ),
            file=sys.stderr,
        )
        return 2
    if not 2 <= len(levels) <= 4:
        print(_("a match needs 2 to 4 players"), file=sys.stderr)
        return 2
    if args.matches < 1:
        print(_("--matches must be at least 1"), file=sys.stderr)
        return 2
    try:
        stats = simulate(
            args.variant,
            levels,
            args.matches,
            args.seed,
            limit=args.limit,
            knock=args.knock,
            progress=sys.stderr.isatty() and not args.json,
        )
    except PluginError as e:
        print(_("bot plug-in: {err}").format(err=safe_text(plugin_error_text(e))), file=sys.stderr)
        return 2
    except PluginCrashed as e:
        print(_("the bot plug-in {name} failed in {method}: {err}").format(
            name=safe_text(e.name, 64), method=e.method, err=safe_text(e.error, 300)), file=sys.stderr)
        return 1
    except RulesError as e:
        from rami_lan.cli.refusals import illegal_text, reason_words
        from rami_lan.core.errors import IllegalAction
        from rami_lan.core.melds import InvalidMeld

        err = (illegal_text(e) if isinstance(e, IllegalAction)
               else reason_words(e.why) if isinstance(e, InvalidMeld) else str(e))
        print(_("a bot played an illegal action: {err}").format(err=safe_text(err)),
              file=sys.stderr)
        return 1
    except ValueError as e:
        from rami_lan.cli.messages import settings_error_text

        print(_("invalid options: {err}").format(err=settings_error_text(e)), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(stats, sort_keys=True))
    else:
        _print_table(stats)
    return 0
