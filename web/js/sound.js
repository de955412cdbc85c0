// Optional sound: a short knock when a disc lands and a chord at the end of a
// game. Off by default; the Sound switch turns it on and is remembered. Made
// with the Web Audio API (no files to load). document.body.dataset.sounds
// counts the sounds played, for the tests.

const KEY = "c4.sound";
let ctx = null;

export function soundOn() {
  try { return localStorage.getItem(KEY) === "on"; } catch { return false; }
}

export function setSound(on) {
  try { localStorage.setItem(KEY, on ? "on" : "off"); } catch { /* private mode */ }
}

function tone(freq, at, ms, gain = 0.12) {
  const osc = ctx.createOscillator();
  const g = ctx.createGain();
  osc.frequency.value = freq;
  g.gain.setValueAtTime(gain, at);
  g.gain.exponentialRampToValueAtTime(0.0001, at + ms / 1000);
  osc.connect(g).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + ms / 1000 + 0.02);
}

/** kind: "land" | "win" | "loss" | "draw" */
export function play(kind) {
  if (!soundOn()) return;
  document.body.dataset.sounds = String(Number(document.body.dataset.sounds || 0) + 1);
  try {
    ctx = ctx || new AudioContext();
    const t = ctx.currentTime + 0.01;
    if (kind === "land") tone(180, t, 90, 0.2);
    else if (kind === "win") [523, 659, 784].forEach((f, i) => tone(f, t + i * 0.12, 260));
    else if (kind === "loss") [392, 330, 262].forEach((f, i) => tone(f, t + i * 0.14, 280));
    else tone(440, t, 300);
  } catch { /* no audio device: silence */ }
}
