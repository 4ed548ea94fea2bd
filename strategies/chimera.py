"""Players for Chimera Tricks, compiled into the kernel's dispatch.

One decision, a function of the strategy id, the parameter matrix (row = seat) and the public
state (T_* layout in simcore/games/chimera.py; ``hand`` is the deciding seat's own hand):

    choose_play(...) -> the move ``card * 2 + slot``; ``m0`` / ``m1`` are the cards that may go
                        into slot 0 / slot 1 (the legal moves are every card of ``m0`` with slot 0
                        and every card of ``m1`` with slot 1, ascending (card, slot))

Built-ins:
    random     uniform over the legal (card, slot) moves: ``moves[below(PLAY, len(moves))]``,
               draw for draw the reference's RandomDecider
    greedy     when the face-up grimoire is positive, plays for the highest field that wins for
               now (the cheaper card on ties); otherwise loses with its lowest card (or, if every
               move wins for now, leaves the lowest field)
    heuristic  weighs every legal move by its chance of winning (the unseen cards that would let
               each later seat beat the field, given their sheets) times what the grimoire is worth
               to it now — the exact change of its round score, so a crystal card on top that
               rescues a negative grimoire counts in full — against what the sheet left behind is
               worth for the next, already visible, grimoire (both top suits and the sums the hand
               can still make: chimeras built on purpose); a card won with is spent

Plug-ins get ids from PLUGIN_BASE up; simcore/plugins.py re-executes this file with a
``plugin_play`` dispatcher that calls the user's ``choose_play`` (same arguments as
``random_play``).
"""
import numpy as np

from simcore.bits import bit, has, lowest_index, popcount
from simcore.games.chimera import (
    M_CRYSTAL, M_DECK, M_SUIT, R_PLAYERS, R_TRICKS, R_VALUES, SCRATCH_WIDTH, T_CRYSTALS, T_CRYSTALS_LEFT,
    T_GRIMOIRE, T_LEAD, T_LEADER, T_NEXT, T_PLAYED, T_RANK, T_SCRATCH, T_SEEN, T_SUITS, T_TAKEN, T_TOP, T_TOP_RANK,
    T_TRICK, T_VALUE, best_following_rank, field_after, kth_move, move_count, placed_rank, round_score, suit_of,
)
from simcore.jit import kernel
from simcore.rng import PLAY, below

RANDOM, GREEDY, HEURISTIC = 0, 1, 2
BUILTIN = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC}
PLUGIN_BASE = 16
N_PARAMS = 4  # parameter slots per seat (plug-ins may use them)

# heuristic tuning (parameter row defaults): next = weight of the sheet left behind, per point of
# the next grimoire; crystal = worth of a crystal that rescues nothing yet (negatives may come);
# card = cost per rank of a card spent on a win; lead_odds = how likely a kept sheet wins when the
# next lead is one of its suits and it is strong (scaled by its best reachable rank).
H_NEXT, H_CRYSTAL, H_CARD, H_KEEP = 0, 1, 2, 3
HEURISTIC_DEFAULTS = (0.5, 1.0, 0.05, 1.0)
RANK_CAP = 40           # ranks at or above this are one bin in the heuristic's counts
BINS = RANK_CAP + 1


# --- shared helpers ------------------------------------------------------------

@kernel(globals(), inline="always")
def best_so_far(table, lead, n_players):
    """The highest field rank holding ``lead`` among the seats that played to this trick."""
    best = -1
    seat = table[T_LEADER]
    for _ in range(table[T_PLAYED]):
        if (table[T_SUITS + seat] >> lead) & 1:
            best = max(best, table[T_RANK + seat])
        seat += 1
        if seat == n_players:
            seat = 0
    return best


# --- random -----------------------------------------------------------------

@kernel(globals(), inline="always")
def random_play(params, seat, hand, m0, m1, table, rules, masks, streams):
    return kth_move(m0, m1, below(streams, PLAY, move_count(m0, m1)))


# --- greedy -----------------------------------------------------------------

@kernel(globals())
def greedy_play(seat, m0, m1, table, rules):
    n_players = rules[R_PLAYERS]
    lead = table[T_LEAD]
    want = rules[R_VALUES + table[T_GRIMOIRE]] > 0
    top0, rank0 = table[T_TOP + 2 * seat], table[T_TOP_RANK + 2 * seat]
    top1, rank1 = table[T_TOP + 2 * seat + 1], table[T_TOP_RANK + 2 * seat + 1]
    beat = best_so_far(table, lead, n_players) if lead >= 0 else -1
    chosen = -1
    chosen_value = -1e18
    both = m0 | m1
    while both:
        card = lowest_index(both)
        both &= both - np.uint64(1)
        cost = placed_rank(card, top0, top1, rules)
        for slot in range(2):
            if not has(m1 if slot else m0, card):
                continue
            suits, rank = field_after(top0, rank0, top1, rank1, card, slot, rules)
            suit = lead if lead >= 0 else suit_of(card)
            wins = (suits >> suit) & 1 and rank >= beat
            if want:
                value = 1000.0 + 10.0 * rank - cost if wins else -cost
            else:
                value = -1000.0 - 10.0 * rank - cost if wins else -cost
            if value > chosen_value:
                chosen, chosen_value = card * 2 + slot, value
    return chosen


# --- heuristic ----------------------------------------------------------------

@kernel(globals())
def threat_counts(table, rules, masks, seat, unseen, lead, base):
    """For each later seat (i = 1, 2, ... after ``seat``) and rank r, how many unseen cards would
    give that seat a field holding ``lead`` of rank >= r (capped at RANK_CAP), written to the
    scratch area at ``base + (i - 1) * BINS + r``."""
    n_players = rules[R_PLAYERS]
    later = n_players - 1 - table[T_PLAYED]
    for i in range(1, later + 1):
        other = seat + i
        if other >= n_players:
            other -= n_players
        row = base + (i - 1) * BINS
        for r in range(BINS):
            table[row + r] = 0
        top0, rank0 = table[T_TOP + 2 * other], table[T_TOP_RANK + 2 * other]
        top1, rank1 = table[T_TOP + 2 * other + 1], table[T_TOP_RANK + 2 * other + 1]
        open0 = not (top0 >= 0 and top1 < 0)     # one card in slot 0: only slot 1 is open
        open1 = not (top1 >= 0 and top0 < 0)
        cards = unseen
        while cards:
            card = lowest_index(cards)
            cards &= cards - np.uint64(1)
            b = bit(card)
            best = best_following_rank(top0, rank0, top1, rank1, b if open0 else np.uint64(0),
                                       b if open1 else np.uint64(0), lead, rules, masks)
            if best >= 0:
                table[row + min(best, RANK_CAP)] += 1
        for r in range(RANK_CAP - 1, -1, -1):    # suffix sums: cards reaching at least r
            table[row + r] += table[row + r + 1]


@kernel(globals())
def sheet_worth(top0, rank0, top1, rank1, rest, rules, masks, keep):
    """How promising a sheet left on the table is for the next trick (0..~1): for each suit on
    top, the best rank the hand can still make with it (a sum with a card of that suit, or the
    top itself beside another suit), weighted by the chance that suit is led."""
    worth = 0.0
    for k in range(2):
        top = top0 if k == 0 else top1
        if top < 0:
            continue
        rank = rank0 if k == 0 else rank1
        same = rest & masks[M_SUIT + suit_of(top)]
        reach = rank
        cards = same
        while cards:
            card = lowest_index(cards)
            cards &= cards - np.uint64(1)
            r = placed_rank(card, top0, top1, rules)
            reach = max(reach, rank + r)
        worth += min(max((reach - 4.0) / 12.0, 0.0), 1.0)
    return keep * worth / 4.0


@kernel(globals())
def heuristic_play(params, seat, hand, m0, m1, table, rules, masks):
    n_players = rules[R_PLAYERS]
    lead = table[T_LEAD]
    top0, rank0 = table[T_TOP + 2 * seat], table[T_TOP_RANK + 2 * seat]
    top1, rank1 = table[T_TOP + 2 * seat + 1], table[T_TOP_RANK + 2 * seat + 1]
    grimoire = table[T_GRIMOIRE]
    after = table[T_NEXT]
    # what the face-up grimoire is worth to this seat now: the exact change of its round score
    taken = np.uint64(table[T_TAKEN + seat])
    value = table[T_VALUE + seat]
    crystals = table[T_CRYSTALS + seat]
    v = rules[R_VALUES + grimoire]
    now = round_score(taken, value, crystals, rules)[0]
    gain = round_score(taken | bit(grimoire), value + v, crystals, rules)[0] - now
    gain_crystal = gain
    if table[T_CRYSTALS_LEFT] > 0:
        gain_crystal = round_score(taken | bit(grimoire), value + v, crystals + 1, rules)[0] - now
        if gain_crystal == gain:
            gain_crystal += params[seat, H_CRYSTAL]     # a spare crystal: a negative may still come
    v_next = rules[R_VALUES + after] if after >= 0 else 0
    unseen = masks[M_DECK] & ~np.uint64(table[T_SEEN]) & ~hand
    n_unseen = popcount(unseen)
    later = n_players - 1 - table[T_PLAYED]
    held = rules[R_TRICKS] - table[T_TRICK]             # cards in each later seat's hand
    share = min(1.0, held / n_unseen) if n_unseen > 0 else 0.0
    beat = best_so_far(table, lead, n_players) if lead >= 0 else -1
    # the threats: per lead suit in question (the leader's own card decides it)
    if lead >= 0:
        threat_counts(table, rules, masks, seat, unseen, lead, T_SCRATCH)
    else:
        for s in range(4):
            if (m0 | m1) & masks[M_SUIT + s]:
                threat_counts(table, rules, masks, seat, unseen, s, T_SCRATCH + s * 3 * BINS)

    chosen = -1
    chosen_value = -1e18
    both = m0 | m1
    while both:
        card = lowest_index(both)
        both &= both - np.uint64(1)
        rest = hand & ~bit(card)
        cost = params[seat, H_CARD] * placed_rank(card, top0, top1, rules)
        suit = lead if lead >= 0 else suit_of(card)
        base = T_SCRATCH if lead >= 0 else T_SCRATCH + suit * 3 * BINS
        for slot in range(2):
            if not has(m1 if slot else m0, card):
                continue
            suits, rank = field_after(top0, rank0, top1, rank1, card, slot, rules)
            p = 0.0
            if (suits >> suit) & 1 and rank >= beat:
                p = 1.0
                for i in range(later):
                    k = table[base + i * BINS + min(rank, RANK_CAP)]
                    p *= (1.0 - share) ** k
            new0, new_rank0, new1, new_rank1 = top0, rank0, top1, rank1
            r = placed_rank(card, top0, top1, rules)
            if slot == 0:
                new0, new_rank0 = card, r
            else:
                new1, new_rank1 = card, r
            tops = bit(card)
            other = new1 if slot == 0 else new0
            if other >= 0:
                tops |= bit(other)
            win = gain_crystal if tops & masks[M_CRYSTAL] else gain
            keep = 0.0
            if after >= 0:
                keep = params[seat, H_NEXT] * v_next * sheet_worth(new0, new_rank0, new1, new_rank1, rest, rules,
                                                                   masks, params[seat, H_KEEP])
            total = p * (win - cost) + (1.0 - p) * keep
            if total > chosen_value:
                chosen, chosen_value = card * 2 + slot, total
    return chosen


# --- plug-ins ---------------------------------------------------------------------

PLUGIN_DECISIONS = {
    "play": "params, seat, hand, m0, m1, table, rules, masks, streams",
}

if "plugin_play" not in globals():  # stock build: no plug-ins, this is never reached

    @kernel(globals())
    def plugin_play(k, params, seat, hand, m0, m1, table, rules, masks, streams):
        return random_play(params, seat, hand, m0, m1, table, rules, masks, streams)


# --- dispatch ------------------------------------------------------------------------

@kernel(globals())
def skilled_play(strategy, params, seat, hand, m0, m1, table, rules, masks, streams):
    """Every strategy but random, behind one call (keeps the play loop small)."""
    if strategy == GREEDY:
        return greedy_play(seat, m0, m1, table, rules)
    if strategy == HEURISTIC:
        return heuristic_play(params, seat, hand, m0, m1, table, rules, masks)
    return plugin_play(strategy - PLUGIN_BASE, params, seat, hand, m0, m1, table, rules, masks, streams)


@kernel(globals(), inline="always")
def choose_play(strategy, params, seat, hand, m0, m1, table, rules, masks, streams):
    if strategy == RANDOM:
        return random_play(params, seat, hand, m0, m1, table, rules, masks, streams)
    return skilled_play(strategy, params, seat, hand, m0, m1, table, rules, masks, streams)


def default_params(name: str, argument: str | None = None) -> tuple:
    """Parameter row of a built-in strategy."""
    if name == "heuristic":
        return HEURISTIC_DEFAULTS
    return (0.0,) * N_PARAMS


assert 3 * 4 * BINS <= SCRATCH_WIDTH
