"""Compiled game engines, the parallel driver and the plain-Python references."""
from simcore.cache import CACHE_ROOT, FINGERPRINT  # noqa: F401 (sets NUMBA_CACHE_DIR before numba loads)
from simcore.version import __version__  # noqa: F401


def run(*args, **kwargs):
    """Run a simulation: ``.frame`` (a Polars DataFrame, one row per game) and ``.meta`` (see docs/api.md)."""
    from simcore.api import run as _run

    return _run(*args, **kwargs)


def simulate(*args, **kwargs):
    """Run a simulation and return its rows as a Polars DataFrame (see docs/api.md)."""
    from simcore.api import simulate as _simulate

    return _simulate(*args, **kwargs)
