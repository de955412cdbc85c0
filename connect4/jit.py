"""The one numba decorator for hot kernels.

Kernels are made per board geometry by factories that close over the geometry
as constants. numba keys its on-disk cache by the pickled closure, and a jitted
function pickles with a random uuid, so a kernel that calls another closure
would miss the cache in every new process. ``kernel(tag)`` gives the dispatcher
a uuid derived from its name, its code and everything it closes over (other
kernels by their own uuid), so:

- the cache stays warm across processes, and
- when a kernel's code changes, every kernel that calls it gets a new cache key
  too, even from another file (numba itself only notices changes in the file
  of the function it loads, and would link a stale callee).

Two more details:

- A self-recursive kernel finds its own closure cell still empty when it is
  decorated; that cell is hashed as ``<self>`` (its code is hashed anyway).
- The tag goes into ``__qualname__``. numba names compiled functions after the
  qualified name plus a counter that restarts in every process; kernels of two
  geometries come from one factory (one qualified name), so two cached kernels
  loaded into one process could define the same symbol and the JIT linker
  would bind a call to the other geometry's code (seen as wrong results and
  heap corruption). A distinct name keeps every symbol and cache file apart.
"""

from __future__ import annotations

import hashlib
import re
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np
from numba import njit
from numba.core.registry import CPUDispatcher

_T = TypeVar("_T")

if TYPE_CHECKING:
    from hashlib import _Hash as Hash


def _hash_code(code: types.CodeType, h: Hash) -> None:
    h.update(code.co_code)
    h.update(repr(code.co_names).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _hash_code(const, h)  # nested functions: their repr holds an address
        else:
            h.update(repr(const).encode())


def _hash_value(value: object, h: Hash) -> None:
    if isinstance(value, CPUDispatcher):
        h.update(str(value._uuid).encode())  # type: ignore[attr-defined]  # a kernel: already a fingerprint
    elif isinstance(value, np.ndarray):
        h.update(str(value.dtype).encode() + repr(value.shape).encode() + value.tobytes())
    elif isinstance(value, types.FunctionType):
        _hash_code(value.__code__, h)
    else:
        h.update(repr(value).encode())


def fingerprint(fn: types.FunctionType) -> str:
    """A digest of a function's code, its closure and the kernels it names."""
    h = hashlib.sha256()
    _hash_code(fn.__code__, h)
    for cell in fn.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:  # the function's own cell (recursion): not bound yet
            h.update(b"<self>")
            continue
        _hash_value(value, h)
    for name in fn.__code__.co_names:  # module-level kernels it calls
        value = fn.__globals__.get(name)
        if isinstance(value, CPUDispatcher):
            _hash_value(value, h)
    return h.hexdigest()[:16]


def kernel(tag: str, **options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``@njit(cache=True, nogil=True)`` with a content-derived uuid and a per-tag name.

    The result is numba's dispatcher (typed by numba at each call, so ``Any`` here)."""
    safe = re.sub(r"[^0-9A-Za-z_]", "_", tag)

    def wrap(fn: Any) -> Any:
        fn.__qualname__ = f"{fn.__qualname__}__{safe}"
        fn.__name__ = f"{fn.__name__}__{safe}"
        dispatcher = njit(cache=True, nogil=True, **options)(fn)
        # the options too (inline="always" changes every caller's code)
        dispatcher._set_uuid(f"c4:{tag}:{fn.__module__}.{fn.__qualname__}:{fingerprint(fn)}:{sorted(options.items())}")
        return dispatcher

    return wrap


def stable_intrinsic(intr: _T) -> _T:
    """Give a numba ``@intrinsic`` a uuid made from its code. numba pickles what a kernel calls
    into the kernel's cache key, and an intrinsic otherwise pickles with a uuid new in every
    process: every kernel that reaches it would be compiled again in every process."""
    numba_intrinsic = cast(Any, intr)
    numba_intrinsic._set_uuid(f"c4:intrinsic:{numba_intrinsic._name}:{fingerprint(numba_intrinsic._defn)}")
    return intr
