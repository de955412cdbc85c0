"""PUCT search guided by an evaluator (the policy/value net), no rollouts.

Each node holds, per column a: the prior P(a), the visit count N(a) and the
summed value W(a), all from the view of the node's side to move. A
simulation walks down choosing

    a = argmax over legal columns of  Q(a) + c_puct * P(a) * sqrt(1 + sum N) / (1 + N(a))

where Q(a) = W(a) / N(a) and Q(a) = 0 for an unvisited column; ties go to
the most central column. The walk stops at a finished game (its exact value:
-1 for the side to move when the opponent just won, 0 for a full board) or
at a node not yet evaluated. Leaves are evaluated ``batch`` at a time: the
walks of one batch add a virtual loss (one visit valued -1) on their path so
they spread out. The evaluator's value v (side to move at the leaf) is backed up with
its sign flipped at every level; a leaf that two walks of a batch reach is
evaluated once and backed up along both.

With a uniform prior and a zero value everywhere (no evaluator knowledge),
the unvisited columns of a node are tried in centre-first order, visits
spread evenly (exactly with ``batch=1``; in the long run with batches, where
a leaf reached twice in one batch counts twice), and only exact results (wins, losses, draws found in the
tree) move Q: a move that wins at once is found, a move that lets the
opponent win at once is avoided once it is seen (tests/learned/test_puct.py).

Proofs (MCTS-solver): a node whose side to move has a column reaching a
proven loss for the opponent (a finished game won by that column, or a node
proven so) is a proven win; one whose every column reaches a proven win for
the opponent is a proven loss; one whose every column is proven and none
wins is a proven draw. Proofs are made as exact results are backed up, from
the leaf towards the root. A walk stops at a proven node as at a finished
game and backs up its exact value; selection takes a column proven to win
and passes over columns proven to lose. The search ends as soon as the root
is proven, with fewer simulations than asked.

The answer is a root column proven to win if there is one (centre first),
else the most visited column not proven to lose (centre first on ties),
with the root's visit share per column and its mean value.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .encode import planes

WIDTH, H1 = 7, 7
BOTTOM = sum(1 << (c * H1) for c in range(WIDTH))
TOP = [1 << (c * H1 + 5) for c in range(WIDTH)]
CENTRE = (3, 2, 4, 1, 5, 0, 6)
C_PUCT = 1.5

# evaluate(list of (current, mask)) -> (priors (n, 7) over legal columns, values (n,))
Evaluator = Callable[[list[tuple[int, int]]], tuple[np.ndarray, np.ndarray]]


def won(b: int) -> bool:
    """Four in a row in a 7x6 bitboard: shift by 1 (vertical), 7 (horizontal), 6 and 8 (diagonals)."""
    for s in (1, 7, 6, 8):
        m = b & (b >> s)
        if m & (m >> (2 * s)):
            return True
    return False


class Node:
    __slots__ = ("current", "mask", "ply", "terminal", "proven", "prior", "n", "w", "children", "legal")

    def __init__(self, current: int, mask: int, ply: int, terminal: float | None):
        self.current, self.mask, self.ply = current, mask, ply
        self.terminal = terminal  # exact value for the side to move, or None while the game goes on
        self.proven = terminal  # exact value for the side to move once known: a finished game or a proof
        self.prior: list[float] | None = None
        self.n = [0] * WIDTH
        self.w = [0.0] * WIDTH
        self.children: list[Node | None] = [None] * WIDTH
        self.legal = [c for c in CENTRE if not mask & TOP[c]]

    def child(self, col: int) -> Node:
        c = self.children[col]
        if c is None:
            # the mover's stones become the opponent's; the carry lands on the lowest empty cell of col
            mask = self.mask | (self.mask + (1 << (col * H1)))
            mover = (self.current ^ self.mask) ^ mask  # the stones of the side that just moved
            ply = self.ply + 1
            terminal = -1.0 if won(mover) else (0.0 if ply == 42 else None)
            c = self.children[col] = Node(self.current ^ self.mask, mask, ply, terminal)
        return c

    def select(self, c_puct: float) -> int:
        prior = self.prior
        assert prior is not None  # only evaluated nodes are walked through
        total = math.sqrt(1 + sum(self.n))
        best, best_col = -1e9, self.legal[0]
        for a in self.legal:  # centre first, so the first of equal scores is the most central
            child = self.children[a]
            if child is not None and child.proven is not None:
                if child.proven < 0:
                    return a  # the opponent is proven lost there
                if child.proven > 0:
                    continue  # proven lost for us; an unproven node always has another column
            n = self.n[a]
            u = (self.w[a] / n if n else 0.0) + c_puct * prior[a] * total / (1 + n)
            if u > best:
                best, best_col = u, a
        return best_col


def search(current: int, mask: int, ply: int, simulations: int, evaluate: Evaluator, batch: int = 8,
           c_puct: float = C_PUCT, stop=None) -> tuple[Node, int]:
    """Run ``simulations`` simulations from a position whose game goes on;
    (root, simulations done). ``stop`` (a numpy array) ends early when set."""
    root = Node(current, mask, ply, None)
    pri, _ = evaluate([(current, mask)])
    root.prior = pri[0].tolist()
    done = 0
    while done < simulations and root.proven is None:
        if stop is not None and stop[0]:
            break
        leaves: dict[int, tuple[Node, list]] = {}  # a leaf reached twice in a batch is evaluated once
        for _ in range(min(batch, simulations - done)):
            node, path = root, []
            while True:
                a = node.select(c_puct)
                path.append((node, a))
                node.n[a] += 1  # virtual loss: a visit valued -1 until the real value comes
                node.w[a] -= 1.0
                node = node.child(a)
                if node.proven is not None or node.prior is None:
                    break
            if node.proven is not None:
                _backup(path, node.proven)
                _prove(path)
                done += 1
                if root.proven is not None:
                    break
            else:
                leaves.setdefault(id(node), (node, []))[1].append(path)
        if leaves:
            items = list(leaves.values())
            pri, val = evaluate([(n.current, n.mask) for n, _ in items])
            for (node, paths), p, v in zip(items, pri, val, strict=True):
                node.prior = p.tolist()
                for path in paths:
                    _backup(path, float(v))
                    done += 1
    return root, done


def _backup(path, value: float) -> None:
    """``value`` is for the side to move at the end of ``path``; replace each virtual loss by it."""
    for node, a in reversed(path):
        value = -value  # the parent's mover sees the child's value negated
        node.w[a] += 1.0 + value


def _prove(path) -> None:
    """After an exact value reached the end of ``path``: prove what it decides, leaf to root."""
    for node, _ in reversed(path):
        outcomes = [_outcome(node, a) for a in node.legal]
        if 1.0 in outcomes:
            node.proven = 1.0  # a column wins
        elif None in outcomes:
            return  # undecided here, so above too
        else:
            node.proven = max(o for o in outcomes if o is not None)  # every column proven


def _outcome(node: Node, a: int) -> float | None:
    """Column ``a``'s proven value for ``node``'s side to move, or None while unproven."""
    child = node.children[a]
    return None if child is None or child.proven is None else -child.proven


def best_column(root: Node) -> int:
    """A column proven to win, else the most visited not proven to lose (centre first on ties)."""
    wins = [a for a in root.legal if _outcome(root, a) == 1.0]
    if wins:
        return wins[0]
    safe = [a for a in root.legal if _outcome(root, a) != -1.0] or root.legal
    return max(safe, key=lambda a: root.n[a])


def uniform_evaluator(positions):
    """The no-knowledge evaluator: a uniform prior over the legal columns and value 0."""
    pri = np.zeros((len(positions), WIDTH))
    for i, (_, mask) in enumerate(positions):
        legal = [c for c in range(WIDTH) if not mask & TOP[c]]
        pri[i, legal] = 1.0 / len(legal)
    return pri, np.zeros(len(positions))


def net_evaluator(net) -> Evaluator:
    from .encode import legal_mask
    from .pvnet import masked_softmax

    def evaluate(positions):
        x = np.stack([planes(c, m) for c, m in positions])
        logits, value = net.forward(x)
        legal = np.stack([legal_mask(m) for _, m in positions])
        return masked_softmax(logits, legal), value

    return evaluate
