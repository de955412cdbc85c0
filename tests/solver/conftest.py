from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from connect4 import STANDARD
from c4.bench.solver import read_set as read_pons_set
from solver_svc.solver import Solver


@pytest.fixture(scope="module")
def solver() -> Solver:
    """A 7x6 solver shared by a module's tests (reset where a fresh table matters)."""
    return Solver(STANDARD, tt_log2=20)


def _load_brute():
    """tests/solver is not a package (importlib mode): load brute.py by path."""
    spec = importlib.util.spec_from_file_location("solver_tests_brute", Path(__file__).with_name("brute.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.brute_score


@pytest.fixture(scope="session")
def read_set():
    """read_set(path, n=0) -> [(moves, score)] of a Pons test set (the benchmark's reader)."""
    return read_pons_set


@pytest.fixture(scope="session")
def brute_score():
    """The brute-force minimax reference of brute.py."""
    return _load_brute()
