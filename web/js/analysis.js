// The solver's view of a game: the exact score of every column of a position
// (GET /games/{id}/analysis?ply=N), cached by position, and each move's
// verdict: where the theoretical value changed (win -> draw, win -> loss,
// draw -> loss). Analyses are fetched one at a time so a long game does not
// flood the solver. What is not proven is said, never guessed: a playable
// column without a score is unknown, and a board the gateway does not analyse
// (422 analysis_unavailable) is asked about once.

import { api } from "./api.js";
import { Game } from "./game.js";

const cache = new Map(); // position key -> {scores: {col: score|null}, unknown: [col], best, source}
const unavailable = new Map(); // board size -> the gateway's error (analysis_unavailable)
let historyAnalysis = null; // does the gateway analyse earlier positions (?ply=N)? null = not known yet

const sizeKey = (state) => `${state.width}x${state.height}k${state.k}`;

/** The gateway's analysis_unavailable error for this board, once it has said so, else null. */
export function unavailableOn(state) {
  return unavailable.get(sizeKey(state)) || null;
}

export function positionKey(state, ply) {
  return `${state.width}x${state.height}k${state.k}:${state.moves.slice(0, ply).join(",")}`;
}

function noHistory() {
  const err = new Error("this gateway analyses only the current position");
  err.code = "no_history_analysis";
  return err;
}

/** -> {scores:{1:..}, best, nodes, source, elapsed_ms}; throws ApiError. */
export async function analyse(state, ply, deadlineMs = undefined, signal = null) {
  const key = positionKey(state, ply);
  const hit = cache.get(key);
  if (hit) return hit;
  const current = ply === state.moves.length;
  if (!current && historyAnalysis === false) throw noHistory();
  const refused = unavailableOn(state);
  if (refused) throw refused;
  let reply;
  try {
    reply = await api.analysis(state.id, current ? undefined : ply, deadlineMs, signal);
  } catch (err) {
    if (err.code === "analysis_unavailable") unavailable.set(sizeKey(state), err);
    throw err;
  }
  // A gateway that ignores ?ply answers for the current position: only trust
  // it when it names the ply it analysed or the ply is the current one.
  if (reply.ply !== undefined) historyAnalysis = true;
  if (reply.ply !== undefined ? reply.ply !== ply : !current) {
    if (!current) historyAnalysis = false;
    throw noHistory();
  }
  const scores = {};
  for (const c of reply.columns || []) scores[c.column] = c.score ?? null;
  const game = Game.from(state, ply);
  const unknown = []; // playable columns the solver did not prove (a full column has no score either)
  for (let c = 1; c <= game.width && !game.isOver; c++) if (game.canPlay(c) && (scores[c] ?? null) === null) unknown.push(c);
  const out = { scores, unknown, best: reply.best || [], nodes: reply.nodes, source: reply.source, elapsed_ms: reply.elapsed_ms };
  cache.set(key, out);
  return out;
}

export function cached(state, ply) {
  return cache.get(positionKey(state, ply)) || null;
}

/**
 * The verdict on move i (0-based) of the game, from its position's analysis:
 * {value: "win"|"draw"|"loss" before the move (mover's view), after: ...,
 *  change: null | "win → draw" | "win → loss" | "draw → loss"}.
 */
export function moveVerdict(state, i) {
  const a = cached(state, i);
  if (!a) return null;
  const played = a.scores[state.moves[i]];
  const best = provenBest(a);
  if (played === null || played === undefined || best === null) return null;
  const kind = (s) => (s > 0 ? "win" : s < 0 ? "loss" : "draw");
  const before = kind(best), after = kind(played);
  return { before, after, played, best, change: before !== after ? `${before} → ${after}` : null };
}

/** The best score of an analysis when it is proven: every playable column
 * scored, or a proven win (nothing beats winning; how soon may differ when some
 * column is unknown). Null when an unknown column could be better. */
export function provenBest(a) {
  const values = Object.values(a.scores || {}).filter((s) => s !== null && s !== undefined);
  if (!values.length) return null;
  const best = Math.max(...values);
  return (a.unknown || []).length && best <= 0 ? null : best;
}

/** Fills the cache for every position of a game, calling back after each. */
export class GameAnalyser {
  constructor() { this.run = 0; }

  /** Analyse the positions before each move, last first (late positions are
   * quick, early ones may not be provable in time); stops when start() is
   * called again, or at the first error. */
  async start(state, onEach, onDone) {
    const run = ++this.run;
    for (let i = state.moves.length - 1; i >= 0; i--) {
      if (run !== this.run) return;
      if (cached(state, i)) { onEach(i); continue; }
      try {
        await analyse(state, i, 4000);
        onEach(i);
      } catch (err) {
        if (run === this.run) onDone(err, i);
        return;
      }
    }
    if (run === this.run) onDone(null, -1);
  }

  stop() { this.run++; }
}

/** The index of the first move that changed the theoretical value, or -1. */
export function firstMistake(state) {
  for (let i = 0; i < state.moves.length; i++) {
    const v = moveVerdict(state, i);
    if (v && v.change) return i;
  }
  return -1;
}
