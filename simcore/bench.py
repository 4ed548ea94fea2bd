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


def _timed(game, setup, lineup, seed, games, threads, repeats) -> float:
    """Best wall time of playing games 0..games-1 of ``seed`` (the same games every repeat)."""
    set_threads(threads)
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for start in range(0, games, DEFAULT_CHUNK):
            game.run_chunk(setup, lineup, seed, start, min(DEFAULT_CHUNK, games - start))
        best = min(best, time.perf_counter() - started)
    return best


def run_search_bench(name: str, players: int, games: int, repeats: int, spec: str = "search",
                     field_games: int | None = None, progress=True) -> dict:
    """The search player's cost on one thread, and its speed among heuristic players on all.

    One thread: the same games with ``spec`` in seat 0 and random players elsewhere, and with
    random players everywhere; the difference is the search's time.  Its work is counted from
    the logs of those games (``Game.seat_decisions``: the choices at each decision): a decision
    with k >= 2 choices plays d x p x k playouts (a playout is one move and a rollout to the end
    of the deal or round), one with a single choice none.  That is the unit OpenSpiel's ISMCTS
    counts as a simulation (bench/ismcts.py)."""
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
    t_search = _timed(game, setup, hero, seed, games, 1, repeats)
    t_random = _timed(game, setup, field, seed, games, 1, repeats)
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
            "field_games": field_games, "machine": machine()}


def format_search_bench(results: list[dict]) -> str:
    lines = []
    for r in results:
        m = r["machine"]
        lines += [
            f"{r['game']}, {r['players']} players: {r['search']} ({r['budget']})  ({m['cpu']}, {m['cores']} cores)",
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
