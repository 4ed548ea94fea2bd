"""Chunked parallel runs: games in chunks, each chunk in parallel, rows streamed to Parquet.

Memory does not grow with the number of games: a chunk's rows go to a part
file as soon as they exist, and the parts are streamed into the final file at
the end (Polars' streaming sink), which then replaces the target in one rename.
Nothing is left behind on failure or Ctrl-C: the parts and the unfinished file
live in a temporary folder beside the target that is always removed.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import polars as pl

from simcore.version import __version__
from simcore.errors import BalanceError
from simcore.game import MAX_SEED, check_seed
from simcore.intervals import wilson_interval

DEFAULT_CHUNK = 1 << 18  # 262,144 games: ~10 MB of rows, long enough to keep both cores busy


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
    """Refuse an output path we could not write, before any simulation time is spent."""
    parent = out.parent if str(out.parent) else Path(".")
    if out.exists() and not out.is_file() and not out.is_dir():
        raise BalanceError(f"output path {out} exists and is not a regular file")
    if out.is_dir():
        raise BalanceError(f"output path {out} is a directory")
    if not parent.exists():
        raise BalanceError(f"output folder {parent} does not exist")
    if not parent.is_dir():
        raise BalanceError(f"output folder {parent} is not a folder")
    if not os.access(parent, os.W_OK):
        raise BalanceError(f"cannot write to output folder {parent}")
    try:  # the staging folder goes beside the target: prove we can make one
        tempfile.TemporaryDirectory(prefix=f".{out.name}.", dir=parent).cleanup()
    except OSError as exc:
        raise BalanceError(f"cannot write to output folder {parent}: {exc.strerror}") from None


def run_metadata(game, setup, lineup, variant, seed: int, games: int) -> dict:
    return {
        "game": game.name, "title": game.title, "players": setup.players, "seed": seed, "games": games,
        "strategies": list(lineup.names), "plugins": list(lineup.plugins), "variant": variant.to_dict(),
        "assumed": list(game.assumed), "version": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **game.metadata(setup),
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


def run_games(game, setup, lineup, variant, seed: int, games: int, *, chunk_size: int = DEFAULT_CHUNK,
              threads: int | None = None, out: str | Path | None = None, progress: bool = True,
              keep_frame: bool | None = None, precision: float | None = None,
              announce: bool | None = None) -> RunResult:
    """Simulate games 0..games-1 of run ``seed``; write them to ``out`` or return them.

    With ``precision`` (a fraction: 0.005 = 0.5 percentage points) ``games`` is a cap: the run
    stops at the first checkpoint (``precision_checkpoints``) where every seat's 95% interval
    of win share has a half-width of at most ``precision``; ``meta["precision"]`` says how it
    went.  ``announce`` (default: ``progress``) says on stderr when the play loop is compiled for
    the first time on this machine."""
    if precision is not None and not 0 < precision < 0.5:
        raise BalanceError(f"--precision must be between 0 and 0.5 (0.005 = 0.5 percentage points), not {precision}")
    if games < 1:
        raise BalanceError(f"--games must be at least 1, not {games}")
    if chunk_size < 1:
        raise BalanceError(f"--chunk-size must be at least 1, not {chunk_size}")
    check_seed(seed)
    if games - 1 > MAX_SEED:
        raise BalanceError(f"--games must be at most 2**63, not {games}")
    set_threads(threads)
    # a link is written through (the file it points to is replaced, not the link)
    out = Path(os.path.realpath(out)) if out is not None else None
    if out is not None:
        check_output_path(out)
    keep_frame = out is None if keep_frame is None else keep_frame
    meta = run_metadata(game, setup, lineup, variant, seed, games)

    game.start_run(setup)
    compile_kernels(game, setup, lineup, seed, announce=progress if announce is None else announce)
    tmpdir = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent)) if out is not None else None
    frames = []
    started = time.perf_counter()
    previous = _terminate_as_interrupt()
    try:
        stops = precision_checkpoints(games) if precision is not None else [games]
        wins = [0.0] * setup.players
        done = 0
        with _progress(progress, games, f"{game.name} {setup.players}p") as advance:
            for stop in stops:
                while done < stop:  # chunks never cross a checkpoint
                    n = min(chunk_size, stop - done)
                    frame = pl.DataFrame(game.run_chunk(setup, lineup, seed, done, n))
                    if tmpdir is not None:
                        # fast; the final file is zstd
                        frame.write_parquet(tmpdir / f"part-{done:019d}.parquet", compression="lz4",
                                            statistics=False)
                    if keep_frame:
                        frames.append(frame)
                    if precision is not None:
                        wins = [w + float(frame[f"share_{s}"].sum()) for s, w in enumerate(wins)]
                    done += n
                    advance(n)
                if precision is not None and widest_half_width(wins, done) <= precision:
                    break
        if precision is not None:
            widest = widest_half_width(wins, done)
            meta["games"] = done
            meta["precision"] = {"target": precision, "reached": widest <= precision, "widest_half_width": widest,
                                 "cap": games}
        seconds = time.perf_counter() - started
        meta["seconds"] = round(seconds, 3)
        meta.update(game.finish_run(setup))
        result = RunResult(meta=meta, seconds=seconds)
        if keep_frame:
            result.frame = pl.concat(frames) if len(frames) > 1 else frames[0]
        if tmpdir is not None:
            staged = tmpdir / "result.parquet"
            pl.scan_parquet(tmpdir / "part-*.parquet").sink_parquet(staged, metadata={"balance": json.dumps(meta)})
            os.replace(staged, out)
            result.path = out
        return result
    finally:
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _compiled_marker(lineup) -> Path | None:
    """A file in the compile cache that says this play loop (the game's, or a plug-in build's)
    has been compiled there once; None where the cache folder is unknown."""
    import hashlib

    folder = os.environ.get("NUMBA_CACHE_DIR")
    source = getattr(lineup.kernels, "__file__", None)
    if not folder or not source:
        return None
    return Path(folder) / f".compiled-{hashlib.sha1(str(source).encode()).hexdigest()[:12]}"


def compile_kernels(game, setup, lineup, seed: int, announce: bool) -> None:
    """Compile the play loop (or load it from the cache) before the clock starts, so the clock
    sees only games.  The first compile takes a while: with ``announce`` it says so on stderr."""
    import sys

    marker = _compiled_marker(lineup)
    fresh = announce and marker is not None and not marker.exists()
    plugins = [Path(p).name for p in getattr(lineup, "plugins", ())]
    what = f"{game.title} kernels" + (f" with plug-in {', '.join(plugins)}" if plugins else "")
    if fresh:
        print(f"compiling {what}, first run only (a minute or two)...", file=sys.stderr, flush=True)
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


def _terminate_as_interrupt():
    """Make SIGTERM (a `timeout`, a killed job) unwind like Ctrl-C, so the staging folder
    is removed; returns the previous handler (None off the main thread)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, interrupt)


# seconds between two progress lines when stderr is not a terminal (a pipe, a log file)
PROGRESS_EVERY = float(os.environ.get("BALANCE_PROGRESS_SECONDS") or 10.0)


class _progress:
    """Progress on stderr: a rich bar on a terminal (done, rate, time left); in a pipe or a log,
    one plain line every PROGRESS_EVERY seconds (and a last one when any was written); nothing
    when disabled.  ``advance(n)`` counts n more of ``unit`` done."""

    def __init__(self, enabled: bool, total: int, label: str, unit: str = "games"):
        import sys

        self.enabled, self.total, self.label, self.unit = enabled, total, label, unit
        self.terminal = enabled and sys.stderr.isatty()

    def __enter__(self):
        self.t0 = time.perf_counter()
        self.done = 0
        if not self.enabled:
            return lambda n: None
        if not self.terminal:
            return self._lines()
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[rate]}"),
                            TimeRemainingColumn(), console=Console(stderr=True), transient=False)
        self.bar.__enter__()
        self.task = self.bar.add_task(self.label, total=self.total, rate="")

        def advance(n):
            self.done += n
            rate = self.done / max(time.perf_counter() - self.t0, 1e-9)
            self.bar.update(self.task, advance=n, rate=f"{rate:,.0f} {self.unit}/s")

        return advance

    def _lines(self):
        import sys

        self.last = self.t0
        self.written = False

        def advance(n):
            self.done += n
            now = time.perf_counter()
            if now - self.last < PROGRESS_EVERY:
                return
            self.last, self.written = now, True
            rate = self.done / max(now - self.t0, 1e-9)
            left = (self.total - self.done) / rate if rate > 0 else float("inf")
            share = 100 * self.done / self.total if self.total else 100.0
            print(f"{self.label}: {self.done:,} of {self.total:,} {self.unit} ({share:.0f}%), {rate:,.0f} {self.unit}/s, "
                  f"about {left:,.0f} s left", file=sys.stderr, flush=True)

        return advance

    def __exit__(self, *exc):
        import sys

        if self.terminal:
            self.bar.__exit__(*exc)
        elif self.enabled and self.written and exc[0] is None:
            print(f"{self.label}: {self.done:,} {self.unit} done in {time.perf_counter() - self.t0:,.1f} s",
                  file=sys.stderr, flush=True)
        return False
