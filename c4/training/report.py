"""Training outputs: history.json, report.md and curves.png in the run's folder."""

from __future__ import annotations

import json
from pathlib import Path


def write_outputs(out_dir: Path, title: str, config: dict, history: list[dict], x_key: str, extra: dict | None = None,
                  command: str = "") -> dict[str, Path]:
    out = {"json": out_dir / "history.json", "md": out_dir / "report.md", "png": out_dir / "curves.png"}
    out["json"].write_text(json.dumps({"config": config, "history": history, **(extra or {})}, indent=1))
    keys = [k for k in history[0] if k != x_key] if history else []
    lines = [f"# {title}", "", f"Command: `{command}`" if command else "", "",
             "Settings: " + ", ".join(f"{k}={v}" for k, v in config.items()), ""]
    for k, v in (extra or {}).items():
        lines.append(f"- {k}: {v}")
    lines += ["", "| " + " | ".join([x_key, *keys]) + " |", "|" + "---|" * (len(keys) + 1)]
    for row in history:
        lines.append("| " + " | ".join(_fmt(row.get(k)) for k in [x_key, *keys]) + " |")
    out["md"].write_text("\n".join(lines) + "\n")
    plot(out["png"], title, history, x_key)
    return out


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4f}"
    return "" if v is None else str(v)


def plot(path: Path, title: str, history: list[dict], x_key: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not history:
        return
    xs = [r[x_key] for r in history]
    loss_keys = [k for k in history[0] if "loss" in k]
    strength_keys = [k for k in history[0] if k.startswith(("vs_", "win_vs_"))]
    fig, axes = plt.subplots(1, 2 if strength_keys else 1, figsize=(9 if strength_keys else 5, 3.2), squeeze=False)
    for k in loss_keys:
        axes[0][0].plot(xs, [r.get(k) for r in history], label=k)
    axes[0][0].set_xlabel(x_key)
    axes[0][0].set_title("loss")
    axes[0][0].legend(fontsize=7)
    if strength_keys:
        for k in strength_keys:
            axes[0][1].plot(xs, [r.get(k) for r in history], marker="o", label=k)
        axes[0][1].set_ylim(0, 1)
        axes[0][1].set_xlabel(x_key)
        axes[0][1].set_title("strength (paired 4-ply openings)")
        axes[0][1].legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
