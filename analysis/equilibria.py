"""The Sky City of ALEA: declaration equilibria, trap card by trap card.

Each round every player declares at once how many dice to throw (0..D), knowing only the trap
card.  Taken alone, one round is a symmetric game of N players whose payoff is the points a
player scores in it.  For each trap card this module finds a mixed declaration policy sigma
(a probability for each count) such that no single player gains by deviating while the others
keep to sigma, and measures that claim on fresh dice:

1. **Payoffs.** For every own declaration a and every multiset of the others' declarations, the
   mean points over ``rounds`` simulated rounds (the compiled ``round_points``: everyone at 0
   points, not the final round); every cell rolls the same dice (common random numbers).
2. **Solving.** Fictitious play on the symmetric game: sigma moves a step 1/(t+2) towards the
   best reply to itself (Brown 1951); its in-sample exploitability max_a u(a, sigma) - u(sigma,
   sigma) is reported.
3. **Checking.** On a second, independent set of rounds (another seed), the others declare by
   sigma and the same rounds are replayed with the first seat declaring each count in turn: the
   gain of every declaration over playing sigma gets a 95% interval over rounds.  The policy
   *holds* when no declaration's upper bound exceeds the practical gain (``analysis.verdict``:
   thresholds().gain_points, 0.05 points per round unless balance.toml says otherwise), *fails*
   when one's lower bound does, and is *unsettled* otherwise (more rounds would tell).  The EV
   player's declaration (strategies/sky_city.py, which models the others as uniform declarers)
   is one of the rows measured.

What this leaves out, and says so on the page: scores (escape order and the race to the target)
and the final round's multiplier; the equilibrium is that of a mid-game round between equals.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from simcore.errors import BalanceError

DEFAULT_ROUNDS = 10_000  # per payoff cell (own declaration x the others' multiset)
CHECK_ROUNDS = 50_000  # for the deviation check
ITERATIONS = 20_000  # fictitious play steps
CHECK_SEED_OFFSET = 0x5EED  # the checking rounds use another seed than the payoff table


def profiles(actions: int, others: int) -> np.ndarray:
    """Every multiset of the others' declarations, as sorted rows (int64[J, others])."""
    return np.array(list(itertools.combinations_with_replacement(range(actions), others)), dtype=np.int64)


def profile_weights(profile_rows: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """P(the others' declarations are this multiset | each declares by sigma), per row."""
    counts, coefficients = _multinomial(profile_rows.tobytes(), *profile_rows.shape, len(sigma))
    return coefficients * np.prod(sigma[None, :] ** counts, axis=1)


_MULTINOMIAL: dict = {}


def _multinomial(key: bytes, n_rows: int, others: int, actions: int) -> tuple[np.ndarray, np.ndarray]:
    """Per multiset row: how often each declaration occurs in it, and how many orderings it has."""
    if (key, actions) not in _MULTINOMIAL:
        rows = np.frombuffer(key, dtype=np.int64).reshape(n_rows, others)
        counts = np.stack([np.bincount(row, minlength=actions) for row in rows])
        orderings = np.array([math.factorial(others) / math.prod(math.factorial(c) for c in row) for row in counts])
        _MULTINOMIAL[(key, actions)] = (counts, orderings)
    return _MULTINOMIAL[(key, actions)]


def round_points(setup, trap: int, declarations: np.ndarray, dice_index: np.ndarray, seed: int,
                 points: np.ndarray) -> None:
    """The compiled ``round_points`` (one round per row of ``declarations``, simcore/games/sky_city/
    kernel.py) on the run's threads: each row depends only on its declarations and its dice."""
    from simcore.games.sky_city.kernel import round_points as rounds_of
    from simcore.threads import share_out

    def share(first: int, last: int, into: tuple) -> None:
        rounds_of((setup.rules, setup.codes, setup.trap_ids, setup.odds), trap, declarations, dice_index, seed, first,
                  last, *into)

    share_out(share, len(declarations), (points,))


def payoff_table(setup, trap: int, rounds: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(means[a, j], profile rows): the first seat's mean points declaring a while the others
    declare multiset j, over ``rounds`` rounds of trap row ``trap`` (the same dice in every cell)."""
    actions, players = setup.dice_per_player + 1, setup.players
    rows = profiles(actions, players - 1)
    cells = actions * len(rows)
    declarations = np.empty((cells * rounds, players), dtype=np.int64)
    for a in range(actions):
        for j, row in enumerate(rows):
            block = slice((a * len(rows) + j) * rounds, (a * len(rows) + j + 1) * rounds)
            declarations[block, 0] = a
            declarations[block, 1:] = row
    dice_index = np.tile(np.arange(rounds, dtype=np.int64), cells)
    points = np.zeros((len(declarations), players), dtype=np.int64)
    round_points(setup, trap, declarations, dice_index, seed, points)
    return points[:, 0].reshape(actions, len(rows), rounds).mean(axis=2), rows


def solve(means: np.ndarray, rows: np.ndarray, iterations: int = ITERATIONS) -> tuple[np.ndarray, float]:
    """Fictitious play from the uniform policy: (sigma, its exploitability in the table)."""
    actions = means.shape[0]
    sigma = np.full(actions, 1.0 / actions)
    for t in range(iterations):
        values = means @ profile_weights(rows, sigma)
        best = np.zeros(actions)
        best[int(np.argmax(values))] = 1.0
        sigma += (best - sigma) / (t + 2)
    values = means @ profile_weights(rows, sigma)
    return sigma, float(values.max() - values @ sigma)


def deviation_points(setup, trap: int, sigma: np.ndarray, rounds: int, seed: int) -> np.ndarray:
    """points[r, a]: the first seat's points in round r declaring a, the others declaring by
    sigma (drawn once per round, the same for every a), the dice of round r the same for every a."""
    actions, players = setup.dice_per_player + 1, setup.players
    others = np.random.default_rng([seed, trap]).choice(actions, size=(rounds, players - 1), p=sigma / sigma.sum())
    declarations = np.empty((rounds * actions, players), dtype=np.int64)
    declarations[:, 0] = np.tile(np.arange(actions), rounds)
    declarations[:, 1:] = np.repeat(others, actions, axis=0)
    dice_index = np.repeat(np.arange(rounds, dtype=np.int64), actions)
    points = np.zeros((len(declarations), players), dtype=np.int64)
    round_points(setup, trap, declarations, dice_index, seed, points)
    return points[:, 0].reshape(rounds, actions).astype(np.float64)


def gain_interval(points: np.ndarray, sigma: np.ndarray, action: int) -> dict:
    """Mean gain of always declaring ``action`` over declaring by sigma, with a 95% interval over rounds."""
    gain = points[:, action] - points @ sigma
    mean = float(gain.mean())
    half = 1.959963984540054 * float(gain.std(ddof=1)) / math.sqrt(len(gain))
    return {"declaration": int(action), "gain": mean, "ci": [mean - half, mean + half]}


def ev_declaration(setup, trap: int) -> int:
    """What the built-in `expected-value` player declares for this trap in a mid-game round."""
    from simcore.games.sky_city.rules import T_FINAL, T_TRAP, TABLE_WIDTH
    from simcore.registry import get_game

    # the players are reached through the registry (analysis never imports strategies/)
    expected_value_declare = get_game("sky-city").strategy_module().expected_value_declare
    table = np.zeros(TABLE_WIDTH, dtype=np.int64)
    table[T_TRAP], table[T_FINAL] = trap, 0
    return int(expected_value_declare(0, table, setup.rules, setup.odds))


def equilibria(setup, rounds: int = DEFAULT_ROUNDS, check_rounds: int = CHECK_ROUNDS, seed: int = 1,
               progress=None) -> list[dict]:
    """One entry per trap card in use: sigma, its expected points, the best deviation's gain and
    the EV player's, both with 95% intervals on fresh rounds."""
    if rounds < 100 or check_rounds < 1_000:
        raise BalanceError("equilibria need at least 100 rounds per payoff cell and 1,000 checking rounds")
    names = list(setup.deck.names)
    out = []
    for trap in range(len(names)):
        means, rows = payoff_table(setup, trap, rounds, seed)
        sigma, exploit = solve(means, rows)
        points = deviation_points(setup, trap, sigma, check_rounds, seed + CHECK_SEED_OFFSET)
        value = points @ sigma
        gains = [gain_interval(points, sigma, a) for a in range(len(sigma))]
        best = max(gains, key=lambda g: g["gain"])
        ev = ev_declaration(setup, trap)
        out.append({
            "trap": names[trap], "policy": [float(p) for p in sigma],
            "usual_declaration": int(np.argmax(sigma)),
            "points_per_round": float(value.mean()),
            "points_ci": _mean_ci(value),
            "exploitability_in_table": exploit,
            "deviations": gains,
            "best_deviation": best,
            "status": status(gains),
            "ev_declaration": ev, "ev_against_policy": gains[ev],
        })
        if progress is not None:
            progress(1)
    return out


def status(gains: list[dict]) -> str:
    """"holds": no declaration gains more than the practical gain (every upper 95% bound below it);
    "fails": some declaration gains more (its lower bound above it); "unsettled" otherwise."""
    gain = practical_gain()
    if any(g["ci"][0] > gain for g in gains):
        return "fails"
    if all(g["ci"][1] <= gain for g in gains):
        return "holds"
    return "unsettled"


def practical_gain() -> float:
    """Points per round a deviation must gain to matter (the ``gain_points`` threshold)."""
    from analysis.verdict import thresholds

    return thresholds().gain_points


def _mean_ci(values: np.ndarray) -> list[float]:
    mean = float(values.mean())
    half = 1.959963984540054 * float(values.std(ddof=1)) / math.sqrt(len(values))
    return [mean - half, mean + half]


# --------------------------------------------------------------------------------------------
# tables and the chart (the `traps` page)
# --------------------------------------------------------------------------------------------

def policy_phrase(policy: list[float]) -> str:
    """``3: 49%, 4: 39%, 5: 11%`` (declarations played at least 1% of the time)."""
    return ", ".join(f"{k}: {100 * p:.0f}%" for k, p in enumerate(policy) if p >= 0.01)


def _signed(entry: dict) -> str:
    low, high = entry["ci"]
    return f"{entry['gain']:+.3f} [{low:+.3f}, {high:+.3f}]"


def table(rows: list[dict]) -> tuple[list[str], list[list[str]]]:
    headers = ["trap", "equilibrium declarations", "points / round [95% CI]", "best deviation: gain [95% CI]",
               "equilibrium", "EV player declares", "EV against it: gain [95% CI]"]
    body = [[r["trap"], policy_phrase(r["policy"]),
             f"{r['points_per_round']:.3f} [{r['points_ci'][0]:.3f}, {r['points_ci'][1]:.3f}]",
             f"{r['best_deviation']['declaration']}: {_signed(r['best_deviation'])}",
             r["status"], str(r["ev_declaration"]), _signed(r["ev_against_policy"])]
            for r in rows]
    return headers, body


def note(rounds: int, check_rounds: int, players: int) -> str:
    return (f"One round taken alone, {players} players at equal scores, not the final round. Payoffs: the mean "
            f"points of each own declaration against each combination of the others' ({rounds:,} rounds each, "
            f"the same dice in every cell); solved by fictitious play. Checked on {check_rounds:,} fresh rounds "
            f"(another seed): the others declare by the policy and each declaration is replayed on the same dice; "
            f"'best deviation' is the declaration that gains most over playing the policy there. 'holds': no "
            f"declaration gains more than {practical_gain():g} points per round (every upper 95% bound below it); "
            f"'fails': one does (its lower bound above it); 'unsettled': more rounds would tell. The EV player models the others as uniform declarers; its row says "
            f"what its declaration gains or loses against players who keep to the equilibrium.")


def chart(rows: list[dict], players: int) -> bytes:
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    from analysis.charts import _png

    policy = np.array([r["policy"] for r in rows]) * 100
    figure = Figure(figsize=(8.5, 0.34 * len(rows) + 2.0), layout="constrained")
    axes = figure.add_subplot()
    image = axes.imshow(policy, aspect="auto", cmap="Blues", vmin=0, vmax=100)
    for i, r in enumerate(rows):
        for k, p in enumerate(policy[i]):
            if p >= 1:
                axes.text(k, i, f"{p:.0f}", ha="center", va="center", fontsize=7,
                          color="white" if p > 60 else "black")
        axes.add_patch(Rectangle((r["ev_declaration"] - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#e45756",
                                 linewidth=1.6))
    axes.set_yticks(range(len(rows)), [r["trap"] for r in rows], fontsize=8)
    axes.set_xticks(range(policy.shape[1]), [str(k) for k in range(policy.shape[1])])
    axes.set_xlabel("dice declared (count); red box = the EV player's declaration")
    axes.set_ylabel("trap card")
    figure.suptitle("Declaration equilibrium per trap card", fontsize=13, fontweight="bold")
    axes.set_title(f"The Sky City of ALEA · {players} players · share of declarations (%) in a mixed equilibrium "
                   f"of one round", fontsize=8, color="0.3")
    figure.colorbar(image, ax=axes, label="declared with this probability (%)")
    return _png(figure)
