"""High Card's players: ``choose_play(strategy, params, seat, hand, table, rules, streams)``.
A strategy sees its own hand and the table (best card so far, leader, points): nothing else."""
from simcore.bits import kth_index, popcount
from simcore.jit import kernel
from simcore.rng import PLAY, below

RANDOM, HIGHEST = 0, 1
BUILTIN = {"random": RANDOM, "highest": HIGHEST}
PLUGIN_BASE = 16
N_PARAMS = 1
PLUGIN_DECISIONS = {"play": "params, seat, hand, table, rules, streams"}


@kernel(globals())
def random_play(params, seat, hand, table, rules, streams):
    return kth_index(hand, below(streams, PLAY, popcount(hand))) + 1


if "plugin_play" not in globals():  # stock build: no plug-ins, never reached

    @kernel(globals())
    def plugin_play(k, params, seat, hand, table, rules, streams):
        return random_play(params, seat, hand, table, rules, streams)


@kernel(globals())
def choose_play(strategy, params, seat, hand, table, rules, streams):
    if strategy == RANDOM:
        return random_play(params, seat, hand, table, rules, streams)
    if strategy == HIGHEST:
        return kth_index(hand, popcount(hand) - 1) + 1
    return plugin_play(strategy - PLUGIN_BASE, params, seat, hand, table, rules, streams)


def default_params(name: str, argument: str | None = None) -> tuple:
    return (0.0,) * N_PARAMS
