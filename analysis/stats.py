"""Interval estimates and tests used by the summaries: plain functions of numbers, no SciPy.

Everything here is a closed formula or a short, well-known numerical recipe, so each result can
be checked by hand.  Each function's docstring gives the formula and where it comes from.

Win shares with split ties are fractional (a three-way tie gives each seat 1/3).  Every function
that takes a "success count" accepts a float: the sum of shares is used as the count of wins.
A split tie has less variance than a whole win, so treating shares as Bernoulli trials makes
the intervals very slightly conservative (wider than they need to be), never too narrow.
"""
from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

from simcore.intervals import (DEFAULT_CONFIDENCE, normal_cdf, normal_quantile,  # noqa: F401 (re-exported)
                               wilson_interval, z_for)


# --------------------------------------------------------------------------------------------
# proportions
# --------------------------------------------------------------------------------------------

def mean_interval(mean: float, std: float, count: int,
                  confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Normal-approximation interval for a mean: mean +- z * s / sqrt(n).

    ``std`` is the sample standard deviation (ddof = 1).  By the central limit theorem this is
    accurate for the sample sizes of a Monte Carlo run (thousands of games and up); for tiny
    samples a Student t multiplier would be wider.  With fewer than two values the spread is
    unknown and the interval is (nan, nan).
    """
    if count < 2 or std is None or not math.isfinite(std):
        return math.nan, math.nan
    half = z_for(confidence) * std / math.sqrt(count)
    return mean - half, mean + half


def ratio_interval(sum_x: float, sum_y: float, sum_xx: float, sum_yy: float, sum_xy: float, count: int,
                   confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Interval for a ratio of totals R = sum x / sum y over ``count`` independent games, e.g.
    survivors lost per attack (x = lost, y = attacks in one game).  Units inside one game are
    not independent, so the game is the sampling unit (a cluster); by the delta method

        Var(R) ~ sum (x_i - R y_i)^2 / (n (n - 1) ybar^2),
        sum (x_i - R y_i)^2 = sum x^2 - 2 R sum xy + R^2 sum y^2

    (Cochran, "Sampling Techniques", 3rd ed., §6.4, the ratio estimator).  (nan, nan) without
    two games or without any y.
    """
    if count < 2 or sum_y <= 0:
        return math.nan, math.nan
    ratio = sum_x / sum_y
    residual = max(sum_xx - 2.0 * ratio * sum_xy + ratio * ratio * sum_yy, 0.0)
    y_mean = sum_y / count
    half = z_for(confidence) * math.sqrt(residual / (count * (count - 1))) / y_mean
    return ratio - half, ratio + half


def welch_test(mean_1: float, var_1: float, n_1: float, mean_2: float, var_2: float, n_2: float,
               confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, tuple[float, float], float]:
    """Difference of two means (mean_1 - mean_2) with its normal-approximation interval and the
    two-sided p-value of H0: equal means, standard errors unpooled (Welch); the samples of a
    balance run are large enough for the normal in place of Student's t.  Returns
    (difference, (low, high), p); nan where a sample has fewer than two values."""
    if n_1 < 2 or n_2 < 2:
        return mean_1 - mean_2, (math.nan, math.nan), math.nan
    diff = mean_1 - mean_2
    se = math.sqrt(var_1 / n_1 + var_2 / n_2)
    if se == 0.0:
        return diff, (diff, diff), 1.0 if diff == 0.0 else 0.0
    half = z_for(confidence) * se
    return diff, (diff - half, diff + half), math.erfc(abs(diff / se) / math.sqrt(2.0))


class ZTest(NamedTuple):
    z: float
    p_value: float


def two_proportion_z_test(successes_1: float, trials_1: float,
                          successes_2: float, trials_2: float) -> ZTest:
    """Two-sided pooled z-test of H0: p1 = p2.

        p = (x1 + x2) / (n1 + n2),   z = (p1^ - p2^) / sqrt(p (1 - p) (1/n1 + 1/n2)),
        p-value = 2 (1 - Phi(|z|)) = erfc(|z| / sqrt 2)

    (any statistics text, e.g. Agresti, "Categorical Data Analysis", 3rd ed., §2.1.)
    If both samples are all failures or all successes there is no evidence of a difference:
    z = 0, p = 1.
    """
    if min(trials_1, trials_2) <= 0:
        raise ValueError("both samples need at least one trial")
    p1, p2 = successes_1 / trials_1, successes_2 / trials_2
    pooled = (successes_1 + successes_2) / (trials_1 + trials_2)
    variance = pooled * (1.0 - pooled) * (1.0 / trials_1 + 1.0 / trials_2)
    if variance <= 0.0:
        return ZTest(0.0, 1.0)
    z = (p1 - p2) / math.sqrt(variance)
    return ZTest(z, math.erfc(abs(z) / math.sqrt(2.0)))


def difference_interval(successes_1: float, trials_1: float,
                        successes_2: float, trials_2: float,
                        confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Newcombe's hybrid score interval for the difference of proportions p1 - p2.

    With (l1, u1), (l2, u2) the Wilson intervals of each proportion and d = p1^ - p2^:

        lower = d - sqrt((p1^ - l1)^2 + (u2 - p2^)^2)
        upper = d + sqrt((u1 - p1^)^2 + (p2^ - l2)^2)

    R. G. Newcombe, "Interval estimation for the difference between independent proportions:
    comparison of eleven methods", Statistics in Medicine 17 (1998) 873-890, method 10.
    It keeps close to nominal coverage near 0 and 1, where the Wald interval fails.
    """
    p1, p2 = successes_1 / trials_1, successes_2 / trials_2
    l1, u1 = wilson_interval(successes_1, trials_1, confidence)
    l2, u2 = wilson_interval(successes_2, trials_2, confidence)
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


# --------------------------------------------------------------------------------------------
# chi-square
# --------------------------------------------------------------------------------------------

_GAMMA_EPS = 1e-15
_GAMMA_MAX_STEPS = 10_000
_TINY = 1e-300


def _lower_gamma_series(a: float, x: float) -> float:
    """P(a, x) by the series  e^-x x^a / Gamma(a) * sum_n x^n / (a (a+1) ... (a+n)); for x < a+1."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(_GAMMA_MAX_STEPS):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _GAMMA_EPS:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_gamma_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction, evaluated with modified Lentz; for x >= a+1.

        Q(a, x) = e^-x x^a / Gamma(a) * 1/(x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- ...)))
    """
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _GAMMA_MAX_STEPS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _GAMMA_EPS:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


def upper_regularized_gamma(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a), the regularized upper incomplete gamma function.

    Series for P = 1 - Q below x = a + 1, continued fraction for Q above it, as in Press,
    Teukolsky, Vetterling & Flannery, "Numerical Recipes", 3rd ed. (2007), §6.2 (gser / gcf),
    with log Gamma from math.lgamma.
    """
    if a <= 0:
        raise ValueError(f"gamma shape must be positive, got {a}")
    if x <= 0:
        return 1.0
    if x < a + 1.0:
        return max(0.0, 1.0 - _lower_gamma_series(a, x))
    return min(1.0, _upper_gamma_fraction(a, x))


def chi2_sf(x: float, df: float) -> float:
    """Chi-square survival function P(X >= x) for df > 0 degrees of freedom (integer or real).

    P(chi2_df >= x) = Q(df/2, x/2), Q the regularized upper incomplete gamma function
    (Abramowitz & Stegun, "Handbook of Mathematical Functions", 26.4.19).
    """
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    return upper_regularized_gamma(df / 2.0, x / 2.0)


class ChiSquare(NamedTuple):
    statistic: float
    df: int
    p_value: float


def chi2_equal_shares(counts: Sequence[float]) -> ChiSquare:
    """Pearson goodness-of-fit test of H0: every category has the same share.

        E = sum(O) / k,   X^2 = sum (O - E)^2 / E,   df = k - 1,   p = chi2_sf(X^2, df)

    (K. Pearson, Phil. Mag. 50 (1900) 157-175.)  ``counts`` may be fractional sums of win
    shares; the approximation is good when every expected count is at least about 5.
    """
    observed = np.asarray(counts, dtype=np.float64)
    if observed.ndim != 1 or observed.size < 2:
        raise ValueError("a goodness-of-fit test needs at least two categories")
    total = float(observed.sum())
    if total <= 0 or (observed < 0).any():
        raise ValueError("counts must be non-negative with a positive total")
    expected = total / observed.size
    statistic = float(((observed - expected) ** 2).sum() / expected)
    df = observed.size - 1
    return ChiSquare(statistic, df, chi2_sf(statistic, df))


# --------------------------------------------------------------------------------------------
# multiple comparisons
# --------------------------------------------------------------------------------------------

def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (q-values), in the order given.

    Sort p ascending as p_(1) <= ... <= p_(m); then

        q_(i) = min over j >= i of  min(1, m * p_(j) / j)

    and reject every hypothesis with q <= alpha to control the false discovery rate at alpha.
    Y. Benjamini & Y. Hochberg, "Controlling the false discovery rate", JRSS B 57 (1995)
    289-300; the step-up form is that of R's p.adjust(method = "BH").
    """
    p = np.asarray(p_values, dtype=np.float64)
    if p.size == 0:
        return []
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("p-values must lie in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    stepped_up = np.minimum.accumulate(scaled[::-1])[::-1]
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped_up, 1.0)
    return adjusted.tolist()


# --------------------------------------------------------------------------------------------
# exact binomial: tests of a simulated rate against an exactly known chance
# --------------------------------------------------------------------------------------------

_BETA_EPS = 1e-15
_BETA_MAX_STEPS = 200_000


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function, by modified Lentz (Press et al.,
    "Numerical Recipes", 3rd ed., §6.4, betacf); converges for x < (a + 1) / (a + b + 2)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (_TINY if abs(d) < _TINY else d)
    h = d
    for m in range(1, _BETA_MAX_STEPS):
        m2 = 2 * m
        for numerator in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                          -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + numerator * d
            d = 1.0 / (_TINY if abs(d) < _TINY else d)
            c = 1.0 + numerator / c
            c = _TINY if abs(c) < _TINY else c
            delta = d * c
            h *= delta
        if abs(delta - 1.0) < _BETA_EPS:
            break
    return h


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for a, b > 0: the continued fraction
    on the side of the mean where it converges, the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) on the
    other (Numerical Recipes §6.4)."""
    if a <= 0 or b <= 0:
        raise ValueError(f"beta parameters must be positive, got {a}, {b}")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return min(1.0, math.exp(log_front) * _beta_fraction(a, b, x) / a)
    return max(0.0, 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b)


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p) = I_{1-p}(n - k, k + 1)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return regularized_beta(n - k, k + 1.0, 1.0 - p)


def binomial_sf(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p) = I_p(k, n - k + 1)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return regularized_beta(float(k), n - k + 1.0, p)


def _log_pmf(k: int, n: int, p: float) -> float:
    if p <= 0.0:
        return 0.0 if k == 0 else -math.inf
    if p >= 1.0:
        return 0.0 if k == n else -math.inf
    return (math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def binomial_test(successes: int, trials: int, p: float) -> float:
    """Two-sided exact binomial test of H0: the chance is ``p``, given ``successes`` of ``trials``.

    The p-value is the probability, under H0, of every outcome no more likely than the one seen
    (the "method of small p-values", as R's binom.test, with its relative tolerance 1e-7):

        p-value = sum over i with P(X = i) <= P(X = x) (1 + 1e-7) of P(X = i).

    On each side of the mean the probabilities are monotone, so the far tail is found by
    bisection and summed with the incomplete beta function (no term-by-term sum).  Unlike a
    Wilson or normal interval it holds its level near 0 and 1: 189 of 190 against 0.99973 is
    p = 0.050, not an alarm at 0.001.
    """
    x, n = int(successes), int(trials)
    if n < 1 or not 0 <= x <= n:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1, got {x} of {n}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"the chance must lie in [0, 1], got {p}")
    if p in (0.0, 1.0):
        return 1.0 if x == round(p * n) else 0.0
    mean = n * p
    bound = _log_pmf(x, n, p) + math.log1p(1e-7)
    if x == mean:
        return 1.0
    if x < mean:
        # the upper tail: the first j >= ceil(mean) with P(X = j) <= P(X = x), pmf falling there
        low, high = math.ceil(mean), n + 1
        while low < high:
            mid = (low + high) // 2
            if _log_pmf(mid, n, p) <= bound:
                high = mid
            else:
                low = mid + 1
        return min(1.0, binomial_cdf(x, n, p) + binomial_sf(low, n, p))
    # the lower tail: the last i <= floor(mean) with P(X = i) <= P(X = x), pmf rising there
    low, high = -1, math.floor(mean)
    while low < high:
        mid = (low + high + 1) // 2
        if _log_pmf(mid, n, p) <= bound:
            low = mid
        else:
            high = mid - 1
    return min(1.0, binomial_cdf(low, n, p) + binomial_sf(x, n, p))


def clopper_pearson(successes: int, trials: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a binomial proportion: the chances p for which
    neither one-sided exact test rejects at (1 - confidence) / 2,

        lower = B^-1(alpha/2; x, n - x + 1),   upper = B^-1(1 - alpha/2; x + 1, n - x)

    (C. J. Clopper & E. S. Pearson, Biometrika 26 (1934) 404-413), the beta quantiles found by
    bisection on ``regularized_beta``.  Conservative: it covers at least ``confidence``."""
    x, n = int(successes), int(trials)
    if n < 1 or not 0 <= x <= n:
        raise ValueError(f"need 0 <= successes <= trials and trials >= 1, got {x} of {n}")
    alpha = 1.0 - confidence

    def quantile(q: float, a: float, b: float) -> float:
        low, high = 0.0, 1.0
        for _ in range(200):
            mid = (low + high) / 2
            if regularized_beta(a, b, mid) < q:
                low = mid
            else:
                high = mid
            if high - low < 1e-15:
                break
        return (low + high) / 2

    lower = 0.0 if x == 0 else quantile(alpha / 2, x, n - x + 1.0)
    upper = 1.0 if x == n else quantile(1 - alpha / 2, x + 1.0, n - x)
    return lower, upper
