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
IMPORTS = re.compile(r"^(?:from[ \t]+((?:simcore|strategies)[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)"
                     r"|import[ \t]+((?:simcore|strategies)[\w.]*))", re.MULTILINE)


def _module_file(module: str) -> Path | None:
    path = ROOT.joinpath(*module.split("."))
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


_SOURCES: dict[Path, str] = {}


def _sources() -> dict[Path, str]:
    if not _SOURCES:
        _SOURCES.update({path: path.read_text(encoding="utf-8") for package in PACKAGES
                         for path in (ROOT / package).rglob("*.py")})
    return _SOURCES


def _compiles(text: str) -> bool:
    return any(mark in text for mark in COMPILES)


def kernel_sources(seeds=None, sources: dict | None = None) -> list[Path]:
    """The engine's sources that compiled code depends on, sorted: the files that compile
    something (or ``seeds``) and the project modules those import at module level, directly or
    not (``from simcore.PKG import MOD`` also reaches ``simcore/PKG/MOD.py`` when MOD is a
    module).  Compiled code reads module globals only, so an import inside a function (the
    driver's, the plug-in loader's) is not followed, nor is a package's ``__init__.py`` on the
    way."""
    sources = sources if sources is not None else _sources()
    found = set(seeds) if seeds is not None else {path for path, text in sources.items() if _compiles(text)}
    todo = list(found)
    while todo:
        for match in IMPORTS.finditer(sources[todo.pop()]):
            module = match.group(1) or match.group(3)
            names = [n.split(" as ")[0].strip(" ()\\\n\t") for n in (match.group(2) or "").split(",")]
            candidates = [module] + [f"{module}.{name}" for name in names if name.isidentifier()]
            for candidate in candidates:
                path = _module_file(candidate)
                if path is not None and path in sources and path not in found:
                    found.add(path)
                    todo.append(path)
    return sorted(found)


def _digest(paths) -> str:
    digest = hashlib.sha1(__version__.encode())
    for path in paths:
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def engine_fingerprint() -> str:
    """Hash of the sources any compiled code can depend on (``kernel_sources``) and the version:
    what a run records as its engine, and what keys plug-in builds."""
    return _digest(kernel_sources())


def source_group(path: Path) -> str:
    """Which compiled-code group a project file belongs to: its game (``simcore/games/<game>/``
    and ``strategies/<game>.py``) or ``common`` (bits, random streams, the search ...)."""
    rel = Path(path).resolve().relative_to(ROOT).parts
    if rel[:2] == ("simcore", "games") and len(rel) > 3:
        return rel[2]
    if rel[0] == "strategies" and (ROOT / "simcore" / "games" / Path(rel[-1]).stem).is_dir():
        return Path(rel[-1]).stem
    return "common"


_GROUPS: dict[str, str] = {}


def group_fingerprint(group: str) -> str:
    """Hash of what one group's compiled code depends on: its own compiling files and every
    project module they import (the common helpers included), so that editing one game's rules,
    kernel or players recompiles that game alone."""
    if group not in _GROUPS:
        sources = _sources()
        seeds = [path for path, text in sources.items() if _compiles(text) and source_group(path) == group]
        _GROUPS[group] = _digest(kernel_sources(seeds, sources))
    return _GROUPS[group]


def group_cache_dir(path) -> Path | None:
    """The compile-cache folder of a project source file (``CACHE_ROOT/numba-<group>-<hash>``),
    or None for a file outside the project (a plug-in build's copies: NUMBA_CACHE_DIR)."""
    try:
        group = source_group(Path(path))
    except ValueError:
        return None
    return CACHE_ROOT / f"numba-{group}-{group_fingerprint(group)}"


FINGERPRINT = engine_fingerprint()
CACHE_ROOT = Path(os.environ.get("BALANCE_CACHE_DIR") or Path.home() / ".cache" / "balance")
# the random builds' copies of the play loops (simcore/builds.py), one folder per game and its
# group fingerprint: their compiled code is kept in that folder, so editing one game leaves the
# other games' random builds compiled
BUILDS_ROOT = CACHE_ROOT / "random-builds"
# numba reads this when it is first imported, which is after this module is; the project's own
# files are cached per group instead (simcore/jit.py installs GroupCacheLocator)
os.environ.setdefault("NUMBA_CACHE_DIR", str(CACHE_ROOT / f"numba-{FINGERPRINT}"))


def install_group_locator() -> None:
    """Make Numba cache every function of a project file in its group's folder
    (``group_cache_dir``); other files (plug-in builds) keep NUMBA_CACHE_DIR.  Idempotent."""
    from numba.core import caching

    # the names lost their leading underscore in a recent Numba; without either (a Numba yet to come)
    # everything stays in NUMBA_CACHE_DIR, which is correct, only coarser
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    base = getattr(caching, "UserProvidedCacheLocator", None) or getattr(caching, "_UserProvidedCacheLocator", None)
    if impl is None or base is None or not isinstance(getattr(impl, "_locator_classes", None), list):
        return

    class GroupCacheLocator(base):
        def __init__(self, py_func, py_file):
            from numba.core import config

            py_file = home_file(py_func, py_file)
            super().__init__(py_func, py_file)
            if _random_build(py_file):  # beside the copy, in the folder its group fingerprint names
                self._cache_path = os.path.join(os.path.dirname(py_file), "__pycache__")
            elif _in_packages(py_file):
                self._cache_path = os.path.join(group_cache_dir(py_file), self.get_suitable_cache_subpath(py_file))
            else:  # a plug-in build's copy, a test's game: NUMBA_CACHE_DIR (this module sets it, even
                # where Numba was imported first and did not read it)
                self._cache_path = os.path.join(config.CACHE_DIR or os.environ["NUMBA_CACHE_DIR"],
                                                self.get_suitable_cache_subpath(py_file))
            if os.path.abspath(py_func.__code__.co_filename) != os.path.abspath(py_file):
                # an entry point written once (simcore/play.py): Numba names its cache files after
                # the file its code is in, the same for every module it runs in, and each module's
                # must have files of its own (their keys name the module's own types)
                self._cache_path = os.path.join(self._cache_path, Path(py_file).stem)

        @classmethod
        def from_function(cls, py_func, py_file):
            home = home_file(py_func, py_file)
            if home == py_file and not _random_build(home) and not _in_packages(home):
                return None  # Numba's own locators
            if not os.path.exists(home):
                return None
            locator = cls(py_func, home)
            try:
                locator.ensure_cache_path()
            except OSError:
                return None
            return locator

    if not any(getattr(c, "__name__", "") == "GroupCacheLocator" for c in impl._locator_classes):
        impl._locator_classes = [GroupCacheLocator, *impl._locator_classes]


def home_file(py_func, py_file) -> str:
    """The file of the module a compiled function runs in: its own source file, except for the
    entry points written once for every game (simcore/play.py ``entry_points``), which run in a
    game's kernel module and are cached with it (that module's group, its source stamp)."""
    home = getattr(py_func, "__globals__", {}).get("__file__")
    return home if home else py_file


def _in_packages(py_file) -> bool:
    """Whether a source file is one of the project's packages' (``PACKAGES``)."""
    try:
        return Path(py_file).resolve().relative_to(ROOT).parts[0] in PACKAGES
    except (ValueError, OSError, IndexError):
        return False


def _random_build(py_file) -> bool:
    """Whether a source file is a random build's copy of a play loop (``BUILDS_ROOT``)."""
    try:
        Path(py_file).resolve().relative_to(BUILDS_ROOT.resolve())
    except (ValueError, OSError):
        return False
    return True
