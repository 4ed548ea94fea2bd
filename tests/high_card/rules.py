"""High Card's public encoding.

The deck is cards 1..CARDS (default 12), card c at bit c-1 of a uint64 hand.  Each player is
dealt CARDS // players cards; the first leader is seat 0.  In each trick every player in turn
plays any card; the highest card wins the trick (one point) and its player leads the next.  The
most points wins; a tie splits the win.

    rules[R_PLAYERS]   players
    rules[R_CARDS]     cards in the deck
    rules[R_HAND]      cards dealt to each player (= tricks)
    table[T_LEADER]    who leads this trick;  table[T_BEST] the best card so far (0: none)
    table[T_SCORE + s] seat s's points so far
"""
from dataclasses import dataclass

import numpy as np

from simcore.errors import BalanceError

GAME = "high-card"
TITLE = "High Card (test game)"
PLAYER_COUNTS = (2, 3)
MAX_PLAYERS = 3
VARIANT_KEYS = {"cards": (int, "cards in the deck, 4..60; default 12")}

R_PLAYERS, R_CARDS, R_HAND = 0, 1, 2
N_RULES = 3
T_LEADER, T_BEST = 0, 1
T_SCORE = 2
TABLE_WIDTH = T_SCORE + MAX_PLAYERS
COUNTER_NAMES = ("leader_wins",)
N_COUNTERS = 1
L_LEADER, L_CARD = 0, 1  # log row per trick: leader, the cards in seat order, winner
L_WINNER = L_CARD + MAX_PLAYERS
LOG_WIDTH = L_WINNER + 1


@dataclass(frozen=True)
class Setup:
    players: int
    cards: int
    rules: np.ndarray
    masks: np.ndarray  # unused by the rules; the engine's default kernel input

    @property
    def hand(self) -> int:
        return self.cards // self.players


def make_setup(players: int, settings: dict | None = None) -> Setup:
    cards = (settings or {}).get("cards", 12)
    if not 4 <= cards <= 60:
        raise BalanceError(f"cards must be 4..60, not {cards}")
    rules = np.array([players, cards, cards // players], dtype=np.int64)
    return Setup(players, cards, rules, np.zeros(1, dtype=np.uint64))
