"""``pointer(array)``: a contiguous array's data as a numba ``CPointer``, for the recursive search.

numba passes an array to a compiled function as its whole structure (seven
words: data, shape, strides and bookkeeping), so every recursive call of the
negamax pushed 21 words for its three arrays. A ``CPointer`` is one register,
and numba indexes it like the array (``p[i]``, ``p[i] = v``) with no
wraparound of negative indices, so the kernels' code reads the same for both.
"""

from __future__ import annotations

from numba import types
from numba.extending import intrinsic


@intrinsic
def pointer(typingctx, arr):
    """The data pointer of a C-contiguous array (the caller keeps the array alive)."""
    if not isinstance(arr, types.Array) or arr.layout != "C":
        return None
    sig = types.CPointer(arr.dtype)(arr)

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data

    return sig, codegen

