"""A guarded seat on REST and MCP, against a real gateway (uvicorn), a real
redis-server and the MCP SDK's own client: the gate replaces a person's move
that fails its checks, the state says so, the switch is validated and a bad
request leaves the game as it was."""

from __future__ import annotations

import asyncio
import json

import redis

from gateway.document import Game

from .helpers import error_of, new_pvp, play

# Red to move; yellow's c1 a2 b2 c2 make d2 its winning cell, right over the empty d1.
RED_TRAP = [7, 3, 1, 1, 2, 2, 7, 3]
# The same trap with yellow to move (red holds c1 a2 b2 c2).
YELLOW_TRAP = [3, 1, 1, 2, 2, 7, 3]
REASONS = [{"check": "not_under_threat", "reason": "d lands directly under the opponent's winning cell d2"},
           {"check": "no_loss_in_two", "reason": "after d, the opponent wins at once with d"}]


def play_out(client, gid, tokens, moves):
    for i, col in enumerate(moves):
        r = play(client, gid, tokens[i & 1], col)
        assert r.status_code == 200, r.text
    return r.json()


def test_rest_guarded_move_is_replaced_and_the_state_says_why(client, redis_server):
    gid, red, yellow = new_pvp(client, guarded=True)
    st = client.get(f"/api/v1/games/{gid}", headers={"X-Player-Token": red}).json()
    assert st["guarded"] is True and st["seats"]["red"]["guarded"] and not st["seats"]["yellow"]["guarded"]
    play_out(client, gid, (red, yellow), RED_TRAP)
    r = play(client, gid, red, 4)
    assert r.status_code == 200, r.text
    st = r.json()
    assert st["moves"] == RED_TRAP + [3] and st["last_move"]["column"] == 3
    assert st["override"] == {
        "ply": 9, "color": "red", "proposed": 4, "played": 3, "overridden": True, "failed": REASONS,
        "played_passes": 4, "checks": 4,
        "summary": "the gate plays c, not d (d lands directly under the opponent's winning cell d2; after d, the "
                   "opponent wins at once with d); c passes 4 of 4 checks"}
    # watchers see it too, and the stored document carries it
    assert client.get(f"/api/v1/games/{gid}").json()["override"]["played"] == 3
    raw = redis.Redis.from_url(redis_server.db(1)).hget(f"c4:game:{gid}", "doc")
    doc = json.loads(raw)
    assert doc["seats"]["red"]["guarded"] is True and doc["override"]["proposed"] == 4
    # the unguarded yellow's move clears it
    st = play(client, gid, yellow, 6).json()
    assert st["override"] is None


def test_rest_a_move_that_passes_is_played_as_it_is(client):
    gid, red, yellow = new_pvp(client, guarded=True)
    st = play(client, gid, red, 4).json()
    assert st["moves"] == [4] and st["override"] is None


def test_rest_switch_and_its_bad_input(client):
    gid, red, yellow = new_pvp(client)
    play_out(client, gid, (red, yellow), RED_TRAP)
    before = client.get(f"/api/v1/games/{gid}").json()
    for body in ({"on": "yes"}, {"on": 1}, {}, {"on": None}):
        r = client.post(f"/api/v1/games/{gid}/guard", json=body, headers={"X-Player-Token": red})
        assert r.status_code == 400 and error_of(r) == "bad_request", (body, r.text)
        assert "on" in r.json()["error"]["message"]
    r = client.post(f"/api/v1/games/{gid}/guard", json={"on": True})
    assert r.status_code == 403 and error_of(r) == "bad_token"
    r = client.post(f"/api/v1/games/{gid}/guard", json={"on": True}, headers={"X-Player-Token": "nope"})
    assert error_of(r) == "bad_token"
    after = client.get(f"/api/v1/games/{gid}").json()
    assert after["version"] == before["version"] and after["moves"] == before["moves"]
    assert not after["seats"]["red"]["guarded"]
    # yellow's switch is yellow's: red stays unguarded and walks into the trap
    st = client.post(f"/api/v1/games/{gid}/guard", json={"on": True}, headers={"X-Player-Token": yellow}).json()
    assert st["guarded"] is True and st["seats"]["yellow"]["guarded"] and not st["seats"]["red"]["guarded"]
    # red switches it on: an illegal column is still refused, the game intact
    st = client.post(f"/api/v1/games/{gid}/guard", json={"on": True}, headers={"X-Player-Token": red}).json()
    assert st["guarded"] and st["moves"] == RED_TRAP
    for bad in (9, "z", "", "d7"):
        r = play(client, gid, red, bad)
        assert r.status_code == 400 and error_of(r) == "illegal_column", r.text
        assert client.get(f"/api/v1/games/{gid}").json()["version"] == st["version"]
    # switched off again, red walks into the trap as it proposed
    client.post(f"/api/v1/games/{gid}/guard", json={"on": False}, headers={"X-Player-Token": red})
    st = play(client, gid, red, 4).json()
    assert st["moves"][-1] == 4 and st["override"] is None


def test_rest_create_refuses_a_guarded_that_is_not_a_boolean(client):
    for value in ("yes", 1, "true", None):
        r = client.post("/api/v1/games", json={"opponent": "human", "guarded": value})
        assert r.status_code == 400 and error_of(r) == "bad_request", r.text
        assert "guarded" in r.json()["error"]["message"]


def test_undo_clears_the_override(client):
    gid, red, yellow = new_pvp(client, guarded=True)
    play_out(client, gid, (red, yellow), RED_TRAP)
    assert play(client, gid, red, 4).json()["override"]["played"] == 3
    st = client.post(f"/api/v1/games/{gid}/undo", headers={"X-Player-Token": red}).json()
    assert st["moves"] == RED_TRAP and st["override"] is None


def test_an_older_document_loads_unguarded():
    old = {"id": "x", "version": 3, "width": 7, "height": 6, "k": 4, "moves": [3],
           "seats": {"red": {"kind": "human"}, "yellow": {"kind": "opponent", "spec": "random"}}}
    doc = Game.from_dict(old)
    assert not doc.seats["red"].guarded and doc.override is None
    again = Game.from_json(doc.to_json())
    assert again.to_dict() == doc.to_dict()


def test_mcp_guarded_game_and_switch(bare_gateway):
    from mcp import Client

    import httpx

    url = f"{bare_gateway.url}/mcp"

    async def go():
        async with Client(url) as agent:
            bad = await agent.call_tool("connect4_new", {"opponent": "human", "guarded": "yes"})
            assert bad.is_error and "guarded must be true or false" in bad.content[0].text
            made = await agent.call_tool("connect4_new", {"opponent": "human", "engine_starts": True,
                                                          "guarded": True, "game": "g"})
            sc = made.structured_content
            assert sc["guarded"] is True and sc["your_color"] == "yellow" and sc["override"] is None
            gid = sc["game_id"]
            with httpx.Client(base_url=bare_gateway.url, timeout=30) as rest:
                red = rest.post(f"/api/v1/games/{gid}/join", json={"invite": sc["invite"]}).json()["token"]
                for i, col in enumerate(YELLOW_TRAP):
                    if i % 2 == 0:
                        assert play(rest, gid, red, col).status_code == 200
                    else:
                        r = await agent.call_tool("connect4_move", {"col": col, "game": "g"})
                        assert not r.is_error, r.content[0].text
                r = await agent.call_tool("connect4_move", {"col": 4, "game": "g"})
                assert not r.is_error
                o = r.structured_content["override"]
                assert (o["proposed"], o["played"], o["color"], o["failed"]) == (4, 3, "yellow", REASONS)
                assert r.structured_content["history"] == YELLOW_TRAP + [3]
                assert "gate: the gate plays c, not d (d lands directly under" in r.content[0].text
                # the switch: a bad value changes nothing; off, the next trap is played as proposed
                bad = await agent.call_tool("connect4_guard", {"on": "off", "game": "g"})
                assert bad.is_error and "on must be true or false" in bad.content[0].text
                state = await agent.call_tool("connect4_state", {"game": "g"})
                assert state.structured_content["guarded"] is True
                off = await agent.call_tool("connect4_guard", {"on": False, "game": "g"})
                assert off.structured_content["guarded"] is False
                assert rest.get(f"/api/v1/games/{gid}").json()["seats"]["yellow"]["guarded"] is False

    asyncio.run(go())


def test_rest_guarded_random_player_never_hands_a_win(client):
    """Red guarded, typing random columns; yellow random: after each of red's moves
    yellow has no win at once, unless every column of red's gave it one."""
    import random

    from connect4 import Position

    overrides = 0
    for seed in range(3):
        rng = random.Random(seed)
        gid, red, yellow = new_pvp(client, guarded=True)
        pos = Position()
        while not pos.is_over:
            legal = pos.legal_moves()
            mover = (red, yellow)[pos.to_move]
            before = pos.copy()
            st = play(client, gid, mover, rng.choice(legal) + 1).json()
            played = st["moves"][-1] - 1
            pos.play(played)
            if before.to_move == 0:
                overrides += bool(st["override"] and st["override"]["overridden"])

                def gives(c, p=before):
                    q = p.played(c)
                    return not q.is_over and q.can_win_next()
                if not all(gives(c) for c in legal):
                    assert not gives(played), st["moves"]
            assert st["moves"] == [c + 1 for c in pos.moves]
    assert overrides > 0
