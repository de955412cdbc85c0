"""The shipped books: well-formed, a complete tree, and right on a sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from connect4 import Position
from connect4.book import MoveBook
from connect4.keys import position_from_key
from books.bookgen.opening import _stones
from solver_svc.solver import Solver

BOOKS = Path(__file__).resolve().parents[2] / "books"


@pytest.fixture(scope="module")
def opening():
    book = MoveBook.load(BOOKS / "7x6-opening.txt")
    assert not book.problems
    return book


def test_opening_keys_round_trip_and_the_trees_are_complete(opening):
    """Every entry is a leaf of its tree (no reply after its move booked) or
    every reply of the second player after its move is booked."""
    g = opening.geometry
    plies = [_stones(k, g) for k in opening.entries]
    inner = 0
    for key, e in opening.entries.items():
        pos = position_from_key(key, g)
        assert pos.key() == key and pos.to_move == 0 and pos.can_play(e.column)
        child = pos.played(e.column)
        if child.is_over:
            continue
        grand = [child.played(r) for r in child.legal_moves()]
        booked = [gp.is_over or opening.lookup(gp) is not None for gp in grand]
        if any(opening.lookup(gp) is not None for gp in grand):
            assert all(booked), hex(key)
            inner += 1
    assert plies.count(min(plies)) == 1  # one root
    assert inner > 100


def test_opening_sample_agrees_with_the_solver(opening):
    g = opening.geometry
    s = Solver(tt_log2=22)
    deepest = sorted(k for k in opening.entries if _stones(k, g) == 12)[::97][:4]
    for key in deepest:
        e = opening.entries[key]
        assert s.best_move(position_from_key(key, g)) == (e.column, e.score)
        s.reset()


def test_corrective_book_is_well_formed():
    book = MoveBook.load(BOOKS / "7x6-corrective.txt")
    assert not book.problems
    for key, e in book.entries.items():
        pos = position_from_key(key, book.geometry)
        assert pos.ply % 2 == 1 and pos.can_play(e.column)  # the second player (the engine) to move
