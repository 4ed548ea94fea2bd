"""A plug-in that tries to cheat: it picks its card by the other seats' face-down cards as the
table shows them.  Before the play loop hid them (FACEDOWN_HIDDEN), its choice moved with cards it
may not see; tests/test_hidden_information.py checks that it no longer does."""
from simcore.bits import kth_index, popcount
from simcore.games.bird_weather.rules import T_FACEDOWN

GAME = "bird-weather"
NAME = "peek-facedown"


def choose_play(params, seat, hand, legal, seen, table, number, follow, rules, streams):
    peeked = 0
    for s in range(rules[0]):
        if s != seat:
            peeked += table[T_FACEDOWN + s] + 3  # another seat's card, if the table showed it
    return kth_index(legal, peeked % popcount(legal))
