// The settings (a strip on a wide window, a drawer on a narrow one): who
// starts, opponent, board size and line length, the think time. Who starts,
// the opponent and the size are edited together and applied on Start (Enter):
// an invalid combination is explained beside the fields and changes nothing.
// The think time applies at once. Values persist in localStorage. The think-time slider is
// logarithmic: position p in 0..1000 means 0.05 s * 1200^(p/1000), so the
// range 0.05 s .. 60 s has the same resolution at every scale and doubling is
// a fixed step.

import { seconds } from "./format.js";
import { levelName, levelTitle } from "./levels.js";

const KEY = "c4.settings";
export const THINK_MIN = 0.05;
export const THINK_MAX = 60;
const SPAN = Math.log(THINK_MAX / THINK_MIN);

export const toSlider = (s) => Math.round((1000 * Math.log(s / THINK_MIN)) / SPAN);
export const fromSlider = (p) => THINK_MIN * Math.exp((SPAN * p) / 1000);
const clampThink = (s) => Math.min(THINK_MAX, Math.max(THINK_MIN, s));

const DEFAULTS = { youStart: true, opponent: "engine:1000", width: 7, height: 6, k: 4, think: 1, hints: false, guarded: false };

export class Settings {
  constructor(root, { onChange, onStart } = {}) {
    this.root = root;
    this.onChange = onChange || (() => {});
    this.onStart = onStart || (() => {});
    let saved = {};
    try { saved = JSON.parse(localStorage.getItem(KEY) || "{}"); } catch { /* fresh */ }
    this.v = { ...DEFAULTS, ...saved };
    this.$ = (id) => root.querySelector(`#${id}`);
    this.opponent = this.$("opponent");
    this.starts = this.$("starts");
    this.width = this.$("width");
    this.height = this.$("height");
    this.k = this.$("k");
    this.think = this.$("think");
    this.thinkOut = this.$("think-value");

    this.think.min = 0; this.think.max = 1000; this.think.step = 1;
    this.budget = new Map(); // opponent spec -> does it use the think time (takes_budget)
    this.error = this.$("size-error");
    this.sync();
    this.think.addEventListener("input", () => { this.v.think = fromSlider(Number(this.think.value)); this.showThink(); });
    this.think.addEventListener("change", () => { this.save(); this.onChange("think"); });
    for (const f of [this.width, this.height, this.k]) f.addEventListener("input", () => this.showError(this.check(this.draft())));
    root.addEventListener("submit", (ev) => { ev.preventDefault(); this.start(); });
  }

  /** What the fields say now (not applied yet). */
  draft() {
    const num = (f) => (f.value.trim() === "" ? NaN : Number(f.value));
    return { youStart: this.starts.value === "you", opponent: this.opponent.value || this.v.opponent,
             width: num(this.width), height: num(this.height), k: num(this.k) };
  }

  /** Why a size and line length cannot be played, or null. */
  check({ width: w, height: h, k }) {
    if (![w, h, k].every(Number.isInteger)) return "Width, height and line length must be whole numbers.";
    if (w < 1 || h < 1 || w > 16 || h > 16) return `A ${w} × ${h} board is off the limits: 1 to 16 columns and 1 to 16 rows.`;
    if (k < 2 || (k > w && k > h)) return `A line of ${k} does not fit on a ${w} × ${h} board: a line is 2 to ${Math.max(w, h)} long here.`;
    return null;
  }

  showError(text) {
    this.error.textContent = text || "";
    for (const f of [this.width, this.height, this.k]) f.setAttribute("aria-invalid", String(!!text));
  }

  /** Start: apply the fields together and start a game, or explain why not. */
  start() {
    const d = this.draft();
    const bad = this.check(d);
    this.showError(bad);
    if (bad) return false;
    Object.assign(this.v, d);
    this.save();
    this.showThinkUse();
    this.onStart();
    return true;
  }

  sync() {
    this.starts.value = this.v.youStart ? "you" : "them";
    this.width.value = this.v.width;
    this.height.value = this.v.height;
    this.k.value = this.v.k;
    this.think.value = toSlider(this.v.think);
    this.showThink();
    if ([...this.opponent.options].some((o) => o.value === this.v.opponent)) this.opponent.value = this.v.opponent;
    this.showError(null);
    this.showThinkUse();
  }

  /** The think time means nothing to a person or to a player that does not
   * search on a clock (random, greedy, minimax:5, ...): say so beside it. The
   * slider stays usable (+ and − too): the time is kept for the next opponent. */
  showThinkUse() {
    const uses = this.v.opponent !== "human" && this.budget.get(this.v.opponent) !== false;
    const label = this.think.closest("label");
    if (!label) return;
    label.classList.toggle("unused", !uses);
    const why = this.v.opponent === "human" ? "Another person" : levelName(this.v.opponent);
    label.title = uses ? "" : `${why} does not use a think time.`;
  }

  showThink() {
    this.thinkOut.textContent = seconds(this.v.think);
    this.think.setAttribute("aria-valuetext", seconds(this.v.think));
  }

  save() { try { localStorage.setItem(KEY, JSON.stringify(this.v)); } catch { /* private mode */ } }

  /** Fill the opponent list: [{spec, family, description}], weakest first. */
  setOpponents(list) {
    const sel = this.opponent;
    sel.replaceChildren();
    const groups = new Map();
    for (const o of list) {
      const label = o.family === "human" ? "People" : o.family === "perfect" ? "Perfect" : "Ladder";
      if (!groups.has(label)) {
        const g = document.createElement("optgroup");
        g.label = label;
        groups.set(label, g);
        sel.appendChild(g);
      }
      const opt = document.createElement("option");
      opt.value = o.spec;
      opt.textContent = o.spec === "human" ? "Another person (invite link)" : levelName(o.spec);
      opt.title = levelTitle(o);
      if (o.takes_budget !== undefined) this.budget.set(o.spec, !!o.takes_budget);
      groups.get(label).appendChild(opt);
    }
    if (![...sel.options].some((o) => o.value === this.v.opponent)) {
      const opt = document.createElement("option");
      opt.value = this.v.opponent;
      opt.textContent = levelName(this.v.opponent);
      opt.title = this.v.opponent;
      sel.prepend(opt);
    }
    sel.value = this.v.opponent;
    this.showThinkUse();
  }

  /** Why the applied size cannot be played (1..16 a side, line 2..max(width, height)), or null. */
  sizeError() { return this.check(this.v); }

  swapStarter() { this.v.youStart = !this.v.youStart; this.starts.value = this.v.youStart ? "you" : "them"; this.save(); }

  /** + and − double and halve the think time. */
  scaleThink(factor) {
    this.v.think = clampThink(this.v.think * factor);
    this.sync();
    this.save();
    this.onChange("think");
  }

  get thinkMs() { return Math.round(clampThink(this.v.think) * 1000); }

  /** The body of POST /api/v1/games. */
  createRequest() {
    const { width, height, k, opponent, youStart, hints, guarded } = this.v;
    return { width, height, k, opponent, you: youStart ? "red" : "yellow", think_ms: this.thinkMs, player: "human", hints: !!hints,
      guarded: !!guarded };
  }

  /** Show the settings of a game this page plays in (opened by its link, or
   * after a reload), so the strip describes the game on the board. */
  adopt(st, seat) {
    const other = st.seats[seat === "red" ? "yellow" : "red"] || {};
    const opponent = other.kind === "opponent" ? other.spec : "human";
    Object.assign(this.v, { width: st.width, height: st.height, k: st.k, youStart: seat === "red", opponent, hints: !!st.hints_on,
      guarded: !!(st.seats[seat] && st.seats[seat].guarded) });
    if (st.think_ms) this.v.think = clampThink(st.think_ms / 1000);
    if (![...this.opponent.options].some((o) => o.value === opponent)) {
      const opt = document.createElement("option");
      opt.value = opponent;
      opt.textContent = levelName(opponent);
      opt.title = opponent;
      this.opponent.prepend(opt);
    }
    this.sync();
    this.save();
  }

  /** The hint rings' state, kept for the next game. */
  rememberHints(on) { this.v.hints = !!on; this.save(); }

  /** The "guard my moves" switch, kept for the next game. */
  rememberGuard(on) { this.v.guarded = !!on; this.save(); }
}
