// The page: wires the board, the settings, the gateway (REST + WebSocket),
// the solver's analysis and the keys together. The gateway holds the game;
// this file keeps only what the page shows (which ply, which toggles) and
// redraws from the latest state the gateway sent.

import { api, ApiError, stateOf } from "./api.js";
import { BoardView } from "./board.js";
import { Game } from "./game.js";
import { Live } from "./live.js";
import { Settings } from "./settings.js";
import { analyse, cached, positionKey, GameAnalyser, firstMistake, unavailableOn } from "./analysis.js";
import { bindKeys, KEYS } from "./keyboard.js";
import { seconds } from "./format.js";
import { showAlert, clearAlert, alertKind, copyText } from "./ui.js";
import * as panels from "./panels.js";
import { renderLearn, resetLearn, learnFrom } from "./learn.js";
import { levelName } from "./levels.js";
import { describeResult } from "./result.js";
import * as sound from "./sound.js";
import { renderLearnedBars } from "./learned-bars.js";

const WEB_VERSION = "0.1.0";
const $ = (id) => document.getElementById(id);
const NAME = ["red", "yellow"];

const app = {
  st: null, // latest game state from the gateway
  id: null,
  token: null,
  seat: null, // "red" | "yellow" | null (watching)
  invite: null,
  live: null,
  progress: null, // engine progress of the current think
  positionAt: new Map(), // state version -> its moves ("4,4,3"): which position a progress message is about
  viewPly: null, // null: following the game; else the ply looked at
  pending: null, // column sent, not yet confirmed
  hintsLocal: false, // a watcher's own hint rings
  solution: false,
  solutionData: null,
  cursor: null,
  verdicts: false, // the move list shows the solver's verdicts
  analysisNote: "",
  recovering: false,
  downService: "", // which service the "down" alert is about ("solver", "engine", or "" when unknown)
  learn: null, // "learn from this game": {id, busy, report, error} (learn.js)
  unreachable: false, // the last request to the gateway failed for the network: the badge says offline
  resultShown: null, // "id:version" of the result banner shown (closed with Esc or "Look at the board")
  unprovenUpTo: 0, // the verdicts stopped here: moves 1..n are not proven
  solving: null, // {key, ctrl, started, timer} of the solution request under way
};

let settings, board;
const analyser = new GameAnalyser();

// ---- stored seats: the token of every game this browser plays ------------
const store = {
  all() { try { return JSON.parse(localStorage.getItem("c4.games") || "{}"); } catch { return {}; } },
  get(id) { return this.all()[id] || null; },
  put(id, v) {
    const all = this.all();
    all[id] = { ...(all[id] || {}), ...v, t: Date.now() };
    // keep the 50 most recent games
    const ids = Object.keys(all).sort((a, b) => all[b].t - all[a].t);
    for (const old of ids.slice(50)) delete all[old];
    try { localStorage.setItem("c4.games", JSON.stringify(all)); localStorage.setItem("c4.last", id); } catch { /* private mode */ }
  },
  last() { try { return localStorage.getItem("c4.last"); } catch { return null; } },
};

// ---- starting --------------------------------------------------------------
async function boot() {
  settings = new Settings($("settings"), { onChange: settingChanged, onStart: startFromSettings });
  board = new BoardView($("board"), { onColumn: (c) => play(c) });
  // an empty board of the chosen size until a game is there
  const { width, height, k } = settings.v;
  if (!settings.sizeError()) board.render(new Game(width, height, k), {});
  bindKeys(keyActions);
  watchLayout();
  wireButtons();
  fillAbout();
  loadOpponents();
  loadVersion();

  const q = new URLSearchParams(location.search);
  const gid = q.get("game"), invite = q.get("invite");
  window.addEventListener("offline", () => setReachable(false, OFFLINE));
  window.addEventListener("online", () => recover());
  if (gid && invite) await joinGame(gid, invite);
  else if (gid) await openGame(gid, { watchIfUnknown: true });
  else {
    const last = store.last();
    if (last && store.get(last)) await openGame(last, { newIfUnknown: true });
    else await newGame({ auto: true });
  }
}

async function loadOpponents(attempt = 0) {
  try {
    const list = await api.opponents();
    settings.setOpponents(list);
    fillLevels(list);
  } catch (err) {
    const fallback = [{ spec: settings.v.opponent, family: "engine" }, { spec: "perfect", family: "perfect" }, { spec: "human", family: "human" }];
    settings.setOpponents(fallback.filter((o, i, a) => a.findIndex((x) => x.spec === o.spec) === i));
    setTimeout(() => loadOpponents(attempt + 1), Math.min(30000, 2000 * 2 ** attempt));
  }
}

async function loadVersion() {
  try {
    const h = await api.health();
    $("version").textContent = h.version ? `${h.version} (page ${WEB_VERSION})` : WEB_VERSION;
  } catch {
    $("version").textContent = WEB_VERSION;
  }
}

// ---- which game ----------------------------------------------------------------
function follow(id, token, seat) {
  if (app.live) app.live.close();
  detailNote = "";
  analyser.stop();
  Object.assign(app, { id, token, seat, st: null, progress: null, positionAt: new Map(), viewPly: null, pending: null, solutionData: null, verdicts: false, analysisNote: "" });
  resetLearn(app);
  const saved = store.get(id);
  app.invite = saved && saved.invite ? { invite: saved.invite, url: saved.inviteUrl } : null;
  const url = new URL(location.href);
  url.search = `?game=${encodeURIComponent(id)}`;
  history.replaceState(null, "", url);
  app.live = new Live(id, {
    onState: (st) => applyState(st),
    onProgress: (p) => progress(p),
    onError: (e) => liveError(e),
    onStatus: (s) => connStatus(s),
  });
}

/** A new game with the applied settings. `auto`: the page's own first game
 * (retried while the gateway is away); a player's N, Start or Rematch is sent
 * once, or visibly dropped when the gateway cannot be reached. */
async function newGame({ auto = false } = {}) {
  const bad = settings.sizeError();
  if (bad) {
    showAlert(bad, "error");
    // no game yet (stored settings of a board too big): say what to do, not "Loading…"
    if (!app.st) setStatus("Choose a smaller board or a shorter line in the settings, then press Start.");
    return;
  }
  const req = settings.createRequest();
  try {
    const reply = await api.create(req);
    reached();
    store.put(reply.state.id, { token: reply.token, seat: reply.seat, invite: reply.invite || null, inviteUrl: reply.invite_url || null });
    follow(reply.state.id, reply.token, reply.seat);
    clearAlert();
    applyState(reply.state);
  } catch (err) {
    if (!auto && err.code === "network") return dropped("the new game was not started");
    handleError(err, "Cannot start a game");
    if (auto && (err.code === "network" || err.code === "service_unavailable")) retryLater(() => newGame({ auto }));
  }
}

/** Start (or Enter) in the settings: the fields are applied together. */
function startFromSettings() {
  closeDrawer();
  newGame().then(() => $("board").focus({ preventScroll: true }));
}

/** Rematch: the finished game's opponent, size and line again; `swap` swaps who starts. */
function rematch(swap = false) {
  const st = app.st;
  if (st && app.seat) settings.adopt(st, app.seat);
  if (swap) settings.swapStarter();
  newGame().then(() => $("board").focus({ preventScroll: true }));
}

async function openGame(id, { newIfUnknown = false, watchIfUnknown = false } = {}) {
  const saved = store.get(id);
  try {
    const st = await api.get(id, saved?.token);
    const seat = st.you || null;
    follow(id, seat ? saved.token : null, seat);
    if (seat) settings.adopt(st, seat);
    applyState(st);
  } catch (err) {
    if (err.code === "unknown_game") {
      if (newIfUnknown) return newGame({ auto: true });
      missingGame(id);
      return;
    }
    handleError(err, "Cannot load the game");
    retryLater(() => openGame(id, { newIfUnknown, watchIfUnknown }));
  }
}

async function joinGame(id, invite) {
  const mine = store.get(id);
  if (mine?.token && mine.invite) {
    // this browser made the game: joining would take the other seat and lose
    // this one (one token per game here), and use up the friend's invite
    showAlert("This is the invite link of your own game: send it to the other player (or open it in a private window to play both sides).", "info");
    return openGame(id);
  }
  if (mine?.token) return openGame(id); // a reload after joining
  try {
    const reply = await api.join(id, invite);
    store.put(id, { token: reply.token, seat: reply.seat });
    follow(id, reply.token, reply.seat);
    settings.adopt(reply.state, reply.seat);
    applyState(reply.state);
    showAlert(`You joined as ${reply.seat}.`, "info", 4000);
  } catch (err) {
    if (err.code === "invite_used" || err.code === "bad_token") {
      // a reload after joining, or someone else took the seat
      if (store.get(id)?.token) return openGame(id);
      showAlert(`${sentence(err.message)} You are watching the game.`, "info");
      return openGame(id);
    }
    if (err.code === "unknown_game") { missingGame(id, true); return; }
    handleError(err, "Cannot join");
    retryLater(() => joinGame(id, invite));
  }
}

/** A link to a game that is not there (mistyped, crafted or expired): say so;
 * this browser's own games stay as they were. */
function missingGame(id, invite = false) {
  const shown = String(id).slice(0, 40);
  if (!app.st) app.id = null;
  document.body.dataset.status = "missing";
  setStatus(`There is no game “${shown}”. Press N for a new game.`);
  const mine = store.last();
  const back = mine && mine !== id && store.get(mine) ? ` Your last game is still there: ${location.origin}/?game=${encodeURIComponent(mine)}` : "";
  showAlert(`This ${invite ? "invite" : "watch"} link names a game that does not exist or has expired.${back}`, "error");
}

/** "text" -> "Text." (gateway messages are clauses; alerts join them into sentences) */
function sentence(text) {
  const s = String(text || "").trim();
  return s ? s[0].toUpperCase() + s.slice(1) + (/[.!?…]$/.test(s) ? "" : ".") : "";
}

// ---- state from the gateway --------------------------------------------------------------
function applyState(st) {
  if (!st || st.id !== app.id) return;
  const prev = app.st;
  if (prev && st.version < prev.version) return; // stale (a reply overtaken by the WebSocket)
  app.st = st;
  if (prev && prev.version !== st.version) {
    app.pending = null;
    clearAlert(["error"]); // a refusal is about the position that just changed
    // the engine has answered after all: its outage note is over (before the next /readyz poll says so)
    if (app.downService === "engine" && prev.status === "thinking" && st.status !== "thinking") clearAlert(["down"]);
  }
  if (!prev) app.pending = null;
  app.positionAt.set(st.version, st.moves.join(","));
  if (st.status !== "thinking" || (app.progress && !aboutThisPosition(app.progress, st))) app.progress = null;
  if (app.recovering && alertKind() === "down") clearAlert();
  if (app.viewPly !== null && app.viewPly > st.ply) app.viewPly = null;
  render(true);
  refreshSolution();
  if (st.next_game && !app.seat) {
    // live: follow the agent on; opened later (a finished game being looked at): only say where it went
    if (prev && prev.next_game !== st.next_game) followNext(st);
    else if (!prev) document.body.dataset.nextGame = "named", showAlert(`This player went on to a new game: ${location.origin}/?game=${encodeURIComponent(st.next_game)}`, "info");
  }
  if (prev && prev.version === st.version) return; // the same state again (reply and WebSocket): nothing new to solve
  if (st.status === "over" && !app.verdicts && st.allow_analysis !== false && st.moves.length) startVerdicts();
  else if (app.verdicts) startVerdicts();
}

/** A watcher follows the player on: an agent's `new` over the bridge or MCP
 * points its old game at the next one (`next_game`). */
const NEXT_GAME_DELAY_MS = 3000;
function followNext(st) {
  document.body.dataset.nextGame = "following";
  showAlert("The player started a new game: following it in a moment.", "info", NEXT_GAME_DELAY_MS + 500);
  setTimeout(() => {
    if (app.id === st.id && !app.seat) follow(st.next_game, null, null);
  }, NEXT_GAME_DELAY_MS);
}

/** Does an engine progress message belong to the think on the board? It names
 * the version the think started at; hints or a think-time change during the
 * think make a new version but keep the search (docs/api.md), so a message of
 * an older version still counts when that version had the same moves. */
function aboutThisPosition(p, st) {
  if (p.version === undefined || p.version >= st.version) return true;
  return app.positionAt.get(p.version) === st.moves.join(",");
}

function progress(p) {
  if (!app.st || !aboutThisPosition(p, app.st)) return;
  app.progress = p;
  renderStatus();
  renderEval();
}

function liveError(e) {
  if (e.code === "service_unavailable" || e.code === "timeout") {
    // a hung engine times out: the same as one that is down for the player
    showDown(e.message);
    waitReady();
  } else if (e.code === "unknown_game") {
    setStatus("This game does not exist or has expired. Press N for a new game.");
  } else if (e.message) showAlert(sentence(e.message), "error", 6000);
}

let wsState = "idle";
function connStatus(s) {
  wsState = s;
  if (s === "open") reached();
  renderConn();
  if (s === "reconnecting" && !app.recovering) recover();
}

/** This viewer's own hint switch: a player's seat's (hints are per seat; a
 * state from the WebSocket says at top level whether any player has them on),
 * a watcher's local one. */
function ownHintsOn(st) {
  if (!app.seat) return app.hintsLocal;
  const seat = st.seats && st.seats[app.seat];
  return seat && seat.hints_on !== undefined ? !!seat.hints_on : !!st.hints_on;
}

/** The badge: "offline" whenever the page knows the gateway cannot be reached
 * (the alert then says so too), else the WebSocket's state. */
function renderConn() {
  const c = $("conn");
  const s = app.unreachable || !navigator.onLine ? "offline" : wsState;
  c.dataset.state = s;
  c.querySelector(".conn-text").textContent = { open: "live", connecting: "connecting…", reconnecting: "reconnecting…", gone: "closed", offline: "offline" }[s] || s;
}

const UNREACHABLE = "The gateway cannot be reached. The page reconnects by itself when it is back…";
const OFFLINE = "This device is offline: the gateway cannot be reached. Nothing is sent until it is back.";

function setReachable(ok, message = UNREACHABLE) {
  app.unreachable = !ok;
  if (!ok) { app.downService = "gateway"; if (alertKind() !== "dropped") showAlert(message, "down"); }
  renderConn();
  if (!ok) recover();
}

/** A request got through: the gateway is reachable again. */
function reached() {
  if (!app.unreachable) return;
  app.unreachable = false;
  if ((alertKind() === "down" && app.downService === "gateway") || alertKind() === "dropped") clearAlert();
  renderConn();
  backAgain();
}

/** An action that could not be sent: it is dropped, and the page says so (it is
 * never sent later by itself). */
const droppedActions = [];
function dropped(what) {
  app.unreachable = true;
  app.downService = "gateway";
  droppedActions.push(what);
  showAlert(`Not sent: ${droppedActions.join("; ")}. The gateway cannot be reached; do it again when it is back.`, "dropped");
  renderConn();
  recover();
}

/** Back online: the dropped actions are named once more, as dropped. */
function backAgain() {
  if (!droppedActions.length) return;
  showAlert(`Connected again. Not sent while the gateway was away: ${droppedActions.join("; ")}.`, "dropped", 10000);
  droppedActions.length = 0;
}

// ---- recovering from a gateway or service outage -----------------------------------------
function retryLater(fn) {
  setTimeout(fn, 3000);
}

async function recover() {
  if (app.recovering) return;
  app.recovering = true;
  let wait = 1000;
  while (true) {
    try {
      if (!app.id) { await api.health(); app.recovering = false; app.unreachable = false; if (alertKind() === "down") clearAlert(); renderConn(); backAgain(); return; }
      const st = await api.get(app.id, app.token);
      app.recovering = false;
      app.unreachable = false;
      if (alertKind() === "down" || alertKind() === "dropped") clearAlert();
      renderConn();
      backAgain();
      applyState(st);
      app.live?.kick();
      return;
    } catch (err) {
      if (err.code === "unknown_game") { app.recovering = false; return; }
      if (err.code === "network") {
        app.downService = "gateway";
        app.unreachable = true;
        if (alertKind() !== "dropped") showAlert(navigator.onLine ? UNREACHABLE : OFFLINE, "down");
        renderConn();
      }
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 1.6, 5000);
    }
  }
  app.recovering = false;
}

let readyPoll = null;
function waitReady() {
  if (readyPoll) return;
  let wait = 1500;
  const tick = async () => {
    try {
      const r = await fetch("/readyz", { cache: "no-store" });
      if (r.ok) {
        readyPoll = null;
        if (alertKind() === "down") clearAlert();
        if (app.id) { try { applyState(await api.get(app.id, app.token)); } catch { /* next event */ } }
        app.live?.kick();
        return;
      }
    } catch { /* gateway down too */ }
    wait = Math.min(wait * 1.6, 5000);
    readyPoll = setTimeout(tick, wait);
  };
  readyPoll = setTimeout(tick, wait);
}

/** A person's sentence for an outage; the gateway's technical text goes in the tooltip. */
function downMessage(message = "") {
  const m = message.toLowerCase();
  const svc = m.includes("solver") ? "solver" : m.includes("redis") ? "game store (Redis)" : m.includes("engine") ? "engine" : "";
  if (!svc) return sentence(message) || "A service is unavailable; the game is kept and continues when it is back.";
  if (m.includes("in time")) {
    return svc === "engine" ? "The engine service did not answer in time. Your move is kept; the engine answers when it can."
      : `The ${svc} service did not answer in time; the page retries by itself.`;
  }
  const then = svc === "engine" ? "Your move is kept; the engine answers when it is back." :
    svc === "solver" ? "Solver scores come back when it does." : "The game is kept; the page retries by itself.";
  return `The ${svc} service is unavailable. ${then}`;
}

function showDown(message) {
  const m = (message || "").toLowerCase();
  app.downService = m.includes("solver") ? "solver" : m.includes("engine") ? "engine" : "";
  showAlert(downMessage(message), "down");
  $("alert").title = message || "";
  renderStatus();
}

function handleError(err, what = "") {
  if (!(err instanceof ApiError)) { showAlert(`${what}: ${err.message}`, "error", 8000); return; }
  if (err.state) applyState(err.state);
  if (err.code === "network") { setReachable(false); return; }
  if (err.code === "service_unavailable" || err.code === "timeout") {
    if (err.code === "timeout") showAlert(err.message, "down"); else showDown(err.message);
    waitReady();
    return;
  }
  if (err.code === "conflict") {
    conflictNote();
    // the conflict answer carries the newer game (shown above); load it only when it does not
    if (!err.state && app.id) api.get(app.id, app.token).then(applyState).catch(() => {});
    return;
  }
  showAlert(sentence(err.message), "error", 6000);
}

// ---- actions ----------------------------------------------------------------------------------
function refuse(msg) { showAlert(msg, "error", 4000); }

// A move that meets a change keeping the position (the other person joined or
// switched a hint, this page's own H) is sent again on the newer game, this often
const MOVE_SENDS = 4;

async function play(col, sent = 1) {
  const st = app.st;
  if (!st) return;
  if (app.viewPly !== null) return refuse("You are looking at an earlier position: press End to go back to the game.");
  if (!app.seat) return refuse("You are watching this game. Press N to start your own.");
  if (st.status === "over") return refuse("The game is over. Press N for a new game.");
  if (app.pending !== null) return;
  if (st.status === "thinking") return refuse(`Wait: ${panels.seatName(app, st.to_move, { subject: true })} is thinking (U takes back your move).`);
  if (st.status === "waiting_for_player" || st.to_move !== app.seat) return refuse("It is not your turn.");
  const game = Game.from(st);
  if (game.canPlay(col)) { app.pending = col; render(true); }
  try {
    const reply = await api.move(app.id, app.token, col, st.version);
    reached();
    app.pending = null;
    clearAlert(["error", "dropped"]);
    applyState(stateOf(reply));
  } catch (err) {
    app.pending = null;
    if (err.code === "conflict" && sent < MOVE_SENDS) {
      if (await samePositionNewer(st, err)) return play(col, sent + 1);
      render(false);
      return conflictNote(); // the newer game is shown already: no second load
    }
    render(false);
    if (err.code === "network") return dropped(`your move in column ${col}`);
    handleError(err);
  }
}

function conflictNote() {
  showAlert("The game changed at the same moment; showing the latest position.", "info", 5000);
}

/** After a conflict: show the newer game (the one the conflict answer carries, or
 * loaded when it carries none), once; true when only something beside the position
 * changed (the other player joined, a hint switch) so the same move still means
 * the same, and the page now holds the newer version. */
async function samePositionNewer(st, err) {
  let fresh = err.state;
  if (!fresh) {
    try { fresh = await api.get(app.id, app.token); } catch { return false; }
  }
  applyState(fresh);
  return fresh.id === st.id && fresh.moves.join(",") === st.moves.join(",")
    && fresh.status === "to_move" && fresh.to_move === app.seat;
}

/** The gateway's rule: against a program you go back to your previous turn; between
 * people you take back only your own last move, before the other replied. */
function canUndo(st) {
  // a move of your own to take back (yellow's first is the second of the game)
  if (!app.seat || st.ply < (app.seat === "red" ? 1 : 2)) return false;
  const other = st.seats[app.seat === "red" ? "yellow" : "red"];
  if (other.kind === "opponent" || !other.joined) return true;
  const lastMover = (st.ply - 1) % 2 === 0 ? "red" : "yellow";
  return lastMover === app.seat && st.status !== "over";
}

async function undo() {
  if (!app.st) return;
  if (!app.seat) return refuse("You are watching this game: only its players can undo.");
  if (app.st.ply < (app.seat === "red" ? 1 : 2)) return refuse("You have no move to take back yet.");
  if (!canUndo(app.st)) return refuse("Between people you can take back only your own last move, before the other player replies.");
  app.viewPly = null;
  try {
    applyState(stateOf(await api.undo(app.id, app.token)));
    clearAlert(["error", "dropped"]);
  } catch (err) { if (err.code === "network") dropped("the undo"); else handleError(err); }
}

async function toggleHints() {
  if (!app.st) return;
  if (!app.seat) { app.hintsLocal = !app.hintsLocal; render(false); return; }
  try {
    const st = stateOf(await api.hints(app.id, app.token, !ownHintsOn(app.st)));
    settings.rememberHints(ownHintsOn(st));
    applyState(st);
  } catch (err) { if (err.code === "network") dropped("the hint rings switch"); else handleError(err); }
}

/** Is this player's "guard my moves" on? Its seat's (a WebSocket state is
 * built for no one: its own `guarded` is false). */
function ownGuardOn(st) {
  const seat = app.seat && st.seats ? st.seats[app.seat] : null;
  return !!(seat && seat.guarded);
}

/** "Guard my moves": the gate checks this player's moves (a seat's own switch). */
async function toggleGuard() {
  if (!app.st) return;
  if (!app.seat) return refuse("You are watching this game: only its players can guard their moves.");
  try {
    const st = stateOf(await api.guard(app.id, app.token, !ownGuardOn(app.st)));
    settings.rememberGuard(ownGuardOn(st));
    applyState(st);
  } catch (err) { if (err.code === "network") dropped("the guard switch"); else handleError(err); }
}

function toggleSolution() {
  app.solution = !app.solution;
  if (!app.solution) { stopSolving(); app.solutionData = null; }
  render(false);
  refreshSolution();
}

const SOLVE_DEADLINE_MS = 10000; // the gateway's default for the current position

async function refreshSolution() {
  const st = app.st;
  if (!app.solution || !st) return;
  if (st.allow_analysis === false) { app.solutionData = { key: null, error: "analysis is off for this game" }; renderStatus(); return; }
  const ply = app.viewPly ?? st.ply;
  const key = positionKey(st, ply);
  const game = Game.from(st, ply);
  if (game.isOver) { app.solutionData = { key, scores: {} }; render(false); return; }
  const hit = cached(st, ply);
  if (hit) { app.solutionData = { key, ...hit }; render(false); return; }
  if (app.solutionData && app.solutionData.key === key && (app.solutionData.loading || app.solutionData.cancelled)) return;
  stopSolving();
  const ctrl = new AbortController();
  const started = Date.now();
  app.solutionData = { key, loading: true, seconds: 0 };
  // progress: the seconds so far, on the board and the detail line; Cancel stops it
  const timer = setInterval(() => {
    if (app.solutionData?.key !== key || !app.solutionData.loading) return;
    app.solutionData.seconds = Math.round((Date.now() - started) / 1000);
    board.drawSolution();
    renderStatus();
  }, 1000);
  app.solving = { key, ctrl, timer };
  $("solve-cancel").hidden = false;
  render(false);
  try {
    const a = await analyse(st, ply, undefined, ctrl.signal);
    if (app.solutionData?.key === key) { app.solutionData = { key, ...a }; render(false); }
    if (app.verdicts) renderMoves();
  } catch (err) {
    if (app.solutionData?.key !== key) return;
    if (err.code === "cancelled") { app.solutionData = { key, cancelled: true, error: "solving cancelled: press X twice to try again" }; render(false); return; }
    if (err.code === "analysis_unavailable") { app.solutionData = { key, unavailable: true, error: unavailableText(st) }; render(false); return; }
    if (err.code === "warming_up") { warmingUp(st, key, err.retryAfterS); return; }
    const text = err.code === "timeout" ? unprovenText(game) : err.message;
    app.solutionData = { key, error: text };
    render(false);
    if (err.code === "service_unavailable") { showDown(err.message); waitReady(); }
    else if (err.code === "network") setReachable(false);
  } finally {
    clearInterval(timer);
    if (app.solving?.key === key) { app.solving = null; $("solve-cancel").hidden = true; }
  }
}

function stopSolving() {
  if (!app.solving) return;
  clearInterval(app.solving.timer);
  app.solving.ctrl.abort();
  app.solving = null;
  $("solve-cancel").hidden = true;
}

/** What is proven of a position the solver could not finish in time: the
 * moves that win or lose at once are exact (the rules decide them). */
function unprovenText(game) {
  const h = game.hints();
  const cols = (a) => (a.length === 1 ? `column ${a[0]}` : `columns ${a.join(", ")}`);
  const facts = [];
  if (h.winning_moves.length) facts.push(`${cols(h.winning_moves)} wins at once`);
  if (h.must_block.length) facts.push(`${cols(h.must_block)} must be blocked`);
  if (h.losing_moves.length) facts.push(`${cols(h.losing_moves)} loses at once (the opponent then wins)`);
  const proven = facts.length ? `Proven so far: ${facts.join("; ")}.` : "Nothing is proven beyond the rules: no column wins or loses at once.";
  return `the solver could not prove this position within ${SOLVE_DEADLINE_MS / 1000} s (the first moves of a big board take it minutes); ${proven} The scores come a few moves later.`;
}

/** A board size's solver kernels still compile (503 warming_up): said, and asked
 * again by itself after the gateway's Retry-After while this position is shown. */
function warmingUp(st, key, retryAfterS) {
  const wait = Math.min(Math.max(retryAfterS ?? 5, 1), 60);
  app.solutionData = { key, warming: true, error: `warming up the solver for ${st.width} × ${st.height} (the first use of this size): asking again in ${Math.round(wait)} s` };
  render(false);
  setTimeout(() => {
    if (app.solutionData?.key === key && app.solutionData.warming) { app.solutionData = null; refreshSolution(); }
  }, wait * 1000);
}

/** The gateway does not analyse this board (422 analysis_unavailable): said once, plainly. */
function unavailableText(st) {
  return `no exact analysis on a ${st.width} × ${st.height} board: the solver cannot prove a board this large. Hints and play work as usual.`;
}

function startVerdicts() {
  const st = app.st;
  if (!st || !st.moves.length) return;
  if (st.allow_analysis === false) { app.analysisNote = "analysis is off for this game"; renderMoves(); return; }
  app.verdicts = true;
  app.unprovenUpTo = 0;
  app.analysisNote = "solving…";
  renderMoves();
  let done = 0;
  // the same game as far as the move list goes: the WebSocket's first state is
  // a new object of the same version, and must not silence this run's reports
  const current = () => app.st && app.st.id === st.id && app.st.version === st.version;
  analyser.start(st, () => {
    if (!current()) return;
    done++;
    app.analysisNote = `solving ${done}/${st.moves.length}…`;
    renderMoves();
  }, (err, at) => {
    if (!current()) return;
    if (err && err.code === "analysis_unavailable") { app.analysisNote = "no solver verdicts on this board"; renderMoves(); return; }
    if (err && err.code !== "no_history_analysis") app.unprovenUpTo = at + 1;
    if (!err) app.analysisNote = "solver verdicts";
    else if (err.code === "no_history_analysis") app.analysisNote = `${err.message}${done ? ` (${done} seen with Show solution on)` : ""}`;
    else if (err.code === "timeout") app.analysisNote = `verdicts from move ${at + 2} on (the position before move ${at + 1} is not proven in 4 s)`;
    else app.analysisNote = `verdicts from move ${at + 2} on; move ${at + 1}: ${err.message}`;
    renderMoves();
  });
}

function step(delta) {
  if (!app.st) return;
  const at = app.viewPly ?? app.st.ply;
  view(at + delta);
}

function view(ply) {
  if (!app.st) return;
  ply = Math.max(0, Math.min(app.st.ply, ply));
  app.viewPly = ply === app.st.ply ? null : ply;
  clearAlert(["error"]);
  render(false);
  refreshSolution();
}

function jumpToMistake() {
  const st = app.st;
  if (!st) return;
  const i = firstMistake(st);
  const u = app.unprovenUpTo;
  const unproven = u ? ` Moves 1–${u} are not proven (the solver could not prove those positions within 4 s), so an earlier mistake is possible.` : "";
  if (i >= 0) {
    view(i + 1);
    if (app.analysisNote.startsWith("solving")) showAlert("The earliest mistake found so far: the solver is still working back through the game.", "info", 4000);
    else if (u) showAlert(`The first mistake the solver proved is move ${i + 1}.${unproven}`, "info", 6000);
    return;
  }
  if (unavailableOn(st)) { showAlert(`No mistakes to find: ${unavailableText(st)}`, "info", 6000); return; }
  if (!app.verdicts) { startVerdicts(); showAlert("Analysing the game: press M again when the verdicts are in.", "info", 4000); return; }
  if (app.analysisNote.startsWith("solving")) showAlert("No mistake found yet (the solver is still working).", "info", 4000);
  else if (u) showAlert(`No mistake from move ${u + 1} on.${unproven}`, "info", 6000);
  else showAlert("No mistake: every move kept the theoretical value.", "info", 4000);
}

async function share() {
  const link = $("watch-link").value;
  if (!link) return;
  const ok = await copyText(link, $("watch-link"));
  showAlert(ok ? `Share link copied: ${link}` : `Share link: ${link}`, "info", 4000);
}

/** The think time applies at once; the other settings wait for Start. */
function settingChanged(name) {
  if (name === "think") {
    if (app.st && app.seat && app.st.think_ms !== settings.thinkMs && app.st.status !== "over") changeThinkTime(settings.thinkMs);
  }
}

/** The think time of the running game (POST /games/{id}/settings, docs/api.md
 * request 4); a gateway without that route applies it from the next game. */
let thinkTimer = null;
function changeThinkTime(ms) {
  clearTimeout(thinkTimer); // + pressed three times: one request
  thinkTimer = setTimeout(async () => {
    // a new game may have started meanwhile, with this time already
    if (!app.st || !app.seat || app.st.think_ms === ms || app.st.status === "over") return;
    try {
      applyState(stateOf(await api.settings(app.id, app.token, { think_ms: ms })));
      setDetailNote(`Think time ${seconds(ms / 1000)} from the next move on.`);
    } catch (err) {
      if (err.code === "not_found" || err.code === "method_not_allowed") setDetailNote(`Think time ${seconds(ms / 1000)} applies from the next game (N).`);
      else if (err.code === "network") dropped(`the think time ${seconds(ms / 1000)} for this game (it applies to the next game)`);
      else handleError(err);
    }
  }, 300);
}

const keyActions = {
  column: (c) => play(c),
  cursor: (d) => {
    const w = app.st ? app.st.width : 7;
    const at = app.cursor ?? Math.ceil(w / 2);
    app.cursor = app.cursor === null ? at : ((at - 1 + d + w) % w) + 1;
    board.setCursor(app.cursor);
  },
  pointAt: (col) => { app.cursor = col; board.setCursor(col); },
  width: () => (app.st ? app.st.width : 7),
  dropCursor: () => { if (app.cursor) play(app.cursor); else keyActions.cursor(0); },
  newGame: () => newGame(),
  swap: () => { if (app.st?.status === "over" && app.seat) return rematch(true); settings.swapStarter(); newGame(); },
  undo: () => undo(),
  hints: () => toggleHints(),
  solution: () => toggleSolution(),
  think: (f) => settings.scaleThink(f),
  step: (d) => step(d),
  first: () => view(0),
  last: () => view(Infinity),
  mistake: () => jumpToMistake(),
  share: () => share(),
  about: () => openAbout(),
  escape: () => {
    const d = $("about");
    if (d.open) d.close();
    else if ($("settings").classList.contains("open")) closeDrawer();
    else if (!$("result").hidden) closeResult();
    else if (app.viewPly !== null) view(Infinity);
  },
};

function wireButtons() {
  $("new-game").addEventListener("click", () => newGame());
  $("undo").addEventListener("click", () => undo());
  $("hints").addEventListener("click", () => toggleHints());
  $("guard").addEventListener("click", () => toggleGuard());
  $("solution").addEventListener("click", () => toggleSolution());
  $("nav-first").addEventListener("click", () => view(0));
  $("nav-prev").addEventListener("click", () => step(-1));
  $("nav-next").addEventListener("click", () => step(1));
  $("nav-last").addEventListener("click", () => view(Infinity));
  $("analyse").addEventListener("click", () => startVerdicts());
  $("mistake").addEventListener("click", () => jumpToMistake());
  $("copy-watch").addEventListener("click", () => share());
  $("copy-invite").addEventListener("click", async () => {
    const ok = await copyText($("invite-link").value, $("invite-link"));
    showAlert(ok ? "Invite link copied: send it to the other player." : `Invite link: ${$("invite-link").value}`, "info", 4000);
  });
  $("about-btn").addEventListener("click", () => openAbout());
  $("learn").addEventListener("click", () => learnFrom(app, () => renderLearn(app)));
  $("settings-btn").addEventListener("click", () => ($("settings").classList.contains("open") ? closeDrawer() : openDrawer()));
  $("settings-close").addEventListener("click", () => closeDrawer());
  $("rematch").addEventListener("click", () => rematch(false));
  $("swap-rematch").addEventListener("click", () => rematch(true));
  $("result-close").addEventListener("click", () => closeResult());
  $("solve-cancel").addEventListener("click", () => cancelSolving());
  const snd = $("sound");
  snd.setAttribute("aria-pressed", String(sound.soundOn()));
  snd.addEventListener("click", () => { sound.setSound(!sound.soundOn()); snd.setAttribute("aria-pressed", String(sound.soundOn())); });
  // the board's focus frame is for keyboard players: a click or a tap hides it
  document.addEventListener("keydown", (ev) => { if (!ev.ctrlKey && !ev.metaKey) $("board").classList.add("keyboard"); });
  document.addEventListener("pointerdown", () => $("board").classList.remove("keyboard"));
}

function cancelSolving() {
  const key = app.solving?.key;
  stopSolving();
  if (key && app.solutionData?.key === key) { app.solutionData = { key, cancelled: true, error: "solving cancelled: press X twice to try again" }; render(false); }
}

function openDrawer() {
  const f = $("settings");
  settings.sync();
  f.classList.add("open");
  $("settings-btn").setAttribute("aria-expanded", "true");
  $("opponent").focus({ preventScroll: true });
}

function closeDrawer() {
  const f = $("settings");
  if (!f.classList.contains("open")) return;
  f.classList.remove("open");
  $("settings-btn").setAttribute("aria-expanded", "false");
  if (f.contains(document.activeElement)) $("settings-btn").focus({ preventScroll: true });
}

function closeResult() {
  $("result").hidden = true;
  $("board").focus({ preventScroll: true });
}

/** The About box's levels: each name with its spec and what it is. */
function fillLevels(list) {
  const t = $("levels");
  t.replaceChildren();
  for (const o of list) {
    const tr = t.insertRow();
    tr.insertCell().textContent = o.spec === "human" ? "Another person" : levelName(o.spec);
    const code = document.createElement("code");
    code.textContent = o.spec;
    tr.insertCell().append(code);
    tr.insertCell().textContent = o.description || "";
  }
}

function openAbout() {
  const d = $("about");
  if (d.open) return;
  d.showModal();
  // focus goes to Close at the bottom; a short screen starts at the top (title, version)
  d.scrollTop = 0;
}

function fillAbout() {
  const t = $("keys");
  for (const [k, what] of KEYS) {
    const tr = t.insertRow();
    const cell = tr.insertCell();
    for (const key of k) {
      const kbd = document.createElement("kbd");
      kbd.textContent = key;
      cell.append(kbd, " ");
    }
    tr.insertCell().textContent = what;
  }
}

// ---- drawing ------------------------------------------------------------------------------------
/** The room the board may take: the width of its row and the window's height
 * below the board's top, less the action bar when it sits below the board. */
function fitBoard() {
  const el = $("board");
  const top = el.getBoundingClientRect().top + window.scrollY;
  const bar = $("actions").getBoundingClientRect();
  const below = bar.top > el.getBoundingClientRect().top + 20 ? bar.height + 12 : 0;
  const note = $("gate-note"); // the guard note's room under the board
  const under = note.offsetHeight + parseFloat(getComputedStyle(note).marginTop);
  el.style.setProperty("--avail", `${Math.max(160, window.innerHeight - top - 12 - below - under)}px`);
  el.style.setProperty("--roww", `${el.closest(".board-row").clientWidth}px`);
}

function watchLayout() {
  fitBoard();
  window.addEventListener("resize", fitBoard);
  if (!window.ResizeObserver) return;
  const above = new ResizeObserver(() => fitBoard());
  for (const el of document.querySelectorAll(".top, #settings, .lines, .board-row, #actions")) above.observe(el);
}

function setStatus(text) { $("status").textContent = text; }
let detailNote = "";
function setDetailNote(text) { detailNote = text; renderStatus(); setTimeout(() => { if (detailNote === text) { detailNote = ""; renderStatus(); } }, 6000); }
// While a disc falls the panels keep what they said: the new status, the
// evaluation and the result appear when it has landed (render() redraws them).
function renderStatus() { if (app.st && !board.falling) panels.renderStatus(app, detailNote); }
function renderEval() {
  if (app.st && !board.falling) { panels.renderEval(app); renderLearnedBars(app.st, app.viewPly); }
}
function renderMoves() { if (app.st) panels.renderMoves(app, view); }
function renderShare() { if (app.st) panels.renderShare(app); }

function render(animate) {
  const st = app.st;
  if (!st) return;
  const moves = app.pending !== null ? [...st.moves, app.pending] : st.moves;
  const following = app.viewPly === null;
  const game = new Game(st.width, st.height, st.k, following ? moves : st.moves.slice(0, app.viewPly));
  const myTurn = app.seat && st.status === "to_move" && st.to_move === app.seat && app.pending === null;
  const hintsOn = ownHintsOn(st);
  let hints = null;
  if (hintsOn) {
    // the gateway's hints come with this player's own reads; a state from the
    // WebSocket carries none (watchers see them too), so the page works them out
    if (following && app.pending === null) hints = st.hints || game.hints();
    else if (!following || !app.seat) hints = game.hints();
  }
  const sol = app.solution && app.solutionData && app.solutionData.key === positionKey(st, game.ply) ? app.solutionData : null;
  let winLine = null;
  if (following && st.status === "over" && st.winning_cells && st.winning_cells.length) winLine = st.winning_cells;
  const prompt = following && myTurn && game.ply < 2
    ? (st.width >= 6 ? `your move: click a column or press 1–${st.width}` : "your move") : null;
  // the gate's override of the last person's move: rejected column amber, the played one green
  const override = following && app.pending === null && st.override && st.override.overridden ? st.override : null;
  const before = board.landsAt;
  board.render(game, { interactive: following && myTurn, hints, solution: sol, animate: animate && following, winLine, prompt, override });
  const fell = board.landsAt !== before && board.falling;
  if (board.falling) {
    document.body.dataset.settled = "false";
    const gen = ++settleGen;
    board.settled.then(() => {
      if (gen !== settleGen) return;
      if (fell) sound.play("land");
      renderPanels();
    });
    return;
  }
  renderPanels();
}

let settleGen = 0;

/** The gate's verdict on the last person's move, in words, over the foot of the board. */
function renderGateNote(following) {
  const note = $("gate-note");
  const o = app.st.override;
  // its room is kept while the game has a guarded seat (style.css), so a note moves nothing;
  // a game nobody guards gives the board that room
  const room = !!(o || app.st.guarded || Object.values(app.st.seats || {}).some((s) => s && s.guarded));
  if (note.hidden === room) { note.hidden = !room; fitBoard(); }
  note.classList.toggle("shown", !!(following && o));
  if (!(following && o)) { note.textContent = ""; return; }
  const letter = (c) => String.fromCharCode(96 + c);
  const who = o.color === app.seat ? "you" : o.color;
  const reasons = o.failed.map((f) => f.reason).join("; ");
  note.dataset.overridden = String(!!o.overridden);
  note.textContent = o.overridden
    ? `Guard: ${who} proposed ${letter(o.proposed)}, the gate played ${letter(o.played)}: ${reasons}.`
    : `Guard: ${letter(o.proposed)} stands, no column passes more checks: ${reasons}.`;
}

/** Everything around the board, drawn once its discs are in place. */
function renderPanels() {
  const st = app.st;
  if (!st) return;
  const following = app.viewPly === null;
  const game = new Game(st.width, st.height, st.k, following ? st.moves : st.moves.slice(0, app.viewPly));
  const myTurn = app.seat && st.status === "to_move" && st.to_move === app.seat && app.pending === null;
  const hintsOn = ownHintsOn(st);
  document.body.dataset.settled = "true";
  document.body.dataset.status = st.status;
  document.body.dataset.version = st.version;
  $("board").setAttribute("aria-label", `Connect Four board, ${st.width} × ${st.height}, ${game.ply} moves played`);
  // a background tab tells its player when it is their move
  document.title = st.status === "over" ? "Game over · Connect Four" : myTurn ? "Your move · Connect Four" : "Connect Four";

  $("hints").setAttribute("aria-pressed", String(!!hintsOn));
  $("guard").setAttribute("aria-pressed", String(ownGuardOn(st)));
  renderGateNote(following);
  $("solution").setAttribute("aria-pressed", String(app.solution));
  $("undo").disabled = !canUndo(st);
  const banner = $("history-banner");
  banner.hidden = following;
  if (!following) banner.textContent = `Move ${app.viewPly} of ${st.ply}: , and . step, End returns to the game.`;
  renderStatus();
  renderEval();
  renderMoves();
  renderShare();
  renderLearn(app);
  renderResult();
}

/** The result banner over the board, once per finished game: who won and how,
 * Rematch and Swap and rematch (players only). */
function renderResult() {
  const st = app.st;
  const box = $("result");
  const over = st.status === "over" && app.viewPly === null;
  const id = `${st.id}:${st.version}`;
  if (!over) { box.hidden = true; return; }
  if (app.resultShown === id) return;
  app.resultShown = id;
  const r = describeResult(st, app.seat, (c) => panels.seatName(app, c, { subject: true }));
  $("result-text").textContent = r.headline;
  $("result-how").textContent = r.how;
  box.dataset.outcome = r.outcome;
  $("rematch").hidden = $("swap-rematch").hidden = !app.seat;
  box.hidden = false;
  sound.play(r.outcome === "other" ? "draw" : r.outcome);
  // keyboard players land on Rematch (unless they are typing somewhere)
  const a = document.activeElement;
  if (app.seat && (!a || a === document.body || a.id === "board" || a.closest(".actions"))) $("rematch").focus({ preventScroll: true });
}

// Without the WebSocket (reconnecting, or a proxy that drops it) the page
// still follows the game: while someone else is to move it asks for the state
// every 2 s. An open WebSocket that has said nothing for 5 s meanwhile is asked
// too, every 5 s: a socket can stay open yet deaf (seen: a gateway whose
// subscription to the game's channel failed sent the first state and nothing
// after, and the page showed "is thinking…" for ever).
const QUIET_MS = 5000;
let lastPoll = 0;
setInterval(async () => {
  const st = app.st;
  if (!st || !app.live || st.status === "over" || app.recovering) return;
  if (st.status === "to_move" && st.to_move === app.seat) return;
  const now = Date.now();
  if (app.live.isOpen && (now - app.live.lastNews < QUIET_MS || now - lastPoll < QUIET_MS)) return;
  lastPoll = now;
  try {
    const fresh = await api.get(app.id, app.token);
    // the open socket let a change go by: it is deaf, open a new one
    if (app.live.isOpen && app.st && fresh.id === app.st.id && fresh.version > app.st.version) app.live.reopen();
    applyState(fresh);
  } catch { /* recover() reports outages */ }
}, 2000);

boot();
