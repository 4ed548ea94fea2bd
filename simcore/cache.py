"""Where compiled kernels are kept: ``CACHE_ROOT`` (``$BALANCE_CACHE_DIR``, else
``~/.cache/balance``), one Numba cache folder per ``FINGERPRINT`` of the engine sources.

Numba's on-disk cache only checks the timestamp of the file a function is defined in, not of the
files it calls into, so an edited rule or strategy could silently run stale machine code.  Keying
the cache folder on every engine and strategy source makes any change start a fresh cache."""
import hashlib
import os
from pathlib import Path

from simcore.version import __version__


def engine_fingerprint() -> str:
    """Hash of every engine and strategy source file."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha1(__version__.encode())
    for package in ("simcore", "strategies"):
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


FINGERPRINT = engine_fingerprint()
CACHE_ROOT = Path(os.environ.get("BALANCE_CACHE_DIR") or Path.home() / ".cache" / "balance")
# numba reads this when it is first imported, which is after this module is
os.environ.setdefault("NUMBA_CACHE_DIR", str(CACHE_ROOT / f"numba-{FINGERPRINT}"))
