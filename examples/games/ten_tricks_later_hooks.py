"""Hooks of examples/games/ten-tricks-later.toml: 10 TRICKS LATER's follow rule, trick winner and
round score, which the keys of a rules file cannot say (docs/rules-files.md, "Hooks"), and its
infected-8 swap as three decisions (the file's [[decision]] tables).

Rules from docs/rules/ten-tricks-later.md (its headings in 【】).  The rules file's suits are the
four colours and then "infected"; a card's rank index is its printed number (ranks "0".."8").
Each hook is plain Python in Numba's subset; balance compiles it into the play loop, and the
reference engine runs it as Python.
"""
import numpy as np

from simcore.bits import lowest_index, popcount
from simcore.games.trick.moves import discard, take_upcard
from simcore.games.trick.rules import (
    C_RANK, C_SUIT, K_CARD, K_LEADER, K_WINNER, M_SUIT, R_PLAYERS, RECORD_WIDTH, T_BROKEN, T_COUNTER, T_NPLAYED,
    T_PLAY, T_RECORD,
)

INFECTED = 4  # the fifth suit of the rules file
TRACK_CAP = 8  # the track's maximum (Rules.track_cap)
TRACK_BONUS = 3  # round points for a track exactly at the cap (Rules.track_bonus)


OFFER, GIVE, SWAP = 0, 1, 2  # the file's decisions, in order
OFFERS = 0  # the round's counter: the seats that offered (bit s)
GIVEN = 1  # + seat: 1 + the card seat s would give up


def decision_options(decision, seat, hand, table, rules, cards, masks):
    """【ゲームの準備】②: only a hand as dealt without infected is asked to offer; an offering hand
    names the card it would give; the swap draws among the seats that offered."""
    offered = table[T_COUNTER + OFFERS]
    if decision == OFFER:
        return np.uint64(0b11) if hand & masks[M_SUIT + INFECTED] == 0 else np.uint64(0)
    if decision == GIVE:
        return hand if (offered >> seat) & 1 != 0 else np.uint64(0)
    return np.uint64(offered)


def decision_apply(decision, seat, choice, hands, table, rules, cards, masks):
    """An offer is marked, the card to give kept; the swap takes infected 8 (the upcard) into the
    chosen seat's hand in everyone's sight, its card face down out of the round."""
    if decision == OFFER:
        if choice == 1:
            table[T_COUNTER + OFFERS] |= 1 << seat
    elif decision == GIVE:
        table[T_COUNTER + GIVEN + seat] = choice + 1
    else:
        take_upcard(hands, table, choice)
        discard(hands, table, choice, table[T_COUNTER + GIVEN + choice] - 1)


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


def score_round(table, n_tricks, cards, masks, rules, scores):
    """The round replayed trick by trick from the table's record: 【③感染者の襲撃】 the attack on
    the winner's upper board, 【④生存者の救出】 the rescue (the winner boards the trick's
    survivors, the losers move their tracks, everyone rescues with their track), then
    【ラウンドの終了】 each seat's max(0, rescued + bonus - lost)."""
    n_players = rules[R_PLAYERS]
    # boards are masks of deck indices; upto[n]: every survivor numbered n or less, so that an
    # attack is one AND and a rescue looks at most 8 numbers (the hook runs once a round, but a
    # run plays millions of rounds: it is half the time of a game)
    boards = np.zeros(n_players + 9, dtype=np.uint64)  # upper boards, then upto[0..8]
    counts = np.zeros((3, n_players), dtype=np.int64)
    rescued, lost, track = counts[0], counts[1], counts[2]
    for c in range(cards.shape[1]):
        if cards[C_SUIT, c] != INFECTED:
            for n in range(cards[C_RANK, c], 9):
                boards[n_players + n] |= np.uint64(1) << np.uint64(c)
    for t in range(n_tricks):
        at = T_RECORD + t * RECORD_WIDTH
        leader, winner = table[at + K_LEADER], table[at + K_WINNER]
        level, attacked = 0, False
        for i in range(n_players):
            c = table[at + K_CARD + i]
            if c >= 0 and cards[C_SUIT, c] == INFECTED:  # -1: not played yet (a player's what-if)
                level += cards[C_RANK, c]
                attacked = True
        if attacked:  # every survivor on the winner's upper board numbered at most the level is lost
            hit = boards[winner] & boards[n_players + min(level, 8)]
            lost[winner] += popcount(hit)
            boards[winner] &= ~hit
            track[winner] = 0
        for i in range(n_players):
            seat = (leader + i) % n_players
            c = table[at + K_CARD + i]
            if c < 0:
                continue
            if cards[C_SUIT, c] != INFECTED:  # the winner boards every survivor of the trick
                boards[winner] |= np.uint64(1) << np.uint64(c)
            if seat != winner and track[seat] + cards[C_RANK, c] <= TRACK_CAP:  # over the cap: no move
                track[seat] += cards[C_RANK, c]
        for seat in range(n_players):  # the lowest-numbered survivor first, while the track reaches it
            while track[seat] > 0:
                m = boards[seat] & boards[n_players + min(track[seat], 8)]
                if m == 0:
                    break
                n = 1
                while m & boards[n_players + n] == 0:
                    n += 1
                lowest = m & boards[n_players + n]
                c = lowest_index(lowest)
                track[seat] -= cards[C_RANK, c]
                boards[seat] &= ~(np.uint64(1) << np.uint64(c))
                rescued[seat] += 1
    for s in range(n_players):
        scores[s] = max(0, rescued[s] + (TRACK_BONUS if track[s] == TRACK_CAP else 0) - lost[s])
