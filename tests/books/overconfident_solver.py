"""A solver process that speaks Pascal Pons' line protocol and is wrong:
``python overconfident_solver.py WIDTH HEIGHT [-a]`` answers every line with
``moves`` and a score of 5 for every playable column (-1000 for a full one),
whatever the position. The tests' other solver that disagrees."""

import sys


def main() -> None:
    width, height = int(sys.argv[1]), int(sys.argv[2])
    for line in sys.stdin:
        moves = line.strip()
        heights = [moves.count(str(c + 1)) for c in range(width)]
        scores = ["-1000" if h >= height else "5" for h in heights]
        print(moves, *scores, flush=True)


if __name__ == "__main__":
    main()
