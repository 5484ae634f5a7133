"""Ratings over checkpoints, from arena results directories, as a PNG.

Each results directory's ``summary.json`` (``arena.arena``) lists its players' Elo with 95%
intervals. A player whose spec has a ``ckpt=`` value ending in a number (``ckpt_00001234.pt``,
``model-500``) is a checkpoint at that training step; players with the same spec apart from the
step (same run folder, same ``sims``...) form one series, drawn as points with error bars over
the step. Every other player is a baseline, drawn as a horizontal line with a shaded interval.

Ratings from different directories are only comparable when they share the anchor (``random``
= 0 by default); the plot says which anchor(s) it found. A player rated in several directories
is shown once, with its narrowest interval (its most precise estimate).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

_CKPT = re.compile(r"(?:^|[:,])\s*ckpt\s*=\s*([^,]*)")
_STEP = re.compile(r"(\d+)(?:\.[A-Za-z]\w*)*\s*$")


@dataclass(frozen=True)
class Rating:
    """One player's rating read from a results directory."""

    player: str
    elo: float
    lo: float
    hi: float
    source: str


def checkpoint_step(spec: str) -> tuple[str, int] | None:
    """``(series, step)`` for a checkpoint player, None for a baseline.

    The step is the last number of the ``ckpt=`` value (before any extension); the series is the
    spec with that number replaced by ``*``.

    >>> checkpoint_step("alphazero:ckpt=runs/a/ckpt_00001200.pt,sims=64")
    ('alphazero:ckpt=runs/a/ckpt_*.pt,sims=64', 1200)
    """
    m = _CKPT.search(spec)
    if m is None:
        return None
    value = m.group(1)
    step = _STEP.search(value)
    if step is None:
        return None
    start = m.start(1) + step.start(1)
    return spec[:start] + "*" + spec[m.start(1) + step.end(1):], int(step.group(1))


def read_ratings(dirs: list[str | Path]) -> tuple[list[Rating], list[str]]:
    """The ratings of every player in ``dirs`` (narrowest interval per player) and the anchors.

    Raises:
        ValueError: a directory without a readable ``summary.json``.
    """
    best: dict[str, Rating] = {}
    anchors: list[str] = []
    for d in dirs:
        path = Path(d) / "summary.json"
        try:
            summary = json.loads(path.read_text())
            rows = summary["ratings"]
        except (OSError, ValueError, KeyError) as e:
            raise ValueError(f"{path}: not an arena summary ({e}); run or finish the arena first") from None
        if summary.get("anchor") not in anchors:
            anchors.append(summary.get("anchor"))
        for row in rows:
            if row.get("elo") is None:
                continue
            lo = row["elo_lo"] if row.get("elo_lo") is not None else row["elo"]
            hi = row["elo_hi"] if row.get("elo_hi") is not None else row["elo"]
            r = Rating(row["player"], float(row["elo"]), float(lo), float(hi), str(d))
            old = best.get(r.player)
            if old is None or (r.hi - r.lo) < (old.hi - old.lo):
                best[r.player] = r
    return list(best.values()), anchors


def plot_ratings(dirs: list[str | Path], out: str | Path = "ratings.png", title: str | None = None) -> Path:
    """Draw the ratings of ``dirs`` (module docstring) and save them as a PNG at ``out``."""
    import matplotlib  # imported here: only plotting needs it
    from matplotlib.figure import Figure  # no pyplot: no global backend, no window (Agg canvas)

    ratings, anchors = read_ratings(dirs)
    series: dict[str, list[tuple[int, Rating]]] = {}
    baselines: list[Rating] = []
    for r in ratings:
        found = checkpoint_step(r.player)
        if found is None:
            baselines.append(r)
        else:
            series.setdefault(found[0], []).append((found[1], r))

    fig = Figure(figsize=(9, 5.5), dpi=120)
    ax = fig.subplots()
    steps = [s for points in series.values() for s, _ in points]
    x_lo, x_hi = (min(steps), max(steps)) if steps else (0, 1)
    if x_lo == x_hi:
        x_lo, x_hi = x_lo - 1, x_hi + 1
    colours = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (name, points) in enumerate(sorted(series.items())):
        points.sort(key=lambda p: p[0])
        xs = [s for s, _ in points]
        ys = [r.elo for _, r in points]
        err = [[max(r.elo - r.lo, 0.0) for _, r in points], [max(r.hi - r.elo, 0.0) for _, r in points]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, color=colours[k % len(colours)], label=name)
    for k, r in enumerate(sorted(baselines, key=lambda r: -r.elo)):
        colour = colours[(len(series) + k) % len(colours)]
        ax.axhline(r.elo, color=colour, linestyle="--", linewidth=1)
        if math.isfinite(r.lo) and math.isfinite(r.hi) and r.hi > r.lo:
            ax.axhspan(r.lo, r.hi, color=colour, alpha=0.12, linewidth=0)
        ax.annotate(f"{r.player} {r.elo:+.0f}", (x_lo, r.elo), xytext=(2, 2), textcoords="offset points",
                    fontsize=8, color=colour)
    ax.set_xlim(x_lo - 0.02 * (x_hi - x_lo), x_hi + 0.02 * (x_hi - x_lo))
    ax.set_xlabel("checkpoint (training step)")
    ax.set_ylabel("Elo (95% interval)")
    anchor_text = ", ".join(f"{a} = 0" for a in anchors if a)
    ax.set_title(title or f"Ratings over checkpoints (anchor {anchor_text})")
    ax.grid(True, alpha=0.3)
    if series:
        ax.legend(fontsize=8, loc="best")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, format="png")
    return out
