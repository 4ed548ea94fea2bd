"""What every card game's `search` player shares: its budget, its own random numbers, and
dealing the cards a seat has not seen in a way consistent with what it has seen.

The search is Perfect Information Monte Carlo (PIMC), the method of expert Skat and Bridge
programs (Ginsberg's GIB; Long, Sturtevant, Buro & Furtak, "Understanding the Success of Perfect
Information Monte Carlo Sampling in Game Tree Search", AAAI 2010): at each decision it deals the
unseen cards to the other seats in ``determinizations`` ways consistent with everything its seat
has seen (cards played, suits or colours a seat failed to follow, cards it knows), plays every
legal move in each of those deals and finishes the game ``playouts`` times with a fast policy,
and plays the move with the best total.  Every move meets the same deals and the same playout
draws (common random numbers), so the comparison between moves is sharper than the budget
alone would give.

A game's search lives beside its other players (``strategies/<game>.py``), because its playouts
call them; this module holds only what does not know the game.

Random numbers: a decision draws ONE number from its seat's PLAY stream and runs every deal and
playout on a local SplitMix64 state seeded from it.  The stream a seat receives is its own, so
a search never moves another seat's draws, and the result is the same for any thread count.
"""
import math

import numpy as np

from simcore.bits import bit, kth_set_bit, lowest_index, popcount
from simcore.errors import BalanceError
from simcore.jit import kernel
from simcore.rng import PLAY, next_u64, step_below

# the parameter row of a search seat
P_DETERMINIZATIONS, P_PLAYOUTS, P_POLICY, P_MARGIN = 0, 1, 2, 3
POLICY_RANDOM, POLICY_GREEDY, POLICY_HEURISTIC = 0, 1, 2
POLICY_NAMES = {"random": POLICY_RANDOM, "greedy": POLICY_GREEDY, "heuristic": POLICY_HEURISTIC}
MAX_DETERMINIZATIONS = 4096
MAX_PLAYOUTS = 256
MAX_MARGIN = 1.0
SPEC_KEYS = {  # key in `search:key=value:...` -> (slot, what it is)
    "d": (P_DETERMINIZATIONS, f"determinizations per decision, 1..{MAX_DETERMINIZATIONS}"),
    "p": (P_PLAYOUTS, f"playouts per move and determinization, 1..{MAX_PLAYOUTS}"),
    "policy": (P_POLICY, "playout policy: random, greedy or heuristic"),
    "margin": (P_MARGIN, f"weight of the points margin beside the win share, 0..{MAX_MARGIN}"),
}
DEAL_TRIES = 16  # attempts at a deal that respects every known void before relaxing them
MAX_DEAL_SEATS = 15  # seats deal_unseen can order (4 bits each in one uint64)
NIBBLE = np.uint64(15)


def search_params(argument: str | None, defaults: tuple) -> tuple:
    """The parameter row of ``search:d=32:p=2:policy=heuristic:margin=0.1`` (any keys, any order;
    the rest from ``defaults``), or one line saying what is wrong."""
    row = list(defaults)
    if not argument:
        return tuple(row)
    for part in argument.split(":"):
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or key not in SPEC_KEYS:
            keys = ", ".join(f"{k}= ({what})" for k, (_, what) in SPEC_KEYS.items())
            raise BalanceError(f"search budget '{part}' is not key=value with a known key: {keys}")
        slot, what = SPEC_KEYS[key]
        if key == "policy":
            if value not in POLICY_NAMES:
                raise BalanceError(f"search policy must be random, greedy or heuristic, not '{value}'")
            row[slot] = float(POLICY_NAMES[value])
            continue
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            raise BalanceError(f"search {key}= must be a number ({what}), not '{value}'")
        if key == "margin":
            if not 0.0 <= number <= MAX_MARGIN:
                raise BalanceError(f"search margin= must be {what}, not {value}")
        else:
            top = MAX_DETERMINIZATIONS if key == "d" else MAX_PLAYOUTS
            if number != int(number) or not 1 <= number <= top:
                raise BalanceError(f"search {key}= must be a whole number {what}, not {value}")
        row[slot] = number
    return tuple(row)


def describe_params(row) -> str:
    """``d=24:p=1:policy=random:margin=0.05``: a search seat's budget as the spec writes it."""
    policy = {v: k for k, v in POLICY_NAMES.items()}[int(row[P_POLICY])]
    return (f"d={int(row[P_DETERMINIZATIONS])}:p={int(row[P_PLAYOUTS])}:policy={policy}"
            f":margin={row[P_MARGIN]:g}")


def describe_search(argument: str | None, defaults: tuple) -> str:
    """``search (d=24, p=1, policy=random, margin=0.05)``: the player with the budget it plays with."""
    return f"search ({describe_params(search_params(argument, defaults)).replace(':', ', ')})"


# --- what a card game whose built-ins are random, greedy, heuristic and search declares ----------

RANDOM, GREEDY, HEURISTIC, SEARCH = 0, 1, 2, 3  # the built-ins' strategy ids
BUILTIN = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC, "search": SEARCH}
PLUGIN_BASE = 16  # plug-ins get ids from here up
N_PARAMS = 4  # parameter slots per seat (plug-ins may use them)
PARAMETER = {"search": "budget"}  # strategies that take `name:argument` (Game.lineup)
SKILL_TIERS = ("random", "heuristic", "search")  # skill vs luck (analysis/skill.py); the last the strongest


def card_game_players(search_defaults: tuple, heuristic_defaults: tuple, n_params: int):
    """A card game's ``describe`` and ``default_params`` (Game.lineup), from its search budget's
    defaults and its heuristic's tuning; every other built-in takes a row of zeros."""

    def describe(name: str, argument: str | None = None) -> str:
        """The strategy with the parameters it plays with: ``search (d=24, p=1, policy=random, margin=0.05)``."""
        return describe_search(argument, search_defaults) if name == "search" else name

    def default_params(name: str, argument: str | None = None) -> tuple:
        """Parameter row of a built-in strategy (``search``: its budget, ``d=..:p=..``, checked)."""
        if name == "search":
            return search_params(argument, search_defaults)
        if name == "heuristic":
            return heuristic_defaults
        return (0.0,) * n_params

    return describe, default_params


@kernel(globals(), inline="always")
def search_setup(params, seat, streams, seats, heuristic_defaults):
    """What every search decision starts from: its playout policy and margin (the seat's row of
    ``params``), its own random numbers (``search_rng``: one draw from the seat's PLAY stream) and
    the playouts' parameter rows (``heuristic_rows``)."""
    policy, margin = np.int64(params[seat, P_POLICY]), params[seat, P_MARGIN]
    rng = search_rng(streams)
    return policy, margin, rng, heuristic_rows(seats, heuristic_defaults)


@kernel(globals(), inline="always")
def heuristic_rows(seats, defaults):
    """The parameter matrix of a playout: every seat that plays ``heuristic`` uses its default
    tuning ``defaults`` (a game's HEURISTIC_DEFAULTS)."""
    hp = np.empty((seats, len(defaults)), dtype=np.float64)
    for s in range(seats):
        for k in range(len(defaults)):
            hp[s, k] = defaults[k]
    return hp


# --- the decision's own random numbers -------------------------------------------------------

@kernel(globals(), inline="always")
def search_rng(streams):
    """A one-slot generator for one decision, seeded by ONE draw from the seat's PLAY stream."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = next_u64(streams, PLAY)
    return rng


@kernel(globals(), inline="always")
def below_local(rng, n):
    """Uniform integer in [0, n) from the local generator (as ``simcore.rng.below``)."""
    value, state = step_below(rng[0], n)
    rng[0] = state
    return value


@kernel(globals(), inline="always")
def random_subset(mask, k, rng):
    """``k`` cards drawn uniformly without replacement from ``mask`` (k <= popcount(mask))."""
    out = np.uint64(0)
    for _ in range(k):
        c = kth_set_bit(mask, below_local(rng, popcount(mask)))
        out |= bit(c)
        mask &= ~bit(c)
    return out


# --- dealing the unseen cards ----------------------------------------------------------------

@kernel(globals(), refcounts=False)
def deal_unseen(pool, need, voids, n_seats, hands_out, rng):
    """Deal ``need[s]`` cards of ``pool`` to each seat s (hands_out[s]), never giving a seat a
    card of ``voids[s]`` (cards it is known not to hold).  Seats with the least room are dealt
    first; if a deal runs dry it is tried again (DEAL_TRIES times) and then dealt ignoring the
    voids, so a decision never stalls.  Returns the cards left over (not dealt to anyone).

    The deal is uniform when no seat has a void; with voids it is the usual sequential
    approximation of PIMC programs (each seat uniform over what it may still hold)."""
    # The dealing order, most constrained first: an insertion sort on room (the cards a seat may
    # hold less the cards it needs), stable, kept as 4-bit seat numbers in one integer (position
    # i in bits 4i..4i+3, so at most MAX_DEAL_SEATS seats).  No array: an allocation and its
    # reference counts cost more than the sort, and this runs once per determinization.
    order = np.uint64(0)
    for s in range(n_seats):
        room = popcount(pool & ~voids[s]) - need[s]
        j = s
        while j > 0:
            before = np.int64((order >> np.uint64(4 * (j - 1))) & NIBBLE)
            if room >= popcount(pool & ~voids[before]) - need[before]:
                break
            j -= 1
        below = order & ((np.uint64(1) << np.uint64(4 * j)) - np.uint64(1))
        order = below | (np.uint64(s) << np.uint64(4 * j)) | ((order ^ below) << np.uint64(4))
    for attempt in range(DEAL_TRIES + 1):
        rest = pool
        dealt = True
        for i in range(n_seats):
            s = np.int64((order >> np.uint64(4 * i)) & NIBBLE)
            allowed = rest if attempt == DEAL_TRIES else rest & ~voids[s]
            if popcount(allowed) < need[s]:
                dealt = False
                break
            hands_out[s] = random_subset(allowed, need[s], rng)
            rest &= ~hands_out[s]
        if dealt:
            return rest
    return rest  # unreachable: the last attempt ignores the voids and the pool holds enough


@kernel(globals(), inline="always")
def best_move(totals, moves):
    """The move of ``moves`` (a mask) with the highest total; ties go to the lowest index."""
    best = -1
    best_total = -1e300
    m = moves
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        if totals[c] > best_total:
            best_total = totals[c]
            best = c
    return best


@kernel(globals(), inline="always")
def start_playout(table, ptable, deal_hands, hands, n_players):
    """Reset a playout's table and hands to the decision's table and the determinization's hands."""
    ptable[:] = table
    for s in range(n_players):
        hands[s] = deal_hands[s]
