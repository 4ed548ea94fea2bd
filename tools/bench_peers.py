"""`make bench-peers`: our compiled kernels against OpenSpiel's C++ engine, random players, one thread.

OpenSpiel (PyPI ``open_spiel``) lives in an environment of its own (``--peers-python``, made by
``make bench-peers`` as .venv-peers), so this script runs twice over: as the conductor in the
project's environment, and as a worker in the peers' environment (``--worker``), which it starts once
and keeps.  Each repeat times, one after the other, every OpenSpiel game and every one of our games,
so the ratios compare figures taken in the same minute (these machines are shared and drift);
the ratios are taken pair by pair within a repeat and shown as min / median / max.

OpenSpiel's side: ``pyspiel.evaluate_bots(state, bots, seed)`` plays one whole game in C++ with
``make_uniform_random_bot`` players (one Python call per game; the game itself never returns to
Python).  Its card plays per game are counted once, untimed, by playing sample games move by move:
``oh_hell`` plays tricks x players cards after one bid each (the number of tricks is dealt by
chance), ``hearts`` 52 cards after the pass, ``spades`` 52 cards after one bid each, ``euchre`` the
cards of its tricks (15 when the maker goes alone, 20 otherwise) after its calls.

Our side: ``Game.run_chunk`` with random players on one Numba thread (as ``balance bench``), the
card plays per game counted from the kernels' own logs of 2,000 games (``Game.plays_per_game``).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

PEERS = {"oh_hell": {"players": 4}, "hearts": {}, "spades": {}, "euchre": {}}
# the built-in games, and the rules files of OpenSpiel's spades (partners, its lead, bid and score in
# hooks) and euchre (its calls, the dealer's pick-up and discard and going alone as decisions)
OURS = ("bird-weather", "ten-tricks", "chimera", "triatri", "examples/games/spades.toml",
        "examples/games/euchre.toml")


# --------------------------------------------------------------------------------------------
# worker: runs in the OpenSpiel environment
# --------------------------------------------------------------------------------------------

def _card_plays(pyspiel, name: str, params: dict, games: int = 400) -> float:
    """Mean card plays per game of OpenSpiel's ``name``, from sample games played move by move."""
    import random

    game = pyspiel.load_game(name, params)
    players = game.num_players()
    rng = random.Random(12345)
    total = 0
    for _ in range(games):
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [a for a, _ in state.chance_outcomes()]
                state.apply_action(rng.choice(outcomes))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                moves += 1
        if name == "oh_hell":
            total += moves - players  # one bid each, the rest are cards
        elif name == "spades":
            total += moves - players  # one bid each, then 52 cards
        elif name == "euchre":
            total += sum(len(trick.cards()) for trick in state.tricks())
        elif name == "hearts":
            if moves - 52 not in (0, 3 * players):
                raise RuntimeError(f"hearts: {moves} moves, not 52 cards plus 0 or {3 * players} passes")
            total += 52
        else:
            raise ValueError(name)
    return total / games


def worker() -> None:
    """Answer one JSON request a line: {"cards": name} or {"time": name, "games": n, "seed": s}."""
    import pyspiel

    games = {name: pyspiel.load_game(name, params) for name, params in PEERS.items()}
    bots = {name: [pyspiel.make_uniform_random_bot(p, 1000 + p) for p in range(g.num_players())]
            for name, g in games.items()}
    print(json.dumps({"ready": True, "version": getattr(pyspiel, "__version__", None)}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if "cards" in request:
            name = request["cards"]
            answer = {"cards_per_game": _card_plays(pyspiel, name, PEERS[name])}
        else:
            name, n, seed = request["time"], request["games"], request["seed"]
            game, players = games[name], bots[name]
            pyspiel.evaluate_bots(game.new_initial_state(), players, seed)  # warm
            started = time.perf_counter()
            for i in range(n):
                pyspiel.evaluate_bots(game.new_initial_state(), players, seed + i)
            answer = {"seconds": time.perf_counter() - started, "games": n}
        print(json.dumps(answer), flush=True)


# --------------------------------------------------------------------------------------------
# conductor: runs in the project's environment
# --------------------------------------------------------------------------------------------

class Peer:
    def __init__(self, python: str):
        self.process = subprocess.Popen([python, __file__, "--worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)
        self.hello = self._read()

    def _read(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the OpenSpiel worker stopped (is open_spiel installed in --peers-python?)")
        return json.loads(line)

    def ask(self, **request) -> dict:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def _stats(values) -> dict:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def conduct(peers_python: str, ours: list[str], players: int, repeats: int, seconds: float, progress: bool,
            project: str | None = None) -> dict:
    sys.path.insert(0, project or str(Path(__file__).resolve().parent.parent))
    from simcore.bench import machine
    from simcore.driver import DEFAULT_CHUNK, set_threads
    from simcore.registry import get_game

    say = (lambda text: print(text, file=sys.stderr, flush=True)) if progress else (lambda text: None)
    say("bench-peers: starting the OpenSpiel worker ...")
    peer = Peer(peers_python)
    cards = {}
    for name in PEERS:
        say(f"bench-peers: counting OpenSpiel {name}'s card plays per game (untimed sample) ...")
        cards[name] = peer.ask(cards=name)["cards_per_game"]
    kernels = {}
    for name in ours:
        game = get_game(name)
        setup = game.setup(players, game.variant())
        lineup = game.lineup("random", players)
        say(f"bench-peers: loading/compiling {name}, counting its card plays per game ...")
        game.run_chunk(setup, lineup, 0, 0, 64)
        kernels[name] = (game, setup, lineup)
        if hasattr(game, "plays_per_game"):
            cards[name] = game.plays_per_game(setup, lineup, 1000, 2000)
        else:  # an older checkout (--project): the same count, from its logs
            logs = game.kernel_logs(setup, lineup, 1000, range(2000))
            cards[name] = sum(len(log["tricks"]) * players for log in logs) / len(logs)
    set_threads(1)

    def ours_rate(name: str, n: int, seed: int) -> float:
        game, setup, lineup = kernels[name]
        started = time.perf_counter()
        for start in range(0, n, DEFAULT_CHUNK):
            game.run_chunk(setup, lineup, seed, start, min(DEFAULT_CHUNK, n - start))
        return n / (time.perf_counter() - started)

    # size each timing to about `seconds` from a short probe
    sizes = {}
    for name in PEERS:
        probe = peer.ask(time=name, games=2000, seed=1)
        sizes[name] = max(2000, int(seconds * probe["games"] / probe["seconds"]))
    for name in ours:
        rate = ours_rate(name, 20000, 1)
        sizes[name] = max(20000, int(seconds * rate))
    rates = {name: [] for name in list(PEERS) + ours}
    for r in range(repeats):
        say(f"bench-peers: repeat {r + 1} of {repeats} ...")
        for name in PEERS:
            answer = peer.ask(time=name, games=sizes[name], seed=10_000_000 * (r + 1))
            rates[name].append(answer["games"] / answer["seconds"])
        for name in ours:
            rates[name].append(ours_rate(name, sizes[name], 100 + r))
    peer.close()
    set_threads(None)
    engines = {}
    for name, values in rates.items():
        label = f"OpenSpiel {name} (C++)" if name in PEERS else f"balance {name}"
        engines[name] = {"label": label, "players": 4 if name in PEERS else players, "games_per_timing": sizes[name],
                         "games_per_second": _stats(values), "rates": values, "cards_per_game": cards[name],
                         "ns_per_card_median": 1e9 / (statistics.median(values) * cards[name])}
    ratios = {}
    for name in ours:
        for peer_name in PEERS:
            per_game = [a / b for a, b in zip(rates[name], rates[peer_name])]
            per_card = [x * cards[name] / cards[peer_name] for x in per_game]
            ratios[f"{name} / {peer_name}"] = {"games": _stats(per_game), "cards": _stats(per_card)}
    return {"repeats": repeats, "seconds_per_timing": seconds, "openspiel": peer.hello.get("version"),
            "engines": engines, "ratios": ratios, "machine": machine()}


def format_report(result: dict) -> str:
    m = result["machine"]
    lines = [f"Random players, one thread each, {result['repeats']} interleaved repeats of about "
             f"{result['seconds_per_timing']} s per timing",
             f"CPU: {m['cpu']} ({m['cores']} cores; bmi2 {'yes' if m.get('bmi2') else 'no'}, "
             f"PDEP {'used' if m.get('pdep_used') else 'not used'}); numba {m['numba']}; "
             f"OpenSpiel {result['openspiel'] or '(version not reported)'}",
             "",
             "| engine | games/s min | median | max | cards/game | M cards/s (median) | ns/card (median) |",
             "|---|---|---|---|---|---|---|"]
    for e in result["engines"].values():
        g = e["games_per_second"]
        lines.append(f"| {e['label']}, {e['players']}p | {g['min']:,.0f} | {g['median']:,.0f} | {g['max']:,.0f} | "
                     f"{e['cards_per_game']:.2f} | {g['median'] * e['cards_per_game'] / 1e6:,.2f} | "
                     f"{e['ns_per_card_median']:,.1f} |")
    lines += ["", "Ours / OpenSpiel, pair by pair within a repeat (min / median / max):", "",
              "| pair | per game | per card played |", "|---|---|---|"]
    for pair, ratio in result["ratios"].items():
        g, c = ratio["games"], ratio["cards"]
        lines.append(f"| {pair} | {g['min']:.1f}x / {g['median']:.1f}x / {g['max']:.1f}x | "
                     f"{c['min']:.1f}x / {c['median']:.1f}x / {c['max']:.1f}x |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--peers-python", default=".venv-peers/bin/python",
                        help="the Python of the environment with open_spiel installed")
    parser.add_argument("--games", default=",".join(OURS), help="our games, comma-separated")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="about this long per timing")
    parser.add_argument("--project", help="the checkout whose kernels are timed (default: this script's); "
                                          "another commit's worktree, for a side-by-side A/B")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.worker:
        worker()
        return
    result = conduct(args.peers_python, [g for g in args.games.split(",") if g], args.players, args.repeats,
                     args.seconds, progress=not args.json, project=args.project)
    print(json.dumps(result, indent=2) if args.json else format_report(result))


if __name__ == "__main__":
    main()
