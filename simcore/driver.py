"""The one play loop: games in chunks, chunks in parallel (threads, or the workers of a Dask
cluster), each chunk's rows written where it was played, the finished run renamed into place.

Memory does not grow with the number of games, and no stage grows with the run: each of the
run's threads plays a chunk and compresses and writes its rows to a part file (``simcore.parts``)
itself, side by side with the others (the compiled loop and the writer let go of the
interpreter), as does each task thread of a Dask worker; a run to a file is the folder of those
parts, renamed into place when the last one is written: it appears complete or not at all.

The parts live in a folder beside the target named after it, ``.<name>.parts/``, with a
manifest of the run's configuration.  Each part is renamed into place only when complete, so
the part files present are a durable record of the chunks done: after Ctrl-C, SIGTERM or even
SIGKILL, ``--resume`` checks the manifest against the command (another configuration is
refused) and plays only the missing ranges.  Game ``i``'s randomness depends only on ``(seed,
i)``, so the finished run has the same rows as an uninterrupted one.  A new run (no
``--resume``) removes any parts it finds.  While a run writes a target it holds the target's
lock (``simcore.outputs``).
"""
from __future__ import annotations

import json
import os
import signal
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import polars as pl

from simcore.cache import FINGERPRINT
from simcore.cluster import LocalExecutor, current_executor
from simcore.digests import file_digest, setup_digest
from simcore.errors import BalanceError, RunInterrupted
from simcore.intervals import wilson_interval
from simcore.outputs import claim_output, make_parents, write_failure
from simcore.parts import (
    META_KEY,
    Parts,
    chunk_wins,
    is_run_folder,
    parts_folder,
    run_key_values,
    scan_run,
    split,
    write_part,
)
from simcore.progress import Progress
from simcore.registry import DUPLICATE, MAX_SEED, check_seed
from simcore.version import SCHEMA_VERSION, __version__

DEFAULT_CHUNK = 1 << 18  # 262,144 games: ~10 MB of rows, long enough to keep both cores busy
WRITERS = 2  # threads writing the rows a Dask worker sent back (one that does not see the run's folder)


@dataclass
class RunResult:
    meta: dict
    seconds: float
    frame: pl.DataFrame | None = None  # rows, when no output file was asked for
    path: Path | None = None
    extra: dict = field(default_factory=dict)


def set_threads(threads: int | None) -> int:
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        threads = limit
    if not 1 <= threads <= limit:
        raise BalanceError(f"--threads must be 1..{limit} on this machine, not {threads}")
    numba.set_num_threads(threads)
    return threads


def check_output_path(out: Path) -> None:
    """Refuse an output path we could not write, before any simulation time is spent (its
    parent folders are made).  A run is a folder (``simcore.parts``): one that exists may be
    replaced, another folder may not."""
    out = Path(out)
    if out.is_dir() and not is_run_folder(out):
        raise BalanceError(f"output path {out} is a folder that is not a balance run")
    if out.exists() and not (out.is_file() or out.is_dir()):
        raise BalanceError(f"output path {out} exists and is not a regular file")
    make_parents(out)
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise BalanceError(f"cannot write to output folder {out.parent}: permission denied")


# --------------------------------------------------------------------------------------------
# what a run file says about what made it
# --------------------------------------------------------------------------------------------

def run_config(game, setup, lineup, variant, seed: int, games: int, precision: float | None = None,
               start: int = 0) -> dict:
    """Everything that decides a run's rows: a resumed run must match it exactly (``start``, the
    first game index, only where it is not 0: a run from game 0 keeps the configuration it had)."""
    config = {"schema": SCHEMA_VERSION, "version": __version__, "engine": FINGERPRINT, "game": game.name,
              "players": setup.players, "seed": seed, "games": games, "precision": precision,
              "strategies": list(lineup.names), "variant": variant.to_dict(), "rules": setup_digest(setup),
              "plugins": [{"file": Path(p).name, "sha256": file_digest(p)} for p in lineup.plugins]}
    config.update({"start": start} if start else {})
    return config


def run_metadata(game, setup, lineup, variant, seed: int, games: int, config: dict | None = None) -> dict:
    config = config or run_config(game, setup, lineup, variant, seed, games)
    return {
        "schema": SCHEMA_VERSION,
        "game": game.name, "title": game.title, "players": setup.players, "seed": seed, "games": games,
        "strategies": list(lineup.names), "plugins": list(lineup.plugins), "variant": variant.to_dict(),
        "assumed": list(game.assumed), "version": __version__,
        # the engine's and plug-ins' sources and the rules in force, hashed: what made these figures
        "engine_hash": FINGERPRINT, "rules_hash": config["rules"],
        "plugin_hashes": {Path(p).name: file_digest(p) for p in lineup.plugins},
        "config": config,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **game.metadata(setup),
        # duplicate deals' figures are judged by deal (analysis/duplicate.py)
        **({"design": "duplicate"} if config.get("start", 0) >= DUPLICATE else {}),
    }


PRECISION_FIRST = 10_000  # the first --precision checkpoint; later ones are about 25% apart


def precision_checkpoints(cap: int) -> list[int]:
    """Game counts at which ``--precision`` checks the intervals: 10,000, then each about 25%
    more (rounded to 10,000), up to ``cap``.  They depend on nothing else, so a precision run
    stops after the same games for any chunk size or thread count."""
    points, n = [], PRECISION_FIRST
    while n < cap:
        points.append(n)
        n += max(PRECISION_FIRST, round(n / 4 / PRECISION_FIRST) * PRECISION_FIRST)
    return points + [cap]


def widest_half_width(wins: list[float], games: int) -> float:
    """The largest half-width of the seats' 95% Wilson intervals of win share."""
    return max((high - low) / 2 for low, high in (wilson_interval(w, games) for w in wins))


def _sum_tallies(tallies: list[dict]) -> dict | None:
    tallies = [t for t in tallies if t]
    if not tallies:
        return None
    return {key: np.sum([np.asarray(t[key], dtype=np.int64) for t in tallies], axis=0).tolist()
            for key in tallies[0]}


def existing_result(out: Path, config: dict) -> dict | None:
    """The metadata of a finished run at ``out`` made by the same configuration (``--resume`` on
    a finished run: nothing to do), None if there is none; another run is refused."""
    if not (out.is_file() or is_run_folder(out)):
        return None
    try:
        meta = json.loads(run_key_values(out)[META_KEY])
    except (OSError, KeyError, ValueError, pl.exceptions.PolarsError):
        meta = None
    if not isinstance(meta, dict) or meta.get("config") != config:
        raise BalanceError(f"--resume: {out} is finished and holds another run (or not a run of this version); "
                           "add --force instead to replace it")
    return meta


# --------------------------------------------------------------------------------------------
# the play loop
# --------------------------------------------------------------------------------------------

def run_games(game, setup, lineup, variant, seed: int, games: int, *, chunk_size: int = DEFAULT_CHUNK,
              threads: int | None = None, out: str | Path | None = None, progress: bool = True,
              keep_frame: bool | None = None, precision: float | None = None, force: bool = False,
              resume: bool = False, executor=None, announce: bool | None = None,
              checkpoints: list[int] | None = None, stop=None, reduce=None, start: int = 0) -> RunResult:
    """Simulate games 0..games-1 of run ``seed``; write them to the run folder ``out``
    (``simcore.parts``) or return them.

    ``start`` (without ``precision``) plays games start..start+games-1 instead, the rows they have
    in any run: a run grown in steps (the studio), or duplicate deals (``start=DUPLICATE``, then
    ``meta["design"]`` is "duplicate"); ``meta["config"]["start"]`` records it; ``checkpoints``
    count from it.

    With ``precision`` (a fraction: 0.005 = 0.5 percentage points) ``games`` is a cap: the run
    stops at the first checkpoint (``precision_checkpoints``) where every seat's 95% interval
    of win share has a half-width of at most ``precision``; ``meta["precision"]`` says how it
    went.  An ``out`` that exists is refused unless ``force`` (replace it) or ``resume``
    (finish an interrupted run of the same configuration: only the missing games are played).
    ``executor`` plays the chunks (default: the cluster of the enclosing
    ``simcore.cluster.connect``, else this process).  ``announce`` (default: ``progress``) says
    on stderr when the play loop is compiled for the first time on this machine.

    ``checkpoints`` (increasing game counts ending at ``games``) with ``stop(wins, games)`` is the
    same machinery for a caller's own stopping rule: after each checkpoint, ``stop`` gets every
    seat's wins so far and the games played, and True ends the run there (``meta["games"]`` says
    how many).  The rule's validity under repeated looks is the caller's to keep
    (analysis/skill.py judges with Bonferroni intervals).

    ``reduce`` (without ``out``: ``simulate`` without ``--out``) keeps no rows at all: each
    chunk's columns become ``reduce(columns)`` where the chunk was played (by the thread that
    played it, or the Dask worker), the rows are dropped, and ``extra["reduced"]`` is
    ``reduce.merge`` of every chunk's (a merge must not depend on the order of its parts:
    analysis.summary.ChunkTotals, exact integer totals)."""
    if precision is not None and not 0 < precision < 0.5:
        raise BalanceError(f"--precision must be between 0 and 0.5 (0.005 = 0.5 percentage points), not {precision}")
    if games < 1:
        raise BalanceError(f"--games must be at least 1, not {games}")
    if chunk_size < 1:
        raise BalanceError(f"--chunk-size must be at least 1, not {chunk_size}")
    if checkpoints is not None and (precision is not None or not checkpoints or checkpoints[-1] != games
                                    or sorted(set(checkpoints)) != list(checkpoints) or checkpoints[0] < 1):
        raise ValueError(f"checkpoints must rise from 1 to games ({games}), without precision: {checkpoints}")
    check_seed(seed)
    if games - 1 > MAX_SEED:
        raise BalanceError(f"--games must be at most 2**63, not {games}")
    executor = executor or current_executor() or LocalExecutor()
    if isinstance(executor, LocalExecutor):
        set_threads(threads)
    elif threads is not None and threads < 1:
        raise BalanceError(f"--threads must be at least 1, not {threads}")
    if resume and out is None:
        raise BalanceError("--resume needs --out: the unfinished run is found beside its output file")
    if reduce is not None and out is not None:
        raise ValueError("reduce is for a run without out: a run to a file keeps its rows")
    if start and (precision is not None or start < 0 or start + games - 1 > MAX_SEED):
        raise ValueError(f"start ({start}) is for a run without precision, inside 0..2**63")
    if start >= DUPLICATE and not game.duplicate_deals:
        raise BalanceError(f"{game.name} cannot play duplicate deals: {game.duplicate_deals_refused}")
    # a link is written through (the file it points to is replaced, not the link)
    out = Path(os.path.realpath(out)) if out is not None else None
    keep_frame = out is None if keep_frame is None else keep_frame
    game.check_lineup(setup, lineup)
    if lineup.plugins:  # a plug-in that writes to the game's state is refused before anything is written
        from simcore.plugins.writes import check_writes

        compile_kernels(game, setup, lineup, seed, announce=progress if announce is None else announce)
        game.take_tallies()
        check_writes(game, setup, lineup, seed)
    config = run_config(game, setup, lineup, variant, seed, games, precision, start)
    meta = run_metadata(game, setup, lineup, variant, seed, games, config)

    lock = claim_output(out, force=force, resume=resume, is_run=is_run_folder) if out is not None else None
    previous = _terminate_as_interrupt()
    parts = None
    try:
        if resume and not parts_folder(out).exists():  # an unfinished run wins over an older finished file
            finished = existing_result(out, config)
            if finished is not None:  # nothing is missing
                return RunResult(meta=finished, seconds=0.0, path=out,
                                 frame=scan_run(out).collect() if keep_frame else None, extra={"played": 0})
        if out is not None:
            parts = Parts(out)
            parts.open(config, resume)
        if isinstance(executor, LocalExecutor):  # compile or load from cache now, so the clock sees only games
            compile_kernels(game, setup, lineup, seed, announce=progress if announce is None else announce)
            game.take_tallies()
            _check_interrupt()
        result = _play(game, setup, lineup, seed, games, chunk_size, threads, progress, keep_frame and reduce is None,
                       precision, executor, parts, meta, checkpoints, stop, reduce, start)
        if parts is not None:
            parts.publish(result.extra.pop("included"), result.meta)
            result.path = out
            if keep_frame:
                result.frame = scan_run(out).collect()
        return result
    except KeyboardInterrupt:
        if parts is not None and parts.games():
            raise RunInterrupted(parts.kept()) from None
        raise
    finally:
        if parts is not None and parts.mine and parts.folder.exists() and not parts.done:
            parts.remove()  # nothing worth keeping
        if lock is not None:
            lock.release()
        _restore_handlers(previous)


MERGE_EVERY = 32  # chunk reductions held before they are merged: memory stays flat, merging stays rare


def _play(game, setup, lineup, seed, games, chunk_size, threads, progress, keep_frame, precision, executor, parts,
          meta, checkpoints=None, stop_rule=None, reduce=None, first=0) -> RunResult:
    from concurrent.futures import ThreadPoolExecutor

    stops = precision_checkpoints(games) if precision is not None else checkpoints or [games]
    stops = [first + stop for stop in stops]
    figures: dict[int, tuple[int, dict]] = dict(parts.done) if parts is not None else {}
    frames: dict[int, pl.DataFrame] = {}
    reduced: list = []  # chunk reductions not merged yet (with reduce)
    started = time.perf_counter()
    done, played = first, 0
    writing: dict = {}  # future -> (start, n): rows sent back by a Dask worker, being written here

    def record(start: int, n: int, info: dict) -> None:
        if reduce is not None:
            reduced.append(info.pop("reduced"))
            if len(reduced) >= MERGE_EVERY:
                reduced[:] = [reduce.merge(reduced)]
        elif parts is not None:
            parts.record(start, n, info)
        figures[start] = (n, info)

    def finished(chunk: tuple) -> None:
        """A chunk the executor finished after the run was stopped: kept, if it was written."""
        start, n, _, _, info = chunk
        if info is not None:
            record(start, n, info)

    def chunks_of(stream):
        """The executor's chunks; a part that failed to be written is said as the run's failure."""
        try:
            yield from stream
        except OSError as exc:
            if parts is None:  # a reduction, not a write, failed
                raise
            raise write_failure(parts.out, exc, parts.kept()) from None

    def written(future) -> None:
        """A part written here from the rows a Dask worker sent back (only with ``parts``)."""
        start, n = writing.pop(future)
        try:
            info = future.result()
        except OSError as exc:
            raise write_failure(parts.out, exc, parts.kept()) from None
        record(start, n, info)

    def drain(limit: int = 0) -> None:
        """Wait until at most ``limit`` chunks are being written, oldest first."""
        while len(writing) > limit:
            written(next(iter(writing)))

    pool = ThreadPoolExecutor(WRITERS, thread_name_prefix="balance-writer") if parts is not None else None
    stream = None
    try:
        with Progress(progress, games, f"{game.name} {setup.players}p") as advance:
            advance(sum(n for s, (n, _) in figures.items() if s < stops[-1]))
            for stop in stops:
                # chunks never cross a checkpoint
                todo = parts.missing(done, stop, chunk_size) if parts is not None else split(done, stop, chunk_size)
                stream = executor.play(game, setup, lineup, seed, todo, threads,
                                       parts.folder if parts is not None else None, reduce,
                                       leftover=finished)
                for start, n, columns, tallies, info in chunks_of(stream):
                    if info is not None:  # the thread or the Dask worker that played it wrote it (or reduced it)
                        record(start, n, info)
                    elif parts is not None:  # a Dask worker that does not see the run's folder sent the rows
                        drain(WRITERS)
                        writing[pool.submit(write_part, parts.folder, start, n, columns, tallies)] = (start, n)
                    else:
                        figures[start] = (n, {"wins": chunk_wins(columns), "tallies": tallies})
                        if keep_frame:
                            frames[start] = pl.DataFrame(columns)
                    del columns
                    played += n
                    advance(n)
                    _check_interrupt()
                drain()
                done = stop
                if precision is not None and widest_half_width(_wins(figures, stop, setup.players), stop) <= precision:
                    break
                if stop_rule is not None and stop_rule(_wins(figures, stop, setup.players), stop - first):
                    break
    finally:
        if stream is not None:  # the chunks being played are finished (and kept) before anything else
            stream.close()
        if pool is not None:  # an interrupted run keeps what its writers finish
            pool.shutdown(wait=True)
            for future in list(writing):
                if not future.cancelled() and future.exception() is None:
                    parts.record(*writing[future], future.result())
    seconds = time.perf_counter() - started
    included = sorted(s for s in figures if s < done)
    if stop_rule is not None:
        meta["games"] = done - first
    if precision is not None:
        widest = widest_half_width(_wins(figures, done, setup.players), done)
        meta["games"] = done
        meta["precision"] = {"target": precision, "reached": widest <= precision, "widest_half_width": widest,
                             "cap": games}
    meta["seconds"] = round(seconds, 3)
    meta.update(game.finish_run(setup, _sum_tallies([figures[s][1]["tallies"] for s in included])))
    # games played by this call (fewer than the run's when it finished an interrupted one)
    result = RunResult(meta=meta, seconds=seconds, extra={"included": included, "played": played})
    if reduce is not None:  # every chunk played is included: a run without parts stops only at a checkpoint
        result.extra["reduced"] = reduce.merge(reduced) if reduced else None
    if frames:
        ordered = [frames[s] for s in included]
        result.frame = pl.concat(ordered) if len(ordered) > 1 else ordered[0]
    return result


def _wins(figures: dict, stop: int, players: int) -> list[float]:
    wins = [0.0] * players
    for start, (n, info) in figures.items():
        if start < stop:
            wins = [w + x for w, x in zip(wins, info["wins"])]
    return wins


def _compiled_marker(lineup) -> Path | None:
    """A file in the compile cache that says this play loop (the game's, or a plug-in build's)
    has been compiled there once; None where the cache folder is unknown."""
    import hashlib

    from simcore.cache import group_cache_dir

    source = getattr(lineup.kernels, "__file__", None)
    if not source:
        return None
    # the game's own kernels are cached in their group's folder (a changed engine gets a new one,
    # so the marker goes with it), a random build's beside its copy (simcore/builds.py) and a
    # plug-in build's in NUMBA_CACHE_DIR
    stock = not getattr(lineup, "plugins", ())
    folder = (getattr(lineup.kernels, "__balance_cache__", None) or (group_cache_dir(source) if stock else None)
              or os.environ.get("NUMBA_CACHE_DIR"))
    if not folder:
        return None
    return Path(folder) / f".compiled-{hashlib.sha1(str(source).encode()).hexdigest()[:12]}"


def compile_kernels(game, setup, lineup, seed: int, announce: bool) -> None:
    """Compile the play loop (or load it from the cache) before the clock starts, so the clock
    sees only games.  The first compile takes a while: with ``announce`` it says so on stderr."""
    import sys

    lineup = game.play_loop(setup, lineup) if hasattr(game, "play_loop") else lineup
    marker = _compiled_marker(lineup)
    fresh = announce and marker is not None and not marker.exists()
    plugins = [Path(p).name for p in getattr(lineup, "plugins", ())]
    what = f"{game.title} kernels" + (f" with plug-in {', '.join(plugins)}" if plugins else "")
    if fresh:
        from simcore.measured import first_compile, machine_phrase

        name = str(getattr(game, "name", ""))
        build = "random" if getattr(lineup.kernels, "__balance_random__", False) else "stock"
        seconds = None if plugins or not name else first_compile(name, build)
        # the newest kept measurement of this game's first command (benchmarks/, BENCHMARKS.md)
        how_long = f"about {seconds:.0f} s on {machine_phrase(name)}" if seconds else "a minute or two"
        # once per engine (and hooks module, and plug-in): an edit or an upgrade compiles afresh
        print(f"compiling {what}, once until their sources change ({how_long})...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    game.run_chunk(setup, lineup, seed, 0, 0)
    if marker is not None and not marker.exists():
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError:
            pass  # a read-only cache: the announcement just repeats
    if fresh:
        print(f"compiled {what} in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)


def compile_here(game, setup, lineup, seed: int, announce: bool) -> None:
    """``compile_kernels`` where this process will play the games: not under a Dask cluster
    (``simcore.cluster.connect``), whose workers compile their own.  A caller that times its
    games (a skill tier's budget in seconds) calls it before starting its clock."""
    if current_executor() is None:
        compile_kernels(game, setup, lineup, seed, announce)


_interrupted = False  # a Ctrl-C or SIGTERM arrived during this run (see _terminate_as_interrupt)


def _terminate_as_interrupt():
    """Make SIGTERM (a `timeout`, a killed job) unwind like Ctrl-C, so the staging folder is
    removed; returns the previous SIGTERM and SIGINT handlers (None off the main thread).

    The signal is also remembered, and ``_check_interrupt`` raises it again after the compile and
    after every chunk: a KeyboardInterrupt raised while Numba is inside one of llvmlite's ctypes
    callbacks (compiling, or loading a kernel from the cache) is printed as "Exception ignored"
    and dropped, and the run would otherwise play on to its last game."""
    import threading

    global _interrupted
    if threading.current_thread() is not threading.main_thread():
        return None
    _interrupted = False

    def interrupt(signum, frame):
        global _interrupted
        _interrupted = True
        raise KeyboardInterrupt

    previous_int = signal.getsignal(signal.SIGINT)
    if previous_int is signal.default_int_handler:  # leave a handler someone else installed alone
        signal.signal(signal.SIGINT, interrupt)
    return signal.signal(signal.SIGTERM, interrupt), previous_int


def _restore_handlers(previous) -> None:
    if previous is not None:
        signal.signal(signal.SIGTERM, previous[0])
        signal.signal(signal.SIGINT, previous[1])


def _check_interrupt() -> None:
    """Raise the Ctrl-C or SIGTERM that arrived but was swallowed (``_terminate_as_interrupt``)."""
    if _interrupted:
        raise KeyboardInterrupt
