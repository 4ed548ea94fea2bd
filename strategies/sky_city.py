"""Players for The Sky City of ALEA: one decision a round, how many dice to declare.

``choose_declare(strategy, params, seat, table, rules, odds, streams) -> 0..dice``

Built-ins (``odds[t, n]`` is the exact chance that trap t fires on n fresh dice):
    random            uniform over 0..dice
    fixed:K           always K (0..dice; a K above the variant's dice is refused, Game.check_lineup)
    cautious[:P]      the largest declaration whose trigger odds at the expected number of dice
                      on the table when it rolls stay under P (default 0.25)
    expected-value    the declaration with the best expected points given the exact odds and a
                      model of the others (each declares uniformly at random); in the final round,
                      when behind, it declares enough to overtake the leader if that is possible
    best-response[:P] the best reply to a table of ``cautious:P`` players (default 0.25): it works
                      out what they declare for the revealed trap (they read nothing else), walks
                      the round group by group with the exact odds for each of its own
                      declarations, and takes the most expected points, or in the final round
                      the best chance to win the game from the scores (ties: more points)

Why the ladder's top rung is ``best-response``, not ``expected-value`` (issue 15): a rung must
beat a field of the rung below.  ``expected-value`` models the others as uniform declarers, a
poor model of a field of cautious players: at 3 players it wins no more than its fair share
among them (33.8% [32.1, 35.6] of 8,000 games, seed 1).  ``best-response`` models that field as
it is and wins 66.0% [64.3, 67.7] there (8,001 games, seed 1; docs/search.md has every player
count).  It is a counter to one kind of field, not an equilibrium: a table of best-response
players is itself beaten by a lone ``expected-value`` player.  ``expected-value`` stays a reference point (its
figures are documented across the docs), like ``fixed``.
"""

import math

import numpy as np

from simcore.errors import BalanceError
from simcore.games.sky_city.rules import (
    MAX_DICE_PER_PLAYER, MAX_PLAYERS, R_DICE, R_FIRST_FAILURE_ENDS, R_MULTIPLIER, R_PLAYERS, R_ZERO_BONUS, T_FINAL,
    T_SCORE, T_TRAP,
)
from simcore.jit import kernel
from simcore.rng import PLAY, below

RANDOM, FIXED, CAUTIOUS, EXPECTED_VALUE, BEST_RESPONSE = 0, 1, 2, 3, 4
BUILTIN = {"random": RANDOM, "fixed": FIXED, "cautious": CAUTIOUS, "expected-value": EXPECTED_VALUE,
           "best-response": BEST_RESPONSE}
PLUGIN_BASE = 16
N_PARAMS = 4
P_FIXED_K = 0  # fixed: the declaration
P_THRESHOLD = 0  # cautious: the largest acceptable trigger chance; best-response: the one it expects of the others
PARAMETER = {"fixed": (P_FIXED_K, 2.0, "K"), "cautious": (P_THRESHOLD, 0.25, "P"),
             "best-response": (P_THRESHOLD, 0.25, "P")}
# the skill ladder (`balance ladder`) and skill tiers (analysis/skill.py), weakest first; `fixed`
# (always K dice) and `expected-value` are reference points, not rungs: fixed:K loses to random
# play at 3 players, expected-value is no stronger than cautious at 3 players (module docstring)
LADDER = ("random", "cautious", "best-response")
SKILL_TIERS = LADDER
# players that compute their reply from a model of the others, not rules of thumb: `balance
# exploits` leaves them out of its candidates unless they are named (analysis/exploits.py)
COMPUTED = ("best-response",)


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


@kernel(globals(), refcounts=False)
def cautious_count(threshold, trap, rules, odds):
    """What a cautious player with this threshold declares for this trap (it reads nothing else)."""
    dice = rules[R_DICE]
    others = rules[R_PLAYERS] - 1
    for k in range(dice, 0, -1):
        before, alongside = others_dice(k, dice, others)
        if odds_at(odds, trap, before + alongside + k) < threshold:
            return k
    return 0


@kernel(globals(), refcounts=False)
def cautious_declare(params, seat, table, rules, odds):
    return cautious_count(params[seat, P_THRESHOLD], table[T_TRAP], rules, odds)


@kernel(globals(), refcounts=False)
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


@kernel(globals(), refcounts=False)
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


@kernel(globals(), inline="always")
def fire_chance(odds, trap, held, after):
    """The chance the trap fires when the table grows to ``after`` dice, the first ``held`` of
    which were judged not to fire (``held`` 0: fresh dice, the exact odds).  Exact for a trap
    that, having fired, fires on any added dice (faces present, letter patterns, totals and
    counts of at least k: odds[after] - odds[held] of the chance lies in the added dice); for a
    trap that added dice can switch off (an exact count, more 6s than 1s) an estimate."""
    if held == 0:
        return odds[trap, after]
    quiet = 1.0 - odds[trap, held]
    if quiet <= 0.0:
        return 1.0
    return min(max((odds[trap, after] - odds[trap, held]) / quiet, 0.0), 1.0)


@kernel(globals(), inline="always")
def outcome_worth(gained, me, table, rules, win):
    """What a round ending with ``gained`` points (per seat) is worth to seat ``me``: its points,
    or (``win``, the final round) its share of the win, a tie for the top being a roll-off."""
    if not win:
        return float(gained[me])
    top, tied = -1, 0
    for s in range(rules[R_PLAYERS]):
        total = table[T_SCORE + s] + gained[s]
        if total > top:
            top, tied = total, 1
        elif total == top:
            tied += 1
    return 1.0 / tied if table[T_SCORE + me] + gained[me] == top else 0.0


ROUND_WORTH_WORK = 6 * MAX_PLAYERS  # round_worth's scratch: its two rows, then escapes_worth's four


@kernel(globals(), refcounts=False)
def escapes_worth(declared, k, gained, me, table, rules, stay, points, win, work):
    """A later group of count ``k`` fired: the rounds that END during its escapes (some escaper's
    reroll fires; each reroll stays quiet with chance ``stay``), summed with their chances and
    worth.  (All escaping is the round going on: the caller's business.)  By the rulebook every
    escaper rerolls and each who clears scores, so the escapes are independent and their order
    does not matter; under ``first_failure_ends_escapes`` it does (first_failure_worth).
    ``work``: int64 scratch of 4 * MAX_PLAYERS, so that nothing is allocated per call."""
    n = rules[R_PLAYERS]
    group = work[:n]
    m = 0
    for s in range(n):
        if declared[s] == k:
            group[m] = s
            m += 1
    if rules[R_FIRST_FAILURE_ENDS] != 0:
        return first_failure_worth(group, m, declared, k, gained, me, table, rules, stay, points, win, work)
    if not win:
        # my points so far stay mine; as an escaper I also score when I clear and another fails
        kept = gained[me] * (1.0 - stay ** m)
        if declared[me] != k:
            return kept
        return kept + points * stay * (1.0 - stay ** (m - 1))
    # the final round: every set of escapers that cleared, but all of them (at most 2^4 sets)
    outcome = work[3 * MAX_PLAYERS:3 * MAX_PLAYERS + n]
    total = 0.0
    for cleared in range((1 << m) - 1):
        chance = 1.0
        for s in range(n):
            outcome[s] = gained[s]
        for j in range(m):
            if (cleared >> j) & 1:
                chance *= stay
                outcome[group[j]] += points
            else:
                chance *= 1.0 - stay
        total += chance * outcome_worth(outcome, me, table, rules, True)
    return total


@kernel(globals(), refcounts=False)
def first_failure_worth(group, m, declared, k, gained, me, table, rules, stay, points, win, work):
    """escapes_worth under ``first_failure_ends_escapes``: escapers go lowest score first (a tie
    drawn at random, so every order the scores allow is equally likely) and the first reroll
    that fires ends the round, so the later escapers of the group score nothing."""
    n = rules[R_PLAYERS]
    if not win:
        # my points so far stay mine; if I am an escaper, only my place in the order matters,
        # uniform over the places tied with my score
        kept = gained[me] * (1.0 - stay ** m)
        if declared[me] != k:
            return kept
        lower, level = 0, 0
        for i in range(m):
            if table[T_SCORE + group[i]] < table[T_SCORE + me]:
                lower += 1
            elif table[T_SCORE + group[i]] == table[T_SCORE + me]:
                level += 1
        value = 0.0
        for place in range(lower, lower + level):
            value += stay ** (place + 1) - stay ** m  # I score, then a later escaper fails
        return kept + points * value / level
    # the final round: every order the scores allow (Heap's algorithm over the group, at most 120)
    order = work[MAX_PLAYERS:MAX_PLAYERS + m]
    swaps = work[2 * MAX_PLAYERS:2 * MAX_PLAYERS + m]
    for j in range(m):
        order[j] = group[j]
        swaps[j] = 0
    outcome = work[3 * MAX_PLAYERS:3 * MAX_PLAYERS + n]
    total, orders = 0.0, 0
    i = 0
    visit = True
    while True:
        if visit:
            allowed = True
            for j in range(1, m):
                if table[T_SCORE + order[j]] < table[T_SCORE + order[j - 1]]:
                    allowed = False
            if allowed:
                orders += 1
                for s in range(n):
                    outcome[s] = gained[s]
                for j in range(m):  # escapers 0..j-1 scored, escaper j fails
                    total += stay ** j * (1.0 - stay) * outcome_worth(outcome, me, table, rules, True)
                    outcome[order[j]] += points
            visit = False
        if i >= m:
            break
        if swaps[i] < i:
            if i % 2 == 0:
                order[0], order[i] = order[i], order[0]
            else:
                order[swaps[i]], order[i] = order[i], order[swaps[i]]
            swaps[i] += 1
            i = 0
            visit = True
        else:
            swaps[i] = 0
            i += 1
    return total / orders


@kernel(globals(), refcounts=False)
def round_worth(declared, me, table, rules, odds, win, work):
    """Exactly what this round is worth to seat ``me`` if every seat declares ``declared``: its
    expected points, or (``win``) its chance to win the game in this final round.  The round is
    walked group by group: the table either stays quiet (everyone in the group scores; an
    all-escaped group too) or the round ends there, in the first group's trigger (0-declarers
    paid) or in a failed escape.  ``work``: int64 scratch of 6 * MAX_PLAYERS (ROUND_WORTH_WORK).
    It and escapes_worth allocate nothing and take no reference counts: with an array allocated
    on every call, those were three quarters of a best-response game's time (perf, 2026-11-27)."""
    n = rules[R_PLAYERS]
    trap = table[T_TRAP]
    mult = rules[R_MULTIPLIER] if table[T_FINAL] != 0 else 1
    gained = work[:n]  # points so far on the path where the round goes on
    for s in range(n):
        gained[s] = 0
    outcome = work[MAX_PLAYERS:MAX_PLAYERS + n]
    going, value, held = 1.0, 0.0, 0
    for k in range(1, rules[R_DICE] + 1):
        m = 0
        for s in range(n):
            if declared[s] == k:
                m += 1
        if m == 0:
            continue
        after = held + k * m
        fire = fire_chance(odds, trap, held, after)
        if held == 0:  # the first group: no escape, the 0-declarers are paid
            for s in range(n):
                outcome[s] = rules[R_ZERO_BONUS] * mult if declared[s] == 0 else 0
            value += going * fire * outcome_worth(outcome, me, table, rules, win)
            going *= 1.0 - fire
        else:
            stay = 1.0 - odds[trap, after]  # an escape rerolls every die on the table
            value += going * fire * escapes_worth(declared, k, gained, me, table, rules, stay, k * mult, win,
                                                  work[2 * MAX_PLAYERS:])
            going *= 1.0 - fire + fire * stay ** m
        for s in range(n):
            if declared[s] == k:
                gained[s] += k * mult
        held = after
    return value + going * outcome_worth(gained, me, table, rules, win)


@kernel(globals(), refcounts=True)  # it allocates its model of the others and round_worth's scratch
def best_response_declare(params, seat, table, rules, odds):
    """The best declaration against others who play ``cautious`` at threshold params[seat, 0]:
    the most expected points, or in the final round the best chance to win (ties: more points)."""
    n = rules[R_PLAYERS]
    scratch = np.empty(MAX_PLAYERS + ROUND_WORTH_WORK, dtype=np.int64)
    declared = scratch[:n]
    work = scratch[MAX_PLAYERS:]
    model = cautious_count(params[seat, P_THRESHOLD], table[T_TRAP], rules, odds)
    for s in range(n):
        declared[s] = model
    final = table[T_FINAL] != 0
    best, best_win, best_points = 0, -1.0, -1.0
    for k in range(rules[R_DICE] + 1):
        declared[seat] = k
        points = round_worth(declared, seat, table, rules, odds, False, work)
        win = round_worth(declared, seat, table, rules, odds, True, work) if final else 0.0
        if win > best_win + 1e-12 or (win > best_win - 1e-12 and points > best_points + 1e-12):
            best, best_win, best_points = k, win, points
    return best


@kernel(globals(), refcounts=False)
def random_declare(params, seat, table, rules, odds, streams):
    return below(streams, PLAY, rules[R_DICE] + 1)


PLUGIN_DECISIONS = {"declare": "params, seat, table, rules, odds, streams"}
# the types the play loop passes them, in Numba's notation: a plug-in's functions are compiled
# for these alone, apart from the loop (simcore/plugins/table.py, plugin_row)
PLUGIN_TYPES = {
    "declare": "float64[:, ::1], int64, int64[::1], int64[::1], float64[:, ::1], uint64[::1]",
}

if "plugin_declare" not in globals():  # stock build: no plug-ins, never reached

    @kernel(globals(), refcounts=True)
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
    if strategy == BEST_RESPONSE:
        return best_response_declare(params, seat, table, rules, odds)
    return plugin_declare(strategy - PLUGIN_BASE, params, seat, table, rules, odds, streams)


# the parameter's range: fixed:K declares K of the dice a player has (at most 5; the variant in
# force may give fewer, Game.check_lineup), cautious:P is a probability
RANGES = {"fixed": (0, MAX_DICE_PER_PLAYER, "K, the dice declared every round, a whole number"),
          "cautious": (0.0, 1.0, "P, the largest acceptable chance that the trap fires, a number"),
          "best-response": (0.0, 1.0, "P, the threshold of the cautious players it expects, a number")}


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
