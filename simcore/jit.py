"""The one place kernels get their Numba decorator.

Stock builds cache compiled code on disk (``NUMBA_CACHE_DIR``, set in
``simcore/__init__.py``).  A plug-in build (``simcore/plugins.py``) re-executes
a game's strategy and kernel modules with the user's strategies wired into the
dispatch; those copies share the stock files' paths, so they must not read or
write the stock cache: they compile in memory instead.
"""
from numba import njit


def kernel(namespace: dict, **options):
    """``@kernel(globals())``: njit, cached unless this module is a plug-in build."""
    return njit(cache=not namespace.get("__plugin_build__", False), **options)
