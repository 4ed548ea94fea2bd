"""Strategies see only what their seat may see: The Sky City of ALEA (docs/strategies.md, "What a
strategy sees": the trap card, the round, the scores and the final-round flag, never the other
seats' declarations before everyone has declared, the trap deck's order or the dice to come;
tests/players/test_hidden_information_cards.py does the card games).

Pairs of positions that differ ONLY in what the deciding seat cannot see go through the compiled
play loop, and every built-in strategy, the example plug-in (examples/plugins/
alea_two_or_nothing.py) and a plug-in that hashes everything it is handed (tests/fixtures/plugins/peek_sky_city.py)
must declare the same number of dice in both.  In state B, compared with state A:

* every other seat declares another number of dice this round (``fixed:K`` players with another
  K; not ``random``, which draws the same declarations from its own seat's stream in both
  states), with the decider at every seat position, so it is asked before, between and after the
  others;
* the dice still to be rolled are others (the rest of the draw script after the earlier rounds).

The other seats' rows of ``params`` (their K) differ too, and every strategy is handed the whole
``params`` matrix.  Those rows are the other seats' strategy settings, chosen by whoever seats the
line-up, not game state: a ``fixed:K`` player declares K in every position.  The peeking plug-in
therefore hashes only its own row ``params[seat]``; what this file proves is that no hidden
*game state* reaches a strategy through any argument, params included (the decider's own row is
the same in both states).

``Game.scenario`` of this game scripts every declaration and never asks a strategy, but the same
compiled ``play_scenario`` it calls plays ``len(trap_script)`` rounds and takes the declarations
of the scripted rounds only, so the pairs run it with the line-up under test: r = 0, 1 or 2
scripted earlier rounds (random traps, declarations and dice, so the round number, scores and
final-round flag vary from pair to pair), then round r declared by the strategies.  The scripts
are built exactly as ``SkyCity.scenario`` builds them, and every position is first checked by
both engines (``Game.scenario`` on the earlier rounds plus an all-zero round r, which refuses an
illegal script and any disagreement).  The scores before round r are all different, so no escape
of round r needs a tie-break draw, and every die of round r comes from the script; both runs are
seeded the same way and nothing is drawn before the decider is asked, so the streams it sees
match in both states.

What the streams themselves could tell a strategy (the DEAL stream, which rolls the dice of a run's
games, or another seat's draws) is checked in tests/players/test_streams.py: a strategy is handed only its
own seat's PLAY stream (docs/strategies.md, "What a strategy sees")."""
import random
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from simcore.games.sky_city import reference as ref
from simcore.games.sky_city import rules as sc
from simcore.games.sky_city.game import reference_rules
from simcore.play import STRATEGY_BROKE_RULES
from simcore.plugins.loading import load_plugin
from simcore.registry import get_game

pytestmark = pytest.mark.fairness  # a tier of its own (Makefile: make test-fast leaves it out)

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ["examples/plugins/alea_two_or_nothing.py", "tests/fixtures/plugins/peek_sky_city.py"]
PAIRS = 6  # per player count
WHERE = "hidden-information pair"
SCENARIO_KEYS = {"start_scores", "final", "rounds"}
EARLIER = (0, 1, 2, 0, 1, 2)  # scripted rounds before the decision, pair by pair
FINAL = {3: "flag", 5: "reached"}  # pairs whose decision round is the final one, and why
TO_COME = sc.MAX_ROUND_DICE  # dice scripted after the earlier rounds: as many as a round can roll


def _plugin_name(path):
    return (ROOT / path).read_text().split('NAME = "', 1)[1].split('"', 1)[0]


@cache
def _setup(players):
    """The default variant at ``players`` players, as ``SkyCity.scenario`` sets up a scenario
    (its exact odds table takes a while: once per player count)."""
    return get_game("sky-city").scenario_setup({"game": "sky-city", "players": players}, WHERE, SCENARIO_KEYS)


def _strategies():
    """Every built-in, ``best-response`` with another field in mind too (its model of the others
    is a parameter), then the example plug-in and the peeking one."""
    return list(get_game("sky-city").builtin_strategies()) + ["best-response:0.1"] + [_plugin_name(p) for p in PLUGINS]


@cache
def _lineup(players, seats):
    """The seats ``seats`` (names, ``fixed:K`` included).  Built-ins only run in the stock kernel;
    with a plug-in seated, one build loads both plug-ins (compiled once)."""
    game = get_game("sky-city")
    builtin = all(s.partition(":")[0] in game.builtin_strategies() for s in seats)
    return game.lineup(",".join(seats), players, [] if builtin else [str(ROOT / p) for p in PLUGINS])


class _Dice:
    """Random dice and escape tie-breaks for the reference's ``play_round`` (earlier rounds)."""

    def __init__(self, rng):
        self.rng = rng

    def die(self, what):
        return self.rng.randint(1, 6)

    def tiebreak(self, tied):
        return self.rng.randrange(len(tied))

    def rolloff(self, tied):  # never called: no earlier round ends the game
        raise AssertionError("an earlier round ended the game")


def _draws(rounds):
    """A record's rounds as the compiled draw script, as ``SkyCity.scenario`` builds it: per
    escape of several tied escapers its tie-break index, and every die as face - 1."""
    draws = []
    for r in rounds:
        ties = iter(r.tiebreak)
        for event in r.rolls:
            if event.get("kind") == "escape" and len(event.get("tied", ())) >= 2:
                draws.append(next(ties))
            draws += [face - 1 for face in event["dice"]]
    return draws


def _position(players, rng, earlier, final):
    """One position before round ``earlier`` (0-based) or None: start scores, the final flag and
    ``earlier`` random scripted rounds (played by the reference) after which the scores are all
    different and round ``earlier`` is the final one exactly when ``final`` says so."""
    setup = _setup(players)
    rules = reference_rules(setup)
    usable = [int(t) for t in setup.trap_ids]
    low = setup.target - 8 if final == "reached" else 0
    start = rng.sample(range(max(low, 0), setup.target), players)
    flag = final == "flag"
    scores, next_final, records, specs = list(start), flag, [], []
    for k in range(earlier):
        if next_final:
            return None  # the game would end before the decision round
        trap = rng.choice(usable)
        declared = [rng.randrange(setup.dice_per_player + 1) for _ in range(players)]
        rnd = ref.play_round(rules, k, trap, declared, scores, next_final, _Dice(rng))
        records.append(rnd)
        specs.append({"trap": trap, "declare": declared, "dice": [d for e in rnd.rolls for d in e["dice"]],
                      "tiebreak": list(rnd.tiebreak)})
        scores = list(rnd.totals)
        next_final = max(scores) >= setup.target
    if next_final != bool(final) or len(set(scores)) < players:
        return None
    return start, flag, specs, records, rng.choice(usable), scores


@cache
def _pairs(players):
    """PAIRS positions at ``players`` players, each with two line-ups of opponents (state A, B)
    and two sets of dice to come, and the position as both engines checked it."""
    game = get_game("sky-city")
    rng = random.Random(400 + players)
    dice = _setup(players).dice_per_player
    pairs = []
    for made in range(PAIRS):
        earlier, final = EARLIER[made], FINAL.get(made)
        position = None
        while position is None:
            position = _position(players, rng, earlier, final)
        start, flag, specs, records, trap, scores = position
        decider = made % players  # every seat: asked before, between and after the others
        while True:  # other seats: another declaration in B, and some dice rolled in both states
            ks = {s: rng.sample(range(dice + 1), 2) for s in range(players) if s != decider}
            if any(a > 0 and b > 0 for a, b in ks.values()):
                break
        to_come = [[rng.randrange(6) for _ in range(TO_COME)] for _ in range(2)]
        while to_come[1][0] == to_come[0][0]:  # round r's first die differs
            to_come[1][0] = rng.randrange(6)
        # both engines play the position: the earlier rounds, then round r with every seat at 0
        data = {"game": "sky-city", "players": players, "start_scores": start, "final": flag,
                "rounds": specs + [{"trap": trap, "declare": [0] * players}]}
        checked = game.scenario(data, WHERE)
        assert checked["engines_agree"] and len(checked["rounds"]) == earlier + 1
        assert checked["rounds"][earlier]["final"] == bool(final)
        pairs.append({"players": players, "decider": decider, "earlier": earlier, "start": start, "final": flag,
                      "specs": specs, "draws": _draws(records), "trap": trap, "scores": scores, "ks": ks,
                      "to_come": to_come, "checked": checked})
    return pairs


def _seats(pair, name, state):
    seats = [f"fixed:{pair['ks'][s][state]}" if s != pair["decider"] else name for s in range(pair["players"])]
    return tuple(seats)


def _declare_round(game, pair, lineup, state):
    """The compiled play loop on the pair's position: the earlier rounds scripted, round r
    declared by ``lineup``, its dice the pair's dice to come of ``state``.  Returns the log."""
    setup = _setup(pair["players"])
    p, r = setup.players, pair["earlier"]
    row = {int(t): i for i, t in enumerate(setup.trap_ids)}  # full-deck index -> row of codes/odds
    trap_script = np.array([row[s["trap"]] for s in pair["specs"]] + [row[pair["trap"]]], dtype=np.int64)
    declare_script = np.zeros((r, sc.MAX_PLAYERS), dtype=np.int64)
    for k, spec in enumerate(pair["specs"]):
        declare_script[k, :p] = spec["declare"]
    script = np.array(pair["draws"] + pair["to_come"][state], dtype=np.int64)
    start = np.zeros(sc.MAX_PLAYERS, dtype=np.int64)
    start[:p] = pair["start"]
    status, played = game.kernel_position(setup, lineup, start, pair["final"], (trap_script, declare_script, script))
    assert status != STRATEGY_BROKE_RULES, (lineup.names, pair)
    return game.log_dict(setup, *played)


def _view(pair, log):
    """What the decider may see before declaring in round r: the earlier rounds as played (all
    public once over), round r's number, trap and final flag, and the scores before it."""
    r = pair["earlier"]
    scores = [s + sum(rnd["points"][k] for rnd in log["rounds"][:r]) for k, s in enumerate(pair["start"])]
    now = log["rounds"][r]
    return log["rounds"][:r], (now["round"], now["trap_index"], now["final"]), scores


@pytest.mark.parametrize("name", _strategies())
@pytest.mark.parametrize("players", [3, 4, 5])
def test_declarations_ignore_what_the_seat_cannot_see(players, name):
    """With the same trap, round, scores and final-round flag, every built-in, the example
    plug-in and the peeking plug-in declare the same number of dice whatever the other seats
    declare this round and whatever dice are still to come."""
    game = get_game("sky-city")
    decisions = []
    for pair in _pairs(players):
        decider, r = pair["decider"], pair["earlier"]
        logs = [_declare_round(game, pair, _lineup(players, _seats(pair, name, state)), state) for state in (0, 1)]
        assert [len(log["rounds"]) for log in logs] == [r + 1, r + 1]
        views = [_view(pair, log) for log in logs]
        assert views[0] == views[1]  # the decider's view is the same ...
        checked = pair["checked"]["rounds"]
        assert views[0] == (checked[:r], (r, pair["trap"], checked[r]["final"]), pair["scores"])  # ... and checked
        assert len(set(views[0][2])) == players  # distinct scores: no escape tie-break in round r
        declared = [log["rounds"][r]["declared"] for log in logs]
        for s, ks in pair["ks"].items():  # ... the others' declarations are not ...
            assert [declared[0][s], declared[1][s]] == ks and ks[0] != ks[1]
        dice = [log["rounds"][r]["dice"] for log in logs]
        assert dice[0] and dice[1] and dice[0] != dice[1]  # ... nor the dice rolled after it
        assert dice[0][0] == pair["to_come"][0][0] + 1 and dice[1][0] == pair["to_come"][1][0] + 1
        decision = [d[decider] for d in declared]
        assert 0 <= decision[0] <= _setup(players).dice_per_player
        assert decision[0] == decision[1], (name, pair, decision)
        decisions.append(decision[0])
    assert len(decisions) == PAIRS
    if name == "peek-all":  # it reacts to what it may see: the public view differs between pairs
        assert len(set(decisions)) > 1, decisions


def test_every_rung_of_the_ladder_is_checked():
    """The skill ladder's players (best-response at the top, which reads the scores in the final
    round) are among the strategies the pairs above check."""
    names = _strategies()
    assert set(get_game("sky-city").strategy_module().LADDER) <= set(names)
    assert "best-response" in names and "best-response:0.1" in names


def test_positions_cover_every_seat_round_and_final_flag():
    """The pairs put the decider in every seat at every player count, after 0, 1 and 2 earlier
    rounds, and in a final round both by the flag and by a score reaching the target."""
    for players in (3, 4, 5):
        pairs = _pairs(players)
        assert {p["decider"] for p in pairs} == set(range(players))
        assert {p["earlier"] for p in pairs} == {0, 1, 2}
        finals = [p["checked"]["rounds"][p["earlier"]]["final"] for p in pairs]
        assert finals == [made in FINAL for made in range(PAIRS)]
        assert any(p["final"] for p in pairs) and any(f and not p["final"] for p, f in zip(pairs, finals))
        assert len({tuple(p["scores"]) for p in pairs}) == PAIRS


# --- the peeking plug-in can see --------------------------------------------------------------

def _compiled(path, decision):
    """A plug-in's decision function, compiled as a plug-in build would (plain → njit)."""
    from numba import njit  # after simcore, which points Numba at the shared cache
    from numba.core.registry import CPUDispatcher

    fn = getattr(load_plugin(ROOT / path).module, f"choose_{decision}")
    return fn if isinstance(fn, CPUDispatcher) else njit(fn)


def _blind_slots(decide, arrays, slots, rng, tries=8):
    """The slots ``(array k, index i)`` of ``slots`` where changing that one slot (to ``tries``
    other values) never changed the decision; every decision is checked legal by ``decide``."""
    base = decide(*arrays)
    blind = []
    for k, i in slots:
        moved = False
        for _ in range(tries):
            changed = [a.copy() for a in arrays]
            if changed[k].dtype.kind == "f":
                changed[k][i] += rng.uniform(1e-9, 1.0)
            else:
                changed[k][i] = changed[k].dtype.type((int(changed[k][i]) + rng.randrange(1, 1 << 20)) % (1 << 63))
            moved = moved or decide(*changed) != base
        if not moved:
            blind.append((k, i))
    return blind


def test_peek_plugin_sees_one_changed_slot():
    """The cheating plug-in is a real detector: its compiled decision, called directly, changes
    (always legal) when any one slot of its own parameter row, of the table, of the rules or of
    the streams changes, or any of a sample of odds entries, so a hidden declaration or die
    reaching any of those arguments would have shown in the pairs above.  It is blind to the
    other seats' parameter rows only, by design (their strategy settings, not game state)."""
    rng = random.Random(11)
    setup = _setup(4)
    declare = _compiled("tests/fixtures/plugins/peek_sky_city.py", "declare")
    seat = 2
    params = np.array([[rng.random() for _ in range(4)] for _ in range(sc.MAX_PLAYERS)])
    table = np.full(sc.TABLE_WIDTH, -1, dtype=np.int64)  # declarations -1: not all declared yet
    table[sc.T_ROUND], table[sc.T_FINAL], table[sc.T_TRAP] = 3, 0, 5
    table[sc.T_SCORE:sc.T_SCORE + 4] = [4, 7, 2, 9]
    streams = np.array([12345, 67890], dtype=np.uint64)

    def decide(params, table, rules, odds, streams):
        d = declare(params, seat, table, rules, odds, streams)
        assert 0 <= d <= rules[sc.R_DICE], d  # legal
        return d

    arrays = [params, table, setup.rules.copy(), setup.odds.copy(), streams]
    odds_slots = rng.sample([(t, n) for t in range(setup.odds.shape[0]) for n in range(setup.odds.shape[1])], 24)
    slots = ([(0, (seat, j)) for j in range(params.shape[1])] + [(1, i) for i in range(sc.TABLE_WIDTH)]
             + [(2, i) for i in range(sc.N_RULES)] + [(3, i) for i in odds_slots] + [(4, i) for i in range(2)])
    assert _blind_slots(decide, arrays, slots, rng) == []
    others = [(0, (s, j)) for s in range(sc.MAX_PLAYERS) if s != seat for j in range(params.shape[1])]
    assert _blind_slots(decide, arrays, others, rng) == others
