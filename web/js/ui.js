// Small page helpers: the alert line (refused moves, services down) and copying links.

let hideTimer = null;

/** kind: "error" (a refused action), "info", or "down" (gateway/service outage; stays until cleared). */
export function showAlert(text, kind = "error", ms = 0) {
  const box = document.getElementById("alert");
  clearTimeout(hideTimer);
  box.textContent = text;
  box.dataset.kind = kind;
  box.className = `alert${kind === "info" ? " info" : ""}`;
  box.hidden = false;
  if (ms) hideTimer = setTimeout(() => { if (box.textContent === text) clearAlert(); }, ms);
}

/** Clear the alert (only when it is of one of `kinds`, if given). */
export function clearAlert(kinds = null) {
  const box = document.getElementById("alert");
  if (kinds && !kinds.includes(box.dataset.kind)) return;
  box.hidden = true;
  box.textContent = "";
  box.dataset.kind = "";
}

export function alertKind() {
  const box = document.getElementById("alert");
  return box.hidden ? null : box.dataset.kind;
}

/** Copy to the clipboard; falls back to selecting the input for Ctrl+C. */
export async function copyText(text, input = null) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (input) { input.focus(); input.select(); try { return document.execCommand("copy"); } catch { return false; } }
    return false;
  }
}
