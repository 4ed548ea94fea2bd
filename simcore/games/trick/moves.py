"""Moving cards in a decision's effect, keeping what every seat knows (docs/rules-files.md,
"Cards that move").

A ``decision_apply`` hook is handed the cards where they lie: ``hands[s]`` is seat s's hand (a
uint64 mask), ``hands[MAX_PLAYERS + s]`` the cards seat s knows are out of play (what it put face
down), and the table (rules.py) says what every seat sees: the upcard (T_TRUMP_CARD), the cards
every seat knows a seat holds (T_KNOWN + s) and the seats sitting the round out (T_OUT).  A hook
moves cards only through these functions, so that a player is handed exactly what its seat may
know: its hand, the public table, and the cards it saw go out of play — never another seat's hand.
Search deals the unseen cards anew with the cards all know a seat holds in that seat's hand and
without the cards it knows are out of play (strategies/trick.py, ``unseen_cards``).

Plain Python; the play loop compiles them with the hooks that call them (kernel.compiled_hooks).
"""
import numpy as np

from simcore.games.trick.rules import H_STOCK, MAX_PLAYERS, T_HELD, T_KNOWN, T_OUT, T_TRUMP_CARD


def take_upcard(hands, table, seat):
    """Seat ``seat`` takes the face-up card into its hand, in everyone's sight (Euchre's dealer
    picking up the card ordered up).  Nothing when no card is face up."""
    card = table[T_TRUMP_CARD]
    if card < 0:
        return
    hands[seat] |= np.uint64(1) << np.uint64(card)
    table[T_KNOWN + seat] |= np.int64(1) << np.int64(card)
    table[T_HELD + seat] += 1  # (T_TRUMP_CARD still names the card that was turned up)


def draw(hands, table, seat, card):
    """Seat ``seat`` draws ``card`` from the stock (hands[H_STOCK]): only it sees which card.  The
    card is a decision of chance's choice (who = "chance": handed the stock as its hand, it draws
    one of its cards at random), so no player picks the card it draws."""
    hands[H_STOCK] &= ~(np.uint64(1) << np.uint64(card))
    hands[seat] |= np.uint64(1) << np.uint64(card)
    table[T_HELD + seat] += 1


def discard(hands, table, seat, card):
    """Seat ``seat`` puts ``card`` from its hand face down out of play: only it knows which card
    went (the others count it among the cards they have not seen)."""
    hands[seat] &= ~(np.uint64(1) << np.uint64(card))
    table[T_KNOWN + seat] &= ~(np.int64(1) << np.int64(card))
    hands[MAX_PLAYERS + seat] |= np.uint64(1) << np.uint64(card)
    table[T_HELD + seat] -= 1


def exchange_upcard(hands, table, seat, card):
    """Seat ``seat`` swaps ``card`` from its hand with the face-up card, both in everyone's sight:
    the upcard goes into its hand (known to all), ``card`` lies face up in its place."""
    up = table[T_TRUMP_CARD]
    if up < 0:
        return
    hands[seat] &= ~(np.uint64(1) << np.uint64(card))
    table[T_KNOWN + seat] &= ~(np.int64(1) << np.int64(card))
    hands[seat] |= np.uint64(1) << np.uint64(up)
    table[T_KNOWN + seat] |= np.int64(1) << np.int64(up)
    table[T_TRUMP_CARD] = card


def sit_out(table, seat):
    """Seat ``seat`` sits the rest of the round out (a lone maker's partner): it plays no card,
    and a trick has one card fewer.  Its hand stays unseen."""
    table[T_OUT] |= np.int64(1) << np.int64(seat)


def sits_out(table, seat):
    """True when seat ``seat`` sits this round out."""
    return (table[T_OUT] >> np.int64(seat)) & np.int64(1) != 0
