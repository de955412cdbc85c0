"""Raw memory for the recursive search: ``pointer(array)`` and ``prefetch(pointer, index)``.

``pointer`` gives a contiguous array's data as a numba ``CPointer``.

numba passes an array to a compiled function as its whole structure (seven
words: data, shape, strides and bookkeeping), so every recursive call of the
negamax pushed 21 words for its three arrays. A ``CPointer`` is one register,
and numba indexes it like the array (``p[i]``, ``p[i] = v``) with no
wraparound of negative indices, so the kernels' code reads the same for both.

``prefetch`` is LLVM's prefetch hint (``prefetcht0`` on x86): the search
starts loading the table buckets of a node's children before it needs them.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from connect4.jit import stable_intrinsic


@stable_intrinsic
@intrinsic
def pointer(typingctx, arr):
    """The data pointer of a C-contiguous array (the caller keeps the array alive)."""
    if not isinstance(arr, types.Array) or arr.layout != "C":
        return None
    sig = types.CPointer(arr.dtype)(arr)

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data

    return sig, codegen


@stable_intrinsic
@intrinsic
def prefetch(typingctx, ptr, index):
    """Ask the CPU to bring ``ptr[index]``'s cache line in (a hint: no fault, no result)."""
    if not isinstance(ptr, types.CPointer) or not isinstance(index, types.Integer):
        return None
    sig = types.void(ptr, index)

    def codegen(context, builder, signature, args):
        p, i = args
        address = builder.gep(p, [i])
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [address.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # read, high temporal locality (every cache level), data cache
        builder.call(fn, [address, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen
