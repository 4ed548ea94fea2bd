"""What the project has measured, read from the results it keeps: ``benchmarks/*.json``, each the
output of ``balance bench --json`` (every result carrying its commit, date and machine), and, for
a fresh clone, of ``tools/fresh_clone.py``.  BENCHMARKS.md's table is generated from the same
files (``tools/benchmarks.py``).

No figure is written into the code: where the engine tells a user how long something takes (the
first compile's announcement, ``driver.compile_kernels``) or plans by it (``simcore.warm`` deals
compiles to processes), it reads the newest kept measurement here.  A checkout without them (an
installed wheel keeps no ``benchmarks/``) simply says less.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "benchmarks"
RULES_FILE = "rules file"  # what the results of any rules file (a path ending .toml) are kept under


def kind_of(game_name: str) -> str:
    return RULES_FILE if str(game_name).endswith(".toml") else str(game_name)


@functools.cache
def kept(folder: Path | None = None) -> tuple[dict, ...]:
    """Every result in the kept files, newest first (by date, then file name); unreadable files
    and entries that are not results are skipped, never fatal."""
    folder = Path(folder or RESULTS)
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for entry in data if isinstance(data, list) else [data]:
            if isinstance(entry, dict) and isinstance(entry.get("date"), str):
                found.append({**entry, "file": path.name})
    return tuple(sorted(found, key=lambda e: (e["date"], e["file"]), reverse=True))


def newest(game_name: str, field: str, folder: Path | None = None) -> tuple[object, dict] | tuple[None, None]:
    """The newest kept value of ``field`` for a game (a rules file: any rules file's), and the
    result it is from; (None, None) where none was kept."""
    kind = kind_of(game_name)
    for entry in kept(folder):
        if kind_of(entry.get("game", "")) == kind and entry.get(field) is not None:
            return entry[field], entry
    return None, None


def first_compile(game_name: str, build: str, folder: Path | None = None) -> float | None:
    """Seconds the first command took from an empty cache, compile and all: ``build`` "stock"
    (the game's play loop, as its skilled players play it) or "random" (the random build,
    simcore/builds.py).  None where it was never measured."""
    value, _ = newest(game_name, "first_compile_seconds", folder)
    if not isinstance(value, dict) or not isinstance(value.get(build), (int, float)):
        return None
    return float(value[build])


def machine_phrase(game_name: str, folder: Path | None = None) -> str | None:
    """Where the newest first compile was measured: ``a 2-core AMD EPYC 7B13``."""
    _, entry = newest(game_name, "first_compile_seconds", folder)
    if entry is None:
        return None
    machine = entry.get("machine") or {}
    cpu = " ".join(str(machine.get("cpu") or "machine").split())
    return f"a {machine.get('cores')}-core {cpu}" if machine.get("cores") else cpu
