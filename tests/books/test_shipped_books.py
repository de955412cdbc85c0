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


def test_opening_keys_round_trip_and_the_tree_is_complete(opening):
    g = opening.geometry
    plies = [_stones(k, g) for k in opening.entries]
    top, bottom = min(plies), max(plies)
    for key, e in opening.entries.items():
        pos = position_from_key(key, g)
        assert pos.key() == key and pos.to_move == 0 and pos.can_play(e.column)
        if _stones(key, g) == bottom:
            continue
        child = pos.played(e.column)
        if child.is_over:
            continue
        for r in child.legal_moves():  # every reply of the second player is in the book
            grand = child.played(r)
            assert grand.is_over or opening.lookup(grand) is not None, (key, r)
    assert plies.count(top) == 1  # one root


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
