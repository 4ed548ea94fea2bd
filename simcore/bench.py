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


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "numba": numba.__version__, "platform": platform.platform(), "balance": __version__}


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


def run_bench(name: str, players: int, games: int, reference_games: int, repeats: int, progress=True) -> dict:
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
    return {
        "game": name, "players": players, "games": games, "reference_games": reference_games,
        "threads": all_threads, "warmup_seconds": round(warmup, 2),
        "random_1_thread": round(one), "random_all_threads": round(many),
        "strong_strategy": game.strong_strategy, "heuristic_all_threads": round(heuristic), "reference": round(reference, 1),
        "ratio_1_thread": round(one / reference, 1), "ratio_all_threads": round(many / reference, 1),
        "machine": machine(),
    }


def format_bench(results: list[dict]) -> str:
    lines = []
    for r in results:
        m = r["machine"]
        lines += [
            f"{r['game']}, {r['players']} players  ({m['cpu']}, {m['cores']} cores, numba {m['numba']})",
            f"  compiled, random play, 1 thread      {r['random_1_thread']:>12,} games/s",
            f"  compiled, random play, {r['threads']} threads     {r['random_all_threads']:>12,} games/s",
            f"  compiled, {r.get('strong_strategy', 'heuristic')} play, {r['threads']} threads".ljust(39)
            + f"{r['heuristic_all_threads']:>12,} games/s",
            f"  reference engine (plain Python)      {r['reference']:>12,.0f} games/s",
            f"  ratio compiled/reference: {r['ratio_1_thread']:,}x on 1 thread, {r['ratio_all_threads']:,}x on {r['threads']}",
            f"  ({r['games']:,} compiled games per timing, best of the repeats; compile/cache load {r['warmup_seconds']} s)",
        ]
    return "\n".join(lines)
