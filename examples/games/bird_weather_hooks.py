"""Hooks of examples/games/bird-weather.toml: BIRD & WEATHER's follow rule, trick winner and
trick points, which the keys of a rules file cannot say (docs/rules-files.md, "Hooks").

Rules from docs/rules/bird-weather.md (§ = the rulebook's sections).  A card's number is
10 x tens + ones; the rules file's suits are the tens digits 1.. (suit index + 1) and its ranks
the ones digits 0..9 (rank index).  Each hook is plain Python in Numba's subset; balance compiles
it into the play loop, and the reference engine runs it as Python.
"""

from simcore.games.trick.rules import C_RANK, C_SUIT, M_RANK, M_SUIT, T_NPLAYED, T_PLAY


def legal(hand, table, rules, cards, masks, first_trick):
    """§5-②: follow the lead's tens or its ones digit when you can; otherwise any card."""
    if table[T_NPLAYED] == 0:
        return hand
    lead = table[T_PLAY]
    follows = hand & (masks[M_SUIT + cards[C_SUIT, lead]] | masks[M_RANK + cards[C_RANK, lead]])  # weather or bird
    return follows if follows != 0 else hand


def _card(table, i, n_played, candidate):
    return candidate if i == n_played else table[T_PLAY + i]


def _trick(table, n_played, candidate, cards):
    """(winner position, points) of the trick's cards, §5-② and §6."""
    m = n_played + (1 if candidate >= 0 else 0)
    # the deck's lowest and highest weather (§6-①: 1 and the top one): its first and last suits
    low_tens = cards[C_SUIT, 0] + 1
    high_tens = cards[C_SUIT, cards.shape[1] - 1] + 1
    lead = _card(table, 0, n_played, candidate)
    lead_tens, lead_ones = cards[C_SUIT, lead] + 1, cards[C_RANK, lead]
    same_tens, zero, has_low, has_high = True, -1, False, False
    best, best_at, least, least_at = -1, 0, 100, 0  # the highest and lowest number taking part, and where
    low_ones, high_ones = 10, -1
    for i in range(m):
        c = _card(table, i, n_played, candidate)
        tens, ones = cards[C_SUIT, c] + 1, cards[C_RANK, c]
        same_tens = same_tens and tens == lead_tens
        if ones == 0:
            zero = i
        low_ones = min(low_ones, ones)
        high_ones = max(high_ones, ones)
        if i == 0 or tens == lead_tens or ones == lead_ones:  # only the lead and its followers win
            has_low = has_low or tens == low_tens
            has_high = has_high or tens == high_tens
            number = 10 * tens + ones
            if number > best:
                best, best_at = number, i
            if number < least:
                least, least_at = number, i
    if same_tens and zero >= 0:  # §6-②: all one weather and a 0 among them: the 0 wins, 0 points
        return zero, 0
    if has_low and has_high and low_tens < high_tens:  # §6-①/④: lowest wins, the highest bird scores
        return least_at, high_ones
    return best_at, low_ones  # §5-③: the highest wins and scores the lowest bird of all


def trick_winner(table, n_played, candidate, cards, masks, rules, trump):
    return _trick(table, n_played, candidate, cards)[0]


def trick_points(table, n_played, cards, masks, rules):
    return _trick(table, n_played, -1, cards)[1]
