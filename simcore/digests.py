"""Hashes that say which inputs a result came from: a file's contents and the rules in force.

A run records both (``simcore.driver.run_config``), so ``--resume`` refuses another
configuration; the plug-in write check keys its cache on the rules (``simcore.plugins.writes``)
and the studio and the tuner tell two variants with the same rules apart by them."""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np


def file_digest(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def setup_digest(setup) -> str:
    """A hash of the rules in force: every array and plain value of the game's setup (the
    variant's settings, a trap deck's conditions, the deck ...)."""
    digest = hashlib.sha256()
    for name, value in sorted(vars(setup).items()):
        if isinstance(value, np.ndarray):
            digest.update(f"{name}:{value.dtype}:{value.shape}:".encode())
            digest.update(np.ascontiguousarray(value).tobytes())
        elif value is None or isinstance(value, (bool, int, float, str, tuple, list)):
            digest.update(f"{name}={value!r};".encode())
    return digest.hexdigest()[:16]
