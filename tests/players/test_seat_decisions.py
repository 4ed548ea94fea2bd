"""``Game.seat_decisions``: how many choices a seat had at each of its decisions, read from a
compiled game's log; `balance bench --search` counts a search player's work with it (a decision
with k >= 2 choices costs d x p x k playouts).

The proof is the reference engine: the same game (seed, index) played by the plain-Python engine
with its random deciders wrapped in a recorder that notes, at every decision it is asked, the
seat and the choices the engine offered.  The kernel's log of that game must give, for every
seat, exactly the recorded counts in the recorded order, at every player count.  Chimera Tricks
and TriATri also count choices that are the same move once (the two slots of an empty sheet;
the interchangeable fakes), as their search weighs them: checked against the recorded choices
merged the same way, and the rules' own count against ``distinct=False``."""
import pytest
from conftest import balance

from simcore.registry import get_game
from simcore.rng import seat_play_streams

SEED = 31
GAMES = 12


def _bird_weather():
    from simcore.games.bird_weather import reference as ref

    specs = {"facedown": lambda seat, hand: (seat, hand, hand),
             "play": lambda seat, hand, legal, view: (seat, legal, legal),
             "pick": lambda seat, available, view: (seat, available, available)}
    return ref, specs, lambda game, setup, record: game._record_dict(record, game.name)


def _chimera():
    from simcore.games.chimera import game as module
    from simcore.games.chimera import reference as ref

    def play(view, seat, hand, moves):  # on an empty sheet slot 0 and slot 1 are mirror images
        empty = not any(view.sheets[seat])
        return seat, moves, {(card, 0 if empty else slot) for card, slot in moves}

    return ref, {"play": play}, lambda game, setup, record: module.record_dict(setup, record)


def _ten_tricks():
    from simcore.games.ten_tricks import game as module
    from simcore.games.ten_tricks import reference as ref

    def swap(view, seat, hand):  # no offer, or any card of the hand
        return seat, [None, *hand], [None, *hand]

    specs = {"swap": swap, "play": lambda view, seat, hand, legal: (seat, legal, legal)}
    return ref, specs, lambda game, setup, record: module.record_dict(setup, record)


def _triatri():
    from simcore.games.triatri import game as module
    from simcore.games.triatri import reference as ref

    def cards(seat, choices, rules):  # the fakes are one printed card
        return seat, choices, {ref.FAKE if ref.is_fake(rules, c) else c for c in choices}

    specs = {"bid": lambda view, seat, hand: cards(seat, hand, view.rules),
             "gem": lambda view, seat, options: (seat, options, options),
             "play": lambda view, seat, legal: cards(seat, legal, view.rules)}
    return ref, specs, lambda game, setup, record: module.record_dict(setup, record)


REFERENCES = {"bird-weather": _bird_weather, "chimera": _chimera, "ten-tricks": _ten_tricks, "triatri": _triatri}
MERGING = {"chimera", "triatri"}  # games whose seat_decisions take distinct=


class Recorder:
    """A decider that asks ``inner`` (the reference's random decider) and notes, at every
    decision, (seat, how many choices the engine offered, how many distinct ones)."""

    def __init__(self, inner, specs):
        self.inner, self.specs, self.asked = inner, specs, []

    def __getattr__(self, decision):
        spec, decide = self.specs[decision], getattr(self.inner, decision)

        def ask(*args):
            seat, offered, distinct = spec(*args)
            self.asked.append((seat, len(offered), len(distinct)))
            return decide(*args)

        return ask


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_seat_decisions_are_the_choices_the_reference_offered(name):
    game = get_game(name)
    ref, specs, as_log = REFERENCES[name]()
    offered_total = distinct_total = searched = 0
    for players in game.player_counts:
        setup = game.setup(players, game.variant())
        rules = game.reference_rules(setup)
        logs = game.kernel_logs(setup, game.lineup("random", players), SEED, range(GAMES))
        for index, log in enumerate(logs):
            recorder = Recorder(ref.RandomDecider(seat_play_streams(SEED, index, players)), specs)
            record = ref.play_game(rules, SEED, index, [recorder] * players)
            assert as_log(game, setup, record)["tricks"] == log["tricks"], (players, index)  # the same game
            for seat in range(players):
                offered = [k for s, k, _ in recorder.asked if s == seat]
                distinct = [k for s, _, k in recorder.asked if s == seat]
                assert game.seat_decisions(setup, log, seat) == distinct, (players, index, seat)
                if name in MERGING:
                    assert game.seat_decisions(setup, log, seat, distinct=False) == offered, (players, index, seat)
                else:
                    assert offered == distinct
                offered_total += sum(offered)
                distinct_total += sum(distinct)
                searched += sum(k >= 2 for k in distinct)
    assert searched > 0  # real choices were counted, not only forced ones
    assert (distinct_total < offered_total) == (name in MERGING)  # the merging was exercised


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_bench_search_counts_the_search_players_work(name):
    """``balance bench GAME --search``: the search's decisions and playouts are counted from the
    logs of the games it played (d x p x choices over its decisions with two or more)."""
    import json

    game = get_game(name)
    players = 3 if 3 in game.player_counts else game.player_counts[0]
    code, out, err = balance("bench", name, "-p", players, "--search", "search:d=2:p=1", "--search-games", 8,
                             "--repeats", 1, "--json")
    assert code == 0, err
    (result,) = json.loads(out)
    assert result["game"] == name and result["budget"].startswith("d=2:p=1")
    assert result["searched_decisions"] > 0 and result["mean_choices"] >= 2
    assert result["playouts"] == round(2 * result["searched_decisions"] * result["mean_choices"])
    assert result["decisions_per_game"] * 8 >= result["searched_decisions"]
    assert len(result["load_average"]) == 3  # the machine's load, printed beside the figures
