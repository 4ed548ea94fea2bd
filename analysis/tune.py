"""`balance tune`: search a space of rule changes for the smallest one that meets every target.

Size.  A change's size is its number of steps from the rules tuned from: each key that is not a
list changed is one step; in a list (a deck) a swap, one item out and one in, is one step, and an
item added or removed without a partner is one step too (``analysis.tune_levels``).

Order.  The tune tries candidates by size: the rules tuned from (size 0), then every change of
size 1, then of size 2, and so on, and stops at the first size where a candidate meets every
target.  A size whose candidates (those the rules accept) fit in the budget left is tried
exhaustively; the first size that does not fit is sampled instead: Optuna's TPE sampler, seeded
from ``--seed``, proposes changes of that size (``n_jobs = 1``: the same proposals in the same
order on every machine) until the budget is spent, and the tune ends there.

Racing.  The budget names rungs of game counts n1 < n2 < ...  Every candidate plays games
0..n1-1 of the tune's seed; every set of rules plays the same games (common random numbers), so
at a rung all candidates are compared on the same deals, paired with the rules tuned from.  A
candidate is *ruled out* at a rung when some target's 95% interval lies wholly outside the target
(it cannot meet it: the same 95% intervals that say a target is met); it then stops.  In an
exhaustive size nothing else stops a candidate, so every candidate either is ruled out or
finishes the last rung.  In a sampled size a candidate also stops when its score is not among
the best 1/KEEP measured at that rung so far (asynchronous successive halving): *dropped*, which
rules nothing out.  A candidate's score is how far its targets' 95% intervals would reach
outside the targets at the finalists' game count (each interval around its estimate narrowed by
sqrt(games / final games)), plus 0.001 per step and per unit of distance as a tie-breaker.

Validity.  Racing never says a candidate meets the targets.  The candidates that finished the
last rung are measured again on FRESH games (another seed, derived from ``--seed``),
``final_games`` each, with the rules tuned from, and every reported figure, interval and pass/fail
comes from that measurement alone: choosing them on the racing games does not bias the reported
intervals (no winner's curse in them).  A target is met when its whole 95% interval lies inside
it.  In an exhaustive size the finishers are measured smallest distance first, until one meets
every target and at least ``finalists`` were measured, or all were: a finisher measured and not
inside every target is ruled out too ("not shown to meet them on the full count of fresh
games").  So when a size yields no winner, every candidate of it was settled: refused by the
rules, an interval wholly outside a target, or measured on fresh games and not inside every
target.  In a sampled size the best ``finalists`` finishers by score are measured.  The winner
is, among the measured candidates of the size where the tune stopped that meet every target, the
one of smallest normalised distance (each key's share of its range moved).

Figures: the first-seat edge and every seat's share (Wilson intervals), game length
(delta-method) and their paired changes against the rules tuned from come from
``analysis.whatif`` (``moments`` / ``compare``); card strength from ``analysis.cards``; the skill
gap (one player of a tier among the tier below, once in each seat on the same deals) from
``analysis.ladder.play_rung`` and ``analysis.tournament.clustered_rate``.

Resume.  Every finished candidate is written to ``tune-journal.json`` in the output folder.
``--resume`` replays the journal (the listing, and the sampler of the same seed, must give its
candidates again, or the space changed and the resume is refused) and continues; the fresh-game
measurements are played again: the answer is the one an uninterrupted tune gives.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import time
from pathlib import Path

from analysis.tune_measure import Measurer, settings_key as _key
from analysis.tune_report import change_text, format_text, toml_value, verdict, write  # noqa: F401 (the command's)
from analysis.tune_levels import settings_of
from analysis.tune_space import Space, load_space
from simcore.errors import BalanceError, RunInterrupted

CHANGE_WEIGHT = 0.001   # score per unit of change: a tie-breaker among candidates that meet the targets
REFUSED_SCORE = 1000.0  # told to the sampler for a candidate the rules refuse
JOURNAL = "tune-journal.json"
JOURNAL_VERSION = 2


def final_seed(seed: int) -> int:
    """The seed of the fresh games the finalists are measured on: derived from the tune's seed,
    never equal to it."""
    derived = int.from_bytes(hashlib.sha256(f"balance tune final {seed}".encode()).digest()[:7], "big")
    return derived if derived != seed else derived + 1


# --------------------------------------------------------------------------------------------
# candidates: parameters (one value per key; a list: each optional item in or out, named
# ``key[item]``) and the variant settings they give
# --------------------------------------------------------------------------------------------

def score_of(figures: list[dict], space: Space, steps: int, distance: float, shrink: float = 1.0) -> float:
    """How far the candidate is from meeting every target: for each target, how far its 95%
    interval would reach outside the target at the finalists' game count (the interval around
    the estimate narrowed by ``shrink`` = sqrt(games / final games)), over the target's scale;
    plus a small tie-breaker for the size of the change (its steps and distance), so that among
    candidates that look sure to meet every target the smaller change ranks first."""
    total = 0.0
    for target, figure in zip(space.targets, figures):
        value, (low, high) = figure["value"], figure["ci"]
        if value is None or low is None or high is None:
            miss = figure["miss"]
        else:
            miss = target.miss([value - (value - low) * shrink, value + (high - value) * shrink])
        total += (miss if miss is not None else 10.0) / target.scale
    return total + CHANGE_WEIGHT * (steps + distance)


def ruled_out(figures: list[dict], space: Space) -> list[int]:
    """The targets (indices) whose whole 95% interval lies outside the target: the candidate
    cannot meet them (for a figure over several seats or cards: any one of them outside)."""
    out = []
    for k, (target, figure) in enumerate(zip(space.targets, figures)):
        excluded = figure.get("excluded")
        if excluded is None:
            excluded = target.outside(figure["ci"])
        if excluded:
            out.append(k)
    return out


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
    """Try the candidates by size, race them, measure the finishers on fresh games, stop at the
    first size where one meets every target; the JSON-ready document (docs/tune.md).
    ``report``: also compare the winner with the rules tuned from in a full what-if
    (``document["whatif"]``)."""
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

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="balance-tune-") as scratch:
        measurer = Measurer(space, Path(scratch), threads, announce=progress)
        search = Search(space, measurer, rungs, seed, finals, count, done, journal_path, identity)
        from simcore.progress import Progress

        with Progress(progress, count, f"{space.game} {space.players}p tune", unit="candidates") as advance:
            try:
                search.run(advance)
            except KeyboardInterrupt:
                if journal_path is not None and search.records:
                    raise RunInterrupted(f"{len(search.records)} finished candidates kept in {journal_path}: run the "
                                         "same command with --resume to go on") from None
                raise
        document = finish(space, measurer, search, seed, finals, count, rungs, racing)
        document["games_played"] = {"racing": racing_games(space, search.records, rungs),
                                    "finals": search.fresh_games,
                                    "full_evaluation": full_evaluation_games(space, search.records, rungs[-1])}
    if report and document["winner"] is not None:
        before = time.perf_counter()
        document["whatif"] = winner_whatif(space, document, seed, finals, threads, progress, out)
        document["games_played"]["whatif"] = 2 * finals
        document["whatif_seconds"] = round(time.perf_counter() - before, 3)
    document["seconds"] = round(time.perf_counter() - started, 3)
    document["verdict"] = verdict(document)
    return document


class Search:
    """The tune's state: every candidate tried (``records``, in order), the fresh-game figures of
    those measured again (``fresh``), one summary per size tried (``levels``)."""

    def __init__(self, space: Space, measurer: Measurer, rungs: list[int], seed: int, finals: int, budget: int,
                 done: list[dict], journal_path: Path | None, identity: dict):
        self.space, self.measurer, self.rungs, self.seed, self.finals = space, measurer, rungs, seed, finals
        self.budget, self.done, self.journal_path, self.identity = budget, done, journal_path, identity
        self.fresh_seed = final_seed(seed)
        self.records: list[dict] = []
        self.fresh: dict[int, list[dict]] = {}
        self.levels: list[dict] = []
        self.used = 0            # candidates played (the rules accept them), against the budget
        self.fresh_games = 0
        self.original: list[dict] | None = None
        self.winner: dict | None = None
        self.stopped = ""        # why no larger size was tried

    # ---- one candidate ----------------------------------------------------------------------

    def refusal(self, params: dict) -> str | None:
        settings = settings_of(params, self.space)[0]
        try:
            self.measurer.game.setup(self.space.players, self.measurer.variant(settings))
        except BalanceError as exc:
            return " ".join(str(exc).split()).removeprefix(f"{self.measurer.variant({}).source}: ")
        return None

    def candidate(self, params: dict, pools: list[list[float]] | None) -> dict:
        """Race one candidate (or read it from the journal of a stopped tune)."""
        number = len(self.records) + 1
        if number <= len(self.done):
            record = self.done[number - 1]
            if _key(record["params"]) != _key(params):
                raise BalanceError(f"--resume: candidate {number} is proposed differently now than in the journal "
                                   "(another Optuna version?); --force starts over")
            if pools is not None:
                for rung, entry in enumerate(record["rungs"]):
                    pools[rung].append(entry["score"])
        else:
            record = evaluate(number, params, self.space, self.measurer, self.rungs, pools, self.records,
                              self.space.budget.keep, self.seed, self.finals, exhaustive=pools is None)
        self.records.append(record)
        if number > len(self.done) and self.journal_path is not None:
            write_journal(self.journal_path, self.identity, self.records)
        return record

    def measure_fresh(self, record: dict) -> list[dict]:
        if not record["settings"]:
            figures = self.original
        else:
            before = self.measurer.games_played
            figures = self.measurer.measure(record["settings"], self.finals, self.fresh_seed)
            self.fresh_games += self.measurer.games_played - before
        self.fresh[record["number"]] = figures
        return figures

    # ---- the sizes, smallest first ----------------------------------------------------------

    def run(self, advance) -> None:
        from analysis.tune_levels import level_candidates, level_counts

        before = self.measurer.games_played
        self.original = self.measurer.measure({}, self.finals, self.fresh_seed)
        self.fresh_games += self.measurer.games_played - before
        counts = level_counts(self.space)
        for size, count in enumerate(counts):
            if not count:
                continue
            left = self.budget - self.used
            if left <= 0:
                self.stopped = "budget"
                return
            listed = level_candidates(self.space, size)
            playable = None
            if listed is not None:
                playable = 0
                for params in listed:
                    if self.refusal(params) is None:
                        playable += 1
                        if playable > left:
                            break
            if playable is not None and playable <= left:
                level = self.exhaustive(size, count, listed, advance)
            else:
                level = self.sampled(size, count, left, listed, advance)
            self.levels.append(level)
            if self.winner is not None:
                self.stopped = "winner"
                return
            if level["mode"] == "sampled":
                self.stopped = "sampled"
                return
        self.stopped = "space"

    def exhaustive(self, size: int, count, listed: list[dict], advance) -> dict:
        records = []
        for params in listed:
            record = self.candidate(params, None)
            records.append(record)
            if record["status"] != "refused":
                self.used += 1
                advance(1)
        finishers = sorted((r for r in records if r["status"] == "completed"), key=lambda r: (r["distance"], r["number"]))
        measured, met = [], []
        for record in finishers:
            if met and len(measured) >= self.space.budget.finalists:
                break
            figures = self.measure_fresh(record)
            measured.append(record)
            if all(f["met"] for f in figures):
                met.append(record)
        if met:
            self.winner = met[0]  # the smallest distance: finishers are measured in that order
        return self.summary(size, count, "exhaustive", records, measured, met)

    def sampled(self, size: int, count, left: int, listed: list[dict] | None, advance) -> dict:
        """A size too large for the budget left: the TPE sampler proposes changes of this size.  A
        proposal of another size, or one already tried, costs nothing: it is told to the sampler as
        failed and replaced by an untried candidate of the size drawn at random (seeded), which the
        sampler then measures as its own proposal; so every candidate counted is a new one."""
        import random

        import optuna
        from optuna.trial import TrialState

        from analysis.tune_levels import random_in_level, sampler_params, steps_of, suggest_in_level

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        sampler = optuna.samplers.TPESampler(seed=self.seed, n_startup_trials=min(10, max(3, left // 3)))
        study = optuna.create_study(direction="minimize", sampler=sampler)
        rng = random.Random(f"balance tune {self.seed} size {size}")
        untried = list(listed) if listed is not None else None
        if untried is not None:
            rng.shuffle(untried)
        pools: list[list[float]] = [[] for _ in self.rungs]
        records, seen = [], set()

        def replacement() -> dict | None:
            while untried:
                params = untried.pop()
                if _key(params) not in seen:
                    return params
            if untried is not None:
                return None  # every candidate of the size was proposed
            for _ in range(SAMPLE_TRIES):
                params = random_in_level(rng, self.space, size)
                if params is None or _key(params) not in seen:
                    return params
            return None

        tried = asked = 0
        while tried < left:
            asked += 1
            trial = study.ask()
            params = suggest_in_level(trial, self.space)
            if steps_of(params, self.space) != size or _key(params) in seen:
                study.tell(trial, state=TrialState.FAIL)
                params = replacement()
                if params is None:
                    break
                study.enqueue_trial(sampler_params(params, self.space))
                trial = study.ask()
                params = suggest_in_level(trial, self.space)
            seen.add(_key(params))
            record = self.candidate(params, pools)
            records.append(record)
            _tell(study, trial, record)
            if record["status"] != "refused":
                tried += 1
                self.used += 1
                advance(1)
        finishers = sorted((r for r in records if r["status"] == "completed"), key=_order)
        measured = finishers[:self.space.budget.finalists]
        met = [r for r in measured if all(f["met"] for f in self.measure_fresh(r))]
        if met:
            self.winner = min(met, key=lambda r: (r["distance"], self.score(r), r["number"]))
        return self.summary(size, count, "sampled", records, measured, met, proposals=asked)

    def score(self, record: dict) -> float:
        return score_of(self.fresh[record["number"]], self.space, record["size"], record["distance"])

    def summary(self, size, count, mode, records, measured, met, proposals=None) -> dict:
        """One size: how many candidates it has, how many were tried, and what became of them."""
        def n(status):
            return sum(1 for r in records if r["status"] == status)

        level = {"size": size, "mode": mode, "count": count if count != math.inf else None,
                 "tried": sum(1 for r in records if r["status"] != "refused"), "refused": n("refused"),
                 "ruled_out_racing": n("excluded"), "dropped": n("dropped"),
                 "finished": n("completed"), "measured_fresh": len(measured),
                 "failed_fresh": len(measured) - len(met), "met": len(met),
                 "numbers": [r["number"] for r in records]}
        level["settled"] = mode == "exhaustive" and not met  # every candidate ruled out or refused
        if proposals is not None:
            level["proposals"] = proposals
        return level


SAMPLE_TRIES = 50  # random draws for a replacement in a size too large to list


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
    distinct = sum(1 for r in records if r["status"] in ("completed", "dropped", "excluded") and r["settings"])
    return (distinct + 1) * games_per_measure(space, games)


def evaluate(number, params, space, measurer, rungs, pools, records, keep, seed, final_games=None,
             exhaustive: bool = False) -> dict:
    """Race one candidate up the rungs (or find it is a repeat, or refused by the rules).  It stops
    when a target's 95% interval lies wholly outside the target (``excluded``: ruled out); in a
    sampled size (``exhaustive`` false) also when its score is not among the best 1/KEEP at the
    rung (``dropped``); otherwise it finishes the last rung (``completed``)."""
    from analysis.tune_levels import steps_of

    settings, changed, distance = settings_of(params, space)
    steps = steps_of(params, space)
    record = {"number": number, "params": params, "settings": settings, "changed": changed, "size": steps,
              "distance": distance, "status": None, "rungs": [], "games_played": 0}
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
        score = score_of(figures, space, steps, distance, math.sqrt(games / final_games) if final_games else 1.0)
        outside = ruled_out(figures, space)
        record["rungs"].append({"games": games, "score": score, "targets": figures, "ruled_out": outside})
        if not exhaustive:
            pools[rung].append(score)
        if outside:
            record["status"] = "excluded"
            break
        if not exhaustive and rung < len(rungs) - 1 and not promoted(score, pools[rung], keep):
            record["status"] = "dropped"
            break
    else:
        record["status"] = "completed"
    record["games_played"] = measurer.games_played - before
    return record


def _tell(study, trial, record: dict) -> None:
    """Tell the sampler how the candidate did: its score at the last rung it reached (a candidate
    that stopped early is told as pruned, with its scores at each rung reported)."""
    from optuna.trial import TrialState

    if record["status"] == "refused":
        return study.tell(trial, REFUSED_SCORE)
    for rung, entry in enumerate(record["rungs"]):
        trial.report(entry["score"], step=rung)
    if record["status"] in ("dropped", "excluded"):
        study.tell(trial, state=TrialState.PRUNED)
    else:
        study.tell(trial, record["rungs"][-1]["score"])


# --------------------------------------------------------------------------------------------
# the document
# --------------------------------------------------------------------------------------------

def _order(record: dict) -> tuple:
    last = record["rungs"][-1]["score"] if record["rungs"] else math.inf
    return (last, record["size"], record["distance"], record["number"])


def finish(space: Space, measurer: Measurer, search: Search, seed: int, finals: int, count: int,
           rungs: list[int], racing: bool) -> dict:
    """The document: every candidate ranked (those measured on fresh games first), the winner,
    and what each size tried became."""
    from simcore.version import __version__

    records = search.records
    winner_number = search.winner["number"] if search.winner else None
    fresh_rows = []
    for record in records:
        if record["number"] in search.fresh:
            figures = search.fresh[record["number"]]
            fresh_rows.append(_row(record, "final", finals, figures, score_of(figures, space, record["size"],
                                                                               record["distance"])))
    fresh_rows.sort(key=lambda r: (r["number"] != winner_number, not r["met"], r["size"],
                                   r["distance"] if r["met"] else 0, r["score"], r["number"]))
    others = [r for r in records if r["number"] not in search.fresh and r["status"] in ("completed", "dropped",
                                                                                       "excluded")]
    others.sort(key=lambda r: (-len(r["rungs"]),) + _order(r))
    rows = fresh_rows + [_row(r, "racing", r["rungs"][-1]["games"], r["rungs"][-1]["targets"],
                              r["rungs"][-1]["score"]) for r in others]
    rows += [_row(r, "racing", None, None, None) for r in records if r["status"] in ("repeat", "refused")]
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    winner = next((row for row in rows if row["number"] == winner_number), None)
    best = fresh_rows[0] if fresh_rows else None
    if winner is None and fresh_rows:
        best = min(fresh_rows, key=lambda r: (r["score"], r["number"]))
    base = measurer.base
    original = search.original
    return {
        "game": space.game, "title": measurer.game.title, "players": space.players, "space": str(space.path),
        "space_name": space.name, "description": space.description, "version": __version__,
        "from": {"name": base.name, "source": _shown(base.source), "settings": dict(base.settings)},
        "seed": seed, "final_seed": search.fresh_seed, "racing": racing, "confidence": 0.95,
        "budget": {"candidates": count, "rungs": rungs, "keep": space.budget.keep,
                   "finalists": space.budget.finalists, "final_games": finals, "precision": space.budget.precision},
        "changes": [{"key": c.key, "kind": c.kind, "space": c.describe(), "original": c.original}
                    for c in space.changes],
        "targets": [{"figure": t.figure, "label": t.label, "tier": t.tier, "field": t.field, "unit": t.unit,
                     "cards": list(t.cards), "low": t.low, "high": t.high, "band": t.band} for t in space.targets],
        "original": {"targets": original, "met": all(f["met"] for f in original), "games": finals},
        "distinct": search.used,
        "search": {"levels": search.levels, "used": search.used, "stopped": search.stopped,
                   "sizes": _level_totals(space)},
        "candidates": rows,
        "winner": winner,
        "best": best,
    }


def _level_totals(space: Space) -> list:
    from analysis.tune_levels import level_counts

    return [None if n == math.inf else n for n in level_counts(space)]


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
            "size": record["size"], "distance": record["distance"], "status": record["status"], "stage": stage,
            "games": games, "rungs_reached": len(record["rungs"]), "score": score, "targets": figures,
            "met": None if figures is None else all(f["met"] for f in figures),
            "note": record.get("reason") or (f"repeat of candidate {record['repeat_of']}"
                                             if record["status"] == "repeat" else "")}


def winner_file(space: Space, document: dict) -> str:
    """The winner as a variant file: the rules tuned from with the winner's changes."""
    winner = document["winner"]
    settings = {**document["from"]["settings"], **winner["settings"]}
    changes = change_text(winner["settings"], document) or "no change"
    # a rules file's [game] keys cannot sit beside `game = "my-game.toml"`: such a variant names
    # its game with rules_file (simcore/games/trick/game.py)
    header = "rules_file" if any(key.startswith("game.") for key in settings) else "game"
    lines = [f"{header} = {toml_value(space.game)}",
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
