// "Learn from this game": after a finished game a player sends it to the
// bookgen workers (POST /games/{id}/learn, docs/api.md). A worker traces the
// engine's moves with the exact solver and books every ply where the engine
// threw away a win or a draw in its corrective book; the page shows the
// report's verdict sentence and those plies. Nothing here changes the game.

import { api } from "./api.js";

const $ = (id) => document.getElementById(id);

/** The learning state of the game on screen: {id, busy, report, error}. */
export function resetLearn(app) {
  app.learn = { id: app.id, busy: false, report: null, error: null };
}

/** A ply of the report for people: "Move 4: played 4, 3 keeps the win (booked)". */
export function plyText(v) {
  const what = v.booked ? "booked" : "already in the book";
  return `Move ${v.ply}: played ${v.played}, ${v.best} keeps the ${v.threw} (${what})`;
}

/** A failure for people; the gateway's own message stays in the tooltip. */
export function learnError(err) {
  if (err.code === "learning_unavailable") return "Learning is unavailable right now: no bookgen worker is running. The game is kept; try again later.";
  if (err.code === "game_not_over") return "Learning needs a finished game.";
  if (err.code === "bad_token") return "Only the game's players can ask to learn from it.";
  if (err.code === "network") return "The gateway cannot be reached; try again when it is back.";
  return err.message || "Learning failed.";
}

/** The Learn panel: shown to a player once a game against a program is over
 * (between people there is no program move to check). */
export function renderLearn(app) {
  const st = app.st;
  const panel = $("learn-panel");
  const program = st && ["red", "yellow"].some((c) => st.seats[c]?.kind === "opponent");
  const show = !!(st && app.seat && program && st.status === "over" && st.moves.length);
  panel.hidden = !show;
  if (!show) return;
  if (!app.learn || app.learn.id !== app.id) resetLearn(app);
  const l = app.learn;
  const button = $("learn");
  button.disabled = l.busy;
  button.textContent = l.busy ? "Learning…" : l.report ? "Learn again" : "Learn from this game";
  const verdict = $("learn-verdict");
  const list = $("learn-plies");
  list.replaceChildren();
  verdict.dataset.kind = l.error ? "error" : l.report ? "report" : "";
  verdict.title = l.error ? l.error.message || "" : "";
  if (l.busy) verdict.textContent = "A bookgen worker is tracing the engine's moves with the solver…";
  else if (l.error) verdict.textContent = learnError(l.error);
  else if (l.report) {
    const r = l.report;
    verdict.textContent = r.verdict.charAt(0).toUpperCase() + r.verdict.slice(1) + ".";
    for (const v of r.threw || []) {
      const li = document.createElement("li");
      li.textContent = plyText(v);
      li.dataset.ply = v.ply;
      list.append(li);
    }
  } else verdict.textContent = "The solver checks each engine move; every thrown win or draw goes into the engine's corrective book.";
}

/** Ask the gateway; `redraw` is called when the state of the panel changes. */
export async function learnFrom(app, redraw) {
  if (!app.st || !app.seat || app.st.status !== "over") return;
  if (!app.learn || app.learn.id !== app.id) resetLearn(app);
  const l = app.learn;
  if (l.busy) return;
  Object.assign(l, { busy: true, error: null });
  redraw();
  try {
    const reply = await api.learn(app.id, app.token);
    if (app.learn !== l) return; // another game meanwhile
    Object.assign(l, { busy: false, report: reply.report });
  } catch (err) {
    if (app.learn !== l) return;
    Object.assign(l, { busy: false, error: err });
  }
  redraw();
}
