"""Our compiled PIMC search against OpenSpiel's ISMCTS, side by side and interleaved.

    .venv/bin/python tools/search_vs_ismcts.py --repeats 5 [--peers-python .venv-peers/bin/python]

Each repeat times, one after the other on one core/thread: `balance bench bird-weather -p 4
--search SPEC` (our playouts per second: the search's extra time over random players, its work
counted from the game logs) and `tools/ismcts.py` (OpenSpiel's C++ ISMCTSBot on `oh_hell` with
4 players and 9 tricks from a 40-card deck, BIRD & WEATHER's shape), given the same number of
simulations per decision as our search spends on average (d x p x the legal moves of a searched
decision).  Prints min/median/max of both and of their ratio, and one JSON line.
"""
import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def ours(spec: str, games: int) -> dict:
    out = subprocess.run([sys.executable, "-m", "balance", "bench", "bird-weather", "-p", "4", "--search", spec,
                          "--search-games", str(games), "--repeats", "1", "--json"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out)[0]


def theirs(python: str, sims: int, games: int) -> dict:
    out = subprocess.run([python, str(ROOT / "tools" / "ismcts.py"), "--sims", str(sims), "--games", str(games)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def spread(values) -> str:
    return f"{min(values):,.0f} / {statistics.median(values):,.0f} / {max(values):,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--search", default="search", help="our search budget (default: the game's default)")
    parser.add_argument("--games", type=int, default=1000, help="games of ours per repeat")
    parser.add_argument("--ismcts-games", type=int, default=20, help="OpenSpiel games per repeat")
    parser.add_argument("--peers-python", default=str(ROOT / ".venv-peers" / "bin" / "python"))
    args = parser.parse_args()
    if not Path(args.peers_python).exists():
        sys.exit(f"no OpenSpiel environment at {args.peers_python}: run `make bench-peers` once, or give --peers-python")
    first = ours(args.search, args.games)
    sims = max(1, round(first["playouts"] / max(first["searched_decisions"], 1)))
    mine, peer = [], []
    for r in range(args.repeats):
        a = first if r == 0 else ours(args.search, args.games)
        b = theirs(args.peers_python, sims, args.ismcts_games)
        mine.append(a["playouts_per_second_1_thread"])
        peer.append(b["simulations_per_second"])
        print(f"repeat {r + 1}: ours {mine[-1]:,} playouts/s, OpenSpiel ISMCTS {peer[-1]:,} simulations/s, "
              f"ratio {mine[-1] / peer[-1]:.1f}x", file=sys.stderr)
    ratios = [m / p for m, p in zip(mine, peer)]
    print(f"BIRD & WEATHER 4p {first['search']} ({first['budget']}) vs OpenSpiel ISMCTS oh_hell 4p, "
          f"{sims} simulations per decision (our mean), one core, {args.repeats} interleaved repeats:")
    print(f"  ours, playouts/s (min / median / max):          {spread(mine)}")
    print(f"  OpenSpiel ISMCTS, simulations/s (min / med / max): {spread(peer)}")
    print(f"  ratio (min / median / max):                     {min(ratios):.1f}x / {statistics.median(ratios):.1f}x / "
          f"{max(ratios):.1f}x   on {first['machine']['cpu']}")
    print(json.dumps({"ours": mine, "ismcts": peer, "ratios": [round(x, 2) for x in ratios], "sims_per_decision": sims,
                      "budget": first["budget"], "machine": first["machine"]}))


if __name__ == "__main__":
    main()
