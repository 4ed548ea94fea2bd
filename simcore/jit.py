"""The one place kernels get their Numba decorator: ``@kernel(globals())`` is njit with the
on-disk cache (``NUMBA_CACHE_DIR``, set in ``simcore/__init__.py``).  Plug-in builds are copies of
a game's files in a folder of their own (``simcore/plugins.py``), so they are cached too."""
from numba import njit


def kernel(namespace: dict, **options):
    """``@kernel(globals())``: njit, cached on disk."""
    return njit(cache=True, **options)
