// Per-column probability bars for a learned opponent (net, az:N, dqn), as the
// published study's demo showed them: one bar over each column, its height
// the probability the player gave that column, and the player's value of the
// position. The engine sends both in its move's message
// ("p=a:0.012,b:0.080,...,g:0.003 v=+0.412", docs/learned.md); this module
// parses it and draws the bars in the board's top strip, the page's
// `#column-slot` (docs/web.md), each bar over its column. Nothing here changes
// the game.

const LEARNED = /^(net|dqn|az(:\d+)?)$/;
const MESSAGE = /p=((?:[a-z]:[0-9.]+,?)+)\s+v=([+-]?[0-9.]+)/;

/** {probs: [..], value} from a learned player's message, or null. */
export function parseLearned(message) {
  const m = MESSAGE.exec(message || "");
  if (!m) return null;
  const probs = m[1].split(",").filter(Boolean).map((part) => Number(part.split(":")[1]));
  const value = Number(m[2]);
  if (probs.some((p) => !Number.isFinite(p)) || !Number.isFinite(value)) return null;
  return { probs, value };
}

/** The message without its probabilities (for the detail line). */
export function stripLearned(message) {
  return (message || "").replace(MESSAGE, "").trim();
}

export function isLearned(spec) { return LEARNED.test(spec || ""); }

// the strip's own styles, so the module stands alone (no edit of style.css)
const CSS = `
.learned-bars { position: relative; display: grid; grid-template-columns: repeat(var(--cols), 1fr); align-items: end;
  gap: 0 8%; height: 2.6rem; padding: .15rem .9% 0; font-size: .7rem; }
.learned-bars .lb-col { position: relative; height: 100%; display: flex; flex-direction: column; justify-content: flex-end; }
.learned-bars .lb-bar { background: color-mix(in srgb, currentColor 35%, transparent); border-radius: 2px 2px 0 0; }
.learned-bars .lb-col.played .lb-bar { background: currentColor; }
.learned-bars .lb-pct { text-align: center; line-height: 1.1; }
.learned-bars .lb-value { position: absolute; right: .2rem; top: 0; white-space: nowrap; }
`;

function slot() {
  if (!document.getElementById("learned-bars-css")) {
    const style = document.createElement("style");
    style.id = "learned-bars-css";
    style.textContent = CSS;
    document.head.appendChild(style);
  }
  return document.getElementById("column-slot");
}

/** Draw (or hide) the bars from the game state `st` (the gateway's document). */
export function renderLearnedBars(st, viewPly = null) {
  const host = slot();
  if (!host) return;
  const ls = st?.last_search;
  const seat = ["red", "yellow"].map((c) => st?.seats?.[c]).find((x) => x?.kind === "opponent");
  const parsed = ls && isLearned(seat?.spec || ls.player) ? parseLearned(ls.message) : null;
  if (!parsed || viewPly !== null || parsed.probs.length !== st.width) { host.replaceChildren(); return; }
  const who = seat?.spec || ls.player;
  const el = document.createElement("div");
  el.id = "learned-bars";
  el.className = "learned-bars";
  el.setAttribute("role", "img");
  el.style.setProperty("--cols", String(st.width));
  el.innerHTML = parsed.probs.map((p, c) => {
    const pct = Math.round(p * 100);
    const played = ls.col === c + 1 ? " played" : "";
    return `<div class="lb-col${played}" title="column ${c + 1}: ${pct} %"><div class="lb-bar" style="height:${Math.max(2, pct)}%"></div><span class="lb-pct">${pct}</span></div>`;
  }).join("") + `<div class="lb-value" title="${who}'s value of the position it faced, from its side: -1 lost, 0 even, +1 won">v ${parsed.value >= 0 ? "+" : ""}${parsed.value.toFixed(2)}</div>`;
  el.setAttribute("aria-label", `${who}'s probability per column: ${parsed.probs.map((p, c) => `${c + 1}: ${Math.round(p * 100)} %`).join(", ")}; its value ${parsed.value.toFixed(2)}`);
  host.replaceChildren(el);
}
