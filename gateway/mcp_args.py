"""MCP tool arguments: their types, bounds and descriptions (the ``inputSchema``),
and argument errors said in one sentence an LLM can act on."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field, StrictBool

NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"

Column = Annotated[int, Field(strict=True, ge=1, le=16,
                              description="the column to drop your disc in, 1..the board's width from the left "
                                          "(1..7 on the standard 7x6 board)")]
# A board's size: the game checks the ranges and names them all in one error.
Side = Annotated[int, Field(strict=True, description="board width or height, 1..16")]
LineLength = Annotated[int, Field(strict=True, description="discs in a row that win, 2..max(width, height)")]
GameName = Annotated[str, Field(strict=True, min_length=1, max_length=64, pattern=NAME_PATTERN,
                                description="your name for the game (1-64 letters, digits, '_', '.', '-'); "
                                            "names are yours alone: other clients never see them")]
Flag = StrictBool
HintsOn = Annotated[Flag, Field(description="true: hints in every result")]
GuardOn = Annotated[Flag, Field(description="true: the gate checks your moves")]
ThinkMs = Annotated[int, Field(strict=True, ge=0, le=60000,
                               description="the opponent program's think time per move in ms: 50..60000, "
                                           "or 0 for its own default")]
OPPONENT_HELP = ("who you play: an engine spec such as engine:1000 (see connect4_opponents), perfect (the exact "
                 "solver), or human (another player joins with an invite); default: the gateway's engine")


def _expect(prop: dict[str, Any]) -> str:
    kind = prop.get("type")
    if "anyOf" in prop:
        kinds = [p for p in prop["anyOf"] if p.get("type") != "null"]
        if kinds:
            return _expect(kinds[0]) + " (or leave it out)"
    if kind == "integer":
        lo, hi = prop.get("minimum"), prop.get("maximum")
        return f"a whole number {lo}..{hi}" if lo is not None and hi is not None else "a whole number"
    if kind == "boolean":
        return "true or false (JSON, not a string)"
    if kind == "string":
        if prop.get("pattern") == NAME_PATTERN:
            return "a name of 1-64 letters, digits, '_', '.' or '-'"
        if prop.get("maxLength"):
            return f"a string of at most {prop['maxLength']} characters"
        return "a string"
    return "a valid value"


def _shown(value: object) -> str:
    if isinstance(value, str):
        return json.dumps(value[:40] + ("..." if len(value) > 40 else ""))
    return json.dumps(value)


def sentence(tool: str, schema: dict[str, Any], errors: list[dict[str, Any]]) -> str:
    """One sentence per bad argument, then what was not done."""
    props = schema.get("properties", {})
    parts = []
    for e in errors:
        field = str(e["loc"][0]) if e.get("loc") else "?"
        prop = props.get(field, {})
        if e["type"] == "missing":
            parts.append(f"{field} is required: {prop.get('description') or _expect(prop)}.")
        else:
            parts.append(f"{field} must be {_expect(prop)}, not {_shown(e.get('input'))}.")
    return " ".join(parts) + f" Nothing was done; call {tool} again with corrected arguments."


def unknown_arguments(tool: str, schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    props = schema.get("properties", {})
    extra = [k for k in arguments if k not in props]
    if not extra:
        return None
    takes = ", ".join(props) or "no arguments"
    return f"{tool} has no argument {extra[0]!r}; it takes: {takes}. Nothing was done."
