"""Hooks of examples/games/ten-tricks-later.toml: 10 TRICKS LATER's follow rule, trick winner and
round score, which the keys of a rules file cannot say (docs/rules-files.md, "Hooks").

Rules from docs/rules/ten-tricks-later.md (its headings in 【】).  The rules file's suits are the
four colours and then "infected"; a card's rank index is its printed number (ranks "0".."8").
Each hook is plain Python in Numba's subset; balance compiles it into the play loop, and the
reference engine runs it as Python.
"""
import numpy as np

from simcore.bits import lowest_index, popcount
from simcore.games.trick.rules import (
    C_RANK, C_SUIT, K_CARD, K_LEADER, K_WINNER, M_SUIT, R_PLAYERS, RECORD_WIDTH, T_BROKEN, T_NPLAYED, T_PLAY,
    T_RECORD,
)

INFECTED = 4  # the fifth suit of the rules file
TRACK_CAP = 8  # the track's maximum (Rules.track_cap)
TRACK_BONUS = 3  # round points for a track exactly at the cap (Rules.track_bonus)


def legal(hand, table, rules, cards, masks, first_trick):
    """【①カードのプレイ】: an infected card may not lead until one has been played this round
    (the file's play.unbroken_suit marks it, T_BROKEN) or the hand holds only infected; after a
    survivor lead, two or more of its colour must follow, exactly one may follow or give way to
    any infected card, none frees the hand; after an infected lead, any card."""
    infected = masks[M_SUIT + INFECTED]
    if table[T_NPLAYED] == 0:
        survivors = hand & ~infected
        if table[T_BROKEN] == 0 and survivors != 0:
            return survivors
        return hand
    lead = table[T_PLAY]
    colour = cards[C_SUIT, lead]
    if colour == INFECTED:
        return hand
    follows = hand & masks[M_SUIT + colour]
    n = popcount(follows)
    if n >= 2:
        return follows
    if n == 1:
        return follows | (hand & infected)
    return hand


def _card(table, i, n_played, candidate):
    return candidate if i == n_played else table[T_PLAY + i]


def trick_winner(table, n_played, candidate, cards, masks, rules, trump):
    """【②勝敗の判定】: a survivor 1 ranks 9 when the 8 of its colour is in the trick.  Without
    infected the highest of the lead colour wins; with any infected the highest of all, and
    between equal ranks the survivor played latest (an infected card never wins a tie)."""
    m = n_played + (1 if candidate >= 0 else 0)
    any_infected = False
    eights = 0  # bit k: the 8 of colour k is in the trick
    for i in range(m):
        c = _card(table, i, n_played, candidate)
        if cards[C_SUIT, c] == INFECTED:
            any_infected = True
        elif cards[C_RANK, c] == 8:
            eights |= 1 << cards[C_SUIT, c]
    lead_colour = cards[C_SUIT, _card(table, 0, n_played, candidate)]
    best, best_at = -1, 0
    for i in range(m):
        c = _card(table, i, n_played, candidate)
        suit, rank = cards[C_SUIT, c], cards[C_RANK, c]
        survivor = suit != INFECTED
        if survivor and rank == 1 and (eights >> suit) & 1:
            rank = 9
        if any_infected:
            if rank > best or (rank == best and survivor):
                best, best_at = rank, i
        elif suit == lead_colour and rank > best:
            best, best_at = rank, i
    return best_at


def _lowest_upto(board, limit, cards):
    """The lowest-numbered survivor of ``board`` numbered at most ``limit`` (the lowest deck index
    among equals), or -1."""
    best = -1
    m = board
    while m != 0:
        c = lowest_index(m)
        m &= m - np.uint64(1)
        if cards[C_RANK, c] <= limit and (best < 0 or cards[C_RANK, c] < cards[C_RANK, best]):
            best = c
    return best


def score_round(table, n_tricks, cards, masks, rules, scores):
    """The round replayed trick by trick from the table's record: 【③感染者の襲撃】 the attack on
    the winner's upper board, 【④生存者の救出】 the rescue (the winner boards the trick's
    survivors, the losers move their tracks, everyone rescues with their track), then
    【ラウンドの終了】 each seat's max(0, rescued + bonus - lost)."""
    n_players = rules[R_PLAYERS]
    upper = np.zeros(n_players, dtype=np.uint64)
    rescued = np.zeros(n_players, dtype=np.int64)
    lost = np.zeros(n_players, dtype=np.int64)
    track = np.zeros(n_players, dtype=np.int64)
    for t in range(n_tricks):
        at = T_RECORD + t * RECORD_WIDTH
        leader, winner = table[at + K_LEADER], table[at + K_WINNER]
        level, attacked = 0, False
        for i in range(n_players):
            c = table[at + K_CARD + i]
            if cards[C_SUIT, c] == INFECTED:
                level += cards[C_RANK, c]
                attacked = True
        if attacked:  # every survivor on the winner's upper board numbered at most the level is lost
            m = upper[winner]
            while m != 0:
                c = lowest_index(m)
                m &= m - np.uint64(1)
                if cards[C_RANK, c] <= level:
                    upper[winner] &= ~(np.uint64(1) << np.uint64(c))
                    lost[winner] += 1
            track[winner] = 0
        for i in range(n_players):
            seat = (leader + i) % n_players
            c = table[at + K_CARD + i]
            if cards[C_SUIT, c] != INFECTED:  # the winner boards every survivor of the trick
                upper[winner] |= np.uint64(1) << np.uint64(c)
            if seat != winner and track[seat] + cards[C_RANK, c] <= TRACK_CAP:  # over the cap: no move
                track[seat] += cards[C_RANK, c]
        for i in range(n_players):  # the winner's board holds the trick's survivors by now
            seat = (leader + i) % n_players
            c = _lowest_upto(upper[seat], track[seat], cards)
            while c >= 0:
                track[seat] -= cards[C_RANK, c]
                upper[seat] &= ~(np.uint64(1) << np.uint64(c))
                rescued[seat] += 1
                c = _lowest_upto(upper[seat], track[seat], cards)
    for s in range(n_players):
        scores[s] = max(0, rescued[s] + (TRACK_BONUS if track[s] == TRACK_CAP else 0) - lost[s])
