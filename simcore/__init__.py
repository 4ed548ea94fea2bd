"""Compiled game engines, the parallel driver and the plain-Python references."""
import hashlib
import os
from pathlib import Path

from simcore.version import __version__


def engine_fingerprint() -> str:
    """Hash of every engine and strategy source file.

    Numba's on-disk cache only checks the timestamp of the file a function is
    defined in, not of the files it calls into, so an edited rule or strategy
    could silently run stale machine code.  Keying the cache directory on the
    sources makes any change start a fresh cache.
    """
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha1(__version__.encode())
    for package in ("simcore", "strategies"):
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


FINGERPRINT = engine_fingerprint()
CACHE_ROOT = Path(os.environ.get("BALANCE_CACHE_DIR") or Path.home() / ".cache" / "balance")
# numba reads this when it is first imported, which is after this package is.
os.environ.setdefault("NUMBA_CACHE_DIR", str(CACHE_ROOT / f"numba-{FINGERPRINT}"))


def run(*args, **kwargs):
    """Run a simulation: ``.frame`` (a Polars DataFrame, one row per game) and ``.meta`` (see docs/api.md)."""
    from simcore.api import run as _run

    return _run(*args, **kwargs)


def simulate(*args, **kwargs):
    """Run a simulation and return its rows as a Polars DataFrame (see docs/api.md)."""
    from simcore.api import simulate as _simulate

    return _simulate(*args, **kwargs)
