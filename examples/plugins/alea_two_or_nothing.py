"""A Sky City of ALEA plug-in: declare K dice, or nothing when the revealed trap is risky.

`table[2]` is T_TRAP (simcore/games/sky_city/rules.py): the row of the revealed trap in `odds`,
where `odds[t, n]` is the exact chance trap t fires on n fresh dice."""
from numba import njit
GAME = "sky-city"
NAME = "two-or-nothing"
PARAMS = (2.0,)

@njit
def choose_declare(params, seat, table, rules, odds, streams):
    # declare K dice (PARAMS[0]) unless the revealed trap is likelier than 1 in 3 to fire on 10 dice
    return 0 if odds[table[2], 10] > 0.33 else int(params[seat, 0])
