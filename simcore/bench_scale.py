"""`balance bench --scale`: flat memory, and the speed-up from threads and from Dask workers.

A run to a file is timed against the play loop alone on the same threads (``loop_seconds``), in
one process, so the ratio is fair on a noisy machine; peak memory is measured in fresh processes
at two run sizes, so a run that grows with its games shows.  Targets from the issues that set
them (``TARGET_*``); the figures are kept in benchmarks/ and BENCHMARKS.md.
"""
from __future__ import annotations

import time

import numba

from simcore.bench import machine
from simcore.driver import DEFAULT_CHUNK, set_threads
from simcore.registry import get_game

SCALE_GAME = "bird-weather"
SCALE_GAMES = (1_000_000, 100_000_000)
SCALE_SPEED_GAMES = 20_000_000
# issue 36's targets for a run to a file, against the play loop's own time on the same threads
TARGET_RATIO = 1.25
TARGET_UNKEPT_RATIO = 1.1  # a run without --out against the play loop (issue 36, item 4)
TARGET_WORKER_SPEEDUP = 1.8
TARGET_PROJECTED_SHARE = 0.8  # the run's projected 16-thread speed-up / the play loop's


def scale_child(name: str, players: int, games: int, out: str) -> None:
    """A run to a file in a process of its own; prints its play time and its peak resident
    memory (the kernel's high-water mark of this process: rows, writers, everything)."""
    import json
    import resource
    import sys

    from simcore.driver import run_games

    game = get_game(name)
    variant = game.variant()
    result = run_games(game, game.setup(players, variant), game.lineup("random", players), variant, 1, games,
                       out=out, progress=False, keep_frame=False, force=True)
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    json.dump({"seconds": result.meta["seconds"], "peak_mb": round(peak_kb / 1024, 1)}, sys.stdout)


def _memory_run(name: str, players: int, games: int, folder) -> dict:
    """Peak resident memory and times of one ``games``-game run to a file, in a fresh process."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from simcore.parts import remove_run, run_bytes

    out = Path(folder) / f"scale-{games}.parquet"
    code = f"from simcore.bench_scale import scale_child; scale_child({name!r}, {players}, {games}, {str(out)!r})"
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"the scale run of {games:,} games failed: {done.stderr[-500:]}")
    child = json.loads(done.stdout)
    size = run_bytes(out)
    remove_run(out)
    return {"games": games, "wall_seconds": round(wall, 1), "play_seconds": child["seconds"],
            "peak_mb": child["peak_mb"], "file_mb": round(size / 1e6, 1)}


def loop_seconds(game, setup, lineup, games: int, threads: int) -> tuple[float, float]:
    """Wall and CPU seconds of the play loop alone (the compiled run_chunk over the run's chunks,
    nothing kept): what a run to a file is measured against."""
    set_threads(threads)
    wall, cpu = time.perf_counter(), time.process_time()
    for start in range(0, games, DEFAULT_CHUNK):
        game.run_chunk(setup, lineup, 7, start, min(DEFAULT_CHUNK, games - start))
        game.take_tallies()
    return time.perf_counter() - wall, time.process_time() - cpu


def _file_seconds(game, setup, lineup, variant, games: int, threads: int, folder, executor=None) -> tuple[float, float]:
    """Wall and CPU seconds (this process) of a whole run to a file: play, write, finish."""
    from pathlib import Path

    from simcore.driver import run_games
    from simcore.parts import remove_run

    out = Path(folder) / "speed.parquet"
    wall, cpu = time.perf_counter(), time.process_time()
    run_games(game, setup, lineup, variant, 7, games, threads=threads, out=out, progress=False, keep_frame=False,
              force=True, executor=executor)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    remove_run(out)
    return wall, cpu


def _reduced_seconds(game, setup, lineup, variant, games: int, threads: int, reduce_for) -> tuple[float, float]:
    """Wall and CPU seconds (this process) of a whole run without a file: every chunk reduced to
    the summary's totals as it is played (``simulate`` without ``--out``), no row kept."""
    from simcore.driver import run_games, run_metadata

    reduce = reduce_for(run_metadata(game, setup, lineup, variant, 7, games))
    wall, cpu = time.perf_counter(), time.process_time()
    run_games(game, setup, lineup, variant, 7, games, threads=threads, progress=False, reduce=reduce)
    return time.perf_counter() - wall, time.process_time() - cpu


# the command in a child that says its own peak memory when it exits (after the CLI's sys.exit)
_COMMAND_CHILD = ("import atexit, resource, runpy, sys\n"
                  "atexit.register(lambda: print('peak_kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
                  "file=sys.stderr))\n"
                  "sys.argv = ['balance', *sys.argv[1:]]\n"
                  "runpy.run_module('balance', run_name='__main__')\n")


def _command_memory(name: str, players: int, games: int) -> dict:
    """``balance simulate NAME -n GAMES`` (no ``--out``) as a newcomer types it, in a process of
    its own: its wall time, its play time and its peak resident memory."""
    import json
    import subprocess
    import sys

    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _COMMAND_CHILD, "simulate", name, "-p", str(players), "-n", str(games),
                           "--json", "-q"], capture_output=True, text=True)
    wall = time.perf_counter() - started
    peak = [line.split()[1] for line in done.stderr.splitlines() if line.startswith("peak_kb ")]
    if done.returncode != 0 or not peak:
        raise RuntimeError(f"`balance simulate {name} -n {games}` failed: {done.stderr[-500:]}")
    return {"games": games, "wall_seconds": round(wall, 1), "play_seconds": json.loads(done.stdout)["seconds"],
            "peak_mb": round(int(peak[-1]) / 1024, 1)}


def serial_fraction(cpu_seconds: float, wall_seconds: float, cores: int) -> float:
    """The Karp-Flatt serial fraction of work that took ``cpu_seconds`` of CPU and
    ``wall_seconds`` on ``cores`` cores: the part that did not run in parallel, as Amdahl's law
    has it (0 when every core was busy throughout)."""
    if cores < 2:
        return float("nan")
    speedup = cpu_seconds / wall_seconds
    return min(1.0, max(0.0, (1 / speedup - 1 / cores) / (1 - 1 / cores)))


def amdahl(serial: float, cores: int) -> float:
    return 1 / (serial + (1 - serial) / cores)


def run_scale_bench(sizes=SCALE_GAMES, speed_games: int = SCALE_SPEED_GAMES, players: int = 4,
                    name: str = SCALE_GAME, progress: bool = True, repeats: int = 2, reduce_for=None) -> dict:
    """``balance bench --scale``: peak memory of runs of each size in ``sizes`` (flat: the
    largest within 1.2x of the smallest); then, side by side, ``speed_games`` games of the play
    loop alone and of a whole run to a file, at 1 thread and at all threads (best of
    ``repeats``), with the ratio of each run to its play loop, the serial fraction each leaves
    (Karp-Flatt) and what it projects for 16 threads; and the run to a file on 1 and 2 local
    Dask workers.  With ``reduce_for`` (meta -> the driver's ``reduce``: analysis.summary's
    ChunkTotals, which the engine does not import) the same for a run without a file, beside
    them, and ``balance simulate`` of each size in ``sizes`` without ``--out``: its peak memory."""
    import os
    import tempfile

    from simcore.cluster import LocalExecutor, open_executor

    say = (lambda text: print(text, file=__import__("sys").stderr)) if progress else (lambda text: None)
    game = get_game(name)
    variant = game.variant()
    setup = game.setup(players, variant)
    lineup = game.lineup("random", players)
    all_threads = numba.config.NUMBA_NUM_THREADS
    best = lambda timings: min(timings, key=lambda t: t[0])  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="balance-scale-", dir=os.environ.get("BALANCE_SCALE_DIR")) as folder:
        game.run_chunk(setup, lineup, 0, 0, 64)  # compiled here, so no measured process compiles (or peaks doing it)
        memory = []
        for games in sizes:
            say(f"bench --scale: {games:,} games of {name} to a file, peak memory ...")
            memory.append(_memory_run(name, players, games, folder))
        unkept = []  # runs without --out
        for games in sizes if reduce_for is not None else ():
            say(f"bench --scale: balance simulate {name} -n {games:,} (no --out), peak memory ...")
            unkept.append(_command_memory(name, players, games))
        # one small run to a file first: what a process does once is charged to neither side
        _file_seconds(game, setup, lineup, variant, 2 * 4096, 1, folder, LocalExecutor())
        if reduce_for is not None:
            _reduced_seconds(game, setup, lineup, variant, 2 * 4096, 1, reduce_for)
        loop, run, reduced = {}, {}, {}
        for threads in sorted({1, all_threads}):
            say(f"bench --scale: {speed_games:,} games on {threads} thread(s), the play loop alone, to a file"
                + (" and without one ..." if reduce_for is not None else " ..."))
            timings = [], [], []
            for _ in range(repeats):  # interleaved, so drift on a shared machine hits all alike
                timings[0].append(loop_seconds(game, setup, lineup, speed_games, threads))
                timings[1].append(_file_seconds(game, setup, lineup, variant, speed_games, threads, folder,
                                                LocalExecutor()))
                if reduce_for is not None:
                    timings[2].append(_reduced_seconds(game, setup, lineup, variant, speed_games, threads, reduce_for))
            loop[threads], run[threads] = best(timings[0]), best(timings[1])
            if reduce_for is not None:
                reduced[threads] = best(timings[2])
        workers = {}
        for n in (1, 2):
            say(f"bench --scale: {speed_games:,} games to a file on {n} local Dask worker(s), 1 thread each ...")
            with open_executor(f"local:{n}", task_threads=1) as executor:  # a core each: it plays and writes
                _file_seconds(game, setup, lineup, variant, 2 * 4096, 1, folder, executor)  # workers load the kernel
                workers[n] = min(_file_seconds(game, setup, lineup, variant, speed_games, 1, folder, executor)[0]
                                 for _ in range(repeats))
    set_threads(None)
    peaks = [m["peak_mb"] for m in memory]
    many = all_threads
    loop_serial = serial_fraction(loop[many][1], loop[many][0], many)
    run_serial = serial_fraction(run[many][1], run[many][0], many)
    projected = {"play_loop": round(amdahl(loop_serial, 16), 2), "run_to_file": round(amdahl(run_serial, 16), 2)}
    without = None
    if reduce_for is not None:
        unkept_peaks = [m["peak_mb"] for m in unkept]
        without = {"memory": unkept, "peak_ratio": round(max(unkept_peaks) / min(unkept_peaks), 3),
                   "seconds_1_thread": round(reduced[1][0], 2), "seconds_all_threads": round(reduced[many][0], 2),
                   "ratio_1_thread": round(reduced[1][0] / loop[1][0], 3),
                   "ratio_all_threads": round(reduced[many][0] / loop[many][0], 3), "target_ratio": TARGET_UNKEPT_RATIO}
    return {"game": name, "players": players, "memory": memory, "without_out": without,
            "peak_ratio": round(max(peaks) / min(peaks), 3),
            "speed_games": speed_games, "threads": all_threads, "repeats": repeats,
            "loop_seconds_1_thread": round(loop[1][0], 2), "loop_seconds_all_threads": round(loop[many][0], 2),
            "seconds_1_thread": round(run[1][0], 2), "seconds_all_threads": round(run[many][0], 2),
            "ratio_1_thread": round(run[1][0] / loop[1][0], 3), "ratio_all_threads": round(run[many][0] / loop[many][0], 3),
            "loop_thread_speedup": round(loop[1][0] / loop[many][0], 2),
            "thread_speedup": round(run[1][0] / run[many][0], 2),
            "cpu_seconds_all_threads": round(run[many][1], 2),
            "serial_fraction": {"play_loop": round(loop_serial, 4), "run_to_file": round(run_serial, 4)},
            "projected_16_threads": projected,
            "projected_share": round(projected["run_to_file"] / projected["play_loop"], 3),
            "seconds_1_worker": round(workers[1], 2), "seconds_2_workers": round(workers[2], 2),
            "worker_speedup": round(workers[1] / workers[2], 2),
            "targets": {"ratio": TARGET_RATIO, "worker_speedup": TARGET_WORKER_SPEEDUP,
                        "projected_share": TARGET_PROJECTED_SHARE},
            "load_average": list(os.getloadavg()), "machine": machine()}


def format_scale_bench(r: dict) -> str:
    m = r["machine"]
    t = r["targets"]
    ok = lambda met: "meets" if met else "MISSES"  # noqa: E731
    lines = [f"{r['game']}, {r['players']} players, random play  ({m['cpu']}, {m['cores']} cores; load average "
             + " ".join(f"{x:.1f}" for x in r["load_average"]) + ")"]
    for row in r["memory"]:
        lines.append(f"  {row['games']:>13,} games to a file: peak memory {row['peak_mb']:>8,.0f} MB, "
                     f"{row['play_seconds']:,.1f} s playing, {row['wall_seconds']:,.1f} s in all, {row['file_mb']:,.0f} MB")
    lines += [f"  peak memory, largest / smallest run: {r['peak_ratio']:.2f}x",
              f"  {r['speed_games']:,} games, best of {r['repeats']}, the play loop alone | a whole run to a file:",
              f"    1 thread:   {r['loop_seconds_1_thread']} s | {r['seconds_1_thread']} s  ratio {r['ratio_1_thread']:.2f}x "
              f"({ok(r['ratio_1_thread'] <= t['ratio'])} <= {t['ratio']}x)",
              f"    {r['threads']} threads: {r['loop_seconds_all_threads']} s | {r['seconds_all_threads']} s  ratio "
              f"{r['ratio_all_threads']:.2f}x ({ok(r['ratio_all_threads'] <= t['ratio'])} <= {t['ratio']}x)",
              f"    speed-up from 1 to {r['threads']} threads: play loop {r['loop_thread_speedup']}x, run to a file "
              f"{r['thread_speedup']}x",
              f"    serial fraction (Karp-Flatt, at {r['threads']} threads): play loop "
              f"{100 * r['serial_fraction']['play_loop']:.1f}%, run to a file {100 * r['serial_fraction']['run_to_file']:.1f}%;"
              f" projected 16-thread speed-up {r['projected_16_threads']['play_loop']}x | "
              f"{r['projected_16_threads']['run_to_file']}x = {100 * r['projected_share']:.0f}% "
              f"({ok(r['projected_share'] >= t['projected_share'])} >= {100 * t['projected_share']:.0f}%)",
              *_format_without_out(r, ok),
              f"  {r['speed_games']:,} games to a file: 1 local Dask worker {r['seconds_1_worker']} s, 2 workers "
              f"{r['seconds_2_workers']} s (1 thread each): speed-up {r['worker_speedup']}x "
              f"({ok(r['worker_speedup'] >= t['worker_speedup'])} >= {t['worker_speedup']}x)"]
    return "\n".join(lines)


def _format_without_out(r: dict, ok) -> list[str]:
    w = r.get("without_out")
    if not w:
        return []
    t = w["target_ratio"]
    lines = [f"  without --out (each chunk reduced to the summary's totals, no row kept), the play loop alone | the run:",
             f"    1 thread:   {r['loop_seconds_1_thread']} s | {w['seconds_1_thread']} s  ratio {w['ratio_1_thread']:.2f}x "
             f"({ok(w['ratio_1_thread'] <= t)} <= {t}x)",
             f"    {r['threads']} threads: {r['loop_seconds_all_threads']} s | {w['seconds_all_threads']} s  ratio "
             f"{w['ratio_all_threads']:.2f}x ({ok(w['ratio_all_threads'] <= t)} <= {t}x)"]
    for row in w["memory"]:
        lines.append(f"    balance simulate {r['game']} -n {row['games']:,}: peak memory {row['peak_mb']:,.0f} MB, "
                     f"{row['play_seconds']:,.1f} s playing, {row['wall_seconds']:,.1f} s in all")
    lines.append(f"    peak memory, largest / smallest run: {w['peak_ratio']:.2f}x")
    return lines
