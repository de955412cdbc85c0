// The result of a finished game in words: who won and how (the line, a
// resignation, or a full board), for the banner over the board.

import { Game } from "./game.js";

const LETTERS = "abcdefghijklmnop";
const cell = ([c, r]) => `${LETTERS[c - 1]}${r}`;

/** A completed line as a person reads it: "four in a row from c1 to f1". */
export function lineText(line, k) {
  const n = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"][k] || String(k);
  const [a, b] = [line[0], line[line.length - 1]];
  const shape = a[1] === b[1] ? "across" : a[0] === b[0] ? "up" : "diagonally";
  return `${n} in a row ${shape}, from ${cell(a)} to ${cell(b)}`;
}

/** {headline, how, outcome: "win"|"loss"|"draw"|"other"} for the player `seat` (null: a watcher). */
export function describeResult(st, seat, nameOf) {
  const r = st.result || {};
  if (!r.winner) return { headline: "Draw.", how: "The board is full and nobody has a line.", outcome: "draw" };
  const loser = r.winner === "red" ? "yellow" : "red";
  const headline = r.winner === seat ? "You win!" : loser === seat ? `${nameOf(r.winner)} wins.` : `${nameOf(r.winner)} (${r.winner}) wins.`;
  let how;
  if (r.reason === "resigned" || st.resigned) how = `${nameOf(loser)} resigned: it proved its own loss.`;
  else {
    const line = Game.from(st).winLine;
    how = line ? `${lineText(line, st.k)[0].toUpperCase()}${lineText(line, st.k).slice(1)}.` : "";
  }
  const outcome = !seat ? "other" : r.winner === seat ? "win" : "loss";
  return { headline, how, outcome };
}
