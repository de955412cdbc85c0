"""Play one move over REST and one over the JSON bridge of a running stack,
and check the engine answered each. Standard library only (runs on the host,
outside any venv). Exit 0 when both worked; otherwise 1 and why.

    python3 deploy/smoke.py HTTP_URL BRIDGE_HOST:PORT [--moves N]
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import urllib.error
import urllib.request


def post(url: str, body: dict, headers: dict | None = None) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=120) as reply:
            return json.loads(reply.read())
    except urllib.error.HTTPError as err:
        raise SystemExit(f"smoke: POST {url}: HTTP {err.code} {err.read(500).decode(errors='replace')}") from None


def rest_moves(base: str, moves: int) -> None:
    game = post(f"{base}/api/v1/games", {"opponent": "engine:100", "think_ms": 50})
    state, token = game["state"], game["token"]
    for turn in range(moves):
        if state["status"] == "over":
            game = post(f"{base}/api/v1/games", {"opponent": "engine:100", "think_ms": 50})
            state, token = game["state"], game["token"]
        legal = [c + 1 for c, cell in enumerate(state["rows"][0]) if cell == "."]
        before = len(state["moves"])
        state = post(f"{base}/api/v1/games/{state['id']}/moves", {"column": legal[turn % len(legal)]},
                     {"X-Player-Token": token})
        if state["status"] != "over" and len(state["moves"]) != before + 2:
            raise SystemExit(f"smoke: REST: the engine did not answer the move: {state}")
    print(f"smoke: REST: {moves} move(s) played, the engine answered each", file=sys.stderr)


def bridge_move(address: str) -> None:
    host, _, port = address.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=120) as sock:
        f = sock.makefile("rwb")

        def send(msg: dict) -> dict:
            f.write(json.dumps(msg).encode() + b"\n")
            f.flush()
            line = f.readline()
            if not line:
                raise SystemExit(f"smoke: bridge closed the connection after {msg}")
            return json.loads(line)

        state = send({"cmd": "new", "engine_starts": False})
        if state.get("status") != "human_to_move":
            raise SystemExit(f"smoke: bridge: new game: {state}")
        state = send({"cmd": "move", "col": 4})
        stones = sum(row.count("R") + row.count("Y") for row in state.get("rows", []))
        if "error" in state or stones != 2:
            raise SystemExit(f"smoke: bridge: the move or the engine's reply is missing: {state}")
    print("smoke: bridge: a move played, the engine answered", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("http_url")
    parser.add_argument("bridge")
    parser.add_argument("--moves", type=int, default=1, help="REST moves to play (default 1)")
    args = parser.parse_args()
    rest_moves(args.http_url.rstrip("/"), args.moves)
    bridge_move(args.bridge)
    return 0


if __name__ == "__main__":
    sys.exit(main())
