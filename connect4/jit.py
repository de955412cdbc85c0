"""The one numba decorator for hot kernels.

Kernels are made per board geometry by factories that close over the geometry
as constants. numba keys its on-disk cache by the pickled closure, and a jitted
function pickles with a random uuid, so a kernel that calls another closure
would miss the cache in every new process. ``kernel(tag)`` gives the dispatcher
a uuid derived from the geometry and its name, which keeps the cache warm.
"""

from __future__ import annotations

from numba import njit


def kernel(tag: str, **options):
    """``@njit(cache=True, nogil=True)`` with a stable identity for caching."""

    def wrap(fn):
        dispatcher = njit(cache=True, nogil=True, **options)(fn)
        dispatcher._set_uuid(f"c4:{tag}:{fn.__module__}.{fn.__qualname__}")
        return dispatcher

    return wrap
