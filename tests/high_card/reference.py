"""High Card in plain Python: the oracle its kernel is tested against (written from the rules
in rules.py's docstring, not from the kernel).  Random play draws from the same streams."""
from dataclasses import dataclass

from simcore.rng import DEAL, PyStream, seat_play_streams


@dataclass
class GameRecord:
    hands: list[list[int]]
    tricks: list[dict]
    scores: list[int]
    shares: list[float]


def play_game(players: int, cards: int, seed: int, index: int, decide=None) -> GameRecord:
    """One game; ``decide(seat, hand, best_so_far)`` chooses a card (default: uniformly at random
    from the seat's own PLAY stream, the k-th lowest card of the hand)."""
    deal_stream, play_streams = PyStream(seed, index, DEAL), seat_play_streams(seed, index, players)
    deck = list(range(1, cards + 1))
    for i in range(cards - 1, 0, -1):
        j = deal_stream.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    size = cards // players
    hands = [sorted(deck[s * size:(s + 1) * size]) for s in range(players)]
    if decide is None:
        def decide(seat, hand, best):
            return hand[play_streams[seat].below(len(hand))]
    return play_hands(hands, decide)


def play_hands(hands: list[list[int]], decide) -> GameRecord:
    """The tricks from a dealt position, seat 0 leading the first."""
    players = len(hands)
    dealt = [sorted(h) for h in hands]
    hands = [list(h) for h in dealt]
    scores, tricks, leader = [0] * players, [], 0
    for _ in range(len(hands[0])):
        cards_played, best, winner = [None] * players, 0, leader
        for i in range(players):
            seat = (leader + i) % players
            card = decide(seat, hands[seat], best)
            if card not in hands[seat]:
                raise ValueError(f"seat {seat} cannot play {card}")
            hands[seat].remove(card)
            cards_played[seat] = card
            if card > best:
                best, winner = card, seat
        scores[winner] += 1
        tricks.append({"leader": leader, "cards": cards_played, "winner": winner})
        leader = winner
    top = max(scores)
    shares = [1 / scores.count(top) if x == top else 0.0 for x in scores]
    return GameRecord(dealt, tricks, scores, shares)
