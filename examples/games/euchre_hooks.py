"""Hooks of examples/games/euchre.toml: OpenSpiel's euchre (open_spiel/games/euchre/euchre.cc,
tools/openspiel_rules_notes.md "Euchre"): the calling rounds, the dealer's pick-up and discard,
going alone, the bowers and the makers' score, which the keys of a rules file cannot say.

Suits are 0 clubs, 1 diamonds, 2 hearts, 3 spades (deck.suits), so the other suit of a suit's
colour is 3 - suit; ranks 0..5 are 9 T J Q K A.  The round's counters (T_COUNTER + k) keep the
calling: whether trump is called, by whom, whether the upcard was ordered up, whether the maker
plays alone.
"""
import numpy as np

from simcore.bits import lowest_index
from simcore.games.trick.moves import discard, sit_out, take_upcard
from simcore.games.trick.rules import C_RANK, C_SUIT, M_SUIT, T_COUNTER, T_DEALER, T_NPLAYED, T_PLAY, T_TRUMP, T_TRUMP_CARD, T_WON

CALLED, MAKER, ORDERED, ALONE = 0, 1, 2, 3
# what the pages count, a round each (count_events)
EVENTS = [("ordered_up", "Trump ordered up in the first round", "round"),
          ("alone", "The maker went alone", "round"),
          ("euchred", "The makers euchred (fewer than three tricks)", "round"),
          ("march", "The makers took all five tricks", "round")]
ORDER, DISCARD, CALL, GO_ALONE = 0, 1, 2, 3  # the file's [[decision]] tables, in order
JACK = 2


def suit_of(card, trump, cards):
    """A card's suit in play: the left bower (the other jack of trump's colour) is a trump (the
    hook the engine's figures read too: a trick the left bower takes on a plain lead is trumped)."""
    suit = cards[C_SUIT, card]
    if trump >= 0 and cards[C_RANK, card] == JACK and suit == 3 - trump:
        return trump
    return suit


def strength(card, trump, cards):
    """A card's rank in play (euchre.cc CardRank): the right bower 100, the left bower 99."""
    if trump >= 0 and cards[C_RANK, card] == JACK:
        if cards[C_SUIT, card] == trump:
            return 100
        if cards[C_SUIT, card] == 3 - trump:
            return 99
    return cards[C_RANK, card]


def left_bower(trump, cards, masks):
    """The left bower: the jack of the other suit of trump's colour, as a one-card mask.  Cards
    are numbered suit by suit, low rank first (simcore/games/trick/rules.py), one of each here:
    a suit's jack is its lowest card's index plus the jack's rank."""
    return np.uint64(1) << np.uint64(lowest_index(masks[M_SUIT + 3 - trump]) + JACK)


def legal(hand, table, rules, cards, masks, first_trick):
    """Follow the suit led, the left bower counting as trump (euchre.cc PlayLegalActions); a
    hand that cannot follow plays any card."""
    if table[T_NPLAYED] == 0:
        return hand
    trump = table[T_TRUMP]
    led = suit_of(table[T_PLAY], trump, cards)
    follows = hand & masks[M_SUIT + led]
    if trump >= 0:
        left = left_bower(trump, cards, masks)
        follows = (follows | (hand & left)) if led == trump else (follows & ~left)
    return follows if follows != 0 else hand


def trick_winner(table, n_played, candidate, cards, masks, rules, trump):
    """The highest trump, else the highest card of the suit led, the bowers on top (Trick::Play)."""
    m = n_played + (1 if candidate >= 0 else 0)
    best = 0
    best_card = table[T_PLAY]
    for i in range(1, m):
        c = candidate if i == n_played else table[T_PLAY + i]
        suit = suit_of(c, trump, cards)
        best_suit = suit_of(best_card, trump, cards)
        if suit == best_suit:
            better = strength(c, trump, cards) > strength(best_card, trump, cards)
        else:  # the card ahead is of the suit led or a trump: only a trump beats it
            better = suit == trump
        if better:
            best = i
            best_card = c
    return best


def decision_options(decision, seat, hand, table, rules, cards, masks):
    called = table[T_COUNTER + CALLED] != 0
    if decision == ORDER:  # BiddingLegalActions, first round: pass, or the upcard's suit
        return np.uint64(0) if called else np.uint64(0b11)
    if decision == DISCARD:  # the dealer, having taken the upcard: any card but the upcard
        if table[T_COUNTER + ORDERED] == 0:
            return np.uint64(0)
        return hand & ~(np.uint64(1) << np.uint64(table[T_TRUMP_CARD]))
    if decision == CALL:  # the second round: pass or another suit; the dealer, last, may not pass
        if called:
            return np.uint64(0)
        options = np.uint64(0b11110) & ~(np.uint64(2) << np.uint64(cards[C_SUIT, table[T_TRUMP_CARD]]))
        return options if seat == table[T_DEALER] else options | np.uint64(1)
    if called and seat == table[T_COUNTER + MAKER]:  # the maker: with its partner, or alone
        return np.uint64(0b11)
    return np.uint64(0)


def decision_apply(decision, seat, choice, hands, table, rules, cards, masks):
    if decision == ORDER:
        if choice == 1:  # ordered up: the upcard's suit is trump and the dealer takes it
            table[T_TRUMP] = cards[C_SUIT, table[T_TRUMP_CARD]]
            table[T_COUNTER + CALLED] = 1
            table[T_COUNTER + MAKER] = seat
            table[T_COUNTER + ORDERED] = 1
            take_upcard(hands, table, table[T_DEALER])
    elif decision == DISCARD:
        discard(hands, table, seat, choice)
    elif decision == CALL:
        if choice > 0:
            table[T_TRUMP] = choice - 1
            table[T_COUNTER + CALLED] = 1
            table[T_COUNTER + MAKER] = seat
    elif choice == 1:  # alone: the partner sits the deal out
        table[T_COUNTER + ALONE] = 1
        sit_out(table, (seat + 2) % 4)


def score_round(table, n_tricks, cards, masks, rules, scores):
    """euchre.cc ComputeScore: the makers take 1 for three or four tricks, 2 for all five (4
    alone), and lose 2 when they take fewer than three; the defenders score the opposite."""
    if table[T_COUNTER + CALLED] == 0:  # every seat passed (not with stick the dealer): no score
        for s in range(4):
            scores[s] = 0
        return
    maker = table[T_COUNTER + MAKER]
    made = table[T_WON + maker] + table[T_WON + (maker + 2) % 4]
    if made == 5:
        points = 4 if table[T_COUNTER + ALONE] != 0 else 2
    elif made >= 3:
        points = 1
    else:
        points = -2
    for s in range(4):
        scores[s] = points if s % 2 == maker % 2 else -points


def count_events(table, n_tricks, cards, masks, rules, events):
    if table[T_COUNTER + CALLED] == 0:
        return
    maker = table[T_COUNTER + MAKER]
    made = table[T_WON + maker] + table[T_WON + (maker + 2) % 4]
    events[0] += table[T_COUNTER + ORDERED]
    events[1] += table[T_COUNTER + ALONE]
    events[2] += made < 3
    events[3] += made == 5
