"""Load a kernel's cached machine code without numba's full start-up.

numba's ``Dispatcher`` loads a cached kernel through ``Cache.load_overload``,
which first calls ``target_context.refresh()``: it imports and installs every
typing and lowering registry numba has (numpy, lists, dicts, random,
datetime ...), about 0.2 s of CPU, a third of a warm ``c4 solve``'s start.
Only *compiling* needs those registries (and numba's compiler refreshes the
context itself when it compiles); a cache hit just links machine code.

``load_cached(dispatcher, args)`` does what the dispatcher does on a cache
hit, minus the refresh: type the arguments, read the cache entry, link it,
register the overload. numba's runtime (NRT, compiled with LLVM at its first
use, ~25 ms) is not initialised either for a kernel compiled without it
(``_nrt=False``: its code calls no NRT symbol). On a miss, or any surprise
from numba's internals, it returns False and the normal call path loads or compiles the kernel
(pinned numba 0.68.*).
"""

from __future__ import annotations


def load_cached(dispatcher, args) -> bool:
    """Make ``dispatcher(*args)`` run cached code without a context refresh;
    False when that was not possible (the normal path then takes over)."""
    try:
        types = tuple(dispatcher.typeof_pyval(a) for a in args)
        if types in dispatcher.overloads:
            return True
        ctx = dispatcher.targetctx
        if dispatcher.targetoptions.get("_nrt", True):
            from numba.core.runtime.nrt import rtsys

            rtsys.initialize(ctx)  # the runtime symbols the machine code links against
        cres = dispatcher._cache._load_overload(types, ctx)
        if cres is None or cres.objectmode:
            return False
        ctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
        dispatcher.add_overload(cres)
        return True
    except Exception:
        return False
