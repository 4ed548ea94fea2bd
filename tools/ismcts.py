"""OpenSpiel's ISMCTS bot on `oh_hell`, timed: simulations per second on one core.

Run with the interpreter of an environment that has OpenSpiel (PyPI `open_spiel`), not the
project's own (`make bench-peers` makes one in .venv-peers):

    .venv-peers/bin/python tools/ismcts.py --sims 120 --games 20

Seat 0 is OpenSpiel's C++ `ISMCTSBot` (random-rollout evaluator, UCT constant 2, `--sims`
simulations per decision, final policy = most visits); the other seats play uniformly at random.
Only the bot's own `step` calls are timed (CPU time of this process), so the figure is the
search's cost, like `balance bench GAME --search` counts ours.  A simulation is one descent of
the information-set tree plus one random rollout to the end of the game: the unit our PIMC
playout is compared with (one move, then a rollout to the end).  Prints one JSON line.
"""
import argparse
import json
import random
import time

import pyspiel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=120, help="simulations per decision")
    parser.add_argument("--games", type=int, default=20, help="games played (seat 0 is the bot)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    # oh_hell at 4 players, 9 tricks from a 40-card deck: BIRD & WEATHER's shape (4 x 10 cards)
    game = pyspiel.load_game("oh_hell", {"players": args.players, "num_suits": 4, "num_cards_per_suit": 10,
                                         "num_tricks_fixed": 9})
    evaluator = pyspiel.RandomRolloutEvaluator(1, args.seed)
    bot = pyspiel.ISMCTSBot(args.seed, evaluator, 2.0, args.sims, -1,
                            pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
    rng = random.Random(args.seed)
    decisions, searched, spent = 0, 0, 0.0
    for _ in range(args.games):
        state = game.new_initial_state()
        bot.restart()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            legal = state.legal_actions()
            if state.current_player() == 0:
                started = time.process_time()
                action = bot.step(state)
                spent += time.process_time() - started
                decisions += 1
                searched += len(legal) >= 2
            else:
                action = rng.choice(legal)
            state.apply_action(action)
    print(json.dumps({"engine": f"open_spiel {pyspiel.__version__ if hasattr(pyspiel, '__version__') else ''}".strip(),
                      "game": "oh_hell", "players": args.players, "sims_per_decision": args.sims,
                      "games": args.games, "decisions": decisions, "seconds": round(spent, 4),
                      "decisions_per_second": round(decisions / spent, 1),
                      "simulations_per_second": round(args.sims * decisions / spent)}))


if __name__ == "__main__":
    main()
