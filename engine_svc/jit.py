"""The engine's numba decorator: connect4.jit.kernel plus a per-geometry name.

numba names a compiled function after its qualified name plus a counter that
restarts in every process. Kernels of two geometries come from the same
factory (same qualified name), so two cached kernels loaded into one process
could define the same symbol, and the JIT linker would bind a call to the
other geometry's code (wrong results, then memory corruption). Putting the
geometry tag into ``__qualname__`` keeps every symbol, and every cache file,
distinct.
"""

from __future__ import annotations

import re

from connect4.jit import kernel as _kernel


def kernel(tag: str, **options):
    safe = re.sub(r"[^0-9A-Za-z_]", "_", tag)

    def wrap(fn):
        fn.__qualname__ = f"{fn.__qualname__}__{safe}"
        fn.__name__ = f"{fn.__name__}__{safe}"
        return _kernel(tag, **options)(fn)

    return wrap
