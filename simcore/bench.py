"""`balance bench`: games per second of the compiled engine and the reference engine,
measured in one run so their ratio is fair on a noisy shared machine."""
from __future__ import annotations

import os
import platform
import time

import numba

from simcore.version import __version__
from simcore.driver import DEFAULT_CHUNK, set_threads
from simcore.game import get_game


PLAY_COUNT_GAMES = 2000  # games whose logs count the plays per game (random players, seed 1000)


def cpu_flags() -> set[str]:
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    from simcore.bits import HAS_PDEP

    flags = cpu_flags()
    return {"cpu": cpu, "cores": os.cpu_count(), "bmi2": "bmi2" in flags, "lzcnt": "abm" in flags or "lzcnt" in flags,
            "pdep_used": HAS_PDEP, "python": platform.python_version(),
            "numba": numba.__version__, "platform": platform.platform(), "balance": __version__}


def provenance() -> dict:
    """What a kept result says about where it came from: the checkout's commit (``-dirty`` with
    uncommitted changes to tracked files) and the date (UTC)."""
    import subprocess
    from datetime import datetime, timezone

    from simcore.cache import ROOT

    def git(*args) -> str:
        try:
            return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "--short=12", "HEAD") or "unknown"
    if commit != "unknown" and git("status", "--porcelain", "--untracked-files=no"):
        commit += "-dirty"
    return {"commit": commit, "date": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def first_compile_seconds(name: str, players: int) -> dict:
    """Wall seconds of a game's first command from an empty compile cache, in a new process each:
    ``stock``, ``simulate -s SKILLED -n 1000`` (the stock play loop); ``random``, ``simulate -n
    100000`` (every seat random: the random build, simcore/builds.py).  Python starting, the
    imports, the compile and the games: what a newcomer waits for."""
    import subprocess
    import sys
    import tempfile

    from simcore.errors import BalanceError

    game = get_game(name)
    found = {}
    for build, options in (("stock", ["-s", game.strong_strategy, "-n", "1000"]), ("random", ["-n", "100000"])):
        with tempfile.TemporaryDirectory(prefix="balance-compile-") as cache:
            env = {**os.environ, "BALANCE_CACHE_DIR": cache}
            env.pop("NUMBA_CACHE_DIR", None)
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "balance", "simulate", name, "-p", str(players), *options,
                                   "--seed", "1", "-q"], env=env, capture_output=True, text=True)
            seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise BalanceError(f"bench --compile: the first {build} command of {name} failed: "
                               f"{(done.stderr.strip().splitlines() or ['?'])[-1]}")
        found[build] = round(seconds, 1)
    return found


def _compiled_rate(game, setup, lineup, games, threads, repeats) -> float:
    set_threads(threads)
    best = float("inf")
    for r in range(repeats):
        started = time.perf_counter()
        for start in range(0, games, DEFAULT_CHUNK):
            game.run_chunk(setup, lineup, 1000 + r, start, min(DEFAULT_CHUNK, games - start))
        best = min(best, time.perf_counter() - started)
    return games / best


def _reference_rate(game, setup, games, repeats) -> float:
    best = float("inf")
    for r in range(max(1, min(repeats, 2))):
        started = time.perf_counter()
        for index in range(games):
            game.reference_game(setup, 1000 + r, index)
        best = min(best, time.perf_counter() - started)
    return games / best


def run_bench(name: str, players: int, games: int, reference_games: int, repeats: int, progress=True,
              compile_: bool = False) -> dict:
    game = get_game(name)
    variant = game.variant()
    setup = game.setup(players, variant)
    all_threads = numba.config.NUMBA_NUM_THREADS
    random = game.lineup("random", players)
    strong = game.lineup(game.strong_strategy, players)
    started = time.perf_counter()
    game.run_chunk(setup, random, 0, 0, 64)  # compile (or load from cache) before timing
    game.run_chunk(setup, strong, 0, 0, 64)
    warmup = time.perf_counter() - started
    say = (lambda text: print(text, file=__import__("sys").stderr)) if progress else (lambda text: None)
    say(f"bench {name} {players}p: compiled random, 1 thread ...")
    one = _compiled_rate(game, setup, random, games, 1, repeats)
    say(f"bench {name} {players}p: compiled random, {all_threads} threads ...")
    many = _compiled_rate(game, setup, random, games, all_threads, repeats)
    say(f"bench {name} {players}p: compiled {game.strong_strategy}, {all_threads} threads ...")
    heuristic = _compiled_rate(game, setup, strong, max(games // 2, 1), all_threads, repeats)
    say(f"bench {name} {players}p: reference engine ...")
    reference = _reference_rate(game, setup, reference_games, repeats)
    set_threads(None)
    say(f"bench {name} {players}p: {game.play_unit} per game (kernel logs of {PLAY_COUNT_GAMES:,} random games) ...")
    plays = game.plays_per_game(setup, random, 1000, PLAY_COUNT_GAMES)
    first = None
    if compile_:
        say(f"bench {name} {players}p: the first command from an empty cache (two new processes) ...")
        first = first_compile_seconds(name, players)
    return {
        "kind": "bench", **provenance(), "first_compile_seconds": first,
        "game": name, "players": players, "games": games, "reference_games": reference_games,
        "threads": all_threads, "warmup_seconds": round(warmup, 2),
        "random_1_thread": round(one), "random_all_threads": round(many),
        "strong_strategy": game.strong_strategy, "heuristic_all_threads": round(heuristic), "reference": round(reference, 1),
        "ratio_1_thread": round(one / reference, 1), "ratio_all_threads": round(many / reference, 1),
        "thread_scaling": round(many / one, 2), "strong_vs_random": round(heuristic / many, 2),
        "play_unit": game.play_unit, "plays_per_game": round(plays, 2),
        "plays_per_second_1_thread": round(one * plays), "ns_per_play_1_thread": round(1e9 / (one * plays), 2),
        "machine": machine(),
    }


def _timed(game, setup, lineup, seed, games, threads, repeats, clock=time.perf_counter) -> float:
    """Best time of playing games 0..games-1 of ``seed`` (the same games every repeat), by
    ``clock``: wall time, or ``time.process_time`` (this process's CPU time) for one thread."""
    set_threads(threads)
    best = float("inf")
    for _ in range(repeats):
        started = clock()
        for start in range(0, games, DEFAULT_CHUNK):
            game.run_chunk(setup, lineup, seed, start, min(DEFAULT_CHUNK, games - start))
        best = min(best, clock() - started)
    return best


def run_search_bench(name: str, players: int, games: int, repeats: int, spec: str = "search",
                     field_games: int | None = None, progress=True) -> dict:
    """The search player's cost on one thread, and its speed among heuristic players on all.

    One thread: the same games with ``spec`` in seat 0 and random players elsewhere, and with
    random players everywhere; the difference is the search's time.  Its work is counted from
    the logs of those games (``Game.seat_decisions``: the choices at each decision): a decision
    with k >= 2 choices plays d x p x k playouts (a playout is one move and a rollout to the end
    of the deal or round), one with a single choice none.  That is the unit OpenSpiel's ISMCTS
    counts as a simulation (tools/ismcts.py)."""
    game = get_game(name)
    players_module = game.strategy_module()  # the search's budget slots, through the registry
    setup = game.setup(players, game.variant())
    hero = game.lineup([spec] + ["random"] * (players - 1), players)
    field = game.lineup(["random"] * players, players)
    among = game.lineup([spec] + ["heuristic"] * (players - 1), players)
    for lineup in (hero, field, among):
        game.run_chunk(setup, lineup, 0, 0, 16)  # compile or load before timing
    say = (lambda text: print(text, file=__import__("sys").stderr)) if progress else (lambda text: None)
    say(f"bench {name} {players}p: {spec} among random players, 1 thread ...")
    seed = 4242
    # one thread, timed in CPU seconds of this process: on a shared machine another job's time is
    # not counted (and it is the clock OpenSpiel's side is timed with, tools/ismcts.py)
    t_search = _timed(game, setup, hero, seed, games, 1, repeats, time.process_time)
    t_random = _timed(game, setup, field, seed, games, 1, repeats, time.process_time)
    options = [o for log in game.kernel_logs(setup, hero, seed, range(games)) for o in game.seat_decisions(setup, log, 0)]
    row = hero.params[0]
    searched = [o for o in options if o >= 2]
    playouts = int(row[players_module.P_DETERMINIZATIONS] * row[players_module.P_PLAYOUTS] * sum(searched))
    thinking = max(t_search - t_random, 1e-9)
    all_threads = numba.config.NUMBA_NUM_THREADS
    field_games = field_games or games
    say(f"bench {name} {players}p: {spec} among heuristic players, {all_threads} threads ...")
    t_among = _timed(game, setup, among, seed, field_games, all_threads, repeats)
    set_threads(None)
    return {"game": name, "players": players, "search": spec, "budget": players_module.describe_params(row),
            "games": games,
            "decisions_per_game": len(options) / games, "searched_decisions": len(searched),
            "mean_choices": sum(searched) / max(len(searched), 1), "playouts": playouts,
            "search_seconds_1_thread": round(thinking, 4),
            "decisions_per_second_1_thread": round(len(searched) / thinking),
            "playouts_per_second_1_thread": round(playouts / thinking),
            "games_per_second_1_thread": round(games / t_search),
            "among_heuristic_all_threads": round(field_games / t_among), "threads": all_threads,
            "field_games": field_games, "load_average": [round(x, 2) for x in os.getloadavg()],
            "machine": machine()}


def format_search_bench(results: list[dict]) -> str:
    lines = []
    for r in results:
        m = r["machine"]
        lines += [
            f"{r['game']}, {r['players']} players: {r['search']} ({r['budget']})  ({m['cpu']}, {m['cores']} cores; "
            f"load average " + " ".join(f"{x:.1f}" for x in r["load_average"]) + ")",
            f"  one search among random players, 1 thread   {r['games_per_second_1_thread']:>10,} games/s",
            f"  search decisions (2+ choices), 1 thread     {r['decisions_per_second_1_thread']:>10,} /s"
            f"  ({r['searched_decisions']:,} in {r['games']:,} games, {r['mean_choices']:.1f} choices each)",
            f"  playouts (= simulations), 1 thread          {r['playouts_per_second_1_thread']:>10,} /s",
            f"  one search among heuristic players, {r['threads']} threads".ljust(47)
            + f"{r['among_heuristic_all_threads']:>10,} games/s  ({r['field_games']:,} games)",
        ]
    return "\n".join(lines)


def format_bench(results: list[dict]) -> str:
    lines = []
    for r in results:
        m = r["machine"]
        lines += [
            f"{r['game']}, {r['players']} players  ({m['cpu']}, {m['cores']} cores, bmi2 "
            f"{'yes' if m.get('bmi2') else 'no'}, PDEP {'used' if m.get('pdep_used') else 'not used'}, numba {m['numba']})",
            f"  compiled, random play, 1 thread      {r['random_1_thread']:>12,} games/s",
            f"    {r['play_unit']} per game {r['plays_per_game']:,.2f}: {r['plays_per_second_1_thread'] / 1e6:,.1f} M "
            f"{r['play_unit']}/s, {r['ns_per_play_1_thread']:,.1f} ns per play (1 thread)",
            f"  compiled, random play, {r['threads']} threads     {r['random_all_threads']:>12,} games/s"
            f"   (1 -> {r['threads']} threads: {r['thread_scaling']:.2f}x)",
            f"  compiled, {r.get('strong_strategy', 'heuristic')} play, {r['threads']} threads".ljust(39)
            + f"{r['heuristic_all_threads']:>12,} games/s   ({r['strong_vs_random']:.2f}x random, {r['threads']} threads)",
            f"  reference engine (plain Python)      {r['reference']:>12,.0f} games/s",
            f"  ratio compiled/reference: {r['ratio_1_thread']:,}x on 1 thread, {r['ratio_all_threads']:,}x on {r['threads']}",
            f"  ({r['games']:,} compiled games per timing, best of the repeats; compile/cache load {r['warmup_seconds']} s)",
        ]
        if r.get("first_compile_seconds"):
            first = r["first_compile_seconds"]
            lines.append(f"  first command from an empty cache: {first['stock']:.1f} s ({r.get('strong_strategy')} play), "
                         f"{first['random']:.1f} s (random play)")
        if r.get("commit"):
            lines.append(f"  measured at {r['commit']}, {r['date']}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# scale: flat memory, and the speed-up from threads and from Dask workers (balance bench --scale)
# --------------------------------------------------------------------------------------------

SCALE_GAME = "bird-weather"
SCALE_GAMES = (1_000_000, 100_000_000)
SCALE_SPEED_GAMES = 20_000_000
# issue 36's targets for a run to a file, against the play loop's own time on the same threads
TARGET_RATIO = 1.25
TARGET_UNKEPT_RATIO = 1.1  # a run without --out against the play loop (issue 36, item 4)
TARGET_WORKER_SPEEDUP = 1.8
TARGET_PROJECTED_SHARE = 0.8  # the run's projected 16-thread speed-up / the play loop's


def _scale_child(name: str, players: int, games: int, out: str) -> None:
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
    code = f"from simcore.bench import _scale_child; _scale_child({name!r}, {players}, {games}, {str(out)!r})"
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


def _loop_seconds(game, setup, lineup, games: int, threads: int) -> tuple[float, float]:
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
                timings[0].append(_loop_seconds(game, setup, lineup, speed_games, threads))
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
