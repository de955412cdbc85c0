"""Small helpers shared by the engine tests."""


def pons_lines(path, limit):
    """(moves, score) of the first ``limit`` lines of one of Pons' test sets."""
    out = []
    with open(path) as f:
        for line in f:
            moves, score = line.split()
            out.append((moves, int(score)))
            if len(out) >= limit:
                break
    return out


def assert_deepening(depths):
    """Iterative deepening's finished depths: one ply at a time from 1, only the
    last iteration may go several plies deeper at once (engine_svc.pace)."""
    from engine_svc.pace import MAX_JUMP

    assert depths and depths[:-1] == list(range(1, len(depths)))
    assert 1 <= depths[-1] - (depths[-2] if len(depths) > 1 else 0) <= MAX_JUMP
