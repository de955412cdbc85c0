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
