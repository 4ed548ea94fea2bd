"""Players for The Sky City of ALEA: one decision a round, how many dice to declare.

``choose_declare(strategy, params, seat, table, rules, odds, streams) -> 0..dice``

Built-ins (``odds[t, n]`` is the exact chance that trap t fires on n fresh dice):
    random          uniform over 0..dice
    fixed:K         always K (0..dice; a K above the variant's dice is refused, Game.check_lineup)
    cautious[:P]    the largest declaration whose trigger odds at the expected number of dice
                    on the table when it rolls stay under P (default 0.25)
    expected-value  the declaration with the best expected points given the exact odds and a
                    model of the others (each declares uniformly at random); in the final round,
                    when behind, it declares enough to overtake the leader if that is possible
"""

import math

from simcore.errors import BalanceError
from simcore.games.sky_city.rules import MAX_DICE_PER_PLAYER, R_DICE, R_MULTIPLIER, R_PLAYERS, R_ZERO_BONUS, T_FINAL, T_SCORE, T_TRAP
from simcore.jit import kernel
from simcore.rng import PLAY, below

RANDOM, FIXED, CAUTIOUS, EXPECTED_VALUE = 0, 1, 2, 3
BUILTIN = {"random": RANDOM, "fixed": FIXED, "cautious": CAUTIOUS, "expected-value": EXPECTED_VALUE}
PLUGIN_BASE = 16
N_PARAMS = 4
P_FIXED_K = 0  # fixed: the declaration
P_THRESHOLD = 0  # cautious: the largest acceptable trigger chance
PARAMETER = {"fixed": (P_FIXED_K, 2.0, "K"), "cautious": (P_THRESHOLD, 0.25, "P")}
# the skill ladder (`balance ladder`) and skill tiers (analysis/skill.py), weakest first; `fixed`
# (always K dice) is a reference point, not a rung: it loses to random play at 3 players
LADDER = ("random", "cautious", "expected-value")
SKILL_TIERS = LADDER


@kernel(globals(), inline="always")
def odds_at(odds, trap, dice):
    """Trigger chance at a fractional expected number of dice (linear between whole counts)."""
    top = odds.shape[1] - 1
    if dice <= 0.0:
        return 0.0
    if dice >= top:
        return odds[trap, top]
    low = int(dice)
    w = dice - low
    return odds[trap, low] * (1.0 - w) + odds[trap, low + 1] * w


@kernel(globals(), inline="always")
def others_dice(k, dice, others):
    """Expected dice the others put on the table before (j < k) and with (j == k) a player
    declaring k, each other declaring uniformly over 0..dice."""
    before = 0.0
    for j in range(1, k):
        before += j
    before *= others / (dice + 1.0)
    alongside = k * others / (dice + 1.0)
    return before, alongside


@kernel(globals())
def cautious_declare(params, seat, table, rules, odds):
    dice = rules[R_DICE]
    others = rules[R_PLAYERS] - 1
    threshold = params[seat, P_THRESHOLD]
    for k in range(dice, 0, -1):
        before, alongside = others_dice(k, dice, others)
        if odds_at(odds, table[T_TRAP], before + alongside + k) < threshold:
            return k
    return 0


@kernel(globals())
def expected_points(k, table, rules, odds):
    """Expected points of declaring k this round, others modelled as uniform declarers."""
    dice = rules[R_DICE]
    others = rules[R_PLAYERS] - 1
    trap = table[T_TRAP]
    mult = rules[R_MULTIPLIER] if table[T_FINAL] != 0 else 1
    if k == 0:
        # paid when the first group to roll triggers: sum over the smallest positive declaration m
        value = 0.0
        for m in range(1, dice + 1):
            at_least_m = ((dice + 2.0 - m) / (dice + 1.0)) ** others
            at_least_next = ((dice + 1.0 - m) / (dice + 1.0)) ** others
            value += (at_least_m - at_least_next) * odds_at(odds, trap, m * (1.0 + (others - 1) / (dice + 1.0)))
        return mult * rules[R_ZERO_BONUS] * value
    before, alongside = others_dice(k, dice, others)
    reach = 1.0 - odds_at(odds, trap, before)
    with_mine = odds_at(odds, trap, before + alongside + k)
    fire_here = max(with_mine - odds_at(odds, trap, before), 0.0)
    escape = (1.0 - with_mine) if before > 0.0 else 0.0  # the first group gets no escape
    return mult * k * (reach - fire_here + fire_here * escape)


@kernel(globals())
def expected_value_declare(seat, table, rules, odds):
    dice = rules[R_DICE]
    best, best_value = 0, -1.0
    for k in range(dice + 1):
        value = expected_points(k, table, rules, odds)
        if value > best_value:
            best, best_value = k, value
    if table[T_FINAL] != 0:
        leader = 0
        for s in range(rules[R_PLAYERS]):
            if s != seat and table[T_SCORE + s] > leader:
                leader = table[T_SCORE + s]
        gap = leader - table[T_SCORE + seat]
        if gap >= 0:
            # behind or level in the last round: the expected-points choice may not be enough to win
            for k in range(1, dice + 1):
                if k * rules[R_MULTIPLIER] > gap:
                    return max(k, best)
            return dice
    return best


@kernel(globals())
def random_declare(params, seat, table, rules, odds, streams):
    return below(streams, PLAY, rules[R_DICE] + 1)


PLUGIN_DECISIONS = {"declare": "params, seat, table, rules, odds, streams"}

if "plugin_declare" not in globals():  # stock build: no plug-ins, never reached

    @kernel(globals())
    def plugin_declare(k, params, seat, table, rules, odds, streams):
        return random_declare(params, seat, table, rules, odds, streams)


@kernel(globals(), inline="always")
def choose_declare(strategy, params, seat, table, rules, odds, streams):
    if strategy == RANDOM:
        return below(streams, PLAY, rules[R_DICE] + 1)
    if strategy == FIXED:
        return min(max(int(params[seat, P_FIXED_K]), 0), rules[R_DICE])
    if strategy == CAUTIOUS:
        return cautious_declare(params, seat, table, rules, odds)
    if strategy == EXPECTED_VALUE:
        return expected_value_declare(seat, table, rules, odds)
    return plugin_declare(strategy - PLUGIN_BASE, params, seat, table, rules, odds, streams)


# the parameter's range: fixed:K declares K of the dice a player has (at most 5; the variant in
# force may give fewer, Game.check_lineup), cautious:P is a probability
RANGES = {"fixed": (0, MAX_DICE_PER_PLAYER, "K, the dice declared every round, a whole number"),
          "cautious": (0.0, 1.0, "P, the largest acceptable chance that the trap fires, a number")}


def describe(name: str, argument: str | None = None) -> str:
    """The strategy with the parameter it plays with: ``fixed (K=2)``, ``cautious (P=0.25)``."""
    if name in PARAMETER:
        slot, _, letter = PARAMETER[name]
        return f"{name} ({letter}={default_params(name, argument)[slot]:g})"
    return name


def default_params(name: str, argument: str | None = None) -> tuple:
    """Parameter row of a built-in; ``fixed:3`` and ``cautious:0.1`` carry their parameter, which
    must lie in its range (refused with the range, never clamped)."""
    row = [0.0] * N_PARAMS
    if name in PARAMETER:
        slot, default, _ = PARAMETER[name]
        row[slot] = default if argument is None else parameter_value(name, argument)
    return tuple(row)


def parameter_value(name: str, argument: str) -> float:
    low, high, what = RANGES[name]
    try:
        value = float(argument)
    except ValueError:
        value = math.nan
    whole = name == "fixed"
    if not (math.isfinite(value) and low <= value <= high and (not whole or value == int(value))):
        raise BalanceError(f"strategy '{name}:{argument}': {what} from {low} to {high}")
    return value
