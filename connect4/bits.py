"""Bit intrinsics for numba kernels: one machine instruction each.

numba has no popcount or count-trailing-zeros for integers, so these emit the
LLVM intrinsics directly (POPCNT / TZCNT on x86-64). Kernels call them like
functions; :func:`connect4.kernels.kernels_for` hands them out with the other
primitives of a board.
"""

from __future__ import annotations

from typing import Any

import llvmlite.ir as ir
from numba import types
from numba.extending import intrinsic

from .jit import stable_intrinsic

# numba's typing and code generation hooks: their arguments are numba's own objects.


def _flag(value: bool) -> Any:
    """An i1 constant, made at each use: numba pickles an intrinsic's code and its globals into the
    cache key of every kernel that calls it, and a module-level llvmlite constant pickled
    differently once code generation had used it (the kernels after it missed the cache)."""
    return ir.Constant(ir.IntType(1), int(value))


@stable_intrinsic
@intrinsic
def popcount(typingctx: Any, x: Any) -> Any:
    """Number of set bits of a uint64."""
    if x != types.uint64:
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen



@stable_intrinsic
@intrinsic
def ctz(typingctx: Any, x: Any) -> Any:
    """Index of the lowest set bit of a non-zero uint64."""
    if x != types.uint64:
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        # The flag says the input is never 0, which lets LLVM emit a bare TZCNT/BSF.
        return builder.cttz(args[0], _flag(True))

    return types.uint64(types.uint64), codegen



@stable_intrinsic
@intrinsic
def bit_length(typingctx: Any, x: Any) -> Any:
    """Python's ``int.bit_length`` of a uint64 (0 for 0): 64 minus its leading zeros."""
    if x != types.uint64:
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        zeros = builder.ctlz(args[0], _flag(False))  # defined for 0 (64): LZCNT
        return builder.sub(args[0].type(64), zeros)

    return types.uint64(types.uint64), codegen

