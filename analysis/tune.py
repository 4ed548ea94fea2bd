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

from analysis.tune_measure import Measurer, settings_key as _key
from analysis.tune_report import change_text, format_text, toml_value, verdict, write  # noqa: F401 (the command's)
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
