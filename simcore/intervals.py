"""The normal quantile and the Wilson interval: what the driver's ``--precision`` stopping rule
needs, kept in the engine so it does not reach up into analysis (analysis.stats re-exports them)."""
from __future__ import annotations

import math

DEFAULT_CONFIDENCE = 0.95


# --------------------------------------------------------------------------------------------
# the normal distribution
# --------------------------------------------------------------------------------------------

# Acklam's rational approximation to the inverse normal CDF (relative error < 1.15e-9),
# P. J. Acklam, "An algorithm for computing the inverse normal cumulative distribution
# function" (2003); one Halley step against math.erfc then brings it to full double precision.
_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02,
      1.383577518672690e02, -3.066479806614716e01, 2.506628277459239e00)
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02,
      6.680131188771972e01, -1.328068155288572e01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00,
      -2.549732539343734e00, 4.374664141464968e00, 2.938163982698783e00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
_P_LOW = 0.02425


def normal_cdf(x: float) -> float:
    """Standard normal CDF, Phi(x) = erfc(-x / sqrt 2) / 2."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def normal_quantile(p: float) -> float:
    """Inverse standard normal CDF: the z with Phi(z) = p, for 0 < p < 1.

    Acklam (2003) rational approximation in three regions (lower tail, central, upper tail),
    refined by one Halley step  z <- z - u / (1 + z u / 2),  u = (Phi(z) - p) sqrt(2 pi) e^{z^2/2}.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"normal_quantile needs 0 < p < 1, got {p}")
    if p < _P_LOW:
        q = math.sqrt(-2.0 * math.log(p))
        z = (((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / \
            ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0)
    elif p <= 1.0 - _P_LOW:
        q = p - 0.5
        r = q * q
        z = (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q / \
            (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1.0)
    else:
        q = math.sqrt(-2.0 * math.log(1.0 - p))
        z = -(((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / \
            ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1.0)
    error = normal_cdf(z) - p
    u = error * math.sqrt(2.0 * math.pi) * math.exp(z * z / 2.0)
    return z - u / (1.0 + z * u / 2.0)


def z_for(confidence: float = DEFAULT_CONFIDENCE) -> float:
    """Two-sided critical value z_{1-alpha/2} for a confidence level (0.95 -> 1.959963984540054)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return normal_quantile(0.5 + confidence / 2.0)


# --------------------------------------------------------------------------------------------
# proportions
# --------------------------------------------------------------------------------------------

def wilson_interval(successes: float, trials: float,
                    confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion p = successes / trials.

    With p^ = x/n and z = z_{1-alpha/2}:

        centre    = (p^ + z^2 / 2n) / (1 + z^2 / n)
        halfwidth = z / (1 + z^2 / n) * sqrt(p^(1 - p^)/n + z^2 / 4n^2)

    E. B. Wilson, "Probable inference, the law of succession, and statistical inference",
    JASA 22 (1927) 209-212; recommended over the Wald interval by Brown, Cai & DasGupta,
    "Interval estimation for a binomial proportion", Statistical Science 16 (2001) 101-133.

    ``successes`` may be fractional: for win shares it is the sum of shares, so a two-way tie
    counts half a win for each seat (see the module docstring).  With no trials nothing is
    known and the interval is (0, 1).  The result is clipped to [0, 1] and always contains p^
    (rounding could otherwise put the bound a hair past p^ at x = 0 or x = n).
    """
    if trials < 0 or successes < 0 or successes > trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return 0.0, 1.0
    z = z_for(confidence)
    p_hat = successes / trials
    z2_n = z * z / trials
    centre = (p_hat + z2_n / 2.0) / (1.0 + z2_n)
    half = z / (1.0 + z2_n) * math.sqrt(p_hat * (1.0 - p_hat) / trials + z2_n / (4.0 * trials))
    low = min(max(centre - half, 0.0), p_hat)
    high = max(min(centre + half, 1.0), p_hat)
    return low, high
