"""`make check-peers`: rules-file games against engines nobody here wrote, deal for deal.

examples/games/hearts.toml, examples/games/oh-hell.toml, examples/games/spades.toml and
examples/games/euchre.toml describe OpenSpiel's ``hearts``, ``oh_hell``, ``spades`` and ``euchre``
(default parameters; oh_hell with ``num_tricks_fixed`` = each deal's hand size; spades with
partners, its lead, bid and scoring rules in hooks; euchre with its calling rounds, the dealer's
pick-up and discard and going alone as decisions of the file's own).  OpenSpiel
(in its own environment, ``--peers-python``) plays random games, every chance outcome and every
decision drawn uniformly, and records each deal, every decision (passes, bids, cards) and every
trick winner and return (tools/openspiel_deals.py).  This script then gives both of our engines the
same deal and the same decisions, in the order the game asks for them:

* the reference engine (simcore/games/trick/reference.py), which refuses any decision its rules
  find illegal, and
* the compiled play loop (``play_scripted`` of simcore/games/trick/kernel.py), which reports the
  first decision it finds illegal,

and requires, deal for deal, the same legal choices at every decision as OpenSpiel offered (the
reference engine's), every trick's winner and every player's return equal to OpenSpiel's.  Exit code 0 when every deal agrees, 1 otherwise (the first differences are printed).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FILES = {"hearts": ROOT / "examples" / "games" / "hearts.toml", "oh_hell": ROOT / "examples" / "games" / "oh-hell.toml",
         "spades": ROOT / "examples" / "games" / "spades.toml", "euchre": ROOT / "examples" / "games" / "euchre.toml"}
SUIT_LETTERS = "CDHS"  # euchre's record names a called suit by its letter (tools/openspiel_deals.py)
HEARTS_DIRECTIONS = {"No Pass": "none", "Left": "left", "Across": "across", "Right": "right"}


def record_games(peers_python: str, game: str, deals: int, seed: int, players: int | None, out: Path) -> float:
    """OpenSpiel's random games into ``out`` (JSON lines); the seconds it took."""
    command = [peers_python, str(ROOT / "tools" / "openspiel_deals.py"), "--game", game, "--deals", str(deals),
               "--seed", str(seed), "--out", str(out), "--no-verify"]
    if players is not None:
        command += ["--players", str(players)]
    start = time.perf_counter()
    subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


class Ours:
    """The rules file's setups (one per player count and hand size) and both engines on a scripted deal."""

    def __init__(self, game: str, rules_file: Path):
        from simcore.registry import get_game

        self.kind = game
        self.game = get_game(str(rules_file))
        self.setups = {}
        self.lineups = {}

    def setup(self, players: int, hand_size: int | None):
        key = (players, hand_size)
        if key not in self.setups:
            overrides = {} if hand_size is None else {"game.players": players, "deal.hand_size": hand_size}
            self.setups[key] = self.game.setup(players, self.game.variant(overrides=overrides))
            self.lineups[key] = self.game.lineup("random", players)
        return self.setups[key], self.lineups[key]

    def replay(self, record: dict) -> dict:
        """Our trick winners and returns for OpenSpiel's ``record`` (a deal and its decisions)."""
        from simcore.games.trick import reference as ref
        from simcore.games.trick import rules as tr

        players = record["players"]
        setup, lineup = self.setup(players, record.get("tricks"))
        index = {name: i for i, name in enumerate(setup.names)}
        hands = [{index[c] for c in hand} for hand in record["hands"]]
        script = []
        direction = "none"
        trump_card = None
        dealer = record.get("dealer", 0)
        if self.kind == "hearts":
            direction = HEARTS_DIRECTIONS[record["pass_direction"]]
            for passed in record["passes"]:
                script += [index[c] for c in passed]
        elif self.kind == "spades":  # no upcard: the bids in order, seat 1 first (the dealer is seat 4)
            dealer = record.get("dealer", players - 1)
            script += [bid for _, bid in record["bids"]]
        elif self.kind == "euchre":  # the upcard, then the file's decisions in the order they are asked
            trump_card = index[record["upcard"]]
            script += self.euchre_choices(record, index)
        else:
            trump_card = index[record["trump_card"]]
            script += [bid for _, bid in record["bids"]]
        script += [index[c] for trick in record["plays"] for c in trick["cards"]]

        # the reference engine: refuses an illegal decision with the rule it breaks, and says what
        # it would have allowed at each decision (OpenSpiel's legal choices must be the same)
        rules = self.game.reference_rules(setup)
        decider = OptionsSeen(script)
        try:
            rnd = ref.Round(rules, hands, dealer, trump_card, direction, decider)
            ref_scores, _, _ = rnd.play()
            reference = {"winners": [t.winner for t in rnd.tricks], "returns": ref_scores}
            if self.kind == "euchre":  # every decision's options by OpenSpiel's names
                names = {i: n for n, i in index.items()}
                upcard_suit = SUIT_LETTERS[setup.cards[tr.C_SUIT, trump_card]]
                theirs = [sorted(options) for options in record["legal"]]
                seen = [sorted(euchre_name(kind, c, names, upcard_suit) for c in options)
                        for kind, options in decider.options]
            else:
                theirs = [sorted(index[c] if isinstance(c, str) else c for c in options) for options in record["legal"]]
                seen = [options for _, options in decider.options]
            if len(seen) != len(theirs):
                reference = {"error": f"{len(seen)} decisions here, {len(theirs)} in OpenSpiel"}
            for step, (mine, other) in enumerate(zip(seen, theirs)):
                if mine != other:
                    names = {i: n for n, i in index.items()}
                    reference = {"error": f"decision {step}: legal {[names.get(c, c) for c in mine]} here, "
                                          f"{[names.get(c, c) for c in other]} in OpenSpiel"}
                    break
        except Exception as exc:  # noqa: BLE001 - reported as a disagreement
            reference = {"error": str(exc)}

        # the compiled loop
        offset = tr.pass_offset(direction, players) if setup.rules[tr.R_PASS_CARDS] else 0
        ours = self.game.scripted_round(setup, lineup, hands, dealer, -1 if trump_card is None else trump_card, offset,
                                        script)
        if ours["status"] != -1:
            compiled = {"error": f"status {ours['status']} (the compiled loop refused scripted decision {ours['status']})"}
        else:
            compiled = {"winners": ours["winners"], "returns": ours["scores"]}
        return {"reference": reference, "compiled": compiled}

    @staticmethod
    def euchre_choices(record: dict, index: dict) -> list[int]:
        """OpenSpiel's calls, discard and alone choice as the file's decisions' choices: the first
        calling round's pass / order up (the upcard's suit), the discard's card, the second
        round's pass / suit (1 + its index), with partner / alone."""
        out, calls = [], 0
        for _, what in record["decisions"]:
            if what in ("pass",) + tuple(SUIT_LETTERS):
                first_round = calls < 4
                calls += 1
                if what == "pass":
                    out.append(0)
                else:
                    out.append(1 if first_round else 1 + SUIT_LETTERS.index(what))
            elif what in ("alone", "partner"):
                out.append(1 if what == "alone" else 0)
            else:
                out.append(index[what])
        return out


class OptionsSeen:
    """The reference engine's scripted decider, keeping the legal choices of every decision."""

    def __init__(self, script):
        from simcore.games.trick.reference import Scripted

        self.scripted = Scripted(script)
        self.options = []

    def pass_card(self, seat, hand, view):
        self.options.append(("card", sorted(hand)))
        return self.scripted.pass_card(seat, hand, view)

    def bid(self, seat, hand, legal, view):
        self.options.append(("bid", sorted(legal)))
        return self.scripted.bid(seat, hand, legal, view)

    def play(self, seat, hand, legal, view):
        self.options.append(("card", sorted(legal)))
        return self.scripted.play(seat, hand, legal, view)

    def decide(self, seat, decision, hand, legal, view):
        self.options.append((decision, sorted(legal)))
        return self.scripted.decide(seat, decision, hand, legal, view)

    def has_next(self) -> bool:
        return self.scripted.has_next()


def euchre_name(kind, choice: int, names: dict, upcard_suit: str) -> str:
    """OpenSpiel's name (tools/openspiel_deals.py) of a choice in euchre.toml: ``kind`` is the
    decision (0 order up, 1 discard, 2 call, 3 alone) or "card"."""
    if kind == 0:
        return "pass" if choice == 0 else upcard_suit
    if kind == 2:
        return "pass" if choice == 0 else SUIT_LETTERS[choice - 1]
    if kind == 3:
        return "alone" if choice == 1 else "partner"
    return names[choice]


def check(game: str, path: Path, rules_file: Path | None = None, limit_differences: int = 5) -> dict:
    """Replay OpenSpiel's recorded games in ``path`` on our engines playing ``rules_file``."""
    ours = Ours(game, rules_file or FILES[game].relative_to(ROOT))
    deals = agree = 0
    differences = []
    start = time.perf_counter()
    with path.open() as lines:
        for line in lines:
            record = json.loads(line)
            deals += 1
            theirs = {"winners": [t["winner"] for t in record["plays"]],
                      "returns": [int(round(x)) for x in record["returns"]]}
            mine = ours.replay(record)
            if mine["reference"] == theirs and mine["compiled"] == theirs:
                agree += 1
            elif len(differences) < limit_differences:
                differences.append({"deal": record["deal"], "openspiel": theirs, **mine})
    return {"deals": deals, "agree": agree, "differences": differences,
            "seconds": round(time.perf_counter() - start, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peers-python", required=True, help="a Python with open_spiel (make check-peers: .venv-peers)")
    parser.add_argument("--deals", type=int, default=10_000, help="deals per game and player count")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--games", default="hearts,oh_hell,spades,euchre", help="which of them (comma-separated)")
    args = parser.parse_args()
    wanted = args.games.split(",")
    runs = [(game, players) for game, players in
            [("hearts", None), ("oh_hell", 3), ("oh_hell", 4), ("oh_hell", 5), ("spades", None), ("euchre", None)]
            if game in wanted]
    results = []
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        for game, players in runs:
            out = Path(folder) / f"{game}-{players}.jsonl"
            recorded = record_games(args.peers_python, game, args.deals, args.seed, players, out)
            result = {"game": game, "players": players or 4, "file": str(FILES[game].relative_to(ROOT)),
                      "openspiel_seconds": round(recorded, 1), **check(game, out)}
            results.append(result)
            ok = result["agree"] == result["deals"]
            failed |= not ok
            print(f"{game:8} {result['players']} players: {result['agree']:,} of {result['deals']:,} deals agree "
                  f"(legal choices, trick winners, returns)"
                  f"{'' if ok else '  <-- DIFFERENT'}  [{result['seconds']} s]", flush=True)
            for difference in result["differences"]:
                print("   ", json.dumps(difference)[:600])
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
