// The gateway's REST API (docs/api.md), nothing else: one function a route.
// Every failure becomes an ApiError with the gateway's code and message, or
// code "network" when the gateway cannot be reached at all.

const BASE = "/api/v1";

export class ApiError extends Error {
  constructor(status, code, message, state = null, retryAfterS = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.state = state;
    this.retryAfterS = retryAfterS; // the Retry-After header's seconds (429, 503), else null
  }
}

async function call(method, path, { body, token, query, timeoutMs = 120000, signal = null } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["X-Player-Token"] = token;
  const url = new URL(path.startsWith("/") ? path : `${BASE}/${path}`, location.origin);
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== null) url.searchParams.set(k, v);
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), timeoutMs);
  const cancel = () => ctrl.abort();
  signal?.addEventListener("abort", cancel);
  let res;
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: ctrl.signal, cache: "no-store" });
  } catch (err) {
    if (signal?.aborted) throw new ApiError(0, "cancelled", "cancelled");
    throw new ApiError(0, "network", "The gateway cannot be reached.");
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", cancel);
  }
  let data = null;
  try { data = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) {
    const e = (data && data.error) || {};
    const code = e.code || (res.status >= 500 ? "service_unavailable" : "bad_request");
    const message = e.message || (typeof data?.detail === "string" ? data.detail : `${res.status} ${res.statusText}`);
    const retry = Number.parseFloat(res.headers.get("Retry-After") ?? "");
    throw new ApiError(res.status, code, message, data && data.state ? data.state : null, Number.isFinite(retry) ? retry : null);
  }
  return data;
}

export const api = {
  opponents: () => call("GET", "opponents").then((d) => d.opponents),
  create: (opts) => call("POST", "games", { body: opts, query: { wait: "false" } }),
  get: (id, token) => call("GET", `games/${encodeURIComponent(id)}`, { token }),
  join: (id, invite) => call("POST", `games/${encodeURIComponent(id)}/join`, { body: { invite } }),
  move: (id, token, column, version) =>
    call("POST", `games/${encodeURIComponent(id)}/moves`, { token, body: { column, version, wait: false }, query: { wait: "false" } }),
  undo: (id, token) => call("POST", `games/${encodeURIComponent(id)}/undo`, { token, body: {} }),
  settings: (id, token, body) => call("POST", `games/${encodeURIComponent(id)}/settings`, { token, body }),
  hints: (id, token, on) => call("POST", `games/${encodeURIComponent(id)}/hints`, { token, body: { on } }),
  guard: (id, token, on) => call("POST", `games/${encodeURIComponent(id)}/guard`, { token, body: { on } }),
  replay: (id, token, moves) =>
    call("POST", `games/${encodeURIComponent(id)}/replay`, { token, body: { moves, wait: false }, query: { wait: "false" } }),
  analysis: (id, ply, deadlineMs, signal = null) =>
    call("GET", `games/${encodeURIComponent(id)}/analysis`, { query: { ply, deadline_ms: deadlineMs }, timeoutMs: 30000, signal }),
  // a bookgen worker traces the game: allow it the gateway's learn timeout (120 s by default) and more
  learn: (id, token) => call("POST", `games/${encodeURIComponent(id)}/learn`, { token, body: {}, timeoutMs: 330000 }),
  health: () => call("GET", "/healthz", { timeoutMs: 5000 }),
  ready: () => call("GET", "/readyz", { timeoutMs: 5000 }),
};

/** A reply's state, whatever the route: {state: ...} or the state itself. */
export function stateOf(reply) {
  return reply && reply.state ? reply.state : reply;
}
