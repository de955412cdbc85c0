// The panels around the board, drawn from the page's state (`app` in
// main.js): the status and detail lines, the eval bar, the moves panel and
// the share panel. Nothing here changes the game.

import { moveVerdict, firstMistake, provenBest } from "./analysis.js";
import { signed, count, millis, seconds, engineScore, verdict } from "./format.js";
import { alertKind } from "./ui.js";
import { stripLearned } from "./learned-bars.js";
import { levelName } from "./levels.js";
import { positionKey } from "./analysis.js";

const MATE = 100000; // engine scores beyond this are proven (engine_svc/search.py)
const $ = (id) => document.getElementById(id);
const COLOUR = { red: 0, yellow: 1 };
const NAME = ["red", "yellow"];

export function seatName(app, colour, { subject = false } = {}) {
  const st = app.st;
  const seat = st.seats[colour] || {};
  if (colour === app.seat) return subject ? "You" : "you";
  if (seat.kind === "opponent") return levelName(seat.spec);
  if (seat.kind === "llm") return "LLM";
  if (app.seat) return subject ? "Your opponent" : "your opponent";
  return colour === "red" ? "Red" : "Yellow";
}

export function chip(colour) { return `<span class="chip p${COLOUR[colour]}" aria-hidden="true"></span>`; }


const VERB = { win: "wins", loss: "loses", draw: "draws" };

/** The gateway's `message` split for people: a sentence (capitalised: "Engine
 * sees a forced win!", a resignation, "Perfect is lost against best play.") goes on the status
 * line; the engine's own notes are clauses about its move ("blocks", "random
 * move", "book move: a loss with best play", "37 of 1000 visits") that would
 * read as if about the player there ("Your turn. blocks"), so they go on the
 * detail line, unless it already says the same (book outcome, fallback). */
export function splitMessage(message, ls, resignedNow = false, over = false) {
  let msg = message.trim();
  if (resignedNow && /resign/i.test(msg)) msg = msg.replace(/^.*?resigns?:?\s*/i, "").replace(/^./, (c) => c.toUpperCase());
  if (!msg && ls && ls.proven && ls.outcome === "win") return { headline: over ? "" : "Engine sees a forced win!", note: "" };
  // "engine:1000 wins. Engine sees a forced win!": once it has won, the forecast is old news
  if (over && !resignedNow && /sees a forced win!/.test(msg)) return { headline: "", note: "" };
  // a sentence ends with a stop ("A forced loss in 1 move" came without one)
  if (!msg || /^[A-Z]/.test(msg)) return { headline: msg && !/[.!?…]$/.test(msg) ? `${msg}.` : msg, note: "" };
  const said = (ls && ls.book && /^book move:/.test(msg)) || (ls && ls.source === "engine_fallback");
  return { headline: "", note: said ? "" : msg };
}

/** The exact value of the position on the board when it is known: from the
 * solution (Show solution or a verdict), the opening book, or a proven search.
 * -> {winner: "red"|"yellow"|null (draw), n: stones to the win or null, from} or null. */
export function knownValue(app) {
  const st = app.st;
  if (!st || st.status === "over") return null;
  const toMove = st.ply % 2 === 0 ? "red" : "yellow";
  const other = toMove === "red" ? "yellow" : "red";
  const sol = app.solutionData;
  const best = sol && sol.scores && sol.key === positionKey(st, st.ply) ? provenBest(sol) : null;
  if (best !== null) { // every playable column proven, or a proven win (how soon unknown while a column is)
    const v = verdict(best, st.ply, st.width, st.height);
    const exact = !(sol.unknown || []).length;
    return { winner: v.kind === "draw" ? null : v.kind === "win" ? toMove : other, n: exact ? v.n : null, from: "the solver" };
  }
  const ls = st.last_search;
  if (ls && ls.outcome && ls.outcome !== "unknown" && (ls.book || ls.proven) && st.status !== "thinking") {
    const mover = st.last_move ? st.last_move.color : ["red", "yellow"].find((c) => st.seats[c]?.kind === "opponent");
    const otherOf = mover === "red" ? "yellow" : "red";
    const winner = ls.outcome === "draw" ? null : ls.outcome === "win" ? mover : otherOf;
    return { winner, n: null, from: ls.book ? "the opening book" : "the engine's proof" };
  }
  return null;
}

/** The value for the status line: "You win in 4.", "Engine 1 s wins with best play.", "A draw with best play."
 * (n counts the winner's own stones from now, as the solution's "win 4" does). */
export function knownText(app, k) {
  if (!k) return "";
  if (!k.winner) return "A draw with best play.";
  const who = seatName(app, k.winner, { subject: true });
  return `${who} ${who === "You" ? "win" : "wins"} ${k.n ? `in ${k.n}` : "with best play"}.`;
}

/** Where the value comes from, for the detail line: "Exact: the solver, your 4th stone from now." */
export function knownSource(app, k) {
  if (!k.n) return `Exact: ${k.from}.`;
  const whose = k.winner && seatName(app, k.winner, { subject: true }) === "You" ? "your" : "its";
  return `Exact: ${k.from}, ${k.winner ? `${whose} ${ordinal(k.n)} stone from now wins` : ""}.`;
}

const ordinal = (n) => `${n}${n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"}`;

/** A program's score (from its own side) from red's side, as the eval bar shows it. */
function redSide(st, score) {
  const mover = ["red", "yellow"].find((c) => st.seats[c]?.kind === "opponent") || (st.last_move ? st.last_move.color : "red");
  return (mover === "red" ? 1 : -1) * score;
}

/** "column 3 is not proven (?); the others are exact." */
export function unknownText(cols, scores = null) {
  const proven = scores ? Object.values(scores).filter((v) => v !== null && v !== undefined).length : 1;
  if (!proven) return "no column is proven yet (?): early positions of a big board take the solver longer. The scores come a few moves later.";
  const which = cols.length === 1 ? `column ${cols[0]} is` : `columns ${cols.join(", ")} are`;
  return `${which} not proven (?); the others are exact.`;
}

/** The status line (whose turn, thinking, result, the gateway's message) and
 * the detail line (live progress or the last search, notes). */
export function renderStatus(app, note = "") {
  const st = app.st;
  if (!st) return;
  const status = $("status"), detail = $("detail");
  let html = "";
  let resignedNow = false;
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  if (st.status === "over") {
    const r = st.result || {};
    if (!r.winner) html = "Draw.";
    else {
      const loser = r.winner === "red" ? "yellow" : "red";
      const who = seatName(app, r.winner, { subject: true });
      html = `${chip(r.winner)} ${who === "You" ? "You win!" : `${esc(who)} wins.`}`;
      if (r.reason === "resigned" || st.resigned) html += ` ${esc(seatName(app, loser, { subject: true }))} resigned: it proved its own loss.`;
      resignedNow = r.reason === "resigned" || st.resigned;
    }
  } else if (st.status === "thinking" || app.pending !== null) {
    const who = app.pending !== null ? (st.to_move === "red" ? "yellow" : "red") : st.to_move;
    // only an engine (or gateway) outage holds the opponent's move, not the solver's
    const waiting = app.pending === null && alertKind() === "down" && app.downService !== "solver";
    html = `${chip(who)} ${esc(seatName(app, who, { subject: true }))} ${app.pending !== null ? "to move…" : waiting ? "moves when the service is back…" : "is thinking…"}`;
  } else if (st.status === "waiting_for_player") {
    html = `${chip(st.to_move)} Waiting for the invited player to join: send them the invite link.`;
  } else {
    html = st.to_move === app.seat ? `${chip(st.to_move)} Your turn.` : `${chip(st.to_move)} ${esc(seatName(app, st.to_move, { subject: true }))} to move.`;
  }
  const known = app.viewPly === null ? knownValue(app) : null;
  const ls = st.last_search;
  const { headline, note: engineNote } = splitMessage(stripLearned(st.message || ""), ls, resignedNow, st.status === "over");
  // the gateway says "Engine sees a forced win!" of any program: name its level
  const program = ["red", "yellow"].find((c) => st.seats[c]?.kind === "opponent");
  const said = program ? headline.replace(/^Engine sees /, `${seatName(app, program, { subject: true })} sees `) : headline;
  if (said) html += ` <strong class="message">${esc(said)}</strong>`;
  // the exact value, when known, is said on the status line (one evaluation)
  const thinkingNow = app.progress && st.status === "thinking";
  if (known && !thinkingNow && !headline) html += ` <span class="known">${esc(knownText(app, known))}</span>`;
  if (app.viewPly !== null) {
    // looking back: the status is about the position shown, the game's own goes below
    const colour = NAME[app.viewPly % 2];
    status.innerHTML = app.viewPly === 0 ? "Looking back at the empty board."
      : `Looking back at move ${app.viewPly} of ${st.ply} (${chip(colour)} ${colour} to move there).`;
    detail.innerHTML = `In the game: ${html}`;
    return;
  }
  status.innerHTML = html;

  let d = "";
  const p = app.progress;
  if (p && st.status === "thinking") {
    d = `depth ${p.depth} · ${count(p.nodes)} ${p.nodes === 1 ? "node" : "nodes"} · estimate ${engineScore((st.to_move === "red" ? 1 : -1) * p.score)} for red${p.best_column ? ` · best ${p.best_column}` : ""} · ${millis(p.elapsed_ms)}${p.proven ? " · proven" : ""}`;
  } else if (ls) {
    const resigned = st.status === "over" && (st.resigned || st.result?.reason === "resigned");
    // the seat's name, as on the status line ("engine:1000 is thinking…"); the
    // gateway names the budget that played ("engine:300": the think time set
    // on the slider, or half the time left), which goes after it
    const seat = ["red", "yellow"].map((c) => st.seats[c]).find((x) => x?.kind === "opponent");
    const spec = seat?.spec || ls.player || "engine";
    const name = levelName(spec);
    const budget = /^engine:(\d+)$/.exec(ls.player || "");
    const parts = [resigned ? `${esc(name)} resigned instead of playing ${ls.col}` : `${esc(name)} played ${ls.col}`];
    if (budget && ls.player !== spec) parts.push(`budget ${millis(Number(budget[1]))}`);
    // players that do not search (random, greedy, ...) have no score to show
    const searched = ls.depth || ls.nodes || ls.proven || ls.book;
    // a book answer's score is the book's exact value, not a search's
    if (ls.book && ls.outcome && ls.outcome !== "unknown") parts.push(`book: ${esc(name)} ${VERB[ls.outcome] || ls.outcome} with best play`);
    else if (searched && !known && !(ls.proven && ls.outcome && ls.outcome !== "unknown")) parts.push(`estimate ${engineScore(redSide(st, ls.score))} for red`);
    if (ls.depth) parts.push(`depth ${ls.depth}`);
    if (ls.nodes) parts.push(`${count(ls.nodes)} ${ls.nodes === 1 ? "node" : "nodes"}`);
    if (searched && ls.millis !== undefined) parts.push(millis(ls.millis));
    if (ls.proven && ls.outcome && ls.outcome !== "unknown") parts.push(`proven ${ls.outcome}`);
    if (ls.source === "engine_fallback") parts.push("not proven in time: engine move");
    if (engineNote) parts.push(esc(engineNote));
    d = parts.join(" · ");
  }
  if (known && !(p && st.status === "thinking")) d = `${esc(knownSource(app, known))}${d ? " " + d : ""}`;
  if (app.solution && app.solutionData?.error) d = `Solver: ${esc(app.solutionData.error)}${d ? " — " + d : ""}`;
  else if (app.solution && app.solutionData?.loading) d = `Solving this position… ${app.solutionData.seconds || 0} s (Cancel stops it).${d ? " " + d : ""}`;
  else if (app.solution && app.solutionData?.unknown?.length) d = `Solver: ${unknownText(app.solutionData.unknown, app.solutionData.scores)}${d ? " — " + d : ""}`;
  if (note) d = `${esc(note)}${d ? " — " + d : ""}`;
  detail.innerHTML = d;
  detail.title = detail.textContent; // the line is cut to its height; the whole text on hover
  // the live depth and node counts change several times a second: a screen
  // reader hears the line once the move is played, not every depth
  detail.setAttribute("aria-busy", String(!!(p && st.status === "thinking")));
}

/** Eval bar, from red's side (red fills from the bottom): the middle is
 * balanced, a heuristic score never fills it, a proven win does. The number
 * under it is the score from red's side; "#R"/"#Y" = a proven win, "=" a proven draw. */
export function renderEval(app) {
  const st = app.st;
  const bar = $("evalbar");
  const squash = (s) => Math.tanh(s / 150) * 0.9;
  const p = app.progress;
  const programColour = ["red", "yellow"].find((c) => st.seats[c]?.kind === "opponent");
  let red = null; // score from red's side
  let proven = null; // "red" | "yellow" | "draw"
  if (p && st.status === "thinking") {
    red = (st.to_move === "red" ? 1 : -1) * p.score;
    if (Math.abs(p.score) > MATE || (p.proven && p.score === 0)) proven = red > 0 ? "red" : red < 0 ? "yellow" : "draw";
  } else if (st.last_search) {
    const ls = st.last_search;
    const mover = programColour || (st.last_move ? st.last_move.color : "red");
    const sign = mover === "red" ? 1 : -1;
    red = sign * ls.score;
    const other = mover === "red" ? "yellow" : "red";
    if (ls.proven && ls.outcome === "win") proven = mover;
    else if (ls.proven && ls.outcome === "loss") proven = other;
    else if (ls.proven && ls.outcome === "draw") proven = "draw";
    else if (Math.abs(ls.score) > MATE) proven = red > 0 ? "red" : "yellow";
  }
  if (st.status === "over") proven = st.result?.winner || "draw";
  // the exact value, when known, overrules the engine's estimate (one evaluation)
  const known = app.viewPly === null && !(p && st.status === "thinking") ? knownValue(app) : null;
  if (known) proven = known.winner || "draw";
  let v = 0, text = "0", title = "balanced";
  if (proven) {
    v = proven === "red" ? 1 : proven === "yellow" ? -1 : 0;
    text = proven === "draw" ? "=" : `#${proven === "red" ? "R" : "Y"}${known?.n ? known.n : ""}`;
    title = known ? `${proven === "draw" ? "a draw" : `a win for ${proven}${known.n ? ` in ${known.n}` : ""}`} with best play, from ${known.from}`
      : proven === "draw" ? "a proven draw" : `a proven win for ${proven}`;
  } else if (red !== null) {
    v = squash(red);
    text = `≈${signed(red)}`;
    title = `the engine's estimate ${signed(red)} from red's side (not proven)`;
  }
  // only a program that searches has a score to show (random, greedy, ... do not)
  const ls = st.last_search;
  const searches = p || known || (ls && (ls.depth || ls.nodes || ls.proven || ls.book));
  bar.parentElement.classList.toggle("estimate", !proven);
  // hidden while looking back: the engine's score is about the game's position
  bar.parentElement.style.visibility = programColour && searches && app.viewPly === null ? "visible" : "hidden";
  // a transform, not a height: the fill's change is no layout shift
  const fill = bar.querySelector(".eval-red");
  fill.style.transform = `scaleY(${(50 + 50 * v) / 100})`;
  fill.dataset.share = String(Math.round((50 + 50 * v) * 10) / 10);
  bar.setAttribute("aria-valuenow", Math.round(v * 100));
  bar.setAttribute("aria-valuetext", title);
  bar.parentElement.title = `Evaluation: ${title}. Red fills from the bottom, the middle is balanced, full = proven win.`;
  $("eval-text").textContent = text;
}

/** The moves panel: every move with its verdict; `onPick(ply)` looks at a position. */
export function renderMoves(app, onPick) {
  const st = app.st;
  if (!st) return;
  const list = $("move-list");
  list.replaceChildren();
  const at = app.viewPly ?? st.ply;
  const mistake = app.verdicts ? firstMistake(st) : -1;
  st.moves.forEach((col, i) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    const v = app.verdicts ? moveVerdict(st, i) : null;
    b.innerHTML = `<span class="n">${i + 1}.</span>${chip(NAME[i % 2])}<span class="c">${col}</span><span class="v"></span>`;
    if (v) {
      b.querySelector(".v").textContent = v.change || v.after;
      b.title = v.change ? `Mistake: ${v.change}` : `keeps the ${v.after}`;
      if (v.change) li.classList.add("mistake");
    }
    if (i === mistake) li.classList.add("first-mistake");
    if (i + 1 === at) li.classList.add("current");
    li.dataset.ply = i + 1;
    b.addEventListener("click", () => onPick(i + 1));
    li.appendChild(b);
    list.appendChild(li);
  });
  const cur = list.querySelector(".current");
  if (cur) scrollWithin(list, cur);
  $("analysis-state").textContent = app.analysisNote;
  $("analysis-state").parentElement.title = app.analysisNote;
  $("nav-first").disabled = at === 0;
  $("nav-prev").disabled = at === 0;
  $("nav-next").disabled = at === st.ply;
  $("nav-last").disabled = at === st.ply;
}

/** Bring `item` into view inside the scrolling `list` without moving the page
 * (scrollIntoView would scroll the window too: on a phone, away from the board). */
function scrollWithin(list, item) {
  const l = list.getBoundingClientRect(), r = item.getBoundingClientRect();
  if (r.top < l.top) list.scrollTop -= l.top - r.top;
  else if (r.bottom > l.bottom) list.scrollTop += r.bottom - l.bottom;
}

/** The share panel: watch link, invite link while the seat is open, the seats. */
export function renderShare(app) {
  const st = app.st;
  const watch = st.watch_url || `${location.origin}/?game=${encodeURIComponent(st.id)}`;
  $("watch-link").value = watch;
  const openSeat = ["red", "yellow"].find((c) => st.seats[c]?.kind === "human" && !st.seats[c]?.joined);
  const showInvite = app.invite && app.invite.url && openSeat;
  $("invite-row").hidden = !showInvite;
  if (showInvite) $("invite-link").value = app.invite.url;
  const seatText = (c) => {
    const s = st.seats[c] || {};
    const who = c === app.seat ? "you" : s.kind === "opponent" ? levelName(s.spec) : s.kind === "llm" ? "LLM" : s.joined === false ? "open seat" : "person";
    return `${c === "red" ? "Red" : "Yellow"}: ${who}`;
  };
  $("seats").textContent = `${seatText("red")} · ${seatText("yellow")} · ${st.width} × ${st.height}, line ${st.k}${st.think_ms && st.seats[NAME[0]].kind + st.seats[NAME[1]].kind !== "humanhuman" ? ` · ${seconds(st.think_ms / 1000)} a move` : ""}`;
  $("seats").title = $("seats").textContent;
  const mode = $("mode");
  mode.hidden = !!app.seat;
  mode.textContent = "watching";
}
