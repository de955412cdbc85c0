"""Boards up to 16 x 16 through MCP (the SDK's own client against the real
gateway): connect4_new takes width/height/k, moves go to columns past 7, the
board text puts the numbers 10..16 under their columns (both outputs, ours and
Connect4-rs's), and a size off the limits is one tool error naming them, with
the caller's game under that name kept."""

from __future__ import annotations

import asyncio

import pytest

LIMITS = "width and height 1..16, line length 2..max(width, height)"


def texts(result) -> list[str]:
    return [c.text for c in result.content]


def test_a_16x16_game_and_its_board_text(bare_gateway):
    from mcp import Client

    async def go():
        async with Client(f"{bare_gateway.url}/mcp") as mcp:
            made = await mcp.call_tool("connect4_new", {"game": "big", "opponent": "human",
                                                        "width": 16, "height": 16, "k": 5})
            assert not made.is_error, texts(made)
            assert made.structured_content["rows"] == ["." * 16] * 16
            moved = await mcp.call_tool("connect4_move", {"game": "big", "col": 16})
            assert not moved.is_error, texts(moved)
            assert moved.structured_content["history"] == [16]
            lines = texts(moved)[0].split("\n")
            numbers = " 1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16"
            at = lines.index(numbers)
            assert lines[at - 1] == " ." + "  ." * 14 + "  R" and lines[at - 16] == " ." + "  ." * 15
            wide = await mcp.call_tool("connect4_move", {"game": "big", "col": 17})
            assert wide.is_error and "col must be a whole number 1..16" in texts(wide)[0], texts(wide)
            state = await mcp.call_tool("connect4_state", {"game": "big"})
            assert state.structured_content["history"] == [16]

    asyncio.run(go())


@pytest.mark.parametrize("size,said", [
    ({"width": 17}, f"Board 17x6 is out of range: {LIMITS}. (error bad_request; nothing was changed)"),
    ({"width": 8, "height": 0}, f"Board 8x0 is out of range: {LIMITS}. (error bad_request; nothing was changed)"),
    ({"width": 8, "height": 8, "k": 9}, f"Line length 9 does not fit on a 8x8 board: {LIMITS}."),
    ({"k": 1}, f"Line length 1 does not fit on a 7x6 board: {LIMITS}."),
])
def test_a_size_off_the_limits_is_one_tool_error_and_the_game_is_kept(bare_gateway, size, said):
    from mcp import Client

    async def go():
        async with Client(f"{bare_gateway.url}/mcp") as mcp:
            made = await mcp.call_tool("connect4_new", {"game": "kept", "opponent": "human", "width": 9,
                                                        "height": 7})
            await mcp.call_tool("connect4_move", {"game": "kept", "col": 9})
            r = await mcp.call_tool("connect4_new", {"game": "kept", **size})
            assert r.is_error and texts(r)[0].startswith(said), texts(r)
            after = await mcp.call_tool("connect4_state", {"game": "kept"})
            assert after.structured_content["game_id"] == made.structured_content["game_id"]
            assert after.structured_content["history"] == [9]

    asyncio.run(go())


def test_connect4_rs_output_on_a_wide_board(bare_gateway):
    from mcp import Client

    async def go():
        async with Client(f"{bare_gateway.url}/mcp?output=connect4-rs") as mcp:
            made = await mcp.call_tool("connect4_new", {"game": "rs", "opponent": "human", "width": 12,
                                                        "height": 3, "k": 3})
            lines = texts(made)[0].split("\n")
            assert lines[1:5] == [" ." + "  ." * 11] * 3 + [" 1  2  3  4  5  6  7  8  9 10 11 12"], lines

    asyncio.run(go())
