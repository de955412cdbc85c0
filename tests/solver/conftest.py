from __future__ import annotations

import pytest

from connect4 import STANDARD
from solver_svc.solver import Solver


@pytest.fixture(scope="module")
def solver() -> Solver:
    """A 7x6 solver shared by a module's tests (reset where a fresh table matters)."""
    return Solver(STANDARD, tt_log2=20)


def read_set(path, n: int = 0) -> list[tuple[str, int]]:
    rows = []
    for line in path.read_text().splitlines():
        if line.strip():
            moves, score = line.split()
            rows.append((moves, int(score)))
            if n and len(rows) >= n:
                break
    return rows
