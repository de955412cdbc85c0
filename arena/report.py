"""Summaries of an arena run: per pair and per player, Elo, Markdown and PNG plots.

Everything here works from the raw JSON of :func:`arena.runner.run_arena`,
so a report can be rebuilt from a saved ``games.json`` without replaying.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from connect4 import Geometry, Position
from connect4.openings import decided_at_once

from .elo import EloError, PairResult, difference_se, fit_elo_cov
from .openings import pairs as all_pairs
from .stats import Tally, elo_difference

SEATS = ("first", "second")
ANCHOR = "random"


def summarize(raw: dict, prior_draws: float = 1.0) -> dict:
    """Pair and player tallies (W/D/L by seat, score, Wilson interval, nodes and ms per move) and ratings."""
    players = raw["config"]["players"]
    pair_list = all_pairs(players, raw["config"].get("gauntlet", False))
    # tallies[pair index][player][seat]
    tallies = [{a: {s: Tally() for s in SEATS}, b: {s: Tally() for s in SEATS}} for a, b in pair_list]
    decided = decided_openings(raw)
    undecided = [{a: Tally(), b: Tally()} for a, b in pair_list]  # the games of the other openings
    forfeits = []
    for g in raw["games"]:
        p = g["pair"]
        for seat, spec, result in (("first", g["first"], g["result"]), ("second", g["second"], 1 - g["result"])):
            t = tallies[p][spec][seat]
            t.add_result(result)
            st = g["stats"][seat]
            t.add_moves(st["moves"], st["nodes"], st["ms"])
            if g["opening_index"] not in decided:
                undecided[p][spec].add_result(result)
        if g["reason"].startswith("forfeit"):
            forfeits.append(g["reason"])
    pair_rows = []
    per_player = {p: {s: Tally() for s in SEATS} for p in players}
    for (a, b), t, u in zip(pair_list, tallies, undecided, strict=True):
        row: dict[str, object] = {"a": a, "b": b}
        for who in (a, b):
            both = t[who]["first"].merge(t[who]["second"])
            row[who] = {"first": t[who]["first"].to_json(), "second": t[who]["second"].to_json(),
                        "total": both.to_json()}
            for s in SEATS:
                per_player[who][s] = per_player[who][s].merge(t[who][s])
        total_a = t[a]["first"].merge(t[a]["second"])
        row["score_a"] = total_a.score if total_a.games else None
        row["score_a_95"] = total_a.interval.as_list()
        row["elo_diff"] = _finite(elo_difference(total_a.score)) if total_a.games else None
        row["undecided"] = {who: u[who].to_json() for who in (a, b)}
        pair_rows.append(row)
    player_rows = []
    for p in players:
        both = per_player[p]["first"].merge(per_player[p]["second"])
        player_rows.append({"player": p, "first": per_player[p]["first"].to_json(),
                            "second": per_player[p]["second"].to_json(), "total": both.to_json()})
    results = []
    for (a, b), t in zip(pair_list, tallies, strict=True):
        total = t[a]["first"].merge(t[a]["second"])
        if total.games:
            results.append(PairResult(a, b, total.games, total.points))
    anchor = ANCHOR if ANCHOR in players else players[0]
    steps = []
    try:
        fitted, cov = fit_elo_cov(players, results, anchor=anchor, prior_draws=prior_draws)
        ratings = [r.to_json() for r in fitted]
        elo_error = None
        for i in range(1, len(players)):  # each player against the one listed before it
            d = fitted[i].elo - fitted[i - 1].elo
            se = difference_se(cov, i, i - 1)
            steps.append({"player": players[i], "below": players[i - 1], "elo_diff": d, "se": se,
                          "elo_diff_95": [d - 1.959963984540054 * se, d + 1.959963984540054 * se]})
    except EloError as exc:
        ratings, elo_error = [], str(exc)
    return {"pairs": pair_rows, "players": player_rows, "decided_openings": sorted(decided),
            "elo": {"anchor": anchor, "prior_draws": prior_draws, "ratings": ratings, "steps": steps,
                    "error": elo_error},
            "forfeits": forfeits}


def decided_openings(raw: dict) -> set[int]:
    """Indices of the openings that decide their games by themselves (see
    :func:`connect4.openings.decided_at_once`)."""
    b = raw["config"]["board"]
    g = Geometry(b["width"], b["height"], b["k"])
    return {i for i, o in enumerate(raw["openings"])
            if decided_at_once(Position.from_moves([c - 1 for c in o], g))}


def _finite(x: float):
    return x if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


# -- Markdown ------------------------------------------------------------------
def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f} %"


def _ci(iv) -> str:
    return f"{100 * iv[0]:.1f}–{100 * iv[1]:.1f}"


def _num(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e4:
        return f"{x / 1e3:.1f} k"
    return f"{x:.0f}"


def markdown(raw: dict, summary: dict, command: str | None = None) -> str:
    cfg = raw["config"]
    lines = []
    if command:
        lines += ["```", command, "```", ""]
    b = cfg["board"]
    lines.append(
        ("Gauntlet: " + players_first(cfg) + " against each other player. " if cfg.get("gauntlet") else "")
        + f"{len(raw['games'])} games on {b['width']}x{b['height']} (connect {b['k']}): {cfg['games_per_pair']} per pair "
        + (f"from {cfg['games_per_pair'] // 2} random {cfg['opening_plies']}-ply openings, each played once with each "
           "player first" if cfg["opening_plies"] else "from the empty board, each player first in half of them")
        + f"; seed {cfg['seed']}; {raw['run']['elapsed_s']:.0f} s on {raw['run']['machine']}"
        + (", players through gRPC" if cfg.get("via_grpc") else ", players in-process") + "."
    )
    lines += ["", "### Pairs", "",
              "| A | B | games | A's score (95 %) | A's win rate (95 %) | Elo A−B | A first W/D/L | A second W/D/L | "
              "A nodes/move | A ms/move | B nodes/move | B ms/move |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in summary["pairs"]:
        a, b = r["a"], r["b"]
        ra, rb = r[a], r[b]
        d = r["elo_diff"]
        d = "–" if d is None else (d if isinstance(d, str) else f"{d:+.0f}")
        t = ra["total"]
        lines.append(
            f"| {a} | {b} | {t['games']} | {_pct(t['score'])} ({_ci(t['score_95'])}) | "
            f"{_pct(t['win_rate'])} ({_ci(t['win_rate_95'])}) | {d} | "
            f"{_wdl(ra['first'])} | {_wdl(ra['second'])} | {_num(t['mean_nodes'])} | "
            f"{t['mean_ms']:.1f} | {_num(rb['total']['mean_nodes'])} | {rb['total']['mean_ms']:.1f} |")
    lines += _decided_section(raw, summary)
    elo = {r["player"]: r for r in summary["elo"]["ratings"]}
    lines += ["", "### Players", "",
              f"| player | Elo ({summary['elo']['anchor']} = 0) | Elo 95 % | games | score (95 %) | win rate (95 %) | "
              "W/D/L first | W/D/L second | nodes/move | ms/move |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in summary["players"]:
        e = elo.get(p["player"])
        t = p["total"]
        rating = "–" if not e else f"{e['elo']:.0f}"
        span = "–" if not e or e["se"] == 0 else f"{e['elo_95'][0]:.0f} … {e['elo_95'][1]:.0f}"
        lines.append(
            f"| {p['player']} | {rating} | {span} | {t['games']} | {_pct(t['score'])} ({_ci(t['score_95'])}) | "
            f"{_pct(t['win_rate'])} ({_ci(t['win_rate_95'])}) | {_wdl(p['first'])} | {_wdl(p['second'])} | "
            f"{_num(t['mean_nodes'])} | {t['mean_ms']:.1f} |")
    players = cfg["players"]
    if not cfg.get("gauntlet") and len(players) > 2:
        lines += ["", "### Each player against the one listed before it", "",
                  "| player | against | score (95 %) | fitted Elo difference (95 %) | at least 70 % |",
                  "|---|---|---:|---:|:---:|"]
        by_pair = {(r["a"], r["b"]): r for r in summary["pairs"]}
        steps = {(st["player"], st["below"]): st for st in summary["elo"].get("steps", [])}
        for lower, upper in zip(players, players[1:], strict=False):
            r = by_pair[(lower, upper)]
            t = r[upper]["total"]
            if not t["games"]:
                continue
            st = steps.get((upper, lower))
            d = "–" if st is None else f"{st['elo_diff']:+.0f} ({st['elo_diff_95'][0]:+.0f} … {st['elo_diff_95'][1]:+.0f})"
            ok = "yes" if t["score"] >= 0.7 else "no"
            lines.append(f"| {upper} | {lower} | {_pct(t['score'])} ({_ci(t['score_95'])}) | {d} | {ok} |")
    lines += ["", "Score counts a draw as half a win; \"first\" is the player making the first move after the "
                  "random opening. Intervals are 95 % Wilson intervals.",
              "", f"Elo: maximum-likelihood fit of all pairs' scores (draws count half), {summary['elo']['anchor']} "
                  f"fixed at 0, {summary['elo']['prior_draws']:g} virtual draw(s) per pair that played so sweeps stay "
                  "finite; intervals ±1.96 standard errors from the observed information (a rating's interval is "
                  "against the anchor; a difference between two ratings has its own, usually narrower, interval)."]
    if summary["elo"]["error"]:
        lines.append(f"Elo not fitted: {summary['elo']['error']}")
    if summary["forfeits"]:
        lines += ["", "Forfeits:"] + [f"- {f}" for f in summary["forfeits"]]
    return "\n".join(lines) + "\n"


def _decided_section(raw: dict, summary: dict) -> list[str]:
    """The pairs again over the openings that do not decide their games by themselves."""
    decided = summary.get("decided_openings") or []
    if not decided:
        return []
    n = len(raw["openings"])
    lines = ["", "### Openings decided at once", "",
             f"{len(decided)} of {n} openings decide their games by themselves: the side to move wins with its "
             "next-but-one stone whatever the reply, or cannot stop the opponent's next one. A player that sees "
             "three plies ahead wins or loses them by force whoever it plays, so with paired seats they favour "
             "neither player but cap the stronger one's win rate. Over the other "
             f"{n - len(decided)} openings:", "",
             "| A | B | games | A's score (95 %) | A's win rate (95 %) | A W/D/L |",
             "|---|---|---:|---:|---:|---:|"]
    for r in summary["pairs"]:
        t = r["undecided"][r["a"]]
        if t["games"]:
            lines.append(f"| {r['a']} | {r['b']} | {t['games']} | {_pct(t['score'])} ({_ci(t['score_95'])}) | "
                         f"{_pct(t['win_rate'])} ({_ci(t['win_rate_95'])}) | {_wdl(t)} |")
    return lines


def players_first(cfg: dict) -> str:
    return cfg["players"][0]


def _wdl(t: dict) -> str:
    return f"{t['wins']}/{t['draws']}/{t['losses']}"


# -- plots -----------------------------------------------------------------------
def plots(raw: dict, summary: dict, out: Path) -> list[Path]:
    """``scores.png`` (score matrix), ``pairs.png`` (pair scores with intervals), ``elo.png`` (ratings)."""
    try:
        import matplotlib
    except ImportError as exc:  # an optional extra: the runtime image leaves it out
        raise ImportError("the arena's plots need matplotlib: pip install 'connect4-stack[reports]' "
                          "(make installs it)") from exc

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    out.mkdir(parents=True, exist_ok=True)
    players = raw["config"]["players"]
    n = len(players)
    idx = {p: i for i, p in enumerate(players)}
    made = []

    grid = np.full((n, n), np.nan)
    for r in summary["pairs"]:
        if r["score_a"] is None:
            continue
        i, j = idx[r["a"]], idx[r["b"]]
        grid[i, j] = r["score_a"]
        grid[j, i] = 1 - r["score_a"]
    fig, ax = plt.subplots(figsize=(1.1 * n + 2.5, 0.9 * n + 1.8))
    im = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1)
    ax.set_xticks(range(n), players, rotation=45, ha="right")
    ax.set_yticks(range(n), players)
    for i in range(n):
        for j in range(n):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{100 * grid[i, j]:.0f}", ha="center", va="center", fontsize=9)
    ax.set_title("score of row player against column player (%)")
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    made.append(_save(fig, out / "scores.png", plt))

    rows = summary["pairs"]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.5))
    y = np.arange(len(rows))
    scores = [r["score_a"] if r["score_a"] is not None else np.nan for r in rows]
    lo = [max(0.0, s - r["score_a_95"][0]) for s, r in zip(scores, rows, strict=True)]
    hi = [max(0.0, r["score_a_95"][1] - s) for s, r in zip(scores, rows, strict=True)]
    ax.errorbar(scores, y, xerr=[lo, hi], fmt="o", capsize=3)
    ax.axvline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_yticks(y, [f"{r['a']} vs {r['b']}" for r in rows])
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("score of the first-named player, 95 % Wilson interval")
    fig.tight_layout()
    made.append(_save(fig, out / "pairs.png", plt))

    ratings = summary["elo"]["ratings"]
    if ratings:
        fig, ax = plt.subplots(figsize=(8, 0.45 * len(ratings) + 1.5))
        y = np.arange(len(ratings))
        elo = [r["elo"] for r in ratings]
        err = [1.959963984540054 * r["se"] for r in ratings]
        ax.errorbar(elo, y, xerr=err, fmt="s", capsize=3, color="tab:blue")
        ax.set_yticks(y, [r["player"] for r in ratings])
        ax.invert_yaxis()
        ax.axvline(0, color="grey", lw=0.8, ls="--")
        ax.set_xlabel(f"Elo ({summary['elo']['anchor']} = 0), 95 % interval")
        fig.tight_layout()
        made.append(_save(fig, out / "elo.png", plt))
    return made


def _save(fig, path: Path, plt) -> Path:
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_all(raw: dict, out: Path, command: str | None = None, prior_draws: float = 1.0) -> dict:
    """games.json (raw + summary), report.md and the plots into ``out``; returns the summary."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = summarize(raw, prior_draws)
    doc = dict(raw)
    doc["command"] = command
    doc["summary"] = summary
    (out / "games.json").write_text(json.dumps(doc, indent=1) + "\n")
    (out / "report.md").write_text(markdown(raw, summary, command))
    plots(raw, summary, out)
    return summary
