"""Players for Chimera Tricks, compiled into the kernel's dispatch.

One decision, a function of the strategy id, the parameter matrix (row = seat) and the public
state (T_* layout in simcore/games/chimera/rules.py; ``hand`` is the deciding seat's own hand):

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
from simcore.games.chimera.rules import (
    M_CRYSTAL, M_DECK, M_SUIT, R_PLACED, R_PLAYERS, R_TRICKS, R_VALUES, SCRATCH_WIDTH, T_CRYSTALS, T_CRYSTALS_LEFT,
    T_GRIMOIRE, T_LEAD, T_LEADER, T_NEXT, T_PLAYED, T_RANK, T_SCRATCH, T_SEEN, T_SUITS, T_TAKEN, T_TOP, T_TOP_RANK,
    T_TRICK, T_VALUE, best_following_rank, field_after, kth_move, legal_masks, move_count, placed_rank, round_score,
    suit_of,
)
from simcore.jit import kernel
from simcore.rng import PLAY, below

RANDOM, GREEDY, HEURISTIC = 0, 1, 2
BUILTIN = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC}
PLUGIN_BASE = 16
N_PARAMS = 4  # parameter slots per seat (plug-ins may use them)

# heuristic tuning (parameter row defaults): next = weight of the sheet left on the table, as its
# chance to win the next trick times the next (visible) grimoire when that is positive (a
# negative one is simply not won); crystal = worth of a crystal that rescues nothing yet (a
# negative may still come); card = cost per rank of a card spent on a win; lead = the chance a
# trick winner, leading the next one from an empty sheet, wins that one too.
# Chosen by a small grid against greedy players (40,000 games each, +-0.5 pp): at 4 players
# myopic play (0, 1, 0.15, 0) wins 55.9%, next 0.1-0.3 with lead 0.05-0.1 58.4-59.2%, next 1.0
# 55.5%; card 0.1 / 0.2: 56.8% / 57.6%; crystal 0.5-2: no difference. At 3 players 67.7% -> 70.2%.
H_NEXT, H_CRYSTAL, H_CARD, H_LEAD = 0, 1, 2, 3
HEURISTIC_DEFAULTS = (0.15, 1.0, 0.15, 0.05)
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
    scratch area at ``base + (i - 1) * BINS + r``.  Per card: beside a lead-suit top a lead card
    makes a sum and any other card the larger rank; beside anything else only a lead card
    follows, with the larger rank."""
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
        stacked = np.int64((top0 >= 0) & (top1 >= 0))
        # the open slots' neighbours: slot 0 keeps top1 beside it, slot 1 keeps top0
        keep_rank = -1           # best neighbour rank with the lead suit (-1: no such open slot)
        plain_rank = -1          # best neighbour rank without it (0 for an empty neighbour)
        if not (top0 >= 0 and top1 < 0):          # slot 0 open
            if suit_of(top1) == lead:
                keep_rank = max(keep_rank, rank1)
            else:
                plain_rank = max(plain_rank, rank1)
        if not (top1 >= 0 and top0 < 0):          # slot 1 open
            if suit_of(top0) == lead:
                keep_rank = max(keep_rank, rank0)
            else:
                plain_rank = max(plain_rank, rank0)
        cards = unseen
        while cards:
            card = lowest_index(cards)
            cards &= cards - np.uint64(1)
            rank = rules[R_PLACED + 2 * card + stacked]
            best = -1
            if suit_of(card) == lead:
                if keep_rank >= 0:
                    best = keep_rank + rank
                if plain_rank >= 0:
                    best = max(best, max(plain_rank, rank))
            elif keep_rank >= 0:
                best = max(keep_rank, rank)
            if best >= 0:
                table[row + min(best, RANK_CAP)] += 1
        for r in range(RANK_CAP - 1, -1, -1):    # suffix sums: cards reaching at least r
            table[row + r] += table[row + r + 1]


@kernel(globals())
def sheet_outlook(top0, rank0, top1, rank1, rest, rules, masks, n_suits):
    """The chance that this sheet, left on the table, wins the next trick as a follower: for
    each lead suit (equally likely), the best following field the rest of the hand can make on
    it (a sum beside a lead top: a chimera built on purpose covers two suits), against a
    winning rank of about 8-12."""
    chance = 0.0
    for lead in range(n_suits):
        m0, m1, can = legal_masks(rest, top0, top1, lead, masks)
        best = best_following_rank(top0, rank0, top1, rank1, m0, m1, lead, rules, masks)
        chance += min(max((best - 7.0) / 6.0, 0.0), 1.0)
    return chance / n_suits


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
    v_next = max(rules[R_VALUES + after], 0) if after >= 0 else 0   # a negative next: just don't win it
    unseen = masks[M_DECK] & ~np.uint64(table[T_SEEN]) & ~hand
    n_unseen = popcount(unseen)
    later = n_players - 1 - table[T_PLAYED]
    held = rules[R_TRICKS] - table[T_TRICK]             # cards in each later seat's hand
    share = min(1.0, held / n_unseen) if n_unseen > 0 else 0.0
    beat = best_so_far(table, lead, n_players) if lead >= 0 else -1
    # the threats: per lead suit in question (the leader's own card decides it)
    filled = 0  # scratch blocks of threat counts filled: bit s = the block at T_SCRATCH + s*3*BINS
    if lead >= 0:
        if (m0 | m1) & masks[M_SUIT + lead] or suit_of(top0) == lead or suit_of(top1) == lead:
            threat_counts(table, rules, masks, seat, unseen, lead, T_SCRATCH)   # (else nothing can follow)
            filled = 1
    else:
        for s in range(4):
            if (m0 | m1) & masks[M_SUIT + s]:
                threat_counts(table, rules, masks, seat, unseen, s, T_SCRATCH + s * 3 * BINS)
                filled |= 1 << s

    n_suits = 0
    for s in range(4):
        if masks[M_DECK] & masks[M_SUIT + s]:
            n_suits += 1
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
            lead_next = params[seat, H_LEAD] * v_next
            if v_next > 0 and p < 1.0:      # only a sheet that may stay is worth an outlook
                keep = params[seat, H_NEXT] * v_next * sheet_outlook(new0, new_rank0, new1, new_rank1, rest, rules,
                                                                     masks, n_suits)
            total = p * (win - cost + lead_next) + (1.0 - p) * keep
            if total > chosen_value:
                chosen, chosen_value = card * 2 + slot, total
    # the threat counts were built from the cards this seat has not seen, i.e. they describe its
    # own hand: leave nothing of them in the table for the next seat to read
    for s in range(4):
        if (filled >> s) & 1:
            for i in range(later * BINS):
                table[T_SCRATCH + s * 3 * BINS + i] = 0
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
