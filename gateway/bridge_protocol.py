"""Connect4-rs's control-socket protocol, as its ``src/server.rs`` reads and
answers it: strict JSON (as serde_json's ``from_str``), its field types (an
``as_u64`` column, ``as_bool`` flags) and its error texts.

Only what a line means lives here; what it does to a game is in
:mod:`gateway.bridge`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, NoReturn

UNKNOWN_CMD = "unknown cmd, use state | move | new | hints | replay"
REPLAY_NEEDS = "replay needs moves: array of columns 1..7"
MAX_DEPTH = 128  # serde_json's recursion limit

# Python's json messages -> serde_json's wording (without the position).
_SERDE = (
    ("Expecting value", "expected value"),
    ("Extra data", "trailing characters"),
    ("Expecting property name enclosed in double quotes", "key must be a string"),
    ("Expecting ':' delimiter", "expected `:`"),
    ("Invalid control character", "control character (\\u0000-\\u001F) found while parsing a string"),
    ("Invalid \\escape", "invalid escape"),
    ("Invalid \\uXXXX escape", "invalid escape"),
)
_CONSTANT = re.compile(r"-?(NaN|Infinity)")


class BadJson(ValueError):
    """A line serde_json would not parse; ``str()`` is its ``bad json: ...`` text."""


def _where(text: str, pos: int) -> str:
    """serde's ``at line L column C``: 1-based line; the column counts the
    characters of that line up to and including ``pos`` (0 at a line's start)."""
    line = text.count("\n", 0, pos) + 1
    start = text.rfind("\n", 0, pos) + 1
    return f"at line {line} column {pos - start}"


def _eof(text: str, what: str) -> BadJson:
    return BadJson(f"bad json: EOF while parsing {what} {_where(text, len(text))}")


def _brackets(text: str) -> Iterator[tuple[int, str]]:
    """Index and character of every bracket of ``text`` outside its strings."""
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{]}":
            yield i, ch


def _check_depth(text: str) -> None:
    depth = 0
    for i, ch in _brackets(text):
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise BadJson(f"bad json: recursion limit exceeded {_where(text, i + 1)}")
        else:
            depth -= 1


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(name)  # NaN, Infinity: not JSON, serde refuses them


def parse_line(raw: bytes) -> Any:
    """The JSON value of one line (its newline included), or :class:`BadJson`."""
    try:
        text = raw.decode("utf-8")  # a BOM stays a character, and serde refuses it
    except UnicodeDecodeError as exc:
        raise BadJson(f"bad json: the line is not UTF-8 (byte {exc.start + 1})") from None
    if not text.strip():
        raise _eof(text, "a value")
    if text.startswith("\ufeff"):  # serde reads a BOM as a character that starts no value
        raise BadJson("bad json: expected value at line 1 column 1")
    if len(text) > MAX_DEPTH and text.count("[") + text.count("{") > MAX_DEPTH:
        _check_depth(text)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise _translate(text, exc) from None
    except ValueError:  # NaN / Infinity
        m = _CONSTANT.search(text)
        raise BadJson(f"bad json: expected value {_where(text, (m.start() if m else 0) + 1)}") from None
    except RecursionError:
        raise BadJson("bad json: recursion limit exceeded") from None


def _translate(text: str, exc: json.JSONDecodeError) -> BadJson:
    msg, pos = exc.msg, exc.pos
    at_end = not text[pos:].strip()
    if msg.startswith("Unterminated string"):
        return _eof(text, "a string")
    if msg.startswith("Expecting ',' delimiter"):
        inside = "a list" if _innermost(text, pos) == "[" else "an object"
        if at_end:
            return _eof(text, inside)
        close = "]" if inside == "a list" else "}"
        return BadJson(f"bad json: expected `,` or `{close}` {_where(text, pos + 1)}")
    if at_end:
        inside = {"[": "a list", "{": "an object"}.get(_innermost(text, pos), "a value")
        return _eof(text, inside)
    for python, serde in _SERDE:
        if msg.startswith(python):
            return BadJson(f"bad json: {serde} {_where(text, pos + 1)}")
    return BadJson(f"bad json: {msg} {_where(text, pos + 1)}")


def _innermost(text: str, pos: int) -> str:
    """The bracket open at ``pos`` ("[" or "{"; "" at the top level), strings skipped."""
    stack: list[str] = []
    for _, ch in _brackets(text[:pos]):
        if ch in "[{":
            stack.append(ch)
        elif stack:
            stack.pop()
    return stack[-1] if stack else ""


# -- field types, as serde_json's Value accessors read them ----------------------

def as_bool(msg: dict[str, Any], key: str) -> bool | None:
    value = msg.get(key)
    return value if isinstance(value, bool) else None


def as_u64(value: object) -> int | None:
    """``Value::as_u64``: a JSON integer >= 0 (not true, not 4.0, not "4")."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value >= 1 << 64:
        return None
    return value


def column(msg: dict[str, Any], width: int = 7) -> int | None:
    """The 1-based ``col`` of a move, or None (Connect4-rs: ``col must be 1..7``)."""
    col = as_u64(msg.get("col"))
    return col if col is not None and 1 <= col <= width else None


def replay_moves(msg: dict[str, Any], width: int = 7) -> list[int] | None:
    """The 1-based columns of a replay, or None (Connect4-rs: ``REPLAY_NEEDS``)."""
    moves = msg.get("moves")
    if not isinstance(moves, list):
        return None
    cols = [as_u64(m) for m in moves]
    if any(c is None or not 1 <= c <= width for c in cols):
        return None
    return cols  # type: ignore[return-value]


def status_debug(status: str | dict[str, str]) -> str:
    """Rust's ``{:?}`` of a Status, as in ``illegal move (status HumanToMove, ...)``."""
    if isinstance(status, dict):
        return "Won(" + status["won"].capitalize() + ")"
    names = {"human_to_move": "HumanToMove", "thinking": "Thinking", "draw": "Draw"}
    return names[status]


def illegal_move(status: str | dict[str, str]) -> str:
    return f"illegal move (status {status_debug(status)}, column full or not your turn)"
