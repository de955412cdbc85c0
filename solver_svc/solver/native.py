"""The batch kernel as standalone machine code: solving without importing numba.

A process that imports numba spends about 0.5 s of CPU on it before its first
answer, more than a whole ``c4 solve`` line takes. This module writes the
machine code of one geometry's ``run_batch`` (:mod:`.driver`) to a file of
its own, once, from a process that has numba (:func:`export`), and later
processes run it through llvmlite alone (:class:`NativeSolver`): llvmlite's
linker places the object code in memory and ctypes calls it, with the table
and the workspace in plain memory (``mmap``, ``array``), no numpy either.

* The file (``run_batch-<W>x<H>k<K>.native`` in the numba cache folder:
  ``$NUMBA_CACHE_DIR/c4-native``, else ``__pycache__`` beside this module)
  holds one JSON header line and the object code. Its ``stamp`` hashes the
  solver's and connect4's kernel sources, the numba (its ``_version.py``) and llvmlite versions,
  Python's version and the host CPU: a file from any other build is ignored
  (and written again by the next process that has numba).
* The code is a numba ``cfunc`` around ``run_batch``: raw pointers and lengths
  in, the same kernel inside. Its only calls outside itself are numba's error
  paths (raising a Python exception, freeing a reference-counted array),
  which the kernels never take (``error_model="numpy"``, no allocation); a
  symbol that the process cannot resolve is pointed at ``abort`` so that a
  surprise stops loudly rather than returning a wrong score.
* :class:`NativeSolver` has :meth:`~NativeSolver.solve_many` and
  :meth:`~NativeSolver.analyze_many` for move strings and 0-based move lists,
  answering as :class:`.solver.Batch` does (plain lists). Anything this path
  cannot do (no file, another stamp, llvmlite fails) raises
  :class:`NativeUnavailable`; the caller uses :class:`.solver.Solver`.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import sys
import time
from array import array
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from .memory import zeroed
from .layout import ANALYZE, FRESH, STATE_SIZE, WEAK, init_state, workspace_size

FORMAT = 1
DEFAULT_TT_LOG2 = 23  # as solver.DEFAULT_TT_LOG2 (that module imports numpy)
HERE = Path(__file__).resolve().parent
# the sources whose kernels the batch kernel is made of
SOURCES = sorted(HERE.glob("*.py")) + [HERE.parent.parent / "connect4" / f for f in
                                       ("bits.py", "geometry.py", "jit.py", "kernels.py")]
# moves: '1' -> 0 ... '9' -> 8; any other byte wraps to >= 9, which the kernel rejects as off the board
_DIGITS = bytes((b - 49) & 0xFF for b in range(256))
_P = ctypes.c_void_p
_I = ctypes.c_int64
_ARGTYPES = (_P, _I, _P, _I, _I, _I, _P, _I, _P, _I, _P, _I, _P, _P, _I, _P, _P)


class NativeUnavailable(RuntimeError):
    """No usable machine code for this board here (the caller uses the numba Solver)."""


class Board(NamedTuple):
    """A board size with what the layout needs of it (a :class:`connect4.Geometry`
    would import numba); made by :func:`board`."""

    width: int
    height: int
    k: int
    h1: int  # bits a column: its cells and the sentinel
    cells: int
    name: str


def board(width: int, height: int, k: int) -> Board:
    return Board(width, height, k, height + 1, width * height, f"{width}x{height}k{k}")


class NativeBatch(NamedTuple):
    """:class:`.solver.Batch` as lists: ``scores`` (a row of ``width`` a
    position when analyzing), ``nodes``, ``errors`` (``[code, move]`` pairs)."""

    scores: list
    nodes: list[int]
    errors: list[list[int]]
    elapsed_s: float


def folder() -> Path | None:
    """Where the files live (the numba cache's place), None when it cannot be written."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    path = Path(env) / "c4-native" if env else HERE / "__pycache__"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return path if os.access(path, os.W_OK) else None


def file_for(board: Board, where: Path | None = None) -> Path | None:
    where = where if where is not None else folder()
    return None if where is None else where / f"run_batch-{board.name}.native"


def stamp(board: Board) -> str:
    """What the machine code depends on (see the module's docstring)."""
    import llvmlite
    import llvmlite.binding as ll

    h = hashlib.sha256()
    for path in [*SOURCES, _numba_version_file()]:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    h.update(json.dumps([FORMAT, board.name, llvmlite.__version__, sys.version, ll.get_host_cpu_name(),
                         ll.get_host_cpu_features().flatten()]).encode())
    return h.hexdigest()


def _numba_version_file() -> Path:
    """numba's ``_version.py`` (its version), found without importing numba
    (or importlib.metadata: a tenth of a second)."""
    for entry in sys.path:
        path = Path(entry or ".") / "numba" / "_version.py"
        if path.is_file():
            return path
    raise NativeUnavailable("numba is not installed here")


def _header(path: Path) -> tuple[dict, bytes]:
    head, _, code = path.read_bytes().partition(b"\n")
    try:
        header = json.loads(head)
    except ValueError:
        raise NativeUnavailable(f"{path}: not a machine-code file") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise NativeUnavailable(f"{path}: not a machine-code file of format {FORMAT}")
    return header, code


def is_current(board: Board, where: Path | None = None) -> bool:
    """Is there a file for ``board`` made by this very build (or nowhere to write one)?"""
    path = file_for(board, where)
    if path is None:
        return True  # nothing to do about it
    try:
        return path.is_file() and _header(path)[0].get("stamp") == stamp(board)
    except (OSError, NativeUnavailable):
        return False


def export(geometry, where: Path | None = None) -> Path | None:
    """Compile the batch kernel of ``geometry`` (a :class:`connect4.Geometry`)
    as a C function and write its machine code for later processes; the
    file, or None when there is nowhere to write it. Costs about a second."""
    from numba import carray, cfunc, types

    from .driver import search_kernels

    size = board(geometry.width, geometry.height, geometry.k)
    path = file_for(size, where)
    if path is None:
        return None
    run_batch = search_kernels(geometry).run_batch
    P, i64 = types.CPointer, types.int64
    sig = i64(P(types.uint8), i64, P(i64), i64, i64, i64, P(types.uint64), i64, P(types.uint64), i64, P(i64), i64,
              P(types.uint8), P(i64), i64, P(i64), P(i64))

    @cfunc(sig, error_model="numpy")
    def c_run_batch(moves, n_moves, starts, n_starts, flags, budget, tt, n_tt, small, n_small, ws, n_ws, stop,
                    scores, n_scores, nodes, errors):
        n = n_starts - 1
        return run_batch(carray(moves, n_moves), carray(starts, n_starts), flags, budget, carray(tt, n_tt),
                         carray(small, n_small), carray(ws, n_ws), carray(stop, 1), carray(scores, n_scores),
                         carray(nodes, n), carray(errors, 2 * n))

    library = c_run_batch._library  # type: ignore[attr-defined]  # numba's code library (numba 0.68): the linked module and its target
    module = library._final_module
    code = library._codegen._tm.emit_object(module)
    externals = sorted(f.name for f in module.functions if f.is_declaration and not f.name.startswith("llvm."))
    externals += sorted(g.name for g in module.global_variables if g.is_declaration)
    header = {"format": FORMAT, "stamp": stamp(size), "symbol": c_run_batch.native_name, "externals": externals}
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(json.dumps(header).encode() + b"\n" + code)
    os.replace(tmp, path)  # readers see the old file or the whole new one
    return path


def _link(board: Board, path: Path | None):
    """The C function of the file for ``board``, linked here (llvmlite), and its engine."""
    if path is None or not path.is_file():
        raise NativeUnavailable(f"no machine code for {board.name} yet")
    header, code = _header(path)
    if header.get("stamp") != stamp(board):
        raise NativeUnavailable(f"{path} was made by another build")
    import llvmlite.binding as ll

    ll.initialize_native_target()
    ll.initialize_native_asmprinter()
    process = ctypes.CDLL(None)
    abort = ctypes.cast(process.abort, ctypes.c_void_p).value
    for name in header["externals"]:
        if ll.address_of_symbol(name) is None:  # numba's helpers when numba is loaded here; else ...
            try:
                ll.add_symbol(name, ctypes.cast(getattr(process, name), ctypes.c_void_p).value)  # Python's, libc's
            except AttributeError:
                ll.add_symbol(name, abort)  # an error path the kernel never takes
    target = ll.Target.from_default_triple()
    machine = target.create_target_machine(cpu=ll.get_host_cpu_name(), features=ll.get_host_cpu_features().flatten(),
                                           codemodel="jitdefault")
    engine = ll.create_mcjit_compiler(ll.parse_assembly(""), machine)
    engine.add_object_file(ll.ObjectFileRef.from_data(code))
    engine.finalize_object()
    address = engine.get_function_address(header["symbol"])
    if not address:
        raise NativeUnavailable(f"{path}: no symbol {header['symbol']}")
    return ctypes.CFUNCTYPE(_I, *_ARGTYPES)(address), engine


def _address(buffer) -> int:
    return ctypes.addressof(ctypes.c_char.from_buffer(buffer))


class NativeSolver:
    """The batch calls of :class:`.solver.Solver` on the standalone machine
    code; its table and workspace are laid out as the Solver's. Not thread-safe."""

    def __init__(self, board: Board, tt_log2: int | None = None, where: Path | None = None):
        self.board = board
        self._run, self._engine = _link(board, file_for(board, where))  # the engine owns the code's memory
        self.ws = array("q", bytes(8 * workspace_size(board)))
        log2, small_log2 = init_state(self.ws, board, DEFAULT_TT_LOG2 if tt_log2 is None else tt_log2)
        self.tt = zeroed(8 << log2)  # anonymous memory: zero pages appear on first touch
        self.small = zeroed(8 << small_log2) if small_log2 else bytearray(8)
        self._tt_words, self._small_words = 1 << log2, (1 << small_log2) if small_log2 else 1
        self._tt_at, self._small_at = _address(self.tt), _address(self.small)
        self.stop = bytearray(1)
        self._stop_at = _address(self.stop)
        self.last_nodes = 0

    def solve_many(self, positions: Iterable, *, weak: bool = False, fresh: bool = True) -> NativeBatch:
        return self._many(positions, weak, False, fresh)

    def analyze_many(self, positions: Iterable, *, weak: bool = False, fresh: bool = True) -> NativeBatch:
        return self._many(positions, weak, True, fresh)

    def _many(self, positions, weak: bool, analyze: bool, fresh: bool) -> NativeBatch:
        t0 = time.perf_counter()
        parts = [p.encode("latin-1", "replace").translate(_DIGITS) if isinstance(p, str)
                 else bytes(min(int(c), 255) if int(c) >= 0 else 255 for c in p) for p in positions]
        n, width = len(parts), self.board.width
        moves = bytearray(b"".join(parts) or b"\0")  # one byte at least: a buffer to point at
        starts = array("q", [0]) * (n + 1)
        for i, part in enumerate(parts):
            starts[i + 1] = starts[i] + len(part)
        scores = array("q", [0]) * (n * width if analyze else n or 1)
        nodes = array("q", [0]) * (n or 1)
        errors = array("q", [0]) * (2 * n or 1)
        flags = (WEAK if weak else 0) | (ANALYZE if analyze else 0) | (FRESH if fresh else 0)
        done = self._run(_address(moves), len(moves), starts.buffer_info()[0], n + 1, flags, 0,
                         self._tt_at, self._tt_words, self._small_at, self._small_words,
                         self.ws.buffer_info()[0], len(self.ws), self._stop_at,
                         scores.buffer_info()[0], len(scores), nodes.buffer_info()[0], errors.buffer_info()[0])
        if done != n:  # only a stop flag or a budget ends a batch early, and this class sets neither
            raise RuntimeError(f"the batch kernel stopped after {done} of {n} positions")
        self.last_nodes = sum(nodes[:n])
        rows = [scores[i * width:(i + 1) * width].tolist() for i in range(n)] if analyze else scores[:n].tolist()
        return NativeBatch(rows, nodes[:n].tolist(), [errors[2 * i:2 * i + 2].tolist() for i in range(n)],
                           time.perf_counter() - t0)


__all__ = ["Board", "board", "NativeBatch", "NativeSolver", "NativeUnavailable", "STATE_SIZE", "export", "file_for", "folder",
           "is_current"]
