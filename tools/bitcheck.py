"""Bit-identity of saved results across commits: one hash per line-up of every column of its rows.

A restructuring must leave every result bit-identical (CONTRIBUTING.md). Run this in two checkouts
(the commit before and the commit after) and compare::

    python tools/bitcheck.py --out /tmp/before.json             # in the old checkout
    python tools/bitcheck.py --out /tmp/after.json --compare /tmp/before.json

Line-ups: every game at every player count with every seat one built-in strategy (the search
players with fewer games: they are slow; ``--rules-files`` adds examples/games/*.toml), plus one mixed line-up per player count (the game's
strong player in seat 1, random elsewhere). Each plays ``--games`` games of seed ``--seed`` on two
threads in chunks of ``--chunk`` games, so chunk boundaries and threads are crossed. A variant
(``--set game:key=value``, repeatable) plays that game's line-ups under it, e.g. to hold a new
rule's variant for the old reading to the old commit's default.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))  # the checkout this is run from, not the one the tool lives in


def frame_hash(frame) -> str:
    digest = hashlib.sha256()
    for name in frame.columns:
        digest.update(name.encode() + b"\0" + str(frame[name].dtype).encode() + b"\0")
        digest.update(frame[name].to_numpy().tobytes())
    return digest.hexdigest()[:16]


def lineups(game) -> list[tuple[int, str, int]]:
    """(players, strategies, games share) for every line-up checked: search players play 1/20."""
    module = game.strategy_module()
    out = []
    for players in game.player_counts:
        for name in module.BUILTIN:
            if name == "fixed":
                continue  # fixed:K needs its K; cautious and the others carry defaults
            share = 20 if name.startswith("search") else 1
            out.append((players, name, share))
        strong = getattr(game, "strong_strategy", None) or "random"
        out.append((players, ",".join([strong] + ["random"] * (players - 1)), 1))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="JSON file of the hashes")
    parser.add_argument("--compare", help="JSON of another commit: print every line-up that differs")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=1000)
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    parser.add_argument("--set", action="append", default=[], help="GAME:KEY=VALUE variant setting (TOML value)")
    parser.add_argument("--rules-files", action="store_true",
                        help="the rules files of examples/games/ as well (every player count, every built-in player)")
    parser.add_argument("--files", action="store_true",
                        help="write each run to disk (simcore.run's out) and hash the rows read back from it")
    args = parser.parse_args()

    import tempfile
    import tomllib

    import simcore
    from simcore.registry import GAMES, get_game

    settings: dict[str, dict] = {}
    for item in args.set:
        game, _, assignment = item.partition(":")
        key, _, value = assignment.partition("=")
        settings.setdefault(game, {})[key] = tomllib.loads(f"v = {value}")["v"]
    hashes = {}
    names = list(args.game or sorted(GAMES))
    if args.rules_files:
        names += sorted(str(path) for path in Path("examples/games").glob("*.toml"))
    for name in names:
        game = get_game(name)
        for players, strategies, share in lineups(game):
            started = time.perf_counter()
            with tempfile.TemporaryDirectory(prefix="bitcheck-") as scratch:
                out = Path(scratch) / "run.parquet" if args.files else None
                run = simcore.run(name, players=players, games=max(args.games // share, 100), seed=args.seed,
                                  strategies=strategies, variant=settings.get(name) or None, threads=2,
                                  chunk_size=args.chunk, out=out)
                key = f"{name} {players}p {strategies}"
                hashes[key] = frame_hash(run.frame)
            print(f"{key}: {hashes[key]} ({time.perf_counter() - started:.1f} s)", flush=True)
    Path(args.out).write_text(json.dumps(hashes, indent=1) + "\n")
    if args.compare:
        other = json.loads(Path(args.compare).read_text())
        differ = sorted(k for k in hashes if k in other and other[k] != hashes[k])
        missing = sorted(set(hashes) ^ set(other))
        for key in differ:
            print(f"DIFFERS: {key}")
        print(f"{len(hashes) - len(differ) - len(set(hashes) - set(other))} equal, {len(differ)} differ, "
              f"{len(missing)} only on one side")
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
