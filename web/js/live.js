// The game's WebSocket (/api/v1/games/{id}/ws): states and engine progress as
// they happen. It reconnects by itself with exponential back-off (0.5 s,
// times 1.6 up to 5 s, with jitter) and pings so a dead link is noticed; each
// (re)connect brings the full state first, so nothing is missed.

export class Live {
  /**
   * @param {string} gameId
   * @param {{onState:Function, onProgress:Function, onError:Function, onStatus:Function}} handlers
   */
  constructor(gameId, handlers) {
    this.gameId = gameId;
    this.h = handlers;
    this.ws = null;
    this.closed = false;
    this.backoff = 500;
    this.timer = null;
    this.pingTimer = null;
    this.lastMessage = 0;
    this.lastNews = 0; // the last state or progress (pongs prove the link, not the game's channel)
    this.connect();
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/api/v1/games/${encodeURIComponent(this.gameId)}/ws`;
  }

  connect() {
    if (this.closed) return;
    this.h.onStatus?.("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.backoff = 500;
      this.lastMessage = this.lastNews = Date.now();
      this.h.onStatus?.("open");
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.ping(), 15000);
    };
    ws.onmessage = (ev) => {
      this.lastMessage = Date.now();
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      if (msg.type === "state" || msg.type === "progress") this.lastNews = Date.now();
      if (msg.type === "state") this.h.onState?.(msg.state);
      else if (msg.type === "progress") this.h.onProgress?.(msg);
      else if (msg.type === "error") {
        this.h.onError?.(msg.error || {});
        if (msg.error?.code === "unknown_game") this.close();
      }
    };
    ws.onclose = (ev) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws) return;
      this.ws = null;
      if (ev.code === 4404) { this.closed = true; this.h.onStatus?.("gone"); return; }
      this.retry();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  ping() {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
    // no answer to two pings in a row: the link is dead even if TCP says not
    if (Date.now() - this.lastMessage > 40000) { ws.close(); return; }
    try { ws.send(JSON.stringify({ type: "ping" })); } catch { /* closing */ }
  }

  retry() {
    if (this.closed) return;
    this.h.onStatus?.("reconnecting", this.backoff);
    clearTimeout(this.timer);
    const wait = this.backoff * (0.8 + Math.random() * 0.4);
    this.timer = setTimeout(() => this.connect(), wait);
    this.backoff = Math.min(this.backoff * 1.6, 5000);
  }

  /** Drop an open socket that missed a change (open but deaf): it reconnects with
   * back-off, and a new connection subscribes to the game's channel again. */
  reopen() {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.close();
  }

  /** Reconnect now (e.g. the page saw the gateway come back). */
  kick() {
    if (this.closed || (this.ws && this.ws.readyState <= WebSocket.OPEN)) return;
    clearTimeout(this.timer);
    this.backoff = 500;
    this.connect();
  }

  get isOpen() { return !!this.ws && this.ws.readyState === WebSocket.OPEN; }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    const ws = this.ws;
    this.ws = null;
    if (ws) try { ws.close(); } catch { /* already */ }
  }
}
