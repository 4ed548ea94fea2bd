"""Players for any trick-taking game from a rules file, compiled into its play loop's dispatch.

Each decision is one function taking the strategy id, the parameter matrix (row = seat) and the
public state (the T_* layout in simcore/games/trick/rules.py); ``cards`` and ``masks`` describe
the deck (suit, rank and points of each card), ``rules`` the rules in force:

    choose_pass(...)  -> deck index of one card to pass (asked pass.cards times in a row)
    choose_bid(...)   -> the bid (a bit of ``legal``: bit b = bid b)
    choose_trump(...) -> the suit the bid winner names trump (a bit of ``legal``: bit k = suit k;
                         trump.kind = "bid-winner")
    choose_play(...)  -> deck index of the card to play (one of ``legal``)

Built-ins, which know nothing of a particular game but what the rules file says:
    random     uniform over the legal choices
    greedy     wins the trick in front of it with the cheapest card that wins it for now, else
               plays its lowest card; leads its highest; bids its high cards; passes its lowest
    heuristic  weighs what the trick is worth to it (points on the table, a trick's own score,
               the tricks its bid still needs): wins a trick worth having with the cheapest
               card that takes it (the highest when others are still to play), ducks one that
               is not under the highest card that still loses and, void, throws its costliest
               card to another seat; bids from its hand's strength (high ranks, trumps, length);
               names its longest suit trump (the higher ranks among equals); passes the
               cards most likely to take costly tricks
    search     Perfect Information Monte Carlo (strategies/search.py): every legal card tried in
               many deals of the cards it has not seen to the other seats (none of a suit a seat
               has shown it lacks), each finished by playouts; passes and bids as the heuristic
"""
import numpy as np

from simcore.bits import bit, kth_set_bit, lowest_index, popcount
from simcore.games.trick.rules import (
    C_POINTS, C_RANK, C_SUIT, K_CARD, K_LEADER, K_WINNER, M_BREAKING, M_POINTS, M_SUIT, MAX_PLAYERS, MAX_SUITS,
    R_BIDDING, R_DECK, R_HAND, R_LOWEST_WINS, R_MOON, R_PER_TRICK, R_PLAYERS, R_TEAMS, R_UNBROKEN, RECORD_WIDTH,
    T_BID, T_BROKEN, T_LEADER, T_NPLAYED, T_PLAY, T_POINTS, T_RECORD, T_TOTAL, T_TRICK, T_TRUMP, T_TRUMP_CARD,
    T_SCRATCH, T_VOID, T_WON, TABLE_WIDTH, keep_scores, legal_plays, round_scores, same_team, team_scores, trick_points,
    winner_leads, winner_of_trick,
    AT_AFTER_TRICK, R_DECISIONS, R_DECISION_AT, R_DECISION_WHO, T_DEALER, T_NEXT_LEADER, decision_seat, no_effect,
    no_options, HANDS_WIDTH, H_STOCK, T_HELD, T_KNOWN, T_OUT, WHO_CHANCE, AT_AFTER_CARD, next_in_play, players_in_trick, seat_in_trick,
)
from simcore.rng import mix64
from simcore.jit import kernel
from strategies.common import random_card, random_card_of_seat  # noqa: F401 (random_card_of_seat: the play loop's draw)

from strategies.search import (  # noqa: E402 - every card game's search: budget, own random numbers, deals
    BUILTIN, GREEDY, HEURISTIC, N_PARAMS, PARAMETER, PLUGIN_BASE, P_DETERMINIZATIONS, P_MARGIN, P_PLAYOUTS, P_POLICY,
    POLICY_HEURISTIC, RANDOM, SEARCH, SKILL_TIERS, below_local, best_move, card_game_players, deal_unseen,
    search_setup,
)

# the skill ladder (`balance ladder`), each rung stronger than the one below in every example file:
# greedy, which takes every trick it can, is no rung: in a game of tricks worth avoiding (Hearts) it
# loses to random play (11.5% [10.6, 12.4] against random's field, 4 players, 4,000 games)
LADDER = ("random", "heuristic", "search")
SEARCH_DEFAULTS = (24.0, 1.0, 0.0, 0.05)  # d, p, policy (random), margin: strategies/search.py
HEURISTIC_DEFAULTS = (0.0, 0.0, 0.0, 0.0)  # the heuristic takes no tuning

# a rules file's hooks (simcore/games/trick/game.py): the players judge tricks by the same rules
hooks = globals().get("__hooks__") or {}
legal_plays = hooks.get("legal", legal_plays)
winner_of_trick = hooks.get("trick_winner", winner_of_trick)
trick_points = hooks.get("trick_points", trick_points)
HOOKED = bool(hooks)
LEGAL_HOOKED = "legal" in hooks
WINNER_HOOKED = "trick_winner" in hooks
SCORE_HOOKED = "score_round" in hooks
score_round = hooks.get("score_round", keep_scores)
next_leader = hooks.get("next_leader", winner_leads)
decision_options = hooks.get("decision_options", no_options)  # the designer's decisions ([[decision]])
decision_apply = hooks.get("decision_apply", no_effect)
DECIDING = "decision_options" in hooks
DECISION_DEALS = 8  # the heuristic's cheap search of a decision: this many deals, one heuristic playout each

WANT = 100  # what a trick the bid still needs (or a trick past the bid) is worth, in points


# --- shared -----------------------------------------------------------------------------------

@kernel(globals(), inline="always")
def cheapest(mask, cards):
    """The lowest-ranked card of ``mask`` (the lowest deck index among equals)."""
    best = lowest_index(mask)
    m = mask & (mask - np.uint64(1))
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        if cards[C_RANK, c] < cards[C_RANK, best]:
            best = c
    return best


@kernel(globals(), inline="always")
def dearest(mask, cards):
    """The highest-ranked card of ``mask``."""
    best = lowest_index(mask)
    m = mask & (mask - np.uint64(1))
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        if cards[C_RANK, c] >= cards[C_RANK, best]:
            best = c
    return best


@kernel(globals(), inline="always")
def winners_of(legal, table, cards, masks, rules):
    """The cards of ``legal`` that would take the trick as it stands (all of them when leading)."""
    n = table[T_NPLAYED]
    if n == 0:
        return legal
    out = np.uint64(0)
    m = legal
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        if winner_of_trick(table, n, c, cards, masks, rules, table[T_TRUMP]) == n:
            out |= bit(c)
    return out


# --- greedy -----------------------------------------------------------------------------------

@kernel(globals(), inline="always")
def greedy_play(legal, table, cards, masks, rules):
    if table[T_NPLAYED] == 0:
        return dearest(legal, cards)
    winners = winners_of(legal, table, cards, masks, rules)
    if winners != 0:
        return cheapest(winners, cards)
    return cheapest(legal, cards)


@kernel(globals(), inline="always")
def count_high(hand, cards, rules):
    """Cards in the top quarter of the ranks: greedy's bid."""
    top = 0
    m = hand
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        top = max(top, cards[C_RANK, c])
    n = 0
    m = hand
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        n += 4 * cards[C_RANK, c] >= 3 * top and top > 0
    return n


@kernel(globals(), inline="always")
def nearest_bid(want, legal):
    """The legal bid closest to ``want`` (the lower one of two as close)."""
    best = lowest_index(legal)
    m = legal
    while m != 0:
        b = lowest_index(m)
        m &= m - np.uint64(1)
        if abs(b - want) < abs(best - want):
            best = b
    return best


# --- heuristic --------------------------------------------------------------------------------

@kernel(globals(), inline="always")
def round_score_if(seat, taker, points, rest_to, table, cards, masks, rules):
    """``seat``'s score for the round as it would stand if ``taker`` took the trick on the table
    (worth ``points``) and then ``rest_to`` every trick still to come (-1: the round ended there):
    the keys' scores, a team's added up, then the score_round hook's, asked in the table's scratch
    slots and the table put back as it was."""
    n_players = rules[R_PLAYERS]
    trick = table[T_TRICK]
    rest = rules[R_HAND] - trick - 1 if rest_to >= 0 else 0
    if rest_to >= 0:
        table[T_WON + rest_to] += rest
    at = T_RECORD + trick * RECORD_WIDTH  # the trick in progress, in the round's record as it stands:
    table[at + K_LEADER] = table[T_LEADER]  # the cards not played yet are -1
    table[at + K_WINNER] = taker
    for i in range(table[T_NPLAYED]):
        table[at + K_CARD + i] = table[T_PLAY + i]
    table[T_WON + taker] += 1
    table[T_POINTS + taker] += points
    round_scores(table, rules, n_players, -1, table, T_SCRATCH)
    team_scores(rules, n_players, table, T_SCRATCH)
    score_round(table, trick + 1, cards, masks, rules, table[T_SCRATCH:T_SCRATCH + n_players])
    table[T_WON + taker] -= 1
    table[T_POINTS + taker] -= points
    if rest_to >= 0:
        table[T_WON + rest_to] -= rest
    for i in range(RECORD_WIDTH):  # as the play loop keeps a trick not yet over
        table[at + i] = -1
    return table[T_SCRATCH + seat]


@kernel(globals(), inline="always")
def hooked_worth(seat, table, cards, masks, rules):
    """What taking the trick is worth to ``seat`` where a score_round hook scores the round: its
    round score if it takes the trick, less its score if the seat the trick would go to otherwise
    takes it (the one ahead now, or the next seat to play when that is itself or a partner), added
    up over three ends of the round: there, every later trick to ``seat``, every one to the other
    (a score with a threshold, "the makers need five tricks", shows a trick's worth only so)."""
    n = table[T_NPLAYED]
    n_players = rules[R_PLAYERS]
    points = trick_points(table, n, cards, masks, rules)
    other = next_in_play(table, seat + 1, n_players)
    if n > 0:
        ahead = seat_in_trick(table, winner_of_trick(table, n, -1, cards, masks, rules, table[T_TRUMP]), n_players)
        if not same_team(rules, ahead, seat):
            other = ahead
    worth = 0
    for rest_to in (-1, seat, other):
        worth += (round_score_if(seat, seat, points, rest_to, table, cards, masks, rules)
                  - round_score_if(seat, other, points, rest_to, table, cards, masks, rules))
    return worth


@kernel(globals(), inline="always")
def trick_worth(seat, table, cards, masks, rules):
    """What taking the trick as it stands is worth to ``seat``: its score per trick, the points
    on the table, and (bidding) WANT for a trick its bid still needs, -WANT for one past it."""
    n = table[T_NPLAYED]
    n_players = rules[R_PLAYERS]
    if rules[R_TEAMS] != 0 and n > 0:  # game.teams: a trick the partner holds is the team's already
        ahead = seat_in_trick(table, winner_of_trick(table, n, -1, cards, masks, rules, table[T_TRUMP]), n_players)
        if ahead != seat and same_team(rules, ahead, seat):
            return -WANT
    if SCORE_HOOKED:  # the hook's scores, not the keys', say what a trick is worth
        return hooked_worth(seat, table, cards, masks, rules)
    worth = rules[R_PER_TRICK] + trick_points(table, n, cards, masks, rules)
    if rules[R_BIDDING] != 0 and table[T_BID + seat] >= 0:
        bid, won = 0, 0  # the seat's own, or its team's together
        for s in range(n_players):
            if same_team(rules, s, seat) and table[T_BID + s] >= 0:
                bid += table[T_BID + s]
                won += table[T_WON + s]
        worth += WANT if won < bid else -WANT
    return worth


@kernel(globals(), inline="always")
def costliest(mask, cards):
    """The card of ``mask`` that would cost its taker most (lowest points), the highest rank among equals."""
    best = lowest_index(mask)
    m = mask & (mask - np.uint64(1))
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        if (cards[C_POINTS, c] < cards[C_POINTS, best]
                or (cards[C_POINTS, c] == cards[C_POINTS, best] and cards[C_RANK, c] >= cards[C_RANK, best])):
            best = c
    return best


@kernel(globals(), inline="always")
def strongest_lead(hand, legal, table, cards, masks, rules):
    """With a trick_winner hook a card's rank says little of its strength (a card that always
    loses may carry the top rank): the card of ``legal`` that, led, holds against the most cards
    the seat does not hold, each asked of the hook as the second card of the trick (the highest
    rank among equals)."""
    everything = (bit(rules[R_DECK]) - np.uint64(1)) if rules[R_DECK] < 64 else ~np.uint64(0)
    others = everything & ~hand
    best, best_count = dearest(legal, cards), -1
    m = legal
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        table[T_PLAY] = c
        count = 0
        rest = others
        while rest != 0:
            x = lowest_index(rest)
            rest &= rest - np.uint64(1)
            count += winner_of_trick(table, 1, x, cards, masks, rules, table[T_TRUMP]) == 0
        if count > best_count or (count == best_count and cards[C_RANK, c] > cards[C_RANK, best]):
            best, best_count = c, count
    table[T_PLAY] = -1  # the table as it was: no card led yet
    return best


@kernel(globals(), refcounts=False)
def heuristic_play(seat, hand, legal, table, cards, masks, rules):
    n = table[T_NPLAYED]
    worth = trick_worth(seat, table, cards, masks, rules)
    if n == 0:
        # leading: a trick worth having is led with the highest card, one not worth it with the
        # lowest card that carries no points
        if worth > 0:
            return strongest_lead(hand, legal, table, cards, masks, rules) if WINNER_HOOKED else dearest(legal, cards)
        plain = legal & ~masks[M_POINTS]
        return cheapest(plain if plain != 0 else legal, cards)
    winners = winners_of(legal, table, cards, masks, rules)
    last = n == players_in_trick(table, rules[R_PLAYERS]) - 1
    lead_suit = cards[C_SUIT, table[T_PLAY]]
    follows = legal & masks[M_SUIT + lead_suit] != 0
    if worth > 0:
        if winners != 0:
            return cheapest(winners, cards) if last else dearest(winners, cards)
        return cheapest(legal, cards)  # cannot take it: keep the high cards
    losers = legal & ~winners
    if losers != 0:
        if follows:
            return dearest(losers, cards)  # the highest card that still loses
        return costliest(losers, cards)  # void: hand the winner the costliest card
    return dearest(winners, cards)  # must take it: with the highest, which is spent at least


@kernel(globals(), inline="always")
def hand_strength(hand, table, cards, masks, rules):
    """Tricks the hand may expect to take: each card's chance to stand as the best of its suit
    (its rank's share of the top, to the power of the other players), trumps counted higher."""
    n_players = rules[R_PLAYERS]
    trump = table[T_TRUMP]
    top = 0
    for c in range(rules[R_DECK]):
        top = max(top, cards[C_RANK, c])
    expected = 0.0
    m = hand
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        share = (cards[C_RANK, c] + 1) / (top + 1)
        if cards[C_SUIT, c] == trump:
            share = 0.5 + 0.5 * share
        expected += share ** (n_players - 1)
    return expected


@kernel(globals(), refcounts=False)
def heuristic_bid(hand, legal, table, cards, masks, rules):
    return nearest_bid(np.int64(hand_strength(hand, table, cards, masks, rules) + 0.5), legal)


@kernel(globals(), inline="always")
def longest_suit(hand, legal, cards, masks):
    """The suit of ``legal`` (bit k = suit k) the hand holds most cards of; between equal lengths
    the one with the higher ranks, then the first: the heuristic's trump."""
    best = lowest_index(legal)
    best_key = -1
    for k in range(MAX_SUITS):
        if (legal >> np.uint64(k)) & np.uint64(1) == 0:
            continue
        held = hand & masks[M_SUIT + k]
        key = 0
        m = held
        while m != 0:
            c = lowest_index(m)
            m &= m - np.uint64(1)
            key += 1000 + cards[C_RANK, c]
        if key > best_key:
            best, best_key = k, key
    return best


@kernel(globals(), refcounts=False)
def heuristic_pass(hand, table, cards, masks, rules):
    """The card most likely to take a costly trick: high rank, points against its taker; in a
    game where tricks are worth having, the lowest card instead."""
    costly = rules[R_PER_TRICK] < 0
    for c in range(rules[R_DECK]):
        costly = costly or cards[C_POINTS, c] < 0
    if not costly:
        return cheapest(hand, cards)
    best = lowest_index(hand)
    best_key = -(1 << 30)
    m = hand
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        key = cards[C_RANK, c] - 4 * cards[C_POINTS, c]
        if key > best_key:
            best, best_key = c, key
    return best


# --- search ---------------------------------------------------------------------------------------

@kernel(globals(), inline="always")
def hooked_voids(me, pool, table, cards, masks, rules, ptable, voids):
    """The cards each other seat cannot hold, read from the ``legal`` hook rather than the suit
    printed on a card: every card played this round (the round's record, then the trick on the
    table) is asked again on the table as it stood, beside each card still unseen by ``me``: an
    unseen card beside which the hook would not have allowed the card played is not in that hand
    (a Wizard played on any lead shows no void; a bower played on trump shows none in its printed
    suit).  Sound where holding more cards never frees a card the hook forbids (follow rules)."""
    n_players = rules[R_PLAYERS]
    unbroken = rules[R_UNBROKEN]
    ptable[:] = table
    ptable[T_BROKEN] = 0
    for t in range(table[T_TRICK] + 1):
        current = t == table[T_TRICK]
        at = T_RECORD + t * RECORD_WIDTH
        leader = table[T_LEADER] if current else table[at + K_LEADER]
        count = table[T_NPLAYED] if current else players_in_trick(table, n_players)
        ptable[T_TRICK] = t
        ptable[T_LEADER] = leader
        for i in range(count):
            c = table[T_PLAY + i] if current else table[at + K_CARD + i]
            seat = seat_in_trick(ptable, i, n_players)  # (a seat sits out from the play's start: moves.py)
            ptable[T_NPLAYED] = i
            if seat != me:
                m = pool
                while m != 0:
                    x = lowest_index(m)
                    m &= m - np.uint64(1)
                    if legal_plays(bit(c) | bit(x), ptable, rules, cards, masks, t == 0) & bit(c) == 0:
                        voids[seat] |= bit(x)
            ptable[T_PLAY + i] = c
            if unbroken >= 0 and (cards[C_SUIT, c] == unbroken or (masks[M_BREAKING] >> np.uint64(c)) & np.uint64(1)):
                ptable[T_BROKEN] = 1
        for i in range(MAX_PLAYERS):
            ptable[T_PLAY + i] = -1


@kernel(globals(), inline="always")
def decide_at_random(at, leader, winner, ptable, hands, rules, cards, masks, rng, after):
    """A playout's decisions of the designer's arising ``at`` (after a card: ``winner`` is its
    player), those of the file's order past ``after``: each seat asked picks an option at random
    (the playout's own draws); a next leader one names is left in T_NEXT_LEADER."""
    n_players = rules[R_PLAYERS]
    for d in range(after + 1, rules[R_DECISIONS]):
        if rules[R_DECISION_AT + d] != at:
            continue
        if rules[R_DECISION_WHO + d] == WHO_CHANCE:  # the deal's draw, here the playout's own
            legal = decision_options(d, -1, hands[H_STOCK], ptable, rules, cards, masks)  # handed the stock
            if legal != 0:
                decision_apply(d, -1, kth_set_bit(legal, below_local(rng, popcount(legal))), hands, ptable, rules,
                               cards, masks)
            continue
        for j in range(n_players):
            s = decision_seat(rules[R_DECISION_WHO + d], j, ptable[T_DEALER], leader, winner, n_players)
            if s < 0:
                break
            if (ptable[T_OUT] >> s) & 1 != 0:
                continue
            legal = decision_options(d, s, hands[s], ptable, rules, cards, masks)
            if legal != 0:
                decision_apply(d, s, kth_set_bit(legal, below_local(rng, popcount(legal))), hands, ptable, rules, cards,
                               masks)


@kernel(globals(), inline="always")
def decision_phases(rules):
    """Bit AT_*: the points of the play at which the rules file has decisions."""
    phases = 0
    for d in range(rules[R_DECISIONS]):
        phases |= 1 << rules[R_DECISION_AT + d]
    return phases


@kernel(globals(), refcounts=False)
def playout(ptable, hands, leader, first, trick, rules, cards, masks, policy, rng, me, margin, scores):
    """Finish the round from ``ptable`` (trick ``trick``, ``first`` cards of it on the table, led by
    ``leader``), every seat playing by ``policy`` (random draws from ``rng``, or the heuristic);
    returns what the end is worth to ``me``: its win share of the game as it would then stand,
    plus ``margin`` times its score's lead over the others' mean, per trick of a round."""
    n_players = rules[R_PLAYERS]
    unbroken = rules[R_UNBROKEN]
    phases = decision_phases(rules) if DECIDING else 0
    after_card = (phases >> AT_AFTER_CARD) & 1 != 0
    after_trick = (phases >> AT_AFTER_TRICK) & 1 != 0
    for t in range(trick, rules[R_HAND]):
        trump = ptable[T_TRUMP]  # a decision may change it
        ptable[T_TRICK] = t
        ptable[T_LEADER] = leader
        n_in = players_in_trick(ptable, n_players) if DECIDING else n_players  # a seat may sit out
        for i in range(first if t == trick else 0, n_in):
            ptable[T_NPLAYED] = i
            if DECIDING:
                seat = seat_in_trick(ptable, i, n_players)
            else:
                seat = leader + i
                if seat >= n_players:
                    seat -= n_players
            legal = legal_plays(hands[seat], ptable, rules, cards, masks, t == 0)
            if policy == POLICY_HEURISTIC:
                c = heuristic_play(seat, hands[seat], legal, ptable, cards, masks, rules)
            else:
                c = kth_set_bit(legal, below_local(rng, popcount(legal)))
            hands[seat] &= ~bit(c)
            if DECIDING:
                ptable[T_HELD + seat] -= 1
            ptable[T_PLAY + i] = c
            if unbroken >= 0 and (cards[C_SUIT, c] == unbroken or (masks[M_BREAKING] >> np.uint64(c)) & np.uint64(1)):
                ptable[T_BROKEN] = 1
            if DECIDING and after_card:  # a card's power, at random here
                ptable[T_NPLAYED] = i + 1
                decide_at_random(AT_AFTER_CARD, leader, seat, ptable, hands, rules, cards, masks, rng, -1)
        if DECIDING and after_card:
            trump = ptable[T_TRUMP]
        ptable[T_NPLAYED] = n_in
        if DECIDING:
            winner = seat_in_trick(ptable, winner_of_trick(ptable, n_in, -1, cards, masks, rules, trump), n_players)
        else:
            winner = leader + winner_of_trick(ptable, n_players, -1, cards, masks, rules, trump)
            if winner >= n_players:
                winner -= n_players
        if HOOKED:  # the round's record (T_RECORD), as the play loop keeps it for the hooks
            at = T_RECORD + t * RECORD_WIDTH
            ptable[at + K_LEADER] = leader
            ptable[at + K_WINNER] = winner
            for i in range(n_players):
                ptable[at + K_CARD + i] = ptable[T_PLAY + i]
        ptable[T_WON + winner] += 1
        ptable[T_POINTS + winner] += trick_points(ptable, n_in, cards, masks, rules)
        leader = next_leader(ptable, winner, cards, masks, rules)
        if leader < 0 or leader >= n_players:  # an impossible answer: the play loop says which hook
            leader = winner
        if DECIDING:
            leader = next_in_play(ptable, leader, n_players)
            if after_trick and t + 1 < rules[R_HAND]:  # the designer's decisions after a trick: at random here
                decide_at_random(AT_AFTER_TRICK, leader, winner, ptable, hands, rules, cards, masks, rng, -1)
            if 0 <= ptable[T_NEXT_LEADER] < n_players:
                leader = next_in_play(ptable, ptable[T_NEXT_LEADER], n_players)
            ptable[T_NEXT_LEADER] = -1
    # shooting the moon, as far as the table tells: one seat holds all the points there are
    moon_seat = -1
    if rules[R_MOON] != 0:
        everything = 0
        for c in range(rules[R_DECK]):
            everything += cards[C_POINTS, c]
        for s in range(n_players):
            if ptable[T_POINTS + s] == everything and everything != 0:
                moon_seat = s
    round_scores(ptable, rules, n_players, moon_seat, scores, 0)
    team_scores(rules, n_players, scores, 0)
    if SCORE_HOOKED:
        score_round(ptable, rules[R_HAND], cards, masks, rules, scores[:n_players])
    lowest = rules[R_LOWEST_WINS] != 0
    mine = ptable[T_TOTAL + me] + scores[me]
    best = mine
    others = 0.0
    opponents = 0
    for s in range(n_players):
        total = ptable[T_TOTAL + s] + scores[s]
        best = min(best, total) if lowest else max(best, total)
        if not same_team(rules, s, me):  # a partner's result is its own (game.teams)
            others += total
            opponents += 1
    tied = 0
    for s in range(n_players):
        tied += ptable[T_TOTAL + s] + scores[s] == best
    share = 1.0 / tied if mine == best else 0.0
    lead = (mine - others / max(1, opponents)) / max(1, rules[R_HAND])
    return share + margin * (-lead if lowest else lead)


@kernel(globals(), inline="always")
def unseen_cards(seat, hand, seen, table, cards, masks, rules):
    """What ``seat`` does not see and how it may lie: (the cards it has not seen, the number each
    other seat still holds, the cards each cannot hold, a scratch table)."""
    n_players = rules[R_PLAYERS]
    n = table[T_NPLAYED]
    everything = (bit(rules[R_DECK]) - np.uint64(1)) if rules[R_DECK] < 64 else ~np.uint64(0)
    pool = everything & ~hand & ~seen
    if table[T_TRUMP_CARD] >= 0:
        pool &= ~bit(table[T_TRUMP_CARD])
    need = np.zeros(n_players, dtype=np.int64)
    voids = np.zeros(n_players, dtype=np.uint64)
    for s in range(n_players):
        if DECIDING:  # cards move (moves.py): each seat holds what the table counts, and a card all
            need[s] = table[T_HELD + s]  # know a seat holds (one it took face up) is dealt to it
            known = np.uint64(table[T_KNOWN + s])
            if s != seat:
                need[s] -= popcount(known)
                pool &= ~known
        else:
            position = s - table[T_LEADER]
            if position < 0:
                position += n_players
            need[s] = rules[R_HAND] - table[T_TRICK] - (1 if position < n else 0)
        if not LEGAL_HOOKED:  # the keys' follow rule: a card off the suit led shows a void in it
            for k in range(16):
                if (table[T_VOID + s] >> k) & 1 != 0:
                    voids[s] |= masks[M_SUIT + k]
    ptable = np.empty(TABLE_WIDTH, dtype=np.int64)
    if LEGAL_HOOKED:  # the hook's follow rule, asked again (T_VOID follows the printed suits)
        hooked_voids(seat, pool, table, cards, masks, rules, ptable, voids)
    need[seat] = 0
    voids[seat] = everything
    return pool, need, voids, ptable


@kernel(globals(), inline="always")
def add_known(deal, table, n_players):
    """A deal of the unseen cards gets the cards every seat knows a seat holds (moves.py)."""
    for s in range(n_players):
        deal[s] |= np.uint64(table[T_KNOWN + s])


@kernel(globals(), inline="always")
def playout_scratch():
    """A search's scratch: the deal, the playout's hands, each choice's total, the round's scores,
    and the playouts' own random numbers."""
    return (np.zeros(MAX_PLAYERS, dtype=np.uint64), np.zeros(HANDS_WIDTH, dtype=np.uint64),
            np.zeros(64, dtype=np.float64), np.zeros(MAX_PLAYERS, dtype=np.int64), np.zeros(1, dtype=np.uint64))


@kernel(globals(), refcounts=True)
def decide_by_playouts(params, decision, at, seat, hand, legal, seen, table, cards, masks, rules, streams, deals,
                       playouts, policy):
    """A decision of the designer's weighed by playing it out: every option in ``deals`` deals of the
    cards ``seat`` has not seen, each option carried out (decision_apply) and the round finished
    ``playouts`` times by ``policy``; the option with the best total (what search does with its
    budget, and the heuristic with a small one: it has no rule of its own for a designer's decision)."""
    if legal & (legal - np.uint64(1)) == 0:
        return lowest_index(legal)
    n_players = rules[R_PLAYERS]
    _, margin, rng, _ = search_setup(params, seat, streams, n_players, HEURISTIC_DEFAULTS)
    pool, need, voids, ptable = unseen_cards(seat, hand, seen, table, cards, masks, rules)
    deal, hands, totals, scores, rng_p = playout_scratch()
    # after a trick the play goes on from the next one, its leader the one the rules name now
    trick = table[T_TRICK] + (1 if at == AT_AFTER_TRICK else 0)
    for _ in range(deals):
        stock = deal_unseen(pool, need, voids, n_players, deal, rng)
        if DECIDING:
            add_known(deal, table, n_players)
        deal[seat] = hand
        for p in range(playouts):
            playout_seed = rng[0] + np.uint64(p + 1)  # every option meets the same playout draws
            m = legal
            while m != 0:
                c = lowest_index(m)
                m &= m - np.uint64(1)
                ptable[:] = table
                for s in range(n_players):
                    hands[s] = deal[s]
                hands[H_STOCK] = stock  # what this deal leaves undealt: the stock, for a card drawn
                decision_apply(decision, seat, c, hands, ptable, rules, cards, masks)
                rng_p[0] = mix64(playout_seed)
                # the decisions after this one at the same point (the card drawn, the discard ...), at random
                decide_at_random(at, ptable[T_LEADER], seat, ptable, hands, rules, cards, masks, rng_p, decision)
                first = 0
                if at == AT_AFTER_CARD:  # the trick goes on; a next leader named waits for its end
                    leader = table[T_LEADER]
                    first = table[T_NPLAYED]
                else:
                    leader = ptable[T_NEXT_LEADER] if 0 <= ptable[T_NEXT_LEADER] < n_players else table[T_LEADER]
                    leader = next_in_play(ptable, leader, n_players)  # the option may sit a seat out
                    ptable[T_NEXT_LEADER] = -1
                if at == AT_AFTER_TRICK:
                    for i in range(MAX_PLAYERS):
                        ptable[T_PLAY + i] = -1
                rng_p[0] = mix64(playout_seed)
                totals[c] += playout(ptable, hands, leader, first, trick, rules, cards, masks, policy, rng_p, seat,
                                     margin, scores)
        rng[0] = mix64(rng[0])
    return best_move(totals, legal)


@kernel(globals(), refcounts=True)
def search_play(params, seat, hand, legal, seen, table, cards, masks, rules, streams):
    """PIMC: every legal card, in ``d`` deals of the cards this seat has not seen to the others
    (each the number it still holds, none of a suit it has shown it lacks), each finished ``p``
    times by the playout policy; the card with the best total."""
    if legal & (legal - np.uint64(1)) == 0:
        return lowest_index(legal)  # one legal card: nothing to weigh
    n_players = rules[R_PLAYERS]
    n = table[T_NPLAYED]
    policy, margin, rng, _ = search_setup(params, seat, streams, n_players, HEURISTIC_DEFAULTS)
    pool, need, voids, ptable = unseen_cards(seat, hand, seen, table, cards, masks, rules)
    deal, hands, totals, scores, rng_p = playout_scratch()
    for _ in range(np.int64(params[seat, P_DETERMINIZATIONS])):
        stock = deal_unseen(pool, need, voids, n_players, deal, rng)
        if DECIDING:
            add_known(deal, table, n_players)
        deal[seat] = hand
        for p in range(np.int64(params[seat, P_PLAYOUTS])):
            playout_seed = rng[0] + np.uint64(p + 1)  # every card meets the same playout draws
            m = legal
            while m != 0:
                c = lowest_index(m)
                m &= m - np.uint64(1)
                ptable[:] = table
                for s in range(n_players):
                    hands[s] = deal[s]
                hands[H_STOCK] = stock
                hands[seat] &= ~bit(c)
                if DECIDING:
                    ptable[T_HELD + seat] -= 1
                ptable[T_PLAY + n] = c
                if rules[R_UNBROKEN] >= 0 and (cards[C_SUIT, c] == rules[R_UNBROKEN]
                                               or (masks[M_BREAKING] >> np.uint64(c)) & np.uint64(1)):
                    ptable[T_BROKEN] = 1
                rng_p[0] = mix64(playout_seed)
                totals[c] += playout(ptable, hands, table[T_LEADER], n + 1, table[T_TRICK], rules, cards, masks,
                                     policy, rng_p, seat, params[seat, P_MARGIN], scores)
        rng[0] = mix64(rng[0])  # the next deal draws on from here
    return best_move(totals, legal)


# --- plug-in slots and the random player -------------------------------------------------------
PLUGIN_DECISIONS = {
    "pass": "params, seat, hand, table, cards, masks, rules, streams",
    "bid": "params, seat, hand, legal, table, cards, masks, rules, streams",
    "trump": "params, seat, hand, legal, table, cards, masks, rules, streams",
    "play": "params, seat, hand, legal, seen, table, cards, masks, rules, streams",
}
# the types the play loop passes them, in Numba's notation: a plug-in's functions are compiled
# for these alone, apart from the loop (simcore/plugins/table.py, plugin_row)
PLUGIN_TYPES = {
    "pass": "float64[:, ::1], int64, uint64, int64[::1], int64[:, ::1], uint64[::1], int64[::1], uint64[::1]",
    "bid": "float64[:, ::1], int64, uint64, uint64, int64[::1], int64[:, ::1], uint64[::1], int64[::1], uint64[::1]",
    "trump": "float64[:, ::1], int64, uint64, uint64, int64[::1], int64[:, ::1], uint64[::1], int64[::1], uint64[::1]",
    "play": "float64[:, ::1], int64, uint64, uint64, uint64, int64[::1], int64[:, ::1], uint64[::1], int64[::1], uint64[::1]",
}
PLUGIN_SCRATCH: dict = {}


@kernel(globals(), refcounts=False)
def random_pass(params, seat, hand, table, cards, masks, rules, streams):
    return random_card(hand, streams)


@kernel(globals(), refcounts=False)
def random_bid(params, seat, hand, legal, table, cards, masks, rules, streams):
    return random_card(legal, streams)


@kernel(globals(), refcounts=False)
def random_trump(params, seat, hand, legal, table, cards, masks, rules, streams):
    return random_card(legal, streams)


@kernel(globals(), refcounts=False)
def random_play(params, seat, hand, legal, seen, table, cards, masks, rules, streams):
    return random_card(legal, streams)


if "plugin_play" not in globals():  # stock build: no plug-ins, these are never reached

    @kernel(globals(), refcounts=True)
    def plugin_pass(k, params, seat, hand, table, cards, masks, rules, streams):
        return random_card(hand, streams)

    @kernel(globals(), refcounts=True)
    def plugin_bid(k, params, seat, hand, legal, table, cards, masks, rules, streams):
        return random_card(legal, streams)

    @kernel(globals(), refcounts=True)
    def plugin_trump(k, params, seat, hand, legal, table, cards, masks, rules, streams):
        return random_card(legal, streams)

    @kernel(globals(), refcounts=True)
    def plugin_play(k, params, seat, hand, legal, seen, table, cards, masks, rules, streams):
        return random_card(legal, streams)


# --- dispatch -----------------------------------------------------------------------------------

@kernel(globals(), inline="always")
def choose_pass(strategy, params, seat, hand, table, cards, masks, rules, streams):
    if strategy == RANDOM:
        return random_card(hand, streams)
    if strategy == GREEDY:
        return cheapest(hand, cards)
    if strategy == HEURISTIC or strategy == SEARCH:
        return heuristic_pass(hand, table, cards, masks, rules)
    return plugin_pass(strategy - PLUGIN_BASE, params, seat, hand, table, cards, masks, rules, streams)


@kernel(globals(), inline="always")
def choose_bid(strategy, params, seat, hand, legal, table, cards, masks, rules, streams):
    if strategy == RANDOM:
        return random_card(legal, streams)
    if strategy == GREEDY:
        return nearest_bid(count_high(hand, cards, rules), legal)
    if strategy == HEURISTIC or strategy == SEARCH:
        return heuristic_bid(hand, legal, table, cards, masks, rules)
    return plugin_bid(strategy - PLUGIN_BASE, params, seat, hand, legal, table, cards, masks, rules, streams)


@kernel(globals(), inline="always")
def choose_trump(strategy, params, seat, hand, legal, table, cards, masks, rules, streams):
    if strategy == RANDOM:
        return random_card(legal, streams)
    if strategy == GREEDY or strategy == HEURISTIC or strategy == SEARCH:
        return longest_suit(hand, legal, cards, masks)
    return plugin_trump(strategy - PLUGIN_BASE, params, seat, hand, legal, table, cards, masks, rules, streams)


@kernel(globals(), inline="always")
def choose_decision(strategy, params, decision, at, seat, hand, legal, seen, table, cards, masks, rules, streams):
    """A decision of the designer's ([[decision]]): random uniformly; the heuristic and greedy by a
    cheap search (DECISION_DEALS deals, one heuristic playout each), having no rule of their own for
    it; search with its own budget and playout policy."""
    if strategy == RANDOM or strategy >= PLUGIN_BASE:
        return random_card(legal, streams)
    if strategy == SEARCH:
        return decide_by_playouts(params, decision, at, seat, hand, legal, seen, table, cards, masks, rules, streams,
                                  np.int64(params[seat, P_DETERMINIZATIONS]), np.int64(params[seat, P_PLAYOUTS]),
                                  np.int64(params[seat, P_POLICY]))
    return decide_by_playouts(params, decision, at, seat, hand, legal, seen, table, cards, masks, rules, streams,
                              DECISION_DEALS, 1, POLICY_HEURISTIC)


@kernel(globals(), inline="always")
def choose_play(strategy, params, seat, hand, legal, seen, table, cards, masks, rules, streams):
    if strategy == RANDOM:
        return random_card(legal, streams)
    if strategy == GREEDY:
        return greedy_play(legal, table, cards, masks, rules)
    if strategy == HEURISTIC:
        return heuristic_play(seat, hand, legal, table, cards, masks, rules)
    if strategy == SEARCH:
        return search_play(params, seat, hand, legal, seen, table, cards, masks, rules, streams)
    return plugin_play(strategy - PLUGIN_BASE, params, seat, hand, legal, seen, table, cards, masks, rules, streams)


describe, default_params = card_game_players(SEARCH_DEFAULTS, HEURISTIC_DEFAULTS, N_PARAMS)
