"""The Sky City of ALEA: state encoding and rules (compiled).

Rules as implemented: docs/rules/sky-city-of-alea.md.  Traps are judged by
``simcore.games.sky_city.trap_odds.fires`` on the face counts of every die on the table this
round (docs/traps.md).

Encoding
--------
``rules`` is an int64 vector of the variant (R_* slots).  The traps in use at
this player count are rows of ``codes`` (int64[n_traps, CODE_WIDTH]);
``trap_ids[i]`` is row i's index in the full deck (for logs and tallies) and
``odds[i, n]`` the exact probability that trap i fires on n fresh dice.

``table`` is the public state a strategy may read (T_* slots), one int64 each:

    T_ROUND        rounds played before this one
    T_FINAL        1 in the final round (its points are multiplied)
    T_TRAP         row of the revealed trap in ``codes``/``odds``
    T_SCORE + s    seat s's total so far
    T_DECLARED + s seat s's declaration this round (-1 until all have declared)
"""
import numpy as np

from simcore.errors import BalanceError

MAX_PLAYERS = 5
PLAYER_COUNTS = (3, 4, 5)
MAX_DICE_PER_PLAYER = 5  # the trap language tables run to 25 dice on the table

R_PLAYERS, R_DICE, R_TARGET, R_ZERO_BONUS, R_MULTIPLIER, R_MAX_ROUNDS, R_TRAPS, R_FIRST_FAILURE_ENDS = range(8)
N_RULES = 8

T_ROUND, T_FINAL, T_TRAP = 0, 1, 2
T_SCORE = 3
T_DECLARED = T_SCORE + MAX_PLAYERS
TABLE_WIDTH = T_DECLARED + MAX_PLAYERS

# how a round ended
ALL_ZERO, ALL_CLEARED, FIRST_ROLL, FAILED_ESCAPE = 0, 1, 2, 3
ENDED_NAMES = ("all-zero", "all-cleared", "first-roll", "failed-escape")

# per-game counters
(C_ROUNDS, C_FIRST_ROLL, C_ESCAPES, C_ESCAPED, C_ZERO_BONUSES, C_ALL_ZERO, C_CAPPED, C_ROLLOFF) = range(8)
COUNTER_NAMES = ("rounds", "first_roll_triggers", "escapes", "escapes_succeeded", "zero_bonuses",
                 "all_zero_rounds", "capped", "rolloff")
N_COUNTERS = 8

# per-trap tallies of the rounds it was revealed in (summed over a run)
# (points_squared: the sum over rounds of the square of all players' points in the round, so the
# points per player per round carry an interval)
(S_ROUNDS, S_POINTS, S_FIRST_ROLL, S_ESCAPES, S_ESCAPED, S_ZERO_ROUNDS, S_ZERO_PAID_ROUNDS, S_POINTS_SQ) = range(8)
TRAP_STAT_NAMES = ("rounds", "points", "first_roll_endings", "escapes", "escapes_succeeded",
                   "rounds_with_zero_declarers", "rounds_zero_declarers_paid", "points_squared")
N_TRAP_STATS = 8

# one log row per round: what was revealed and declared, every die in the order rolled, the points
L_ROUND, L_TRAP, L_FINAL, L_ENDED = 0, 1, 2, 3
L_DECLARED = 4
L_POINTS = L_DECLARED + MAX_PLAYERS
L_NDICE = L_POINTS + MAX_PLAYERS
L_DICE = L_NDICE + 1
MAX_ROUND_DICE = 25 * 6  # the groups' dice (<= 25) and at most five rerolls of <= 25
LOG_WIDTH = L_DICE + MAX_ROUND_DICE


# ---------------------------------------------------------------------------
# Variant parameters (plain Python)

from dataclasses import dataclass  # noqa: E402

GAME = "sky-city"
TITLE = "The Sky City of ALEA"

VARIANT_KEYS = {
    "dice_per_player": (int, "dice each player has, i.e. the largest declaration (1..5); default 5"),
    "target": (int, "total that makes the next round the final one; default 12 at 3 players, else 10"),
    "target_3": (int, "target at 3 players only (overrides the default 12)"),
    "target_4": (int, "target at 4 players only (overrides the default 10)"),
    "target_5": (int, "target at 5 players only (overrides the default 10)"),
    "zero_bonus": (int, "points for declaring 0 when the first group triggers the trap; default 3"),
    "final_multiplier": (int, "points multiplier of the final round; default 2"),
    "max_rounds": (int, "round cap guarding against endless games (counted when hit); default 200"),
    "traps": (str, "trap deck TOML file (docs/traps.md); default the bundled 22-card deck"),
    "first_failure_ends_escapes": (bool, "true: the first failed escape ends the round at once and the group's later "
                                         "escapers do not reroll (the project's reading until 2026-11-27); default "
                                         "false: every triggered player rerolls (the rulebook)"),
}


@dataclass(frozen=True)
class Setup:
    players: int
    deck: object  # simcore.games.sky_city.trap_language.Deck: the traps in use at this player count
    full_deck: object
    dice_per_player: int
    target: int
    zero_bonus: int
    final_multiplier: int
    max_rounds: int
    first_failure_ends_escapes: bool
    rules: np.ndarray
    codes: np.ndarray
    trap_ids: np.ndarray
    odds: np.ndarray


def make_setup(players: int, settings: dict | None = None, base_dir=None) -> Setup:
    from pathlib import Path

    from simcore.games.sky_city.trap_odds import exact_odds
    from simcore.games.sky_city.trap_language import load_deck

    settings = dict(settings or {})
    if players not in PLAYER_COUNTS:
        raise BalanceError(f"{TITLE} is for 3 to 5 players, not {players}")
    dice = settings.get("dice_per_player", 5)
    if not 1 <= dice <= MAX_DICE_PER_PLAYER:
        raise BalanceError(f"variant 'dice_per_player' must be 1..{MAX_DICE_PER_PLAYER}, not {dice}")
    target = settings.get(f"target_{players}", settings.get("target", 12 if players == 3 else 10))
    if not 1 <= target <= 1000:
        raise BalanceError(f"variant target must be 1..1000, not {target}")
    zero_bonus = settings.get("zero_bonus", 3)
    multiplier = settings.get("final_multiplier", 2)
    max_rounds = settings.get("max_rounds", 200)
    # scores are stored as 16-bit numbers: these bounds keep every total far inside them
    if not 0 <= zero_bonus <= 100 or not 1 <= multiplier <= 10 or not 1 <= max_rounds <= 100_000:
        raise BalanceError("variant 'zero_bonus' must be 0..100, 'final_multiplier' 1..10, 'max_rounds' 1..100000")
    first_failure_ends = bool(settings.get("first_failure_ends_escapes", False))
    trap_file = settings.get("traps")
    if trap_file is not None and base_dir is not None and not Path(trap_file).is_absolute():
        trap_file = Path(base_dir) / trap_file
    full = load_deck(trap_file)
    deck = full.for_players(players)
    if len(deck) == 0:
        raise BalanceError(f"the trap deck has no card for {players} players")
    names = list(full.names)
    trap_ids = np.array([names.index(t.name) for t in deck.traps], dtype=np.int64)
    codes = np.ascontiguousarray(deck.codes, dtype=np.int64)
    odds = exact_odds(codes, players * dice)
    rules = np.zeros(N_RULES, dtype=np.int64)
    rules[R_PLAYERS] = players
    rules[R_DICE] = dice
    rules[R_TARGET] = target
    rules[R_ZERO_BONUS] = zero_bonus
    rules[R_MULTIPLIER] = multiplier
    rules[R_MAX_ROUNDS] = max_rounds
    rules[R_TRAPS] = len(deck)
    rules[R_FIRST_FAILURE_ENDS] = int(first_failure_ends)
    return Setup(players, deck, full, dice, target, zero_bonus, multiplier, max_rounds, first_failure_ends, rules,
                 codes, trap_ids, np.ascontiguousarray(odds))
