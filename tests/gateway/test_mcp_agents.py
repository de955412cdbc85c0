"""What an LLM agent meets at ``/mcp``, through the SDK's own client over real
HTTP against a real gateway and Redis: every client its own namespace, seat
tokens never stored as they are, results in words and structure, argument
errors in a sentence with nothing changed, resources and the prompt, and
Connect4-rs's text on request."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import redis

from gateway import rs_format


def texts(result) -> list[str]:
    return [c.text for c in result.content]


def run(coro):
    return asyncio.run(coro)


def test_two_clients_with_every_default_never_share_a_game(bare_gateway, redis_server):
    from mcp import Client

    url = f"{bare_gateway.url}/mcp"

    async def go():
        async with Client(url) as a, Client(url) as b:
            ra = await a.call_tool("connect4_new", {})
            rb = await b.call_tool("connect4_new", {})
            ga, gb = ra.structured_content["game_id"], rb.structured_content["game_id"]
            assert ga != gb and ra.structured_content["game"] == rb.structured_content["game"] == "default"
            # B's state, hints and undo act on B's own game only
            await a.call_tool("connect4_hints", {"on": True})
            sb = await b.call_tool("connect4_state", {})
            assert sb.structured_content["game_id"] == gb and sb.structured_content["hints_on"] is False
            # a name A used is unknown to B: B gets a game of its own under it
            await a.call_tool("connect4_new", {"game": "mine"})
            other = await b.call_tool("connect4_state", {"game": "mine"})
            assert other.structured_content["game_id"] not in (ga, gb)
            none = await b.call_tool("connect4_undo", {"game": "never"})
            assert none.is_error and "no game named 'never'" in texts(none)[0]
            return ga, gb

    ga, gb = run(go())
    r = redis.Redis.from_url(redis_server.db(1), decode_responses=True)
    try:
        records = [r.hgetall(k) for k in r.scan_iter("c4:ns:*")]
        ours = [rec for rec in records if rec.get("id") in (ga, gb)]
        assert len(ours) == 2 and all(set(rec) == {"id", "sealed"} for rec in ours)
        for rec in ours:  # what Redis holds does not move in the game
            played = httpx.post(f"{bare_gateway.url}/api/v1/games/{rec['id']}/moves", json={"column": 4},
                                headers={"X-Player-Token": rec["sealed"]})
            assert played.status_code == 403 or played.json()["error"]["code"] == "bad_token", played.text
        assert not list(r.scan_iter("c4:mcp:*")), "a plain MCP token record was written"
    finally:
        r.close()
    assert httpx.get(f"{bare_gateway.url}/api/v1/games/{ga}").json()["moves"] == []


def test_a_request_without_the_issued_key_is_told_what_to_do(bare_gateway):
    """Raw JSON-RPC without initialize: a clear error, no game made."""
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "connect4_state", "arguments": {}}}
    r = httpx.post(f"{bare_gateway.url}/mcp", json=call, headers=headers, timeout=30)
    body = r.json()["result"]
    assert body["isError"] is True and "initialize" in body["content"][0]["text"]
    bad = httpx.post(f"{bare_gateway.url}/mcp", json=call, headers={**headers, "Mcp-Session-Id": "x"}, timeout=30)
    assert "not a key this gateway issued" in bad.json()["result"]["content"][0]["text"]
    init = {"jsonrpc": "2.0", "id": 2, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}
    first = httpx.post(f"{bare_gateway.url}/mcp", json=init, headers=headers, timeout=30)
    key = first.headers["mcp-session-id"]
    assert key.startswith("c4s_") and first.json()["result"]["serverInfo"]["name"] == "connect4"
    caps = first.json()["result"]["capabilities"]
    assert caps["resources"]["subscribe"] is False and caps["prompts"] is not None
    second = httpx.post(f"{bare_gateway.url}/mcp", json=init, headers=headers, timeout=30)
    assert second.headers["mcp-session-id"] != key
    ok = httpx.post(f"{bare_gateway.url}/mcp", json=call, headers={**headers, "Mcp-Session-Id": key}, timeout=30)
    assert ok.json()["result"]["structuredContent"]["status"] == "your_move"


@pytest.mark.parametrize("name", ["", "x" * 65, "a b", "a\u0000b", "../x", "x" * 5000, 7])
def test_bad_game_names_are_refused_in_a_sentence(bare_gateway, name):
    from mcp import Client

    async def go():
        async with Client(f"{bare_gateway.url}/mcp") as mcp:
            before = await mcp.call_tool("connect4_new", {"game": "kept"})
            for tool, args in (("connect4_new", {}), ("connect4_move", {"col": 4}), ("connect4_state", {})):
                r = await mcp.call_tool(tool, {**args, "game": name})
                assert r.is_error and texts(r)[0].startswith("game must be a name of 1-64 letters"), texts(r)
                assert "Nothing was done" in texts(r)[0] and len(texts(r)[0]) < 300
            after = await mcp.call_tool("connect4_state", {"game": "kept"})
            assert after.structured_content["game_id"] == before.structured_content["game_id"]
            assert after.structured_content["history"] == []

    run(go())


def test_argument_errors_change_nothing(bare_gateway):
    from mcp import Client

    async def go():
        async with Client(f"{bare_gateway.url}/mcp") as mcp:
            made = await mcp.call_tool("connect4_new", {"game": "args"})
            gid = made.structured_content["game_id"]
            cases = [
                ("connect4_move", {"game": "args"}, "col is required"),
                ("connect4_move", {"col": 0, "game": "args"}, "col must be a whole number 1..16, not 0."),
                ("connect4_move", {"col": "d", "game": "args"}, 'col must be a whole number 1..16, not "d".'),
                ("connect4_move", {"col": 4, "colum": 4, "game": "args"}, "connect4_move has no argument 'colum'"),
                ("connect4_new", {"think_ms": -5, "game": "args"}, "think_ms must be a whole number 0..60000"),
                ("connect4_new", {"think_ms": 20, "game": "args"}, "The think time must be 0 or 50..60000 ms"),
                ("connect4_new", {"opponent": "x" * 65, "game": "args"}, "opponent must be"),
                ("connect4_hints", {"game": "args"}, "on is required"),
                ("connect4_join", {"game_id": gid, "game": "args"}, "Pass either invite"),
                ("connect4_join", {"game_id": gid, "invite": "nope", "game": "args"}, "This game has no open seat"),
                ("connect4_join", {"game_id": gid, "token": "nope", "game": "args"}, "does not hold a seat"),
            ]
            for tool, args, said in cases:
                r = await mcp.call_tool(tool, args)
                assert r.is_error and said in texts(r)[0], (tool, args, texts(r))
            s = await mcp.call_tool("connect4_state", {"game": "args"})
            assert s.structured_content["game_id"] == gid and s.structured_content["history"] == []
            return gid

    gid = run(go())
    assert httpx.get(f"{bare_gateway.url}/api/v1/games/{gid}").json()["version"] == 1


def test_structured_results_undo_resign_and_the_end_in_words(gateway):
    from mcp import Client

    async def go():
        async with Client(f"{gateway.url}/mcp") as mcp:
            opp = await mcp.call_tool("connect4_opponents", {})
            specs = [o["spec"] for o in opp.structured_content["opponents"]]
            assert {"random", "perfect", "human"} <= set(specs)
            tools = {t.name: t for t in (await mcp.list_tools()).tools}
            assert "random" in tools["connect4_new"].input_schema["properties"]["opponent"]["description"]
            nobody = await mcp.call_tool("connect4_new", {"game": "end", "opponent": "nobody"})
            assert nobody.is_error and texts(nobody)[0].startswith("Unknown opponent 'nobody'; known: ")
            r = await mcp.call_tool("connect4_new", {"game": "end", "opponent": "random"})
            assert r.structured_content["allow_analysis"] is True  # an agent's own game against a program
            m = await mcp.call_tool("connect4_move", {"col": 4, "game": "end"})
            st = m.structured_content
            assert len(st["history"]) == 2 and st["last_search"]["col"] == st["history"][1]
            assert texts(m)[0].splitlines()[0] == "Your move."
            u = await mcp.call_tool("connect4_undo", {"game": "end"})
            assert u.structured_content["history"] == [] and not u.is_error
            a = await mcp.call_tool("connect4_analyze", {"game": "end"})
            assert not a.is_error, texts(a)
            assert [c["column"] for c in a.structured_content["columns"]] == list(range(1, 8))
            assert a.structured_content["best"] == [4]
            g = await mcp.call_tool("connect4_resign", {"game": "end"})
            res = g.structured_content
            assert res["game_over"] and res["status"] == "over" and res["result"]["how"] == "resignation"
            assert res["result"]["winner"] == "yellow" and res["result"]["you_won"] is False
            assert texts(g)[0].startswith("You resigned")
            again = await mcp.call_tool("connect4_move", {"col": 4, "game": "end"})
            assert again.is_error and again.structured_content["error"]["code"] == "game_over"
            # a win: red's four in column 1 (yellow answers elsewhere or blocks; play until over)
            await mcp.call_tool("connect4_new", {"game": "win", "opponent": "random"})
            st = (await mcp.call_tool("connect4_state", {"game": "win"})).structured_content
            while not st["game_over"]:
                free = [c + 1 for c in range(7) if st["rows"][0][c] == "."]
                col = next((c for c in (1, 2, 3, 4, 5, 6, 7) if c in free), free[0])
                out = await mcp.call_tool("connect4_move", {"col": col, "game": "win"})
                assert not out.is_error, texts(out)
                st = out.structured_content
            first = texts(out)[0].splitlines()[0]
            words = {"red": "You win.", "yellow": "The engine wins.", None: "Draw."}[st["result"]["winner"]]
            assert first.startswith(words) and st["message"] == first and st["note"] == ""
            if st["result"]["winner"]:
                assert len(st["result"]["line"]) >= 4

    run(go())


def test_resources_and_the_prompt(bare_gateway):
    from mcp import Client

    async def go():
        async with Client(f"{bare_gateway.url}/mcp") as mcp:
            templates = (await mcp.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["connect4://game/{name}"]
            made = await mcp.call_tool("connect4_new", {"game": "res"})
            read = await mcp.read_resource("connect4://game/res")
            assert json.loads(read.contents[0].text)["game_id"] == made.structured_content["game_id"]
            prompts = (await mcp.list_prompts()).prompts
            assert [p.name for p in prompts] == ["play_a_game"]
            p = await mcp.get_prompt("play_a_game", {"engine_starts": "true"})
            assert "connect4_new with engine_starts=true" in p.messages[0].content.text

    run(go())


def test_connect4_rs_text_on_request(bare_gateway):
    """``/mcp?output=connect4-rs``: the text Connect4-rs's connect4-mcp prints."""
    from mcp import Client

    async def go():
        async with Client(f"{bare_gateway.url}/mcp?output=connect4-rs") as mcp:
            await mcp.call_tool("connect4_new", {"game": "rs"})
            r = await mcp.call_tool("connect4_hints", {"on": True, "game": "rs"})
            lines = texts(r)[0].splitlines()
            assert lines[:6] == [". . . . . . ."] * 6 and lines[6] == "1 2 3 4 5 6 7"
            assert lines[7] == ("hints: next free row per column 1 1 1 1 1 1 1  |  you win now: none  |  "
                                "must block: none  |  losing moves: none")
            state = json.loads(lines[8])
            assert list(state)[:7] == ["status", "human", "to_move", "rows", "history", "last_search", "message"]
            assert state["status"] == "human_to_move" and state["message"] == "Your move"
            assert r.structured_content["game"] == "rs"  # the structure stays
            bad = await mcp.call_tool("connect4_move", {"col": 9, "game": "rs"})
            assert bad.is_error
        async with Client(f"{bare_gateway.url}/mcp") as plain:
            r = await plain.call_tool("connect4_new", {"game": "plain"})
            assert texts(r)[0].splitlines()[0] == "Your move."

    run(go())
    rendered = rs_format.render({"rows": ["......."], "x": 1})
    assert rendered == '. . . . . . .\n1 2 3 4 5 6 7\n{"rows":["......."],"x":1}'


def test_bench_agent_prints_its_figures(gateway):
    import subprocess
    import sys

    from tests.conftest import REPO

    out = subprocess.run([sys.executable, "-m", "c4.main", "bench", "agent", "--url", gateway.url, "--games", "1",
                          "--json"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert figures["stdio_first_answer"]["answered"] is True
    for transport in ("http", "stdio"):
        tools = figures[transport]["tools"]
        assert {"connect4_new", "connect4_hints", "connect4_state", "connect4_move"} <= set(tools)
        assert all(t["calls"] > 0 and t["p99_ms"] >= t["p50_ms"] > 0 for t in tools.values())
        assert sum(figures[transport]["results"].values()) == 1


def test_the_hints_policy():
    from c4.bench.agent import choose

    rows = ["......."] * 6
    assert choose({"rows": rows, "hints": {"winning_moves": [2], "must_block": [5], "losing_moves": []}}) == 2
    assert choose({"rows": rows, "hints": {"winning_moves": [], "must_block": [5], "losing_moves": []}}) == 5
    assert choose({"rows": rows, "hints": {"winning_moves": [], "must_block": [], "losing_moves": [4, 3]}}) == 5
    full = ["RRR.RRR"] + ["......."] * 5
    assert choose({"rows": full, "hints": {"winning_moves": [], "must_block": [], "losing_moves": [4]}}) == 4


def test_mcp_stdio_answers_what_is_in_flight_when_its_input_ends(bare_gateway):
    """A client that writes its last request and closes stdin at once (as SDK
    clients close it on exit) still gets the answer, and the process ends
    cleanly: its request threads are not cut off at exit."""
    import subprocess
    import sys

    from tests.conftest import REPO

    def msg(mid, method, params=None):
        return {"jsonrpc": "2.0", **({"id": mid} if mid is not None else {}), "method": method,
                **({"params": params} if params is not None else {})}

    lines = [msg(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                   "clientInfo": {"name": "t", "version": "1"}}),
             msg(None, "notifications/initialized"),
             msg(2, "tools/call", {"name": "connect4_new", "arguments": {"game": "eof"}}),
             msg(3, "tools/call", {"name": "connect4_state", "arguments": {"game": "eof"}})]
    p = subprocess.run([sys.executable, "-m", "c4.main", "mcp-stdio", "--url", f"{bare_gateway.url}/mcp"],
                       cwd=REPO, input="".join(json.dumps(m) + "\n" for m in lines), capture_output=True,
                       text=True, timeout=120)
    answers = {a["id"]: a for a in map(json.loads, p.stdout.splitlines())}
    assert p.returncode == 0 and "Fatal Python error" not in p.stderr, p.stderr
    assert set(answers) == {1, 2, 3}, p.stdout
    assert answers[2]["result"]["structuredContent"]["game"] == "eof"
    assert answers[3]["result"]["structuredContent"]["status"] == "your_move"
