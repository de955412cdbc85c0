// Keys, one table for the handler and the About box. Columns: 1-9 and a-g
// (letters only up to g, so they never clash with the command letters); past 9
// columns the column's number typed as two digits (js/column-keys.js).

import { ColumnKeys } from "./column-keys.js";

export const KEYS = [
  [["1 … 9", "a … g"], "drop a disc in that column"],
  [["1 0 … 1 6"], "past 9 columns: type the column's number (1 alone plays after a moment, or at once with Enter)"],
  [["←", "→", "Enter"], "move the column cursor, drop"],
  [["N"], "new game (the settings as applied)"],
  [["S"], "swap who starts and restart (after a game: swap and rematch)"],
  [["U"], "undo (also while the engine thinks)"],
  [["H"], "hint rings on / off"],
  [["X"], "show solution on / off"],
  [["+", "\u2212"], "double / halve the think time"],
  [[",", "."], "step back / forward through the moves"],
  [["Home", "End"], "first position / back to the game"],
  [["M"], "jump to the first mistake"],
  [["L"], "copy the share link"],
  [["?"], "about and keys"],
  [["Enter"], "in the settings: Start with what the fields say"],
  [["Esc"], "close this box, the settings or the result; back to the game"],
];

/**
 * @param {object} actions callbacks: column(n), cursor(delta), pointAt(col),
 *   dropCursor(), width(), newGame, swap, undo, hints, solution, think(factor),
 *   step(delta), first, last, mistake, share, about, escape
 */
export function bindKeys(actions) {
  const columns = new ColumnKeys({
    width: actions.width, play: actions.column, point: actions.pointAt,
    mayPlay: () => !isTyping(document.activeElement) && !document.querySelector("dialog[open]"),
  });
  document.addEventListener("pointerdown", () => columns.cancel()); // a click or a tap chose instead
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    const typing = isTyping(t);
    const k = ev.key;
    const boxOpen = Boolean(document.querySelector("dialog[open]"));
    // Enter and Space belong to a focused button, link or control (the think slider)
    const drops = k === "ArrowDown" || ((k === "Enter" || k === " ") && !(t && ["BUTTON", "A", "INPUT"].includes(t.tagName)));
    if (columns.waiting && (typing || boxOpen || !(/^[0-9]$/.test(k) || drops))) columns.cancel();
    if (ev.key === "Escape") {
      // out of a form control, so the game's keys work again (keyboard-only play)
      if (typing && !document.querySelector("dialog[open]")) t.blur();
      actions.escape?.();
      return;
    }
    if (boxOpen) return; // the About box is up: its keys only
    if (typing) return;
    if (t && t.tagName === "INPUT" && t.type === "range" && ev.key.startsWith("Arrow")) return; // the slider's own keys
    let done = true;
    if (/^[0-9]$/.test(k)) done = columns.digit(Number(k));
    else if (/^[a-g]$/.test(k)) actions.column(k.charCodeAt(0) - 96);
    else if (k === "ArrowLeft") actions.cursor(-1);
    else if (k === "ArrowRight") actions.cursor(1);
    else if (drops) {
      if (!columns.now()) actions.dropCursor();
    }
    else if (k === "n" || k === "N") actions.newGame();
    else if (k === "s" || k === "S") actions.swap();
    else if (k === "u" || k === "U") actions.undo();
    else if (k === "h" || k === "H") actions.hints();
    else if (k === "x" || k === "X") actions.solution();
    else if (k === "+" || k === "=") actions.think(2);
    else if (k === "-" || k === "_" || k === "\u2212") actions.think(0.5);
    else if (k === "," || k === "PageUp") actions.step(-1);
    else if (k === "." || k === "PageDown") actions.step(1);
    else if (k === "Home") actions.first();
    else if (k === "End") actions.last();
    else if (k === "m" || k === "M") actions.mistake();
    else if (k === "l" || k === "L") actions.share();
    else if (k === "?") actions.about();
    else done = false;
    if (done) ev.preventDefault();
  });
}

/** A control that takes typed keys (the think slider and checkboxes do not). */
function isTyping(t) {
  return Boolean(t && (t.tagName === "INPUT" && t.type !== "range" && t.type !== "checkbox" || t.tagName === "SELECT" || t.tagName === "TEXTAREA"));
}
