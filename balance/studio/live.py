"""The studio's engine side: each version of the rules played on the same games as the published
rules, in stages, until the change it makes to the first seat's edge is settled.

**The same deals.**  A version and the published rules play the same games of the studio's
seed (``simcore.driver.run_games``, the engine's own path: its threads, its compile cache, the
Dask cluster of ``--cluster``), each set of rules by one ``Arm`` that grows by playing only the
games it lacks (``start=``).  For a card game they are its duplicate deals (each deal once per
turn of the table: analysis/duplicate.py), grown in whole deals; for ALEA, whose dice cannot
turn, games 0..n-1.  The rows are those one run of n games has, so the figures after n games are
exactly ``balance whatif --games n --seed S`` (with ``--duplicate``/``--independent`` as played)
with the version's exported variant file (``analysis.whatif.compared_document`` computes both).
The card table of a version plays independent games (one seat's hand is one observation).

**Stages and the stop rule.**  A measurement looks at 2,000 games, then doubles, up to the cap
(``stages``).  At each look the change in the first seat's edge is judged against the change
threshold (``analysis.verdict.judge``) with a paired interval at 1 − 0.05/K, K the number of
looks the cap allows (Bonferroni): the chance that any look calls an unsettled change settled
stays under 5% however many looks are taken.  The figures shown at every look are whatif's own
95% intervals; the stop interval is shown beside them.

**One measurement at a time.**  A newer edit supersedes the running measurement: the arms stop
at their next look (every ``CHECK_EVERY`` games inside a stage), keeping the games they played,
and the newer one starts.  A stopped measurement keeps its figures and can be continued.
"""
from __future__ import annotations

import base64
import json
import math
import statistics
import threading
import time
import traceback
from collections import OrderedDict
from pathlib import Path

import polars as pl

from balance.studio.controls import checked_variant, controls, version_name
from balance.studio.store import Store, now
from simcore.errors import BalanceError

STAGE_FIRST = 2_000   # games of the first look: a first estimate in well under 2 s for BIRD & WEATHER
DEFAULT_CAP = 256_000  # games at most per measurement (a version and the published rules each)
CHECK_EVERY = 16_384  # games between two looks at "superseded?" inside a stage
ARMS_KEPT = 16        # arms (a version's games at a tier) held in memory, the least recently used dropped
CARDS_GAMES = 20_000  # games the card-strength table of a version is measured on
OPENING_GAMES = 20_000  # the published verdict: games per tier ...
OPENING_SEARCH_GAMES = 2_000  # ... and per search tier (analysis.skill.skill_profile)


def stages(cap: int) -> list[int]:
    """The game counts a measurement looks at: 2,000, 4,000, 8,000 ... and the cap."""
    looks, n = [], STAGE_FIRST
    while n < cap:
        looks.append(n)
        n *= 2
    return looks + [cap]


def settings_key(settings: dict) -> str:
    return json.dumps(settings, sort_keys=True)


def png64(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode()


class Arm:
    """One set of rules played by one tier in every seat: the first n games of the seed's duplicate
    deals (``duplicate``), or games 0..n-1, grown on request (in whole deals)."""

    def __init__(self, studio: "Studio", variant, tier: str, duplicate: bool = False):
        from analysis.duplicate import start_of

        self.studio, self.variant, self.tier = studio, variant, tier
        game, players = studio.game, studio.players
        self.start = start_of(game, duplicate)
        self.deal = players if duplicate else 1  # games grown at a time: a look sees whole deals
        self.setup = game.setup(players, variant)
        self.lineup = game.lineup([tier] * players, players)
        self.frames: list[pl.DataFrame] = []
        self.n = 0
        self.meta: dict | None = None
        self.seconds = 0.0
        self.lock = threading.Lock()
        self._rows: pl.DataFrame | None = None

    def grow(self, n: int, cancelled) -> int:
        """Play games self.n..n-1 (stopping at a look where ``cancelled()``); the games held."""
        from simcore.driver import run_games

        from analysis.duplicate import whole_deals

        n = whole_deals(n, self.deal)
        with self.lock:
            while self.n < n and not cancelled():
                want = n - self.n
                looks = sorted({whole_deals(k, self.deal) for k in range(CHECK_EVERY, want, CHECK_EVERY)} | {want})
                result = run_games(self.studio.game, self.setup, self.lineup, self.variant, self.studio.seed, want,
                                   start=self.start + self.n, threads=self.studio.threads, progress=False, keep_frame=True,
                                   announce=False, checkpoints=looks, stop=lambda wins, games: cancelled())
                if result.frame is None or result.frame.height == 0:
                    break
                self.frames.append(result.frame)
                self.n += result.frame.height
                self.seconds += result.seconds
                self._rows = None
                if self.meta is None:
                    self.meta = result.meta
        return self.n

    def rows(self, n: int) -> pl.DataFrame:
        with self.lock:
            if self._rows is None:
                self._rows = pl.concat(self.frames) if len(self.frames) > 1 else self.frames[0]
                self.frames = [self._rows]
            return self._rows.slice(0, n)

    def meta_for(self, n: int) -> dict:
        return {**self.meta, "games": n, "seconds": round(self.seconds, 3)}


class Runner:
    """One background thread that runs the latest job asked for; a newer job supersedes the
    running one (its ``cancelled()`` turns true), ``stop`` ends it without a successor."""

    def __init__(self, name: str):
        self.cond = threading.Condition()
        self.pending = None
        self.current = None
        self.stopping = False
        self.closed = False
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def submit(self, job) -> None:
        with self.cond:
            self.pending = job
            self.cond.notify_all()

    def stop(self) -> None:
        with self.cond:
            self.pending = None
            self.stopping = True

    def cancelled(self) -> bool:
        return self.closed or self.stopping or self.pending is not None

    def why(self) -> str:
        return "superseded" if self.pending is not None else "stopped"

    def busy(self) -> bool:
        return self.current is not None or self.pending is not None

    def close(self, wait: float = 10.0) -> None:
        with self.cond:
            self.closed = True
            self.pending = None
            self.cond.notify_all()
        self.thread.join(wait)

    def _loop(self) -> None:
        while True:
            with self.cond:
                while self.pending is None and not self.closed:
                    self.cond.wait()
                if self.closed:
                    return
                job, self.pending, self.stopping = self.pending, None, False
                self.current = job
            try:
                job(self.cancelled, self.why)
            except Exception:  # a job records its own failure; this keeps the thread alive whatever happens
                traceback.print_exc()
            finally:
                self.current = None


class Studio:
    """The state behind one studio page: the game, its published rules, the versions, the arms
    played so far, and the jobs measuring them."""

    def __init__(self, game_name: str, players: int, seed: int = 1, tier: str | None = None,
                 cap: int = DEFAULT_CAP, threads: int | None = None, folder: Path | None = None,
                 opening_games: int = OPENING_GAMES, opening_search_games: int = OPENING_SEARCH_GAMES,
                 cards_games: int = CARDS_GAMES):
        from analysis.skill import tiers_of
        from simcore.registry import check_seed, get_game

        self.game = get_game(game_name)
        self.game.check_players(players)
        check_seed(seed)
        if cap < STAGE_FIRST:
            raise BalanceError(f"--games must be at least {STAGE_FIRST:,} (the first look), not {cap}")
        from analysis.duplicate import whole_deals
        from analysis.whatif import design_for

        self.players, self.seed, self.cap, self.threads = players, seed, cap, threads
        # the design of every comparison, as whatif's default for the first look's games
        self.design = design_for(self.game, players, STAGE_FIRST, None)[0]
        deal = players if self.design == "duplicate" else 1
        self.looks = sorted({whole_deals(n, deal) for n in stages(cap)})
        self.opening_games, self.opening_search_games, self.cards_games = opening_games, opening_search_games, cards_games
        self.published = self.game.variant(None)
        self.controls = controls(self.game, players, self.published)
        self.tiers = tiers_of(self.game) or [self.game.default_strategy]
        self.tier = tier or (self.game.strong_strategy if self.game.strong_strategy in self.tiers else self.tiers[0])
        self.game.lineup([self.tier] * players, players)  # an unknown tier is refused now
        if folder is None:
            folder = default_folder(self.game, players, seed)
        self.store = Store(folder, {"game": self.game.name, "players": players, "seed": seed})
        self.store.add({}, "published rules", "the rules as published")
        self.arms: OrderedDict = OrderedDict()
        self.arms_lock = threading.Lock()
        self.measuring = Runner("studio-measure")
        self.opening = Runner("studio-published")
        self.published_verdict: dict = {"status": "waiting"}
        self.cards: dict = {}  # (version, tier) -> the card table's state
        self.tuning = Runner("studio-tune")
        self.tune_state: dict = {"status": "idle", "candidates": []}
        self.opening.submit(self._measure_published)

    # --- versions and their arms ---------------------------------------------------------------
    def variant_of(self, version: dict):
        if not version["settings"]:
            return self.published
        return checked_variant(self.game, self.players, self.published, version["settings"],
                               name=version["name"], description=version.get("description", ""))

    def arm(self, version: dict, tier: str, design: str | None = None) -> Arm:
        """The arm of ``version`` at ``tier``, on the studio's design (or ``design``)."""
        design = design or self.design
        key = (settings_key(version["settings"]), tier, design)
        with self.arms_lock:
            if key in self.arms:
                self.arms.move_to_end(key)
                return self.arms[key]
            arm = self.arms[key] = Arm(self, self.variant_of(version), tier, design == "duplicate")
            while len(self.arms) > ARMS_KEPT:
                self.arms.popitem(last=False)
            return arm

    def check_tier(self, tier: str | None) -> str:
        tier = tier or self.tier
        if tier not in self.tiers:
            raise BalanceError(f"unknown tier '{tier}' (choose from: {', '.join(self.tiers)})")
        return tier

    # --- measuring a version against the published rules --------------------------------------
    def measure(self, number: int, tier: str | None = None) -> None:
        tier = self.check_tier(tier)
        version = self.store.get(number)
        if not version["settings"]:
            raise BalanceError("version 1 is the published rules: it is what every other version is compared with")
        self.measuring.submit(lambda cancelled, why: self._measure(number, tier, cancelled, why))

    def _measure(self, number: int, tier: str, cancelled, why) -> None:
        from analysis.verdict import thresholds

        version = self.store.get(number)
        looks = self.looks
        confidence = 1 - 0.05 / len(looks)
        previous = version["results"].get(tier, {})
        result = {"tier": tier, "status": "running", "games": previous.get("games", 0), "cap": self.cap,
                  "looks": looks, "stop_confidence": confidence, "started": now(),
                  "document": previous.get("document"), "live": previous.get("live"), "history": []}
        self.store.update_result(number, tier, result)
        started = time.perf_counter()
        try:
            base = self.arm(self.store.get(1), tier)
            arm = self.arm(version, tier)
            for n in looks:
                base.grow(n, cancelled)
                arm.grow(n, cancelled)
                if cancelled():
                    result["status"] = why()
                    break
                document = self._compared(base, arm, n)
                live = headline(document, confidence, thresholds().change_pp, thresholds().seat_pp)
                live["sentence"] = live["sentence"].replace("Variant 1 (", f"Version {number} (", 1)
                result.update(games=n, document=document, live=live, seconds=round(time.perf_counter() - started, 2))
                result["history"].append({"games": n, "change_pp": live["change_pp"], "ci_pp": live["ci_pp"],
                                          "stop_ci_pp": live["stop_ci_pp"]})
                if live["settled"]:
                    result["status"] = "settled"
                    break
                if n == looks[-1]:
                    result["status"] = "cap"
                    break
                self.store.update_result(number, tier, result)
        except BalanceError as exc:
            result.update(status="failed", error=str(exc))
        except Exception as exc:  # shown on the page, never a server error
            result.update(status="failed", error=f"{type(exc).__name__}: {exc}")
            traceback.print_exc()
        result["finished"] = now()
        result["seconds"] = round(time.perf_counter() - started, 2)
        self.store.update_result(number, tier, result)

    def _compared(self, first: Arm, second: Arm, n: int) -> dict:
        """``second`` against ``first`` on their first n games, every figure paired: whatif's own document."""
        from analysis.whatif import compared_document

        return compared_document([first.rows(n), second.rows(n)], [first.meta_for(n), second.meta_for(n)],
                                 set(first.rows(1).columns), [first.variant, second.variant], self.players, n, self.seed,
                                 second.lineup)

    # --- two versions side by side -------------------------------------------------------------
    def compare(self, first: int, second: int, tier: str | None = None) -> dict:
        """Version ``second`` against version ``first`` on the games both have been measured on
        (played again where the arms are no longer held): every figure, paired, as whatif."""

        tier = self.check_tier(tier)
        a, b = self.store.get(first), self.store.get(second)
        held = [v["results"].get(tier, {}).get("games", 0) if v["settings"] else None for v in (a, b)]
        counts = [n for n in held if n]
        n = min(counts) if counts else self.looks[0]
        arm_a, arm_b = self.arm(a, tier), self.arm(b, tier)
        never = lambda: False  # noqa: E731 (a comparison plays to its end)
        arm_a.grow(n, never)
        arm_b.grow(n, never)
        document = self._compared(arm_a, arm_b, n)
        document["first"], document["second"] = first, second
        return document

    # --- card strength of a version ------------------------------------------------------------
    def measure_cards(self, number: int, tier: str | None = None) -> dict:
        tier = self.check_tier(tier)
        self.store.get(number)
        if self.game.card_names(self.game.setup(self.players, self.published)) is None:
            raise BalanceError(f"{self.game.title} deals no hands of cards: it has no card strength")
        key = (number, tier)
        state = self.cards.get(key)
        if state is None or state["status"] in ("stopped", "superseded", "failed"):
            self.cards[key] = {"status": "running", "version": number, "tier": tier, "games": self.cards_games}
            self.measuring.submit(lambda cancelled, why: self._cards(key, cancelled, why))
        return self.cards[key]

    def _cards(self, key, cancelled, why) -> None:
        from analysis.cards import card_strength, strength_chart

        number, tier = key
        state = self.cards[key]
        try:
            arm = self.arm(self.store.get(number), tier, "independent")  # a hand, one observation
            arm.grow(self.cards_games, cancelled)
            if cancelled():
                state["status"] = why()
                return
            n = self.cards_games
            meta = arm.meta_for(n)
            table = card_strength(arm.rows(n).lazy(), meta).collect()
            key, items = card_items(self, table)
            rows = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
                    for row in table.to_dicts()]
            for row in rows:
                row["item"] = items.get(str(row["card"]))
            state.update(status="done", rows=rows, chart=png64(strength_chart(table, meta, n)), list_key=key)
        except BalanceError as exc:
            state.update(status="failed", error=str(exc))
        except Exception as exc:
            state.update(status="failed", error=f"{type(exc).__name__}: {exc}")
            traceback.print_exc()

    # --- the published rules' verdict, at every tier -------------------------------------------
    def _measure_published(self, cancelled, why) -> None:
        from analysis.skill import chart, skill_profile
        from analysis.summary import summarize
        from analysis.verdict import run_verdict
        from simcore.cache import FINGERPRINT
        from simcore.digests import setup_digest
        from simcore.driver import run_games

        setup = self.game.setup(self.players, self.published)
        identity = {"engine": FINGERPRINT, "rules": setup_digest(setup), "seed": self.seed, "players": self.players,
                    "games": self.opening_games, "search_games": self.opening_search_games}
        kept = self.store.folder / "published.json"
        try:
            found = json.loads(kept.read_text(encoding="utf-8"))
            if found.get("identity") == identity:
                self.published_verdict = found["verdict"]
                return
        except (OSError, ValueError, KeyError):
            pass
        self.published_verdict = {"status": "running", "games": self.opening_games,
                                  "search_games": self.opening_search_games}
        try:
            lineup = self.game.lineup([self.tier] * self.players, self.players)
            run = run_games(self.game, setup, lineup, self.published, self.seed, self.opening_games,
                            threads=self.threads, progress=False, keep_frame=True, announce=False)
            summary = summarize(run.frame.lazy(), run.meta)
            profile = skill_profile(self.game, setup, self.published, self.seed, self.opening_games,
                                    self.opening_search_games, self.threads)
            verdict = run_verdict(summary, profile)
            state = {"status": "done", "verdict": verdict, "profile": profile, "tier": self.tier,
                     "chart": png64(chart(profile, f"{self.game.title}, {self.players} players")),
                     "games": self.opening_games, "search_games": self.opening_search_games}
            from simcore.outputs import write_atomic

            write_atomic(kept, json.dumps({"identity": identity, "verdict": state}, default=str) + "\n")
            self.published_verdict = state
        except BalanceError as exc:
            self.published_verdict = {"status": "failed", "error": str(exc)}
        except Exception as exc:
            self.published_verdict = {"status": "failed", "error": f"{type(exc).__name__}: {exc}"}
            traceback.print_exc()

    # --- the tuner, on targets set on the page ---------------------------------------------------
    def start_tune(self, data: dict) -> dict:
        """Write the page's targets and keys as a tune space (``docs/tune.md``) in the studio's
        folder, check it as ``balance tune`` does, and run it on the tuner's thread from the version
        the page shows (its journal is the race the page follows)."""
        from analysis.tune_report import toml_value
        from analysis.tune_space import load_space

        tier = self.check_tier(data.get("tier"))
        within = data.get("within")
        if isinstance(within, bool) or not isinstance(within, (int, float)) or not 0 < within < 50:
            raise BalanceError(f"the target must be a number of percentage points between 0 and 50, not {within!r}")
        candidates = data.get("candidates", 12)
        if isinstance(candidates, bool) or not isinstance(candidates, int) or not 1 <= candidates <= 500:
            raise BalanceError(f"candidates must be a whole number 1-500, not {candidates!r}")
        changes = data.get("changes")
        if not isinstance(changes, list) or not changes:
            raise BalanceError("tick at least one key the tuner may change")
        origin = self.store.get(data["from"] if isinstance(data.get("from"), int) else 1)
        folder = self.store.folder / "tune"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [f"game = {toml_value(self.game.name)}", f"players = {self.players}", 'name = "studio"']
        if origin["settings"]:
            from balance.studio.files import variant_text

            (folder / "from.toml").write_text(variant_text(self, origin, tier), encoding="utf-8")
            lines.append('variant = "from.toml"')
        for change in changes:
            if not isinstance(change, dict) or not isinstance(change.get("key"), str):
                raise BalanceError("each change names a key")
            lines += ["", "[[change]]", f"key = {toml_value(change['key'])}"]
            for form in ("range", "values"):
                if form in change:
                    lines.append(f"{form} = {toml_value(change[form])}")
        lines += ["", "[[target]]", 'figure = "first_seat_edge"', f"within = {toml_value(float(within))}",
                  f"tier = {toml_value(tier)}", "", "[budget]", f"candidates = {candidates}",
                  f"rungs = [{STAGE_FIRST}, {4 * STAGE_FIRST}, {16 * STAGE_FIRST}]", "keep = 3", "finalists = 2",
                  f"final_games = {16 * STAGE_FIRST}"]
        space_path = folder / "space.toml"
        from simcore.outputs import write_atomic

        write_atomic(space_path, "\n".join(lines) + "\n")
        try:
            space = load_space(space_path)
        except BalanceError as exc:
            raise BalanceError(str(exc).replace(f"{space_path}: ", "")) from None
        state = self.tune_state = {"status": "running", "candidates": [], "winner": None, "from": origin["number"],
                                   "within": within, "tier": tier, "space": str(space_path)}
        self.tuning.submit(lambda cancelled, why: self._tune(space, state, origin))
        return state

    def _tune(self, space, state: dict, origin: dict) -> None:
        from analysis.tune import JOURNAL, tune

        out = Path(space.path).parent / "run"
        watcher = threading.Thread(target=self._watch_tune, args=(out / JOURNAL, state), daemon=True)
        watcher.start()
        try:
            document = tune(space.path, seed=self.seed, out=out, threads=self.threads, progress=False, report=False)
            winner = document.get("winner")
            state["candidates"] = tune_rows(document_records(out / JOURNAL), winner)
            if winner is not None:
                settings = {**origin["settings"], **winner["settings"]}
                state["winner"] = {"settings": settings, "name": winner_name(self, settings)}
            state["verdict"] = document.get("verdict")
            state["status"] = "done"
        except BalanceError as exc:
            state.update(status="failed", error=str(exc))
        except Exception as exc:
            state.update(status="failed", error=f"{type(exc).__name__}: {exc}")
            traceback.print_exc()

    @staticmethod
    def _watch_tune(journal: Path, state: dict) -> None:
        """The race as it goes: the tune's journal, written after every candidate, read twice a second."""
        while state["status"] == "running":
            rows = document_records(journal)
            if rows:
                state["candidates"] = tune_rows(rows, None)
            time.sleep(0.5)

    def close(self) -> None:
        """Stop every job: a measurement stops at its next look and saves what it has (a daemon
        thread still measuring the published rules is left to end with the process; it writes
        nothing until it is done, and then atomically)."""
        self.measuring.close()
        self.opening.close(wait=1.0)
        self.tuning.close(wait=1.0)


def headline(document: dict, confidence: float, change_pp: float, seat_pp: float) -> dict:
    """The change a version makes to the first seat's edge: its value and 95% interval (whatif's),
    the stop rule's interval at ``confidence`` and its judgement, and the version's own edge."""
    from analysis.verdict import games_to_settle, judge

    row = next(r for r in document["variants"][0]["figures"] if r["key"] == "advantage")
    if row["change"] is None or row["se_paired"] is None:
        return {"change_pp": None, "ci_pp": [None, None], "stop_ci_pp": [None, None], "judgement": "unsettled",
                "settled": False, "edge_pp": None, "edge_ci_pp": [None, None], "baseline_pp": None,
                "games_to_settle": None, "sentence": document["verdict"]["sentences"][0]}
    change = 100 * row["change"]
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    stop = [change - 100 * z * row["se_paired"], change + 100 * z * row["se_paired"]]
    judged = judge(change, stop, change_pp)
    edge_ci = [100 * v if v is not None else None for v in row["variant_ci"]]
    return {"change_pp": change, "ci_pp": [100 * v for v in row["change_ci"]], "stop_ci_pp": stop,
            "judgement": judged, "settled": judged != "unsettled",
            "games_to_settle": games_to_settle(change, stop, document["games"], change_pp),
            "edge_pp": 100 * row["variant"], "edge_ci_pp": edge_ci, "baseline_pp": 100 * row["baseline"],
            "edge_judgement": judge(100 * row["variant"], edge_ci, seat_pp) if None not in edge_ci else "unsettled",
            "sentence": document["verdict"]["sentences"][0]}


def document_records(journal: Path) -> list[dict]:
    try:
        return json.loads(journal.read_text(encoding="utf-8"))["candidates"]
    except (OSError, ValueError, KeyError):
        return []


def tune_rows(records: list[dict], winner: dict | None) -> list[dict]:
    """The tuner's candidates as the page lists them: the change, how far it raced, the first
    target's figure at its last rung."""
    rows = []
    for record in records:
        rungs = record.get("rungs") or []
        last = rungs[-1] if rungs else None
        target = last["targets"][0] if last and last.get("targets") else None
        rows.append({"number": record["number"], "name": ", ".join(f"{k} = {v}" for k, v in record["settings"].items())
                     or "no change", "status": record.get("status"), "games": last["games"] if last else None,
                     "stage": f"rung {len(rungs)}" if rungs else "",
                     "edge_pp": target["value"] if target else None, "ci_pp": target["ci"] if target else None,
                     "winner": winner is not None and winner.get("number") == record["number"]})
    return rows


def winner_name(studio: Studio, settings: dict) -> str:
    return "tuned: " + version_name(studio, settings)


def card_items(studio: Studio, table: pl.DataFrame) -> tuple[str | None, dict]:
    """The list-valued variant key whose items are the cards (BIRD & WEATHER's ``cards``: card
    ``17 (sun, ...)`` is item 17), and each card's item: a card of the table can then be taken out
    or changed as a new version.  (None, {}) where no key lists the cards."""
    names = [str(card) for card in table["card"].to_list()]
    for control in studio.controls:
        if control.kind != "list" or not isinstance(control.value, list) or len(control.value) != len(names):
            continue
        items = {str(v): v for v in control.value}
        found = {name: items.get(name, items.get(name.split(" ")[0])) for name in names}
        if all(item is not None for item in found.values()) and len({str(v) for v in found.values()}) == len(names):
            return control.key, found
    return None, {}


def default_folder(game, players: int, seed: int) -> Path:
    """Beside a rules file (``my-game.studio/``); for a built-in game in the current folder
    (``balance-studio/<game>/``).  One subfolder per player count and seed."""
    if getattr(game, "spec", None) is not None:
        base = Path(game.path).with_suffix(".studio")
    else:
        base = Path("balance-studio") / game.name
    return base / f"{players}p-seed{seed}"
