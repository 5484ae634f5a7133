"""Ladders side by side, as a PNG: ``hive-arena compare LADDER_DIR...``.

An ablation ends in one ladder per arm (``hive-arena ladder``, each writing ``ladder.json``);
this draws them together: on the left each arm's score against every opponent (a point with its
95% interval, one colour per opponent), on the right its Elo relative to the ladders' common
anchor with the interval. Arms are rows, in the order given, labelled by ``labels`` (default:
the players' short names, told apart). Ladders with other anchors are refused (their Elo would not be on
one scale), as are directories without a ``ladder.json``; an unrated arm (no Elo) gets no point
on the right and a note under the plot.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from players.registry import short_name, short_names

from .ladder import LADDER_FILE

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Arm:
    """One ladder: its label, Elo vs the anchor with interval (NaN: unrated), scores by opponent."""

    label: str
    elo: float
    lo: float
    hi: float
    games: int
    scores: dict[str, dict[str, Any]]


@dataclass
class CompareData:
    """What :func:`plot_ladders` draws."""

    anchor: str
    arms: list[Arm] = field(default_factory=list)
    opponents: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _number(x: Any, default: float = math.nan) -> float:
    """``x`` as a float, ``default`` where ``ladder.json`` has null (a number that was not finite)."""
    return float(x) if isinstance(x, int | float) else float(default)


def read_ladder(path: str | Path) -> dict[str, Any]:
    """``path/ladder.json`` (or ``path`` itself when it is that file).

    Raises:
        ValueError: no such file, or not a ladder's JSON (one line naming the path).
    """
    path = Path(path)
    file = path if path.is_file() else path / LADDER_FILE
    try:
        data = json.loads(file.read_text())
    except FileNotFoundError:
        raise ValueError(f"{path}: no {LADDER_FILE} (not the results directory of a hive-arena ladder)") \
            from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{file}: unreadable ({type(e).__name__})") from None
    if not isinstance(data, dict) or not isinstance(data.get("scores"), dict) or "anchor" not in data:
        raise ValueError(f"{file}: not a ladder's results (no anchor or scores)")
    return data


def compare_data(dirs: list[str | Path], labels: list[str] | None = None) -> CompareData:
    """The arms of ``dirs`` (module docstring).

    Raises:
        ValueError: no directories, a count of labels that is not the count of directories, a
            directory that is not a ladder's, or ladders with different anchors.
    """
    if not dirs:
        raise ValueError("no ladder directories given")
    if labels is not None and len(labels) != len(dirs):
        raise ValueError(f"{len(labels)} labels for {len(dirs)} ladders: give one label per ladder")
    ladders = [read_ladder(d) for d in dirs]
    anchors = {lad["anchor"] for lad in ladders}
    if len(anchors) > 1:
        raise ValueError(f"ladders with different anchors ({', '.join(sorted(map(str, anchors)))}) "
                         "are not on one Elo scale")
    data = CompareData(anchor=ladders[0]["anchor"])
    if labels is None:  # the players' names, told apart (an ablation's arms are all final.pt)
        labels = short_names([str(lad.get("player", d)) for lad, d in zip(ladders, dirs, strict=True)])
    for k, lad in enumerate(ladders):
        label = labels[k]
        arm = Arm(label, _number(lad.get("elo")), _number(lad.get("lo")), _number(lad.get("hi")),
                  int(lad.get("games") or 0), lad["scores"])
        data.arms.append(arm)
        if not math.isfinite(arm.elo):
            data.notes.append(f"{label}: unrated (no Elo relative to {short_name(data.anchor)})")
        elif not lad.get("complete", True):
            data.notes.append(f"{label}: ladder not finished ({arm.games} games)")
        for opponent in lad["scores"]:
            if opponent not in data.opponents:
                data.opponents.append(opponent)
    return data


def ladder_figure(dirs: list[str | Path], labels: list[str] | None = None,
                  title: str | None = None) -> Figure:
    """The figure :func:`plot_ladders` saves (no pyplot: an Agg canvas, no window).

    Raises:
        ValueError: see :func:`compare_data`.
    """
    import matplotlib
    from matplotlib.figure import Figure

    data = compare_data(dirs, labels)
    n = len(data.arms)
    height = 1.6 + 0.7 * n  # inches
    fig = Figure(figsize=(12, height), dpi=120)
    left, right = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 2]})
    colours = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    rows = list(range(n))[::-1]  # the first arm on top
    width = 0.6 / max(1, len(data.opponents))
    for j, opponent in enumerate(data.opponents):
        offset = 0.3 - (j + 0.5) * width
        xs, ys, err = [], [], [[], []]
        for row, arm in zip(rows, data.arms, strict=True):
            s = arm.scores.get(opponent)
            if not s or s.get("score") is None:
                continue
            score = 100 * s["score"]
            xs.append(score)
            ys.append(row + offset)
            err[0].append(score - 100 * _number(s.get("score_lo"), s["score"]))
            err[1].append(100 * _number(s.get("score_hi"), s["score"]) - score)
        left.errorbar(xs, ys, xerr=err, fmt="o", capsize=2, markersize=4, color=colours[j % len(colours)],
                      label=f"vs {short_name(opponent)}")
    left.axvline(50, color="grey", linewidth=0.8, linestyle=":")
    left.set_xlim(-1, 101)
    left.set_xlabel("score against each opponent, % (95% interval)", fontsize=10)
    left.set_yticks(rows)
    left.set_yticklabels([arm.label for arm in data.arms], fontsize=10)
    for row, arm in zip(rows, data.arms, strict=True):
        if not math.isfinite(arm.elo):
            continue
        lo = arm.elo - arm.lo if math.isfinite(arm.lo) else 0.0
        hi = arm.hi - arm.elo if math.isfinite(arm.hi) else 0.0
        right.errorbar([arm.elo], [row], xerr=[[lo], [hi]], fmt="s", capsize=3, color="black")
        right.annotate(f"{arm.elo:+.0f} [{arm.lo:+.0f}, {arm.hi:+.0f}]", (arm.elo, row),
                       textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    right.axvline(0, color="grey", linewidth=0.8, linestyle=":")
    right.set_xlabel(f"Elo, {short_name(data.anchor)} = 0 (95% interval)", fontsize=10)
    for ax in (left, right):
        ax.grid(True, axis="x", alpha=0.3)
        ax.set_ylim(-0.6, n - 0.4)
    fig.suptitle(title or f"Ladders compared (anchor {short_name(data.anchor)})", fontsize=12)
    if data.notes:
        fig.text(0.01, 0.005, "\n".join(data.notes), fontsize=8.5, va="bottom", ha="left")
    notes = 0.15 * len(data.notes) / height  # the notes' share of the height, at the bottom
    bottom = 0.35 / height + notes  # the legend's and the notes' share, kept under the axes
    fig.tight_layout(rect=(0, bottom, 1, 1))
    handles, names = left.get_legend_handles_labels()
    fig.legend(handles, names, fontsize=8, loc="lower center", ncol=min(4, len(data.opponents)),
               bbox_to_anchor=(0.5, notes))  # above the notes
    return fig


def plot_ladders(dirs: list[str | Path], out: str | Path = "ladders.png", labels: list[str] | None = None,
                 title: str | None = None) -> Path:
    """Draw the ladders of ``dirs`` side by side (module docstring) as a PNG at ``out``.

    Raises:
        ValueError: see :func:`compare_data`.
    """
    fig = ladder_figure(dirs, labels, title)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="png", bbox_inches="tight")
    return out
