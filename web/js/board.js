// The board as SVG: crisp at any size because everything lives in a viewBox
// of 100 units per cell. Layers, back to front: discs (they fall behind the
// frame), the frame with its holes (an SVG mask), then marks drawn on top
// (last move, winning line, hint rings, ghost), then one transparent hit
// strip per column for the mouse and touch.

import { verdict, verdictText, signed } from "./format.js";
import { provenBest } from "./analysis.js";

const NS = "http://www.w3.org/2000/svg";
const CELL = 100;
const R = 41; // disc radius
const TOP = 70; // strip above the board: the solution's scores
const BOTTOM = 34; // strip below: column numbers (taller on big boards, see labelScale)

/** Column numbers grow with the board (a 16-wide board draws its cells at less than half
 * a 7-wide one's size), so they keep about the 7 x 6 board's size on the screen. */
function labelScale(width, height) {
  return Math.min(2.4, Math.max(1, Math.max(width, height) / 7));
}

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

export class BoardView {
  /**
   * @param {SVGSVGElement} svg
   * @param {{onColumn:(col:number)=>void, onHover?:(col:number|null)=>void}} handlers
   */
  constructor(svg, handlers) {
    this.svg = svg;
    this.handlers = handlers;
    this.size = null;
    this.discs = new Map(); // "c,r" -> <g>
    this.hover = null;
    this.cursor = null; // keyboard cursor column
    this.interactive = false;
    this.game = null;
    this.landsAt = 0; // performance.now() when the last falling disc lands
    this.settled = Promise.resolve(); // resolves when every falling disc has landed
    this.marksGen = 0;
    this.lastDrop = null; // the animation of the disc that falls last
  }

  /** Milliseconds until the disc that falls last has landed, on the document's
   * timeline (the one the animations run on). */
  untilLanded() {
    const a = this.lastDrop;
    if (!a || a.playState === "finished" || !a.effect) return 0;
    const t = a.effect.getTiming();
    const now = document.timeline.currentTime;
    // not started yet (startTime null): it starts at the next frame, as a new one would
    const start = a.startTime ?? now;
    return Math.max(0, start + t.delay + t.duration - now);
  }

  /** Is a disc still falling? */
  get falling() { return performance.now() < this.landsAt; }

  /** x, y of a cell centre, 1-based column and row (row 1 = bottom). */
  centre(col, row) {
    return [(col - 0.5) * CELL, TOP + (this.size.height - row + 0.5) * CELL];
  }

  build(width, height) {
    this.size = { width, height };
    this.discs.clear();
    const svg = this.svg;
    svg.replaceChildren();
    const W = width * CELL, H = height * CELL;
    const scale = labelScale(width, height);
    const BOTTOM = Math.round(34 * scale);
    const PAD = 6; // room for the frame's stroke
    svg.setAttribute("viewBox", `${-PAD} 0 ${W + 2 * PAD} ${TOP + H + BOTTOM}`);
    svg.style.setProperty("--ratio", String((W + 2 * PAD) / (TOP + H + BOTTOM)));
    // the eval bar beside the board lines up with the frame, not the strips
    svg.parentElement?.style.setProperty("--board-rows", `${TOP}fr ${H}fr ${BOTTOM}fr`);
    svg.dataset.width = width;
    svg.dataset.height = height;

    const defs = el("defs", {}, svg);
    // the mask spans the padding too, or it would cut the outer half of the frame's stroke
    const mask = el("mask", { id: "holes", maskUnits: "userSpaceOnUse", x: -PAD, y: 0, width: W + 2 * PAD, height: TOP + H + BOTTOM }, defs);
    el("rect", { x: -PAD, y: 0, width: W + 2 * PAD, height: TOP + H + BOTTOM, fill: "white" }, mask);
    for (let c = 1; c <= width; c++)
      for (let r = 1; r <= height; r++) {
        const [x, y] = this.centre(c, r);
        el("circle", { cx: x, cy: y, r: R + 1, fill: "black" }, mask);
      }

    el("rect", { class: "well", x: 0, y: TOP, width: W, height: H, rx: 18 }, svg);
    this.discLayer = el("g", { class: "discs" }, svg);
    el("rect", { class: "frame", x: 0, y: TOP, width: W, height: H, rx: 18, mask: "url(#holes)" }, svg);
    this.markLayer = el("g", { class: "marks", "pointer-events": "none" }, svg);
    this.solutionLayer = el("g", { class: "solution", "pointer-events": "none" }, svg);
    this.ghostLayer = el("g", { class: "ghosts", "pointer-events": "none" }, svg);

    const labels = el("g", { class: "col-labels", "pointer-events": "none" }, svg);
    for (let c = 1; c <= width; c++) {
      const t = el("text", { x: (c - 0.5) * CELL, y: TOP + H + Math.round(26 * scale), style: `font-size: ${Math.round(24 * scale)}px` }, labels);
      t.textContent = String(c);
    }

    this.hitLayer = el("g", { class: "hits" }, svg);
    for (let c = 1; c <= width; c++) {
      const hit = el("rect", {
        class: "hit", x: (c - 1) * CELL, y: 0, width: CELL, height: TOP + H + BOTTOM,
        "data-col": c, role: "button", "aria-label": `Drop a disc in column ${c}`,
      }, this.hitLayer);
      hit.addEventListener("pointerenter", () => this.setHover(c));
      hit.addEventListener("pointermove", () => { if (this.hover !== c) this.setHover(c); });
      hit.addEventListener("pointerleave", () => { if (this.hover === c) this.setHover(null); });
      hit.addEventListener("click", (ev) => { ev.preventDefault(); this.handlers.onColumn(c); });
    }
  }

  setHover(col) {
    this.hover = col;
    if (this.handlers.onHover) this.handlers.onHover(col);
    this.drawGhost();
    if (this.game) this.drawSolution();
  }

  setCursor(col) {
    this.cursor = col;
    this.drawGhost();
    if (this.game) this.drawSolution();
  }

  makeDisc(player, col, row) {
    const [x, y] = this.centre(col, row);
    const g = el("g", { class: `disc p${player}`, "data-col": col, "data-row": row, "data-player": player });
    const inner = el("g", { transform: `translate(${x} ${y})` }, g);
    el("circle", { class: "body", r: R }, inner);
    // The two sides differ in marking, not only in colour: red carries a
    // ring, yellow a diamond.
    if (player === 0) el("circle", { class: "mark", r: 23 }, inner);
    else el("path", { class: "mark", d: "M0 -22 L22 0 L0 22 L-22 0 Z" }, inner);
    return g;
  }

  /**
   * Draw a position. `view` = {game, interactive, hints, solution, animate,
   * lastMove, colourToMove, override (the gateway's gate override: proposed and
   * played 1-based columns)}. New discs (the game grew since the last draw)
   * fall in with a short gravity animation, one after the other.
   */
  render(game, view = {}) {
    if (!this.size || this.size.width !== game.width || this.size.height !== game.height) this.build(game.width, game.height);
    this.game = game;
    this.view = view;
    this.interactive = !!view.interactive;
    this.svg.classList.toggle("interactive", this.interactive);
    this.svg.dataset.ply = game.ply;

    // discs: keep the ones still there, drop the ones gone (undo), add new
    const heights = Array(game.width).fill(0);
    const keep = new Set();
    const added = [];
    game.moves.forEach((col, i) => {
      const row = ++heights[col - 1];
      const player = i % 2;
      const key = `${col},${row}`;
      keep.add(key);
      const old = this.discs.get(key);
      if (old && Number(old.dataset.player) === player) return;
      if (old) old.remove();
      const disc = this.makeDisc(player, col, row);
      this.discLayer.appendChild(disc);
      this.discs.set(key, disc);
      added.push({ disc, row, i });
    });
    for (const [key, disc] of this.discs) if (!keep.has(key)) { disc.remove(); this.discs.delete(key); }

    // New discs fall one after the other: a reply waits until the disc before
    // it (still falling from an earlier draw, perhaps) has landed.
    if (view.animate && added.length && added.length <= 2) {
      let delay = this.untilLanded();
      for (const { disc, row } of added) {
        const a = this.drop(disc, row, delay);
        if (a) { this.lastDrop = a; delay += a.effect.getTiming().duration; }
      }
      this.landsAt = performance.now() + delay;
    }
    // the last-move mark and the winning line appear once the disc is in place
    const gen = ++this.marksGen;
    this.markLayer.replaceChildren();
    const pending = this.svg.getAnimations({ subtree: true }).filter((a) => a.playState === "running");
    this.settled = pending.length ? Promise.allSettled(pending.map((a) => a.finished)).then(() => undefined) : Promise.resolve();
    if (pending.length) this.settled.then(() => { if (gen === this.marksGen) this.drawMarks(); });
    else this.drawMarks();
    this.drawSolution();
    this.drawGhost();
  }

  /** Gravity: falls from the top of the drawing (never cut by its edge),
   * accelerating; returns the animation, or null under reduced motion. */
  drop(disc, row, delay) {
    // from a centre one radius below the drawing's top edge to the cell's centre
    const fall = this.centre(1, row)[1] - R - 2;
    const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    if (reduced) return null; // people who asked for less motion get the disc in place at once
    const ms = Math.round(140 + 55 * Math.sqrt(this.size.height - row + 1));
    disc.classList.add("falling");
    const anim = disc.animate(
      [{ transform: `translate(0px, ${-fall}px)` }, { transform: "translate(0px, 0px)" }],
      { duration: ms, delay, easing: "cubic-bezier(0.5, 0, 0.9, 0.55)", fill: "backwards" },
    );
    anim.onfinish = () => disc.classList.remove("falling");
    return anim;
  }

  drawMarks() {
    const layer = this.markLayer;
    layer.replaceChildren();
    const game = this.game;
    const view = this.view;
    if (game.ply && view.lastMove !== false) {
      const col = game.moves[game.ply - 1];
      const [x, y] = this.centre(col, game.heights[col - 1]);
      el("circle", { class: "last-move", cx: x, cy: y, r: R + 3 }, layer);
      el("circle", { class: "last-dot", cx: x, cy: y, r: 6 }, layer);
    }
    // every cell of every completed line (the gateway's winning_cells),
    // and a stroke through the line the last move made
    const cells = view.winLine || game.winLine;
    const line = game.winLine || cells;
    if (cells && cells.length) {
      for (const [c, r] of cells) {
        const [x, y] = this.centre(c, r);
        el("circle", { class: "win-cell", cx: x, cy: y, r: R - 2, "data-col": c, "data-row": r }, layer);
      }
    }
    if (line && line.length) {
      const [x1, y1] = this.centre(...line[0]);
      const [x2, y2] = this.centre(...line[line.length - 1]);
      el("line", { class: "win-line-under", x1, y1, x2, y2 }, layer);
      el("line", { class: "win-line", x1, y1, x2, y2 }, layer);
    }
    // a gate override: the rejected column flashes amber, the column played is green
    const o = view.override;
    if (o) {
      const H = this.size.height * CELL;
      const rejected = el("rect", { class: "gate-col gate-rejected", x: (o.proposed - 1) * CELL + 4, y: TOP + 4, width: CELL - 8, height: H - 8, rx: 14, "data-col": o.proposed }, layer);
      // SMIL, not CSS: the page waits on document animations (discs falling), never on this flash
      const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      if (!reduced) el("animate", { attributeName: "opacity", values: "1;0.25;1", dur: "0.9s", repeatCount: "3" }, rejected);
      el("rect", { class: "gate-col gate-played", x: (o.played - 1) * CELL + 4, y: TOP + 4, width: CELL - 8, height: H - 8, rx: 14, "data-col": o.played }, layer);
    }
    const hints = view.hints;
    if (hints && !game.isOver) {
      const rings = new Map();
      for (const c of hints.losing_moves || []) rings.set(c, ["lose"]);
      for (const c of hints.must_block || []) rings.set(c, [...(rings.get(c) || []), "block"]);
      for (const c of hints.winning_moves || []) rings.set(c, ["win"]);
      for (const [c, kinds] of rings) {
        const row = game.nextRow(c);
        if (!row) continue;
        const [x, y] = this.centre(c, row);
        const g = el("g", { class: `hint ${kinds.join(" ")}`, "data-col": c, "data-kind": kinds.join(" ") }, layer);
        const ringKind = kinds.includes("win") ? "win" : kinds.includes("block") ? "block" : "lose";
        el("circle", { class: `ring ring-${ringKind}`, cx: x, cy: y, r: R - 4 }, g);
        if (kinds.includes("lose")) {
          const d = 17;
          el("path", { class: "cross", d: `M${x - d} ${y - d} L${x + d} ${y + d} M${x + d} ${y - d} L${x - d} ${y + d}` }, g);
        }
      }
    }
  }

  drawSolution() {
    const layer = this.solutionLayer;
    layer.replaceChildren();
    const sol = this.view.solution;
    const game = this.game;
    if (!sol) {
      // a first-move prompt in the strip the scores use otherwise
      if (this.view.prompt && this.hover === null && this.cursor === null) {
        const t = el("text", { class: "prompt", x: (game.width * CELL) / 2, y: TOP / 2 + 8 }, layer);
        t.textContent = this.view.prompt;
      }
      return;
    }
    if (sol.loading || sol.error) {
      const t = el("text", { class: "sol-loading", x: (game.width * CELL) / 2, y: TOP / 2 + 8 }, layer);
      // the whole message is in the status details; the board says it short
      t.textContent = sol.loading ? `solving…${sol.seconds ? ` ${sol.seconds} s` : ""}`
        : sol.cancelled ? "solving cancelled" : sol.unavailable ? "no analysis on this board" : "not proven: see above";
      return;
    }
    const scores = sol.scores || {};
    const unknown = sol.unknown || [];
    // the star marks the best move only when every playable column is proven
    const best = unknown.length ? null : provenBest(sol);
    for (let c = 1; c <= game.width; c++) {
      const s = scores[c];
      if (unknown.includes(c)) { this.drawUnknown(layer, c); continue; }
      if (s === null || s === undefined) continue;
      const v = verdict(s, game.ply, game.width, game.height);
      const x = (c - 0.5) * CELL;
      const g = el("g", { class: `sol ${v.kind}${s === best ? " best" : ""}`, "data-col": c, "data-score": s }, layer);
      el("rect", { class: "sol-bg", x: x - 46, y: 4, width: 92, height: TOP - 10, rx: 10 }, g);
      const a = el("text", { class: "sol-score", x, y: 34 }, g);
      a.textContent = signed(s);
      const b = el("text", { class: "sol-text", x, y: 56 }, g);
      b.textContent = v.kind === "draw" ? "draw" : `${v.kind === "win" ? "win" : "loss"} ${v.n}`;
      if (s === best) el("text", { class: "sol-star", x: x + 33, y: 24 }, g).textContent = "★";
      const title = el("title", {}, g);
      title.textContent = `Column ${c}: ${verdictText(v)} (score ${signed(s)})${s === best ? ", the best move" : ""}`;
    }
  }

  /** A playable column the solver did not prove: "?", said, never guessed. */
  drawUnknown(layer, c) {
    const x = (c - 0.5) * CELL;
    const g = el("g", { class: "sol unknown", "data-col": c }, layer);
    el("rect", { class: "sol-bg", x: x - 46, y: 4, width: 92, height: TOP - 10, rx: 10 }, g);
    el("text", { class: "sol-score", x, y: 34 }, g).textContent = "?";
    el("text", { class: "sol-text", x, y: 56 }, g).textContent = "unknown";
    el("title", {}, g).textContent = `Column ${c}: not proven (the solver could not decide it)`;
  }

  drawGhost() {
    const layer = this.ghostLayer;
    if (!layer) return;
    layer.replaceChildren();
    const game = this.game;
    if (!game || !this.interactive || game.isOver) return;
    const col = this.hover ?? this.cursor;
    if (!col) return;
    const [cx] = this.centre(col, 1);
    el("rect", { class: "col-highlight", x: cx - CELL / 2 + 4, y: TOP + 2, width: CELL - 8, height: this.size.height * CELL - 4, rx: 14 }, layer);
    const row = game.nextRow(col);
    if (!row) return;
    // a pointer above the column, unless the solution's scores are there
    if (!this.view.solution) el("path", { class: `col-pointer p${game.toMove}`, d: `M${cx - 22} ${TOP - 40} L${cx + 22} ${TOP - 40} L${cx} ${TOP - 12} Z` }, layer);
    const ghost = this.makeDisc(game.toMove, col, row);
    ghost.classList.add("ghost");
    layer.appendChild(ghost);
  }
}
