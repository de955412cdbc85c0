"""Games in Redis: one hash per game, every change a compare-and-set on the version.

Keys (``{id}`` = game id):
  ``c4:game:{id}``      hash ``v`` (version) and ``doc`` (JSON); expires after the idle TTL
  ``c4:events:{id}``    pub/sub channel: every change and the engine's progress
  ``c4:pending``        sorted set: games where an opponent program must move (score = when to look)
  ``c4:active``         sorted set: games not finished (score = last change), for metrics
  ``c4:claim:{id}:{v}`` who plays the opponent's turn at version v (SET NX with a TTL)
  ``c4:hub:{random}``   a channel each gateway's hub keeps subscribed (nothing is published on it)
  ``c4:ns:{ns}:{name}`` hash ``id``/``sealed``: the game MCP client namespace ``ns`` (a digest of the
                        client's key) calls ``name``; ``sealed`` is the seat token sealed with that key
  ``c4:table:{name}``   hash ``id``/``sealed``/``hints``: the shared game of a bridge listener
  ``c4:secret``         a random secret of the deployment (when C4_GATEWAY_SECRET is not set)
  ``c4:rate:{kind}:{address}`` hash ``tokens``/``when``: a client address's token bucket for ``kind``
                        (creates, analyses), shared by every gateway process; expires once full again

No other module names a key: they all go through :class:`Store`.

The save is one Lua script: check the version, write, refresh the TTL, update
the pending/active sets and publish, all atomically, so two moves for the same
turn can never both land and every watcher sees every change in order.

Every save carries an operation id, kept with the document (the hash's ``ops``:
the last few saves' ids). A reply lost on the way back (the connection cut after
Redis ran the script) makes redis-py send the save again on a new connection;
that retry finds its own id and answers "landed" instead of ``conflict``, so a
write that landed is never refused.

Every wait is bounded: connect and command timeouts, a pool that waits at most
a set time for a free connection; a command that times out is not retried (a
Redis that does not answer gives 503 quickly). A full Redis (``maxmemory`` with
the ``noeviction`` policy) refuses the script's first write, so nothing is half
written; the client gets 507 ``storage_full``.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from typing import Any, cast

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import OutOfMemoryError, ResponseError

from .document import Game
from .errors import GameError
from .hub import Hub, Watch
from .redis_pool import BoundedPool

GAME = "c4:game:{}"
EVENTS = "c4:events:{}"
PENDING = "c4:pending"
ACTIVE = "c4:active"
CLAIM = "c4:claim:{}:{}"
CLOCK_READ_S = 60.0
HUB = "c4:hub:{}"  # a gateway process's own pub/sub channel, kept subscribed (hub.py says why)
NAMESPACED = "c4:ns:{}:{}"
TABLE = "c4:table:{}"
SECRET = "c4:secret"
RATE = "c4:rate:{}:{}"

# KEYS: game, pending, active, channel, claim of the new version, claim of the expected version
# ARGV: expected version ("0" = must not exist), new version, doc, ttl, pending flag,
#       pending score, id, message, active flag, now, claim owner ("" = none), claim ttl ms,
#       carry flag ("1": a change that is not a move; whoever plays the turn keeps it),
#       operation id, the latest time (Redis's clock) the save may run at
# Returns 1 (saved), 2 (saved before: this operation's id is among the game's last ones),
# -1 (conflict), -2 (no such game), -3 (too late: past its deadline, half the time its client waits).
CAS = """
local v = redis.call('HGET', KEYS[1], 'v')
local ops = v and redis.call('HGET', KEYS[1], 'ops') or ''
if ARGV[1] == '0' then
  if v then
    if string.find(' ' .. ops .. ' ', ' ' .. ARGV[14] .. ' ', 1, true) then return 2 end
    return -1
  end
elseif not v then
  return -2
elseif v ~= ARGV[1] then
  if string.find(' ' .. ops .. ' ', ' ' .. ARGV[14] .. ' ', 1, true) then return 2 end
  return -1
end
-- A save that reaches Redis after its client stopped waiting (Redis was frozen,
-- its queue long) is not applied: the client was told it failed.
local t = redis.call('TIME')
if tonumber(t[1]) + tonumber(t[2]) / 1000000 > tonumber(ARGV[15]) then return -3 end
-- keep the last OPS_KEPT operation ids (a space-separated list, oldest first)
local kept = {}
for op in string.gmatch(ops, '%S+') do kept[#kept + 1] = op end
while #kept >= OPS_KEPT do table.remove(kept, 1) end
kept[#kept + 1] = ARGV[14]
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3], 'ops', table.concat(kept, ' '))
redis.call('EXPIRE', KEYS[1], ARGV[4])
if ARGV[5] == '1' then
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[7])
else
  redis.call('ZREM', KEYS[2], ARGV[7])
end
if ARGV[9] == '1' then
  redis.call('ZADD', KEYS[3], ARGV[10], ARGV[7])
else
  redis.call('ZREM', KEYS[3], ARGV[7])
end
redis.call('PUBLISH', KEYS[4], ARGV[8])
if ARGV[11] ~= '' then
  redis.call('SET', KEYS[5], ARGV[11], 'PX', ARGV[12])
elseif ARGV[13] == '1' then
  local owner = redis.call('GET', KEYS[6])
  if owner then redis.call('SET', KEYS[5], owner, 'PX', ARGV[12]) end
end
return 1
""".replace("OPS_KEPT", "16")

# Claim a turn: free, or already ours.
CLAIM_TURN = """
local cur = redis.call('GET', KEYS[1])
if not cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end
if cur == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0
"""

# Keep a claim alive while its owner still works on the turn, and the claim carried
# to the game's current version by changes that are not moves (hints, think time).
# Returns 1 while the owner holds the turn at the game's current version, else 0:
# the game moved on (undo, replay, expiry) or another gateway took the turn, so the
# search is for nobody.
# KEYS: the claim, the game; ARGV: owner, ttl ms, the claim key without its version
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
local v = redis.call('HGET', KEYS[2], 'v')
if not v then return 0 end
local current = ARGV[3] .. v
if redis.call('GET', current) ~= ARGV[1] then return 0 end
if current ~= KEYS[1] then redis.call('PEXPIRE', current, ARGV[2]) end
return 1
"""

# An MCP namespace's named game, set only if the name has none that still exists; returns the
# name's game (id, token): ours, or the one another call set first.
# KEYS: the name; ARGV: id, sealed token, ttl, the game key without its id
NS_ADOPT = """
local got = redis.call('HMGET', KEYS[1], 'id', 'sealed')
if got[1] and got[2] and redis.call('EXISTS', ARGV[4] .. got[1]) == 1 then return got end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'sealed', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return {ARGV[1], ARGV[2]}
"""

# A bridge table's game, replaced only if it is still the one the caller saw.
# KEYS: the table; ARGV: id, sealed token, the id the caller saw ("" = none)
TABLE_ADOPT = """
local cur = redis.call('HGET', KEYS[1], 'id') or ''
if cur == ARGV[3] then redis.call('HSET', KEYS[1], 'id', ARGV[1], 'sealed', ARGV[2]) end
return redis.call('HGETALL', KEYS[1])
"""

# Take one token from a client's bucket (a burst of ARGV[1], refilled at ARGV[2] a second),
# on Redis's clock, so every gateway process counts the same tokens. Returns "0" (taken)
# or the seconds until one is there (nothing written). The key expires when the bucket
# would be full again: a missing key is a full bucket, so memory follows active clients.
# KEYS: the bucket; ARGV: capacity, refill per second
TAKE_TOKEN = """
local capacity, rate = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local b = redis.call('HMGET', KEYS[1], 'tokens', 'when')
local tokens = tonumber(b[1]) or capacity
local when = tonumber(b[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - when) * rate)
if tokens < 1 then return tostring((1 - tokens) / rate) end
tokens = tokens - 1
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'when', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((capacity - tokens) / rate * 1000))
return '0'
"""

# Release a claim only if it is still ours.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def redis_full(exc: BaseException) -> bool:
    """Whether Redis refused a write because it is at maxmemory. A script's refused
    write reaches redis-py as OutOfMemoryError or, when Redis reports it as the
    script's failure ("Error running script ... -OOM command not allowed ..."), as a
    plain ResponseError."""
    return isinstance(exc, OutOfMemoryError) or (isinstance(exc, ResponseError)
                                                 and "OOM command not allowed" in str(exc))


class Store:
    def __init__(self, url: str, ttl_s: int, finished_ttl_s: int | None = None, *,
                 connect_timeout_s: float = 2.0, socket_timeout_s: float = 2.0,
                 max_connections: int = 64, pool_timeout_s: float = 1.0):
        # After a Redis restart the pooled connections are dead: an idle one is pinged
        # before use (health_check_interval) and a command that meets a dropped
        # connection is retried on a fresh one. A retried save cannot apply twice and
        # is not refused: it finds its operation id. A command that timed out is not
        # retried: a hung Redis answers 503 within the timeouts, not their multiple.
        pool = BoundedPool.from_url(
            url, decode_responses=True, health_check_interval=2,
            retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 3, supported_errors=(RedisConnectionError,)),
            socket_connect_timeout=connect_timeout_s, socket_timeout=socket_timeout_s,
            max_connections=max_connections, timeout=pool_timeout_s)
        self.redis = aioredis.Redis.from_pool(pool)
        self.ttl_s = ttl_s
        self.finished_ttl_s = min(finished_ttl_s, ttl_s) if finished_ttl_s else ttl_s
        self.socket_timeout_s = socket_timeout_s
        self._clock_offset: float | None = None  # Redis's clock minus ours
        self._clock_read = 0.0
        self._cas = self.redis.register_script(CAS)
        self._release = self.redis.register_script(RELEASE)
        self._renew = self.redis.register_script(RENEW)
        self._claim = self.redis.register_script(CLAIM_TURN)
        self._table_adopt = self.redis.register_script(TABLE_ADOPT)
        self._ns_adopt = self.redis.register_script(NS_ADOPT)
        self._take_token = self.redis.register_script(TAKE_TOKEN)
        self.hub = Hub(self.redis, HUB.format(secrets.token_hex(8)))

    async def _save_deadline(self) -> float:
        """The moment, on Redis's clock, after which a save must not apply: half the
        socket timeout from now, so a script that runs late is refused while its client
        still waits for the answer (it then says "not saved"), never after the client
        gave up. Clocks of two machines need not agree: Redis's offset from ours is read
        once a minute, and the read's own uncertainty (half its round trip) counted
        against us, so a slow read under load cannot move the deadline late."""
        mono = time.monotonic()
        if self._clock_offset is None or mono - self._clock_read > CLOCK_READ_S:
            before = time.time()
            sec, usec = await self.redis.time()
            after = time.time()
            self._clock_offset = sec + usec / 1e6 - (before + after) / 2 - (after - before) / 2
            self._clock_read = mono
        return time.time() + self._clock_offset + self.socket_timeout_s / 2

    async def close(self) -> None:
        await self.hub.close()
        await self.redis.aclose()

    async def watch(self, game_id: str) -> Watch:
        """Follow a game's channel through the process's one shared subscription."""
        return await self.hub.watch(EVENTS.format(game_id))

    async def ping(self) -> bool:
        return bool(await self.redis.ping())

    async def load(self, game_id: str) -> Game:
        raw = await self.redis.hget(GAME.format(game_id), "doc")
        if raw is None:
            raise GameError("unknown_game", f"no game {game_id!r} (it may have expired)")
        return Game.from_json(raw)

    async def save(self, doc: Game, expected: int, event: dict[str, Any], pending: bool, active: bool,
                   claim_owner: str = "", claim_ttl_ms: int = 0, carry_claim: bool = False,
                   op: str | None = None) -> bool:
        """Write ``doc`` (its version already bumped) if the stored version is ``expected``.

        With ``claim_owner``, the opponent's turn at the new version is claimed for
        it in the same atomic step (saves a round trip on every move). With
        ``carry_claim`` (a change that is not a move), whoever held the turn at
        ``expected`` holds it at the new version too, so its search stays the one.

        Returns True when this save wrote, False when it had landed already (the
        reply of an earlier attempt was lost; ``op`` names the operation). A
        finished game keeps the shorter TTL."""
        now = time.time()
        res = await self._cas(
            keys=[GAME.format(doc.id), PENDING, ACTIVE, EVENTS.format(doc.id),
                  CLAIM.format(doc.id, doc.version), CLAIM.format(doc.id, expected)],
            args=[str(expected), str(doc.version), doc.to_json(), self.ttl_s if active else self.finished_ttl_s,
                  "1" if pending else "0", now, doc.id, json.dumps(event, separators=(",", ":")),
                  "1" if active else "0", now, claim_owner if pending else "", claim_ttl_ms,
                  "1" if carry_claim and pending else "0", op or secrets.token_hex(8),
                  f"{await self._save_deadline():.6f}"],
        )
        if res == -2:
            raise GameError("unknown_game", f"no game {doc.id!r} (it may have expired)")
        if res == -3:
            raise GameError("service_unavailable", "redis answered too late: the change was not saved; try again")
        if res not in (1, 2):
            raise GameError("conflict", "the game changed at the same moment (another move or undo); reload and retry")
        return bool(res == 1)

    async def publish(self, game_id: str, event: dict[str, Any]) -> None:
        await self.redis.publish(EVENTS.format(game_id), json.dumps(event, separators=(",", ":")))

    # -- who plays an opponent's turn -------------------------------------------
    async def claim(self, game_id: str, version: int, owner: str, ttl_ms: int) -> bool:
        """Take the turn at ``version`` (or keep it, when ``owner`` holds it already)."""
        return bool(await self._claim(keys=[CLAIM.format(game_id, version)], args=[owner, ttl_ms]))

    async def renew(self, game_id: str, version: int, owner: str, ttl_ms: int) -> bool:
        """Keep ``owner``'s claim on the turn at ``version`` (and where it was carried);
        False when the turn is no longer the game's current one or not ``owner``'s."""
        return bool(await self._renew(keys=[CLAIM.format(game_id, version), GAME.format(game_id)],
                                      args=[owner, ttl_ms, CLAIM.format(game_id, "")]))

    async def release(self, game_id: str, version: int, owner: str) -> None:
        await self._release(keys=[CLAIM.format(game_id, version)], args=[owner])

    async def due(self, now: float, limit: int = 50) -> list[str]:
        return cast("list[str]", await self.redis.zrangebyscore(PENDING, "-inf", now, start=0, num=limit))

    async def postpone(self, game_id: str, when: float) -> None:
        await self.redis.zadd(PENDING, {game_id: when}, xx=True)

    async def forget_pending(self, game_id: str) -> None:
        await self.redis.zrem(PENDING, game_id)

    async def prune_active(self) -> None:
        """Forget expired games in the metrics set."""
        await self.redis.zremrangebyscore(ACTIVE, "-inf", time.time() - self.ttl_s)

    async def games_in_play(self) -> int:
        return await self.redis.zcount(ACTIVE, time.time() - self.ttl_s, "+inf")

    async def wait_change(self, game_id: str, version: int, timeout_s: float) -> Game:
        """Poll until the game's version differs from ``version`` (rare path: another
        gateway plays the turn); returns the latest doc."""
        deadline = time.monotonic() + timeout_s
        delay = 0.01
        while True:
            v = await self.redis.hget(GAME.format(game_id), "v")
            if v is None:
                raise GameError("unknown_game", f"no game {game_id!r} (it may have expired)")
            if int(v) != version or time.monotonic() > deadline:
                return await self.load(game_id)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.2)

    async def drop(self, game_id: str) -> None:
        """Delete a game nobody knows (made for an MCP name or a table that another call named first)."""
        await self.redis.delete(GAME.format(game_id))
        await self.redis.zrem(PENDING, game_id)
        await self.redis.zrem(ACTIVE, game_id)

    # -- per-client rates (gateway/limits.py) -----------------------------------
    async def take_token(self, kind: str, who: str, capacity: float, per_s: float) -> float:
        """Take a token from ``who``'s bucket of ``kind``: 0.0, or the seconds to wait."""
        return float(await self._take_token(keys=[RATE.format(kind, who)], args=[capacity, per_s]))

    # -- MCP client namespaces (gateway/mcp_identity.py) ------------------------
    async def ns_get(self, ns: str, name: str) -> dict[str, str] | None:
        """A namespace's named game (``id``, ``sealed``); each use keeps the name alive."""
        key = NAMESPACED.format(ns, name)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(key)
            pipe.expire(key, self.ttl_s)
            got, _ = await pipe.execute()
        return cast("dict[str, str]", got) or None

    async def ns_set(self, ns: str, name: str, game_id: str, sealed: str) -> None:
        key = NAMESPACED.format(ns, name)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            pipe.hset(key, mapping={"id": game_id, "sealed": sealed})
            pipe.expire(key, self.ttl_s)
            await pipe.execute()

    async def ns_adopt(self, ns: str, name: str, game_id: str, sealed: str) -> dict[str, str]:
        """Give ``name`` this game unless it has a live one already (a call at the same
        moment named it first); returns the name's record."""
        got = await self._ns_adopt(keys=[NAMESPACED.format(ns, name)],
                                    args=[game_id, sealed, self.ttl_s, GAME.format("")])
        return {"id": got[0], "sealed": got[1]}

    # -- the bridge's shared table game (gateway/bridge_table.py) ----------------
    async def table_get(self, name: str) -> dict[str, str]:
        return cast("dict[str, str]", await self.redis.hgetall(TABLE.format(name)))

    async def table_set(self, name: str, **fields: object) -> None:
        key = TABLE.format(name)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping={k: str(v) for k, v in fields.items()})
            pipe.persist(key)
            await pipe.execute()

    async def table_adopt(self, name: str, game_id: str, sealed: str, before: str | None) -> dict[str, str]:
        """Make this the table's game if its game is still ``before`` (None: none);
        returns the table's record afterwards (another connection's game when it won)."""
        got = await self._table_adopt(keys=[TABLE.format(name)], args=[game_id, sealed, before or ""])
        return dict(zip(got[::2], got[1::2], strict=False))

    async def secret(self) -> str:
        """The deployment's random secret, made once by whichever process asks first."""
        import secrets as _secrets

        await self.redis.set(SECRET, _secrets.token_hex(32), nx=True)
        return cast(str, await self.redis.get(SECRET))
