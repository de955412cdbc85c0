"""The solver's kernel decorator: the project's cached kernel, without reference counting.

All solver kernels are compiled without numba's reference counting
(``_nrt=False``): they never allocate, and the recursive negamax otherwise
paid an increment and a decrement of every array argument on every node
(-25% time). ``KERNEL_VERSION`` is part of every kernel's cache name: bump it
to drop old cache files.
"""

from __future__ import annotations

from connect4.geometry import Geometry
from connect4.jit import kernel as _kernel  # per-geometry names and self-recursion handled there

KERNEL_VERSION = "4"


def tag_of(g: Geometry) -> str:
    return f"{g.width}x{g.height}k{g.k}"


def table_tag(g: Geometry, pairs: bool) -> str:
    """The tag of kernels made for one kind of table (buckets of two words or one): distinct names."""
    return f"{tag_of(g)}{'p' if pairs else 's'}"


def kernel(tag: str, **options):
    """The solver's kernel; ``options`` go to numba (``inline="always"``)."""
    return _kernel(f"{tag}v{KERNEL_VERSION}", _nrt=False, **options)
