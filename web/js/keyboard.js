// Keys, one table for the handler and the About box. Columns: 1-9 and a-g
// (letters only up to g, so they never clash with the command letters).

export const KEYS = [
  [["1 … 9", "a … g"], "drop a disc in that column"],
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
 * @param {object} actions callbacks: column(n), cursor(delta), dropCursor(),
 *   newGame, swap, undo, hints, solution, think(factor), step(delta),
 *   first, last, mistake, share, about, escape
 */
export function bindKeys(actions) {
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    const typing = t && (t.tagName === "INPUT" && t.type !== "range" && t.type !== "checkbox" || t.tagName === "SELECT" || t.tagName === "TEXTAREA");
    if (ev.key === "Escape") {
      // out of a form control, so the game's keys work again (keyboard-only play)
      if (typing && !document.querySelector("dialog[open]")) t.blur();
      actions.escape?.();
      return;
    }
    if (document.querySelector("dialog[open]")) return; // the About box is up: its keys only
    if (typing) return;
    if (t && t.tagName === "INPUT" && t.type === "range" && ev.key.startsWith("Arrow")) return; // the slider's own keys
    const k = ev.key;
    let done = true;
    if (/^[1-9]$/.test(k)) actions.column(Number(k));
    else if (/^[a-g]$/.test(k)) actions.column(k.charCodeAt(0) - 96);
    else if (k === "ArrowLeft") actions.cursor(-1);
    else if (k === "ArrowRight") actions.cursor(1);
    // Enter and Space belong to a focused button, link or control (the think slider)
    else if (k === "ArrowDown" || ((k === "Enter" || k === " ") && !(t && ["BUTTON", "A", "INPUT"].includes(t.tagName)))) actions.dropCursor();
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
