// Opponent levels as a player reads them: one table from the engine's specs
// (GET /api/v1/opponents) to a name, strongest last. The spec and the engine's
// own description go in the tooltip and the About box. A spec this table does
// not know (a learned player, a new family) gets a name from its family.

import { seconds } from "./format.js";

const NAMED = {
  random: "Beginner",
  easy: "Casual",
  greedy: "Novice",
  medium: "Club",
  gated: "Tactician",
  hard: "Strong",
  perfect: "Perfect",
  human: "Another person",
};

const FAMILY = {
  minimax: (n) => `Look-ahead ${n}`,
  mcts: (n) => `Explorer ${Number(n) >= 1000 ? `${Number(n) / 1000}k` : n}`,
  engine: (n) => `Engine ${seconds(Number(n) / 1000)}`,
};

const BARE_ENGINE_MS = 2000; // "engine" with no budget (engine_svc/players)

/** "engine:1000" -> "Engine 1 s", "random" -> "Beginner", "learned:x" -> "Learned x". */
export function levelName(spec) {
  const s = String(spec || "engine").trim();
  if (NAMED[s]) return NAMED[s];
  if (s === "engine") return FAMILY.engine(BARE_ENGINE_MS);
  const [family, arg] = s.split(":");
  if (FAMILY[family] && arg !== undefined && /^\d+$/.test(arg)) return FAMILY[family](arg);
  const word = family.replace(/[_-]+/g, " ");
  return word.charAt(0).toUpperCase() + word.slice(1) + (arg ? ` ${arg}` : "");
}

/** The tooltip of a level: its spec and what it is. */
export function levelTitle(o) {
  return o.description ? `${o.spec}: ${o.description}` : o.spec;
}
