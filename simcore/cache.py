"""Where compiled kernels are kept: ``CACHE_ROOT`` (``$BALANCE_CACHE_DIR``, else
``~/.cache/balance``), one Numba cache folder per ``FINGERPRINT`` of the engine sources.

Numba's on-disk cache only checks the timestamp of the file a function is defined in, not of the
files it calls into, so an edited rule or strategy could silently run stale machine code.  Keying
the cache folder on every source compiled code can depend on makes any such change start a fresh
cache.  Those sources are the files that compile something (``@kernel``, ``njit``, ``prange``) and
every project module they import, directly or not (``kernel_sources``): a constant a kernel reads
from a plain module is frozen into its machine code too.  The command line, the driver, the
analysis and the other plain-Python modules are not among them, so editing them keeps the cache."""
import hashlib
import os
import re
from pathlib import Path

from simcore.version import __version__

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("simcore", "strategies")
COMPILES = ("@kernel(", "njit", "prange", "@overload")  # a file with any of these compiles something
IMPORTS = re.compile(r"^[ \t]*(?:from[ \t]+((?:simcore|strategies)[\w.]*)[ \t]+import[ \t]+([\w, ()]+)"
                     r"|import[ \t]+((?:simcore|strategies)[\w.]*))", re.MULTILINE)


def _module_file(module: str) -> Path | None:
    path = ROOT.joinpath(*module.split("."))
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


def kernel_sources() -> list[Path]:
    """The engine's sources that compiled code depends on, sorted: every file that compiles
    something and the project modules those import (``from simcore.x import y`` also reaches
    ``simcore/x/y.py`` when y is a module).  A package's ``__init__.py`` counts only when it is
    imported by name: the ones on the way hold no names a kernel reads."""
    sources = {path: path.read_text(encoding="utf-8") for package in PACKAGES
               for path in (ROOT / package).rglob("*.py")}
    found = {path for path, text in sources.items() if any(mark in text for mark in COMPILES)}
    todo = list(found)
    while todo:
        for match in IMPORTS.finditer(sources[todo.pop()]):
            module = match.group(1) or match.group(3)
            names = [n.strip(" ()") for n in (match.group(2) or "").split(",")]
            candidates = [module] + [f"{module}.{name}" for name in names if name]
            for candidate in candidates:
                path = _module_file(candidate)
                if path is not None and path in sources and path not in found:
                    found.add(path)
                    todo.append(path)
    return sorted(found)


def engine_fingerprint() -> str:
    """Hash of the sources compiled code can depend on (``kernel_sources``) and the version."""
    digest = hashlib.sha1(__version__.encode())
    for path in kernel_sources():
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


FINGERPRINT = engine_fingerprint()
CACHE_ROOT = Path(os.environ.get("BALANCE_CACHE_DIR") or Path.home() / ".cache" / "balance")
# numba reads this when it is first imported, which is after this module is
os.environ.setdefault("NUMBA_CACHE_DIR", str(CACHE_ROOT / f"numba-{FINGERPRINT}"))
