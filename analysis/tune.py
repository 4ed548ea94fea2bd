"""`balance tune`: search a space of rule changes for the smallest one that meets every target.

Proposals.  Optuna's TPE sampler, seeded from ``--seed``, proposes one candidate at a time
(``n_jobs = 1``: the sampler then proposes the same candidates in the same order on every
machine).  The rules tuned from are always candidate 1, so "change nothing" competes too.

Racing (asynchronous successive halving).  The budget names rungs of game counts n1 < n2 < ...
Every candidate plays games 0..n1-1 of the tune's seed; every set of rules plays the same games
(common random numbers), so at a rung all candidates are compared on the same deals.  A
candidate's score at a rung is how far its targets' 95% intervals would reach outside the
targets at the finalists' game count (each interval around its estimate narrowed by
sqrt(games / final games); 0: it looks sure to meet them all), plus a tie-breaker of 0.001 per
unit of change, so among candidates that look sure to pass the smaller change goes on.  It goes on to the next rung (the
games 0..n(k+1)-1) only if its score is among the best 1/KEEP of the scores measured at that rung
so far; otherwise it stops there.  A candidate is dropped only for being worse than others at a
rung, on the same games.

Validity.  Racing only decides which candidates become finalists; it reports nothing.  The
finalists (the best completed candidates) and the rules tuned from are measured again on FRESH
games (another seed, derived from ``--seed``), ``final_games`` each, and every reported figure,
interval and pass/fail comes from that measurement alone.  Choosing the finalists on the racing
games therefore does not bias the reported intervals (no winner's curse in them).  A target is
met when its whole 95% interval lies inside the target.  Among the finalists that meet all
targets the winner is the smallest change: the fewest variant keys changed, then the smallest
normalised distance from the rules tuned from (each key's share of its range moved).

Figures: the first-seat edge and every seat's share (Wilson intervals), game length
(delta-method) and their paired changes against the rules tuned from come from
``analysis.whatif`` (``moments`` / ``compare``); card strength from ``analysis.cards``; the skill
gap (one player of a tier among the tier below, once in each seat on the same deals) from
``analysis.ladder.play_rung`` and ``analysis.tournament.clustered_rate``.

Resume.  Every finished candidate is written to ``tune-journal.json`` in the output folder.
``--resume`` replays the journal through a fresh sampler of the same seed (the proposals must be
the journal's, or the space changed and the resume is refused) and continues: the answer is the
one an uninterrupted tune gives.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

from analysis.tune_space import Space, load_space
from simcore.errors import BalanceError, RunInterrupted

CHANGE_WEIGHT = 0.001   # score per unit of change: a tie-breaker among candidates that meet the targets
REFUSED_SCORE = 1000.0  # told to the sampler for a candidate the rules refuse
JOURNAL = "tune-journal.json"
JOURNAL_VERSION = 1


def final_seed(seed: int) -> int:
    """The seed of the fresh games the finalists are measured on: derived from the tune's seed,
    never equal to it."""
    derived = int.from_bytes(hashlib.sha256(f"balance tune final {seed}".encode()).digest()[:7], "big")
    return derived if derived != seed else derived + 1


def _key(value) -> str:
    return json.dumps(value, sort_keys=True)


# --------------------------------------------------------------------------------------------
# measuring one set of rules
# --------------------------------------------------------------------------------------------

class Measurer:
    """Plays a set of rules at a game count and seed and reads every target's figure, paired with
    the rules tuned from on the same games.  Runs of the rules tuned from are kept for reuse."""

    def __init__(self, space: Space, scratch: Path, threads: int | None, announce: bool):
        from simcore.game import get_game

        self.space, self.scratch, self.threads, self.announce = space, scratch, threads, announce
        self.game = get_game(space.game)
        self.base = self.game.variant(space.variant_path)
        self.players = space.players
        self.kept: dict = {}           # (settings, tier, games, seed) -> (path, meta) of the rules tuned from
        self.skill_kept: dict = {}     # (hero, field, deals, seed) -> per-deal shares of the rules tuned from
        self.cards_kept: dict = {}     # (tier, games, seed) -> card table of the rules tuned from
        self.games_played = 0

    def variant(self, settings: dict):
        from dataclasses import replace

        variant = self.game.variant(self.space.variant_path, settings) if settings else self.base
        return replace(variant, name=self.base.name if not settings else "candidate")

    def _run(self, settings: dict, tier: str, games: int, seed: int):
        from simcore.driver import run_games

        key = (_key(settings), tier, games, seed)
        if key in self.kept:
            return self.kept[key]
        variant = self.variant(settings)
        setup = self.game.setup(self.players, variant)
        lineup = self.game.lineup([tier] * self.players, self.players)
        name = hashlib.sha1(_key(key).encode()).hexdigest()[:16]
        result = run_games(self.game, setup, lineup, variant, seed, games, threads=self.threads,
                           out=self.scratch / f"{name}.parquet", progress=False, force=True, announce=self.announce)
        self.games_played += games
        found = (result.path, result.meta)
        if not settings:
            self.kept[key] = found
        return found

    def _skill(self, settings: dict, hero: str, field: str, deals: int, seed: int) -> np.ndarray:
        from analysis.ladder import play_rung

        key = (hero, field, deals, seed)
        if not settings and key in self.skill_kept:
            return self.skill_kept[key]
        variant = self.variant(settings)
        setup = self.game.setup(self.players, variant)
        per_deal = play_rung(self.game, setup, variant, hero, field, deals, seed, self.threads, lambda n: None,
                             announce=self.announce)
        self.games_played += deals * self.players
        if not settings:
            self.skill_kept[key] = per_deal
        return per_deal

    def _cards(self, path, meta) -> dict:
        from analysis.cards import card_strength

        table = card_strength(pl.scan_parquet(path), meta).collect()
        return {row["card"]: row for row in table.to_dicts()}

    def measure(self, settings: dict, games: int, seed: int) -> list[dict]:
        """Every target's figure for the rules ``settings`` (overrides of the rules tuned from) on
        games 0..games-1 of ``seed``: value and 95% interval, the same for the rules tuned from,
        the paired change, how far the interval misses the target and whether it is met."""
        from analysis.whatif import compare, headline_figures, moments

        out = []
        compared = {}
        for tier in self.space.tiers():
            wanted = [t for t in self.space.targets if t.tier == tier and t.figure != "skill_gap"]
            base_path, base_meta = self._run({}, tier, games, seed)
            path, meta = self._run(settings, tier, games, seed)
            columns = set(pl.scan_parquet(path).collect_schema().names())
            figures = headline_figures([base_meta, meta], columns)
            keys = {f.key for f in figures}
            for target in wanted:
                if target.figure == "game_length" and f"length:{target.unit}" not in keys:
                    counted = [k.split(":")[1] for k in keys if k.startswith("length:")]
                    raise BalanceError(f"{self.space.path}: target game_length: the runs of {self.game.name} do not "
                                       f"count {target.unit}s per game (they count: {', '.join(counted) or 'none'})")
            needed = [f for f in figures if f.kind in ("advantage", "share", "length")]
            m = moments([base_path, path], needed, [base_meta, meta], columns, [(0, 1)])
            compared[tier] = {f.key: compare(f, m, 0, 1, 0.95) for f in needed}
            if any(t.figure == "card_strength" for t in wanted):
                card_key = (tier, games, seed)
                if card_key not in self.cards_kept:
                    self.cards_kept[card_key] = self._cards(base_path, base_meta)
                compared[tier]["cards"] = (self.cards_kept[card_key], self._cards(path, meta))
        for target in self.space.targets:
            if target.figure == "skill_gap":
                out.append(self._skill_figure(target, settings, games, seed))
            elif target.figure == "card_strength":
                out.append(self._card_figure(target, *compared[target.tier]["cards"]))
            else:
                out.append(self._row_figure(target, compared[target.tier]))
        for entry in out:
            entry["games"] = games
        if not settings:
            for entry in out:  # the rules tuned from against themselves: no change, exactly
                entry.update(change=0.0, change_ci=[0.0, 0.0])
        return out

    def _judged(self, target, value, ci, original, original_ci, change, change_ci, detail="") -> dict:
        miss = target.miss(ci)
        return {"value": value, "ci": ci, "original": original, "original_ci": original_ci, "change": change,
                "change_ci": change_ci, "miss": miss, "met": miss == 0.0, "detail": detail}

    def _row_figure(self, target, rows: dict) -> dict:
        fair = 1.0 / self.players

        def scaled(row, shift=0.0, scale=100.0):
            def one(v):
                return None if v is None else scale * (v - shift)
            return (one(row["variant"]), [one(v) for v in row["variant_ci"]], one(row["baseline"]),
                    [one(v) for v in row["baseline_ci"]],
                    None if row["change"] is None else scale * row["change"],
                    [None if v is None else scale * v for v in row["change_ci"]])

        if target.figure == "first_seat_edge":
            return self._judged(target, *scaled(rows["advantage"]))
        if target.figure == "game_length":
            return self._judged(target, *scaled(rows[f"length:{target.unit}"], scale=1.0))
        seats = [self._judged(target, *scaled(rows[f"share_{s}"], shift=fair), detail=f"seat {s + 1}")
                 for s in range(self.players)]
        return max(seats, key=lambda e: (e["miss"] if e["miss"] is not None else math.inf, abs(e["value"] or 0)))

    def _card_figure(self, target, original: dict, candidate: dict) -> dict:
        names = target.cards or [name for name, row in candidate.items() if row["delta"] is not None]
        judged = []
        for name in names:
            row = candidate.get(name)
            if row is None or row["delta"] is None:
                continue  # not in this deck (removed), or never varied: nothing to be out of line
            before = original.get(name) or {}
            value, ci = 100 * row["delta"], [100 * row["ci_low"], 100 * row["ci_high"]]
            base = 100 * before["delta"] if before.get("delta") is not None else None
            base_ci = [100 * before["ci_low"], 100 * before["ci_high"]] if base is not None else [None, None]
            judged.append(self._judged(target, value, ci, base, base_ci,
                                       None if base is None else value - base, [None, None], detail=name))
        if not judged:
            return {"value": None, "ci": [None, None], "original": None, "original_ci": [None, None], "change": None,
                    "change_ci": [None, None], "miss": 0.0, "met": True, "detail": "no card of the target is dealt"}
        return max(judged, key=lambda e: (e["miss"], abs(e["value"])))

    def _skill_figure(self, target, settings: dict, games: int, seed: int) -> dict:
        from analysis import stats
        from analysis.tournament import clustered_rate

        players = self.players
        fair = 1.0 / players
        deals = max(2, games // players)
        base = self._skill({}, target.tier, target.field, deals, seed)
        mine = self._skill(settings, target.tier, target.field, deals, seed)
        figures = []
        for per_deal in (mine, base):
            rate = clustered_rate(per_deal * players, players, fair)
            figures += [100 * (rate["rate"] - fair), [100 * (v - fair) for v in rate["ci"]]]
        difference = mine - base  # the same deals, so the change is paired deal by deal
        spread = float(difference.std(ddof=1)) if deals > 1 else math.nan
        change = 100 * float(difference.mean())
        low, high = stats.mean_interval(float(difference.mean()), spread, deals)
        change_ci = [100 * low, 100 * high] if math.isfinite(low) else [None, None]
        return self._judged(target, *figures, change, change_ci, detail=f"{deals * players:,} seatings")


# --------------------------------------------------------------------------------------------
# candidates: what the sampler proposes, as variant settings
# --------------------------------------------------------------------------------------------

def suggest(trial, space: Space) -> dict:
    """The sampler's proposal as plain values, one per change (a card list: each optional card in
    or out, named ``key[card]``)."""
    params = {}
    for change in space.changes:
        if change.kind == "int":
            params[change.key] = trial.suggest_int(change.key, int(change.low), int(change.high), step=int(change.step))
        elif change.kind == "float":
            params[change.key] = trial.suggest_float(change.key, change.low, change.high, step=change.step)
        elif change.kind == "choice":
            index = trial.suggest_categorical(change.key, list(range(len(change.values))))
            params[change.key] = change.values[index]
        else:
            for card in change.optional:
                params[f"{change.key}[{card}]"] = trial.suggest_categorical(f"{change.key}[{card}]", [True, False])
    return params


def original_params(space: Space) -> dict | None:
    """The sampler's parameters of the rules tuned from (None if they lie outside the space)."""
    params = {}
    for change in space.changes:
        if change.kind in ("int", "float"):
            if not change.low <= change.original <= change.high:
                return None
            params[change.key] = change.original
        elif change.kind == "choice":
            if change.original not in change.values:
                return None
            params[change.key] = list(change.values).index(change.original)
        else:
            for card in change.optional:
                params[f"{change.key}[{card}]"] = card in change.original
    return params


def settings_of(params: dict, space: Space) -> tuple[dict, list[str], float]:
    """(variant settings that differ from the rules tuned from, the keys changed, the normalised
    size of the change: the sum of each key's distance, 0..1 each)."""
    settings, changed, size = {}, [], 0.0
    for change in space.changes:
        if change.kind == "cards":
            kept = [c for c in change.original if c not in change.optional or params[f"{change.key}[{c}]"]]
            added = [c for c in change.optional if c not in change.original and params[f"{change.key}[{c}]"]]
            value = kept + added
        else:
            value = params[change.key]
        distance = change.distance(value)
        if distance > 0 or (change.kind == "choice" and value != change.original):
            settings[change.key] = value
            changed.append(change.key)
            size += distance
    return settings, changed, size


def score_of(figures: list[dict], space: Space, changed: list[str], size: float, shrink: float = 1.0) -> float:
    """How far the candidate is from meeting every target: for each target, how far its 95%
    interval would reach outside the target at the finalists' game count (the interval around
    the estimate narrowed by ``shrink`` = sqrt(games / final games)), over the target's scale;
    plus a small tie-breaker for the size of the change, so that among candidates that look
    sure to meet every target the smaller change goes on."""
    total = 0.0
    for target, figure in zip(space.targets, figures):
        value, (low, high) = figure["value"], figure["ci"]
        if value is None or low is None or high is None:
            miss = figure["miss"]
        else:
            miss = target.miss([value - (value - low) * shrink, value + (high - value) * shrink])
        total += (miss if miss is not None else 10.0) / target.scale
    return total + CHANGE_WEIGHT * (len(changed) + size)


def promoted(score: float, pool: list[float], keep: int) -> bool:
    """Asynchronous successive halving: go on to the next rung when the score is among the best
    ceil(m / keep) of the m scores measured at this rung so far (its own included)."""
    ranked = sorted(pool)
    return score <= ranked[max(1, math.ceil(len(ranked) / keep)) - 1]


# --------------------------------------------------------------------------------------------
# the journal (--resume)
# --------------------------------------------------------------------------------------------

def journal_identity(space: Space, seed: int, racing: bool, candidates: int, final_games: int) -> dict:
    from simcore.cache import FINGERPRINT

    base = space.variant_path.read_text(encoding="utf-8") if space.variant_path else ""
    return {"version": JOURNAL_VERSION, "space": hashlib.sha256(space.text.encode()).hexdigest()[:16],
            "variant": hashlib.sha256(base.encode()).hexdigest()[:16], "seed": seed, "racing": racing,
            "candidates": candidates, "final_games": final_games, "players": space.players, "engine": FINGERPRINT}


def read_journal(path: Path, identity: dict) -> list[dict]:
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        old, candidates = data["identity"], data["candidates"]
    except (OSError, ValueError, KeyError, TypeError):
        raise BalanceError(f"--resume: {path} is not a readable tune journal; --force starts over") from None
    if old != identity:
        key = next(k for k in identity if old.get(k) != identity.get(k))
        raise BalanceError(f"--resume: the tune in {path.parent} was made with another {key} "
                           f"({old.get(key)!r}, now {identity.get(key)!r}); give the same command, or --force to start over")
    return candidates


def write_journal(path: Path, identity: dict, candidates: list[dict]) -> None:
    staged = path.parent / f".{path.name}.tmp"
    staged.write_text(json.dumps({"identity": identity, "candidates": candidates}, indent=1, allow_nan=False) + "\n",
                      encoding="utf-8")
    os.replace(staged, path)


# --------------------------------------------------------------------------------------------
# the tune
# --------------------------------------------------------------------------------------------

def tune(space_path, seed: int = 1, out: Path | None = None, resume: bool = False, threads: int | None = None,
         progress: bool = True, candidates: int | None = None, final_games: int | None = None, racing: bool = True,
         report: bool = True) -> dict:
    """Race the candidates, measure the finalists on fresh games, pick the smallest change that
    meets every target; the JSON-ready document (docs/tune.md).  ``report``: also compare the
    winner with the rules tuned from in a full what-if (``document["whatif"]``)."""
    import optuna
    from analysis.whatif import check_run_options

    space = load_space(space_path)
    budget = space.budget
    count = candidates if candidates is not None else budget.candidates
    if not 1 <= count <= 500:
        raise BalanceError(f"--candidates must be 1..500, not {count}")
    finals = final_games if final_games is not None else budget.final_games
    if finals < 10 * space.players:
        raise BalanceError(f"--games (fresh games per finalist) must be at least {10 * space.players}, not {finals}")
    check_run_options(finals, seed, threads)
    if resume and out is None:
        raise BalanceError("--resume needs --out: the stopped tune is found in its output folder")
    rungs = list(budget.rungs) if racing else [budget.rungs[-1]]
    identity = journal_identity(space, seed, racing, count, finals)
    journal_path = Path(out) / JOURNAL if out is not None else None
    if out is not None:
        from analysis.whatif import check_report_folder

        check_report_folder(Path(out))
        try:
            Path(out).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            from simcore.outputs import write_failure

            raise write_failure(out, exc) from None
    if journal_path is not None and not resume and journal_path.exists():
        journal_path.unlink()  # --force: start over
    done = read_journal(journal_path, identity) if resume else []

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=min(10, max(3, count // 3)))
    study = optuna.create_study(direction="minimize", sampler=sampler)
    start = original_params(space)
    if start is not None:
        study.enqueue_trial(start)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="balance-tune-") as scratch:
        measurer = Measurer(space, Path(scratch), threads, announce=progress)
        records: list[dict] = []
        pools: list[list[float]] = [[] for _ in rungs]
        from simcore.driver import _progress

        with _progress(progress, count, f"{space.game} {space.players}p tune", unit="candidates") as advance:
            try:
                for number in range(1, count + 1):
                    trial = study.ask()
                    params = suggest(trial, space)
                    if number <= len(done):
                        record = done[number - 1]
                        if _key(record["params"]) != _key(params):
                            raise BalanceError(f"--resume: candidate {number} is proposed differently now than in the "
                                               f"journal (another Optuna version?); --force starts over")
                        for rung, entry in enumerate(record["rungs"]):
                            pools[rung].append(entry["score"])
                    else:
                        record = evaluate(number, params, space, measurer, rungs, pools, records, budget.keep, seed,
                                          finals)
                    _tell(study, trial, record)
                    records.append(record)
                    if number > len(done) and journal_path is not None:
                        write_journal(journal_path, identity, records)
                    advance(1)
            except KeyboardInterrupt:
                if journal_path is not None and records:
                    raise RunInterrupted(f"{len(records)} finished candidates kept in {journal_path}: run the same "
                                         "command with --resume to go on") from None
                raise
        measurer.games_played = 0
        document = finish(space, measurer, records, seed, finals, count, rungs, racing)
        document["games_played"] = {"racing": racing_games(space, records, rungs),
                                    "finals": measurer.games_played,
                                    "full_evaluation": full_evaluation_games(space, records, rungs[-1])}
    if report and document["winner"] is not None:
        before = time.perf_counter()
        document["whatif"] = winner_whatif(space, document, seed, finals, threads, progress, out)
        document["games_played"]["whatif"] = 2 * finals
        document["whatif_seconds"] = round(time.perf_counter() - before, 3)
    document["seconds"] = round(time.perf_counter() - started, 3)
    document["verdict"] = verdict(document)
    return document


def games_per_measure(space: Space, games: int) -> int:
    """Games one set of rules plays to be measured at ``games``: one run per tier the targets
    read, and each skill gap's seatings (every seat once, games // N deals)."""
    skill = sum(max(2, games // space.players) * space.players for t in space.targets if t.figure == "skill_gap")
    return len(space.tiers()) * games + skill


def racing_games(space: Space, records: list[dict], rungs: list[int]) -> int:
    """Games the racing played: each candidate at every rung it reached, and the rules tuned from
    at every rung any candidate reached (once: every candidate is compared with the same runs)."""
    played = 0
    reached = 0
    for record in records:
        reached = max(reached, len(record["rungs"]))
        if record["settings"] or record["status"] in ("repeat", "refused"):
            played += sum(games_per_measure(space, entry["games"]) for entry in record["rungs"])
    return played + sum(games_per_measure(space, games) for games in rungs[:reached])


def full_evaluation_games(space: Space, records: list[dict], games: int) -> int:
    """Games the same candidates would take without racing: every distinct playable candidate, and
    the rules tuned from, at the last rung."""
    distinct = sum(1 for r in records if r["status"] in ("completed", "dropped") and r["settings"])
    return (distinct + 1) * games_per_measure(space, games)


def evaluate(number, params, space, measurer, rungs, pools, records, keep, seed, final_games=None) -> dict:
    """Race one candidate up the rungs (or find it is a repeat, or refused by the rules)."""
    settings, changed, size = settings_of(params, space)
    record = {"number": number, "params": params, "settings": settings, "changed": changed, "size": size,
              "status": None, "rungs": [], "games_played": 0}
    for earlier in records:
        if _key(earlier["params"]) == _key(params):
            record.update(status="repeat", repeat_of=earlier.get("repeat_of", earlier["number"]))
            return record
    try:
        measurer.game.setup(space.players, measurer.variant(settings))
    except BalanceError as exc:
        reason = " ".join(str(exc).split()).removeprefix(f"{measurer.variant({}).source}: ")
        record.update(status="refused", reason=f"refused by the rules: {reason}")
        return record
    before = measurer.games_played
    for rung, games in enumerate(rungs):
        figures = measurer.measure(settings, games, seed)
        score = score_of(figures, space, changed, size, math.sqrt(games / final_games) if final_games else 1.0)
        record["rungs"].append({"games": games, "score": score, "targets": figures})
        pools[rung].append(score)
        if rung < len(rungs) - 1 and not promoted(score, pools[rung], keep):
            record["status"] = "dropped"
            break
    else:
        record["status"] = "completed"
    record["games_played"] = measurer.games_played - before
    return record


def _tell(study, trial, record: dict) -> None:
    """Tell the sampler how the candidate did: its score at the last rung it reached (a dropped
    candidate is told as pruned, with its scores at each rung reported)."""
    from optuna.trial import TrialState

    if record["status"] == "repeat":
        return study.tell(trial, _repeat_value(study, record))
    if record["status"] == "refused":
        return study.tell(trial, REFUSED_SCORE)
    for rung, entry in enumerate(record["rungs"]):
        trial.report(entry["score"], step=rung)
    if record["status"] == "dropped":
        study.tell(trial, state=TrialState.PRUNED)
    else:
        study.tell(trial, record["rungs"][-1]["score"])


def _repeat_value(study, record: dict) -> float:
    trial = study.trials[record["repeat_of"] - 1]
    if trial.value is not None:
        return trial.value
    steps = trial.intermediate_values
    return steps[max(steps)] if steps else REFUSED_SCORE
# --------------------------------------------------------------------------------------------
# the finalists, measured afresh, and the answer
# --------------------------------------------------------------------------------------------

def _order(record: dict) -> tuple:
    last = record["rungs"][-1]["score"] if record["rungs"] else math.inf
    return (last, len(record["changed"]), record["size"], record["number"])


def finish(space: Space, measurer: Measurer, records: list[dict], seed: int, finals: int, count: int,
           rungs: list[int], racing: bool) -> dict:
    """Measure the finalists and the rules tuned from on fresh games; rank every candidate."""
    from simcore.version import __version__

    fresh = final_seed(seed)
    completed = sorted((r for r in records if r["status"] == "completed"), key=_order)
    finalists = completed[:space.budget.finalists]
    original = measurer.measure({}, finals, fresh)
    rows = []
    for record in finalists:
        figures = original if not record["settings"] else measurer.measure(record["settings"], finals, fresh)
        rows.append(_row(record, "final", finals, figures, score_of(figures, space, record["changed"], record["size"])))
    met = [row for row in rows if row["met"]]
    winner = min(met, key=lambda r: (len(r["changed"]), r["size"], r["score"], r["number"])) if met else None
    rows.sort(key=lambda r: (not r["met"], len(r["changed"]) if r["met"] else 0, r["size"] if r["met"] else 0,
                             r["score"], r["number"]))
    others = [r for r in records if r not in finalists and r["status"] in ("completed", "dropped")]
    others.sort(key=lambda r: (-len(r["rungs"]),) + _order(r))
    for record in others:
        last = record["rungs"][-1]
        rows.append(_row(record, "racing", last["games"], last["targets"], last["score"]))
    for record in records:
        if record["status"] in ("repeat", "refused"):
            rows.append(_row(record, "racing", None, None, None))
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    base = measurer.base
    return {
        "game": space.game, "title": measurer.game.title, "players": space.players, "space": str(space.path),
        "space_name": space.name, "description": space.description, "version": __version__,
        "from": {"name": base.name, "source": _shown(base.source), "settings": dict(base.settings)},
        "seed": seed, "final_seed": fresh, "racing": racing, "confidence": 0.95,
        "budget": {"candidates": count, "rungs": rungs, "keep": space.budget.keep,
                   "finalists": space.budget.finalists, "final_games": finals, "precision": space.budget.precision},
        "changes": [{"key": c.key, "kind": c.kind, "space": c.describe(), "original": c.original}
                    for c in space.changes],
        "targets": [{"figure": t.figure, "label": t.label, "tier": t.tier, "field": t.field, "unit": t.unit,
                     "cards": list(t.cards), "low": t.low, "high": t.high, "band": t.band} for t in space.targets],
        "original": {"targets": original, "met": all(f["met"] for f in original), "games": finals},
        "distinct": sum(1 for r in records if r["status"] in ("completed", "dropped")),
        "candidates": rows,
        "winner": winner,
        "best": rows[0] if rows and rows[0]["stage"] == "final" else None,
    }


def _shown(source: str | None) -> str | None:
    """A file as the user would name it: relative to the working folder where it lies below it."""
    if source is None:
        return None
    try:
        return str(Path(source).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return source


def _row(record: dict, stage: str, games, figures, score) -> dict:
    return {"rank": None, "number": record["number"], "settings": record["settings"], "changed": record["changed"],
            "size": record["size"], "status": record["status"], "stage": stage, "games": games,
            "rungs_reached": len(record["rungs"]), "score": score, "targets": figures,
            "met": None if figures is None else all(f["met"] for f in figures),
            "note": record.get("reason") or (f"repeat of candidate {record['repeat_of']}"
                                             if record["status"] == "repeat" else "")}


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise BalanceError(f"cannot write {value!r} to a variant file")


def winner_file(space: Space, document: dict) -> str:
    """The winner as a variant file: the rules tuned from with the winner's changes."""
    winner = document["winner"]
    settings = {**document["from"]["settings"], **winner["settings"]}
    changes = change_text(winner["settings"], document) or "no change"
    lines = [f"game = {toml_value(space.game)}",
             f"name = {toml_value('tuned: ' + changes)}",
             "description = " + toml_value(f"balance tune {space.path.name} --seed {document['seed']}: the smallest "
                                           "change found that meets every target")]
    lines += [f"{key} = {toml_value(value)}" for key, value in settings.items()]
    return "\n".join(lines) + "\n"


def winner_whatif(space: Space, document: dict, seed: int, games: int, threads, progress: bool, out: Path | None):
    """The full what-if of the winner against the rules tuned from, on the finalists' fresh games
    (written to ``OUT/whatif/`` with ``--out``; the winner's variant file is ``OUT/winner.toml``)."""
    from analysis import whatif as comparison

    tier = (space.tiers() or ["random"])[0]
    with tempfile.TemporaryDirectory(prefix="balance-tune-") as scratch:
        folder = Path(out) if out is not None else Path(scratch)
        path = folder / "winner.toml"
        staged = folder / ".winner.toml.tmp"
        staged.write_text(winner_file(space, document), encoding="utf-8")
        os.replace(staged, path)
        report = comparison.whatif(space.game, [path], players=space.players, games=games, seed=final_seed(seed),
                                   strategies_spec=tier, threads=threads, progress=progress,
                                   out=folder / "whatif" if out is not None else None, baseline_path=space.variant_path)
        if out is not None:
            comparison.write(report, folder / "whatif")
    return report


# --------------------------------------------------------------------------------------------
# words
# --------------------------------------------------------------------------------------------

def change_text(settings: dict, document: dict) -> str:
    """``two_factor 10 → 4; cards −99 +49``: each changed key from its value in the rules tuned from."""
    originals = {c["key"]: c["original"] for c in document["changes"]}
    parts = []
    for key, value in settings.items():
        before = originals.get(key)
        if isinstance(value, list) and isinstance(before, list):
            removed = [v for v in before if v not in value]
            added = [v for v in value if v not in before]
            parts.append(f"{key} " + " ".join([f"−{toml_value(v)}" for v in removed] + [f"+{toml_value(v)}" for v in added]))
        else:
            parts.append(f"{key} {toml_value(before)} → {toml_value(value)}")
    return "; ".join(parts)


def figure_text(target: dict, figure: dict | None, places: int = 2) -> str:
    if figure is None or figure["value"] is None:
        return "n/a" if figure is None else figure.get("detail") or "n/a"
    low, high = figure["ci"]
    if target["figure"] == "game_length":
        text = f"{figure['value']:.{places}f} [{low:.{places}f}, {high:.{places}f}]"
    else:
        text = f"{figure['value']:+.{places}f} pp [{low:+.{places}f}, {high:+.{places}f}]"
    detail = figure.get("detail")
    if detail and target["figure"] in ("seat_shares", "card_strength"):
        text = f"{detail} {text}"
    return text


def verdict(document: dict) -> dict:
    """At most three sentences: the smallest change that meets every target (or the closest
    miss), its figures on the fresh games, and how the rules tuned from fared."""
    from analysis.summary import games_phrase

    targets = document["targets"]
    winner, original = document["winner"], document["original"]
    games = games_phrase(document["budget"]["final_games"])
    figures = lambda row: "; ".join(f"{t['label']} {figure_text(t, f)} ({t['band']})"
                                    for t, f in zip(targets, row["targets"]))
    missed = [t["label"] for t, f in zip(targets, original["targets"]) if not f["met"]]
    if winner is not None and not winner["settings"]:
        sentences = [f"The rules tuned from already meet all {len(targets)} targets on {games} of fresh play: "
                     f"{figures(winner)}.", "No change is needed."]
        tone = "good"
    elif winner is not None:
        sentences = [f"The smallest change found that meets all {len(targets)} targets is {change_text(winner['settings'], document)} "
                     f"(candidate {winner['number']}, {len(winner['changed'])} key{'s' if len(winner['changed']) != 1 else ''} changed).",
                     f"On {games} of fresh play, every interval inside its target: {figures(winner)}."]
        tone = "good"
    else:
        best = document["best"]
        sentences = [f"No finalist meets all {len(targets)} targets on {games} of fresh play."]
        if best is not None:
            failed = "; ".join(f"{t['label']} {figure_text(t, f)} ({t['band']})"
                               for t, f in zip(targets, best["targets"]) if not f["met"])
            sentences.append(f"The closest, {change_text(best['settings'], document) or 'the rules tuned from'} "
                             f"(candidate {best['number']}), misses {failed}.")
        tone = "bad"
    if missed and (winner is None or winner["settings"]):
        sentences.append(f"The rules tuned from miss {len(missed)} of {len(targets)}: "
                         + "; ".join(f"{t['label']} {figure_text(t, f)}" for t, f in zip(targets, original["targets"])
                                     if not f["met"]) + ".")
    note = ("A target is met only when its whole 95% interval lies inside it; the figures come from fresh games "
            "(seed {0}), not the games the candidates were raced on.").format(document["final_seed"])
    return {"sentences": sentences[:3], "note": note, "tone": tone}


CANDIDATE_HEADERS = ["rank", "candidate", "change", "measured on", "score"]


def candidate_rows(document: dict, limit: int | None = None) -> list[list[str]]:
    rows = []
    for row in document["candidates"][:limit]:
        if row["targets"] is None:
            where = row["note"]
            cells = ["—"] * len(document["targets"])
        else:
            rung = f"rung {row['rungs_reached']}" if row["stage"] == "racing" else "fresh games"
            where = f"{row['games']:,} ({rung}{', ' + row['status'] if row['status'] == 'dropped' else ''})"
            cells = [figure_text(t, f) + ("" if f["met"] else " ✗") for t, f in zip(document["targets"], row["targets"])]
        mark = " ← winner" if document["winner"] and row["number"] == document["winner"]["number"] else ""
        score = "" if row["score"] is None else f"{row['score']:.3f}"
        rows.append([str(row["rank"]), f"{row['number']}{mark}", change_text(row["settings"], document) or "none (the rules tuned from)",
                     where, score, *cells])
    return rows


def candidate_headers(document: dict) -> list[str]:
    return CANDIDATE_HEADERS + [f"{t['label']}: {t['band']}" for t in document["targets"]]


def header_lines(document: dict) -> list[str]:
    budget = document["budget"]
    source = document["from"]
    racing = (" → ".join(f"{n:,}" for n in budget["rungs"]) + f" games, one in {budget['keep']} goes on"
              if document["racing"] else f"no racing: every candidate on {budget['rungs'][-1]:,} games")
    return [f"{document['title']} ({document['game']}): {document['players']} players, tune {document['space_name']} "
            f"({document['space']})",
            f"tuned from: {source['name']}" + (f" ({source['source']})" if source["source"] else " (published rules)"),
            f"seed {document['seed']} · {budget['candidates']} candidates ({document['distinct']} distinct) · racing on "
            f"{racing} · {budget['finalists']} finalists on {budget['final_games']:,} fresh games (seed "
            f"{document['final_seed']})",
            "may change: " + "; ".join(c["space"] for c in document["changes"])]


def games_line(document: dict) -> str:
    played = document["games_played"]
    full = played["full_evaluation"]
    saved = 1 - played["racing"] / full if full else 0.0
    return (f"games: racing {played['racing']:,} (every candidate at the last rung: {full:,}; racing saved "
            f"{100 * saved:.0f}%), finalists {played['finals']:,}"
            + (f", what-if {played['whatif']:,}" if "whatif" in played else "")
            + f"; {document['seconds']:.1f} s")


def format_text(document: dict, limit: int = 12) -> str:
    from analysis.summary import fixed_width

    found = document.get("verdict") or verdict(document)
    out = header_lines(document)
    out += ["", "verdict: " + " ".join(found["sentences"]), f"  ({found['note']})", "", "targets:"]
    out += [f"  {k}. {t['label']}: {t['band']}" for k, t in enumerate(document["targets"], start=1)]
    shown = document["candidates"][:limit]
    out += ["", f"ranked candidates ({len(shown)} of {len(document['candidates'])}; ✗ = interval not inside the target):"]
    out += fixed_width(candidate_headers(document), candidate_rows(document, limit))
    out += ["", games_line(document)]
    if document.get("whatif"):
        out += ["what-if of the winner against the rules tuned from: " + " ".join(document["whatif"]["verdict"]["sentences"])]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# the page
# --------------------------------------------------------------------------------------------

def chart(document: dict) -> bytes:
    """One panel per target: every candidate's figure with its 95% interval at the furthest rung
    it reached (grey), the finalists on fresh games (blue), the rules tuned from (red), the
    winner (green), and the target's band."""
    from matplotlib.figure import Figure

    from analysis.charts import _png

    targets = document["targets"]
    figure = Figure(figsize=(9.0, 1.2 + 2.3 * len(targets)), layout="constrained")
    panels = figure.subplots(len(targets), 1, squeeze=False)[:, 0]
    winner = document["winner"]["number"] if document["winner"] else None
    for k, (target, axes) in enumerate(zip(targets, panels)):
        low, high = target["low"], target["high"]
        shown = []
        for row in document["candidates"]:
            if row["targets"] is None or row["targets"][k]["value"] is None:
                continue
            f = row["targets"][k]
            colour = ("#54a24b" if row["number"] == winner else "#4c78a8") if row["stage"] == "final" else "0.65"
            shown.append((row["number"], f["value"], f["ci"], colour))
        original = document["original"]["targets"][k]
        if original["value"] is not None:
            shown.append((0, original["value"], original["ci"], "#e45756"))
        for x, value, ci, colour in shown:
            axes.errorbar([x], [value], yerr=[[value - ci[0]], [ci[1] - value]], fmt="o", color=colour, capsize=3,
                          markersize=4)
        bottom = low if low is not None else min([s[2][0] for s in shown] + [high - 1])
        top = high if high is not None else max([s[2][1] for s in shown] + [low + 1])
        axes.axhspan(bottom, top, color="#54a24b", alpha=0.12, linewidth=0)
        unit = "per game" if target["figure"] == "game_length" else "pp"
        axes.set_ylabel(unit)
        axes.set_title(f"{target['label']}: {target['band']}", fontsize=9)
        if k == len(targets) - 1:
            axes.set_xlabel("candidate (0 = the rules tuned from, on the fresh games)")
        axes.xaxis.get_major_locator().set_params(integer=True)
        axes.grid(axis="y", alpha=0.3)
    figure.suptitle("Candidates against the targets (95% intervals; green band: the target)", fontsize=12,
                    fontweight="bold")
    figure.supxlabel("red: the rules tuned from · blue: finalists on fresh games · green: the winner · "
                     "grey: racing, at the last rung reached", fontsize=8, color="0.3")
    return _png(figure)


def report_blocks(document: dict) -> list:
    from analysis.page import Heading, Image, Items, Paragraph, Table, Verdict

    found = document.get("verdict") or verdict(document)
    blocks = [Heading(1, f"Tune: {document['title']}, {document['players']} players"),
              Verdict(found["sentences"], found["note"], found["tone"]),
              Image("tune-candidates.png", "Every candidate's figure for each target with its 95% interval and the "
                                          "target's band", chart(document), lead=True),
              Items(header_lines(document) + [games_line(document)]),
              Heading(2, "Targets"),
              Table(["target", "figure", "must lie", "tier", "the rules tuned from (fresh games)"],
                    [[str(k), t["label"], t["band"], t["tier"], figure_text(t, f)]
                     for k, (t, f) in enumerate(zip(document["targets"], document["original"]["targets"]), start=1)]),
              Heading(2, "Ranked candidates"),
              Table(candidate_headers(document), candidate_rows(document)),
              Paragraph("Finalists first, measured on fresh games; then the other candidates at the furthest racing "
                        "rung they reached. ✗: the 95% interval is not inside the target. Score: how far the "
                        "intervals would reach outside the targets at the finalists' game count (each narrowed by "
                        "√(games / final games) around its estimate), each over half its band, plus 0.001 per unit "
                        "of change."),
              Heading(2, "How the tune works"),
              Paragraph("Optuna's TPE sampler, seeded from the tune's seed, proposes one candidate at a time; the rules "
                        "tuned from are candidate 1. Racing: every candidate plays the same games as every other "
                        "(common random numbers) at each rung, and goes on to the next rung only if its score is "
                        "among the best 1/KEEP measured at that rung so far; a candidate is dropped only for being "
                        "worse there. The finalists and the rules tuned from are then measured again on fresh games "
                        "(another seed): every figure, interval and pass/fail above comes from those games, so "
                        "choosing the finalists does not bias them. The winner is the finalist that meets every "
                        "target with the fewest keys changed, then the smallest normalised distance.")]
    if document.get("whatif"):
        blocks += [Heading(2, "The winner against the rules tuned from"),
                   Paragraph(" ".join(document["whatif"]["verdict"]["sentences"])
                             + " Full what-if report: whatif/whatif.html; the winner as a variant file: winner.toml.")]
    return blocks


def write(document: dict, out_dir: Path) -> Path:
    """``tune.md`` (+ PNG), ``tune.html``, ``tune.json`` (and ``summary.json``, as every page)."""
    from analysis.page import write_blocks

    folder = write_blocks(report_blocks(document), document, out_dir, stem="tune")
    staged = Path(out_dir) / ".tune.json.tmp"
    staged.write_text(json.dumps(document, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(staged, Path(out_dir) / "tune.json")
    return folder
