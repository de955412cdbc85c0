// Numbers for people. Negative numbers always carry a real minus sign
// (U+2212), which no font draws as a hyphen-sized dash that gets lost.

export const MINUS = "\u2212";

/** Signed integer: "+3", "0", "−2". */
export function signed(n) {
  if (n === null || n === undefined || Number.isNaN(n)) return "–";
  if (n > 0) return `+${n}`;
  if (n < 0) return `${MINUS}${Math.abs(n)}`;
  return "0";
}

/** 1234567 -> "1.23 M" */
export function count(n) {
  if (n === null || n === undefined) return "–";
  if (n < 1000) return String(n);
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 2 : 1)} k`;
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1)} M`;
  return `${(n / 1e9).toFixed(2)} G`;
}

/** milliseconds -> "12 ms" / "1.5 s" */
export function millis(ms) {
  if (ms === null || ms === undefined) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
  return `${(ms / 60000).toFixed(1)} min`;
}

/** think time in seconds -> "50 ms" / "1.6 s" / "60 s" */
export function seconds(s) {
  if (s < 1) return `${Math.round(s * 1000)} ms`;
  if (s < 10) return `${s.toFixed(s < 2 ? 2 : 1).replace(/\.?0+$/, "")} s`;
  return `${Math.round(s)} s`;
}

/**
 * A solver score (Pons: positive = the side to move wins, larger = sooner)
 * for the column played by the side to move when `ply` stones are on a
 * width x height board, as a verdict a person reads.
 *   win in n:  the mover's n-th own stone from now (this one included) wins
 *   loss in n: the opponent's n-th stone from now wins
 */
export function verdict(score, ply, width, height) {
  if (score === null || score === undefined) return null;
  const cells = width * height;
  if (score > 0) return { kind: "win", n: Math.floor((cells + 1 - ply) / 2) - score + 1 };
  if (score < 0) return { kind: "loss", n: Math.floor((cells - ply) / 2) + score + 1 };
  return { kind: "draw", n: null };
}

export function verdictText(v) {
  if (!v) return "";
  if (v.kind === "draw") return "draw";
  return `${v.kind} in ${v.n}`;
}

/** An engine score: heuristic scores are small; beyond 100000 they are proven
 * (engine_svc/search.py: MATE + cells + 1 - the stone number that wins). */
export function engineScore(score) {
  if (score === null || score === undefined) return "–";
  if (Math.abs(score) > 100000) return score > 0 ? "forced win" : "forced loss";
  return signed(score);
}
