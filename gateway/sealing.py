"""Seat tokens kept in Redis only sealed: XOR-ed with a keystream that only the
holder of a key can make, so a Redis dump alone moves in no game.

The keystream is SHA-256(key, NUL, game id): 32 bytes, enough for any token
this gateway issues (``model.new_token`` gives 24 ASCII characters), and one
per game, so the same key never seals two tokens with the same stream.
"""

from __future__ import annotations

import hashlib

MAX_TOKEN = 32


def _stream(key: str, game_id: str) -> bytes:
    return hashlib.sha256(key.encode() + b"\0" + game_id.encode()).digest()


def seal(token: str, key: str, game_id: str) -> str:
    raw = token.encode()
    if len(raw) > MAX_TOKEN:
        raise ValueError(f"a token of {len(raw)} bytes cannot be sealed (at most {MAX_TOKEN})")
    return bytes(a ^ b for a, b in zip(raw, _stream(key, game_id), strict=False)).hex()


def unseal(sealed: str, key: str, game_id: str) -> str:
    raw = bytes.fromhex(sealed)
    return bytes(a ^ b for a, b in zip(raw, _stream(key, game_id), strict=False)).decode("ascii", "replace")


def digest(key: str) -> str:
    """The name a key's namespace has in Redis (the key itself is never stored)."""
    return hashlib.sha256(b"c4-namespace\0" + key.encode()).hexdigest()[:32]
