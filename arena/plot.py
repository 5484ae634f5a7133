"""Ratings over checkpoints, from arena results directories, as a PNG.

Each directory's ``summary.json`` gives its players' Elo with 95% intervals. Players whose
``ckpt=`` ends in a step (frozen evaluation copies included) form one series per run and options,
drawn over the step with error bars; every other player is a baseline (a horizontal line with a
shaded interval). Directories with another anchor are shifted onto the first one's scale
through a player they share (:func:`read_ratings`); unrated players are named under the plot.

See docs/arena.md (ratings over checkpoints).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from hive_zero.run_layout import (
    BEST,
    BEST_COPY_PREFIX,
    CHECKPOINT_GLOB,
    CHECKPOINTS,
    EVAL,
    FINAL,
    FROZEN,
    FROZEN_BEST_PATTERN,
    FROZEN_CHECKPOINT_PATTERN,
    RunLayout,
)
from players.base import PlayerSpecError
from players.registry import parse_spec, short_name, short_names

_STEP = re.compile(r"(\d+)(?:\.[A-Za-z]\w*)*\s*$")
_IN_FROZEN = rf"^(?:(?P<run>.*)[\\/])?{EVAL}[\\/]{FROZEN}[\\/]"  # RUN/eval/frozen/ (training.gating)
_FROZEN = re.compile(_IN_FROZEN + FROZEN_CHECKPOINT_PATTERN + "$")
_FROZEN_BEST = re.compile(_IN_FROZEN + FROZEN_BEST_PATTERN + "$")
_COPY = re.compile(rf"^({Path(BEST).stem}|{Path(FINAL).stem})\b|^{BEST_COPY_PREFIX}", re.IGNORECASE)
_IGNORED_KEYS = ("name", "device")
"""Spec keys that do not make another player: series are formed without them."""

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Rating:
    """One player's rating read from a results directory (on the plot's scale once placed)."""

    player: str
    elo: float
    lo: float
    hi: float
    source: str
    games: int = 0

    @property
    def width(self) -> float:
        return self.hi - self.lo if math.isfinite(self.hi - self.lo) else math.inf


@dataclass
class PlotData:
    """What :func:`plot_ratings` draws, for tests and notebooks.

    ``series`` maps a series label to its points ``(step, Rating)`` ordered by step;
    ``baselines`` are the other players, best first; ``anchor`` is the scale's anchor (a spec);
    ``notes`` say what was re-anchored or left out.
    """

    series: dict[str, list[tuple[int, Rating]]] = field(default_factory=dict)
    baselines: list[Rating] = field(default_factory=list)
    anchor: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def steps(self) -> list[int]:
        return sorted({s for points in self.series.values() for s, _ in points})


def _options(spec: str) -> tuple[str, dict[str, str]] | None:
    try:
        return parse_spec(spec)
    except PlayerSpecError:
        return None


def _series_key(kind: str, options: dict[str, str], ckpt: str) -> str:
    parts = [f"{k}={ckpt if k == 'ckpt' else v}" for k, v in options.items() if k not in _IGNORED_KEYS]
    return kind + ":" + ",".join(parts)


def _run_checkpoints(run: str | None) -> str:
    """The ``ckpt=`` of a run's step checkpoints, the step as ``*``."""
    return f"{run}/{CHECKPOINTS}/{CHECKPOINT_GLOB}" if run else f"{CHECKPOINTS}/{CHECKPOINT_GLOB}"


def checkpoint_step(spec: str) -> tuple[str, int] | None:
    """``(series, step)`` for a checkpoint player, None for a baseline or a copy of unknown step.

    The step is the last number of the ``ckpt=`` value (before any extension); the series is the
    spec with that number replaced by ``*`` (``name=`` and ``device=`` left out). A frozen copy
    ``RUN/eval/frozen/ckpt_<step>_<hash>.pt`` joins the series of ``RUN/checkpoints/ckpt_*.pt``;
    ``best*.pt`` and ``final*.pt`` files are no checkpoint of a step (None).

    >>> checkpoint_step("alphazero:ckpt=runs/a/ckpt_00001200.pt,sims=64")
    ('alphazero:ckpt=runs/a/ckpt_*.pt,sims=64', 1200)
    >>> checkpoint_step("alphazero:ckpt=runs/a/eval/frozen/ckpt_00000020_0a1b2c3d4e5f.pt,sims=8,device=cpu")
    ('alphazero:ckpt=runs/a/checkpoints/ckpt_*.pt,sims=8', 20)
    """
    parsed = _options(spec)
    if parsed is None or not parsed[1].get("ckpt"):
        return None
    kind, options = parsed
    value = options["ckpt"]
    frozen = _FROZEN.match(value)
    if frozen:
        return _series_key(kind, options, _run_checkpoints(frozen["run"])), int(frozen["step"])
    if _COPY.match(re.split(r"[\\/]", value)[-1]):
        return None
    step = _STEP.search(value)
    if step is None:
        return None
    return _series_key(kind, options, value[:step.start(1)] + "*" + value[step.end(1):]), int(step.group(1))


def _best_copy_step(spec: str, ledgers: dict[str, dict[str, int]]) -> tuple[str, int] | None:
    """A frozen ``best_<hash>.pt`` placed at the step of the checkpoint with that hash (from the
    run's ``eval/ledger.json``), or None."""
    parsed = _options(spec)
    if parsed is None or not parsed[1].get("ckpt"):
        return None
    kind, options = parsed
    m = _FROZEN_BEST.match(options["ckpt"])
    if m is None:
        return None
    run = m["run"] or ""
    if run not in ledgers:
        ledgers[run] = {}
        try:
            entries = json.loads(RunLayout(Path(run or ".")).ledger.read_text())["evaluations"]
            for e in entries:
                ledgers[run].setdefault(str(e["checkpoint"]), int(e["step"]))
        except (OSError, ValueError, KeyError, TypeError):
            pass
    step = ledgers[run].get(m["hash"])
    if step is None:
        return None
    return _series_key(kind, options, _run_checkpoints(run)), step


def _read_dir(d: str | Path) -> tuple[str, dict[str, Rating], list[str]]:
    """The directory's anchor, its rated players' ratings by spec, and its unrated players."""
    path = Path(d) / "summary.json"
    try:
        summary = json.loads(path.read_text())
        rows = summary["ratings"]
        anchor = str(summary["anchor"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: not an arena summary ({e}); run or finish the arena first") from None
    ratings: dict[str, Rating] = {}
    unrated = []
    for row in rows:
        if row.get("elo") is None or row.get("rated") is False:
            unrated.append(row.get("spec") or row["player"])
            continue
        elo = float(row["elo"])
        lo = float(row["elo_lo"]) if row.get("elo_lo") is not None else -math.inf
        hi = float(row["elo_hi"]) if row.get("elo_hi") is not None else math.inf
        spec = row.get("spec") or row["player"]
        ratings[spec] = Rating(spec, elo, min(lo, elo), max(hi, elo), str(d), int(row.get("games") or 0))
    if anchor in ratings:  # the anchor is exact on its own scale
        ratings[anchor] = replace(ratings[anchor], elo=0.0, lo=0.0, hi=0.0)
    return anchor, ratings, unrated


def _shift(r: Rating, offset: float, link: float) -> Rating:
    """``r`` moved by ``offset``, its half-intervals widened by ``link`` in quadrature."""
    lo, hi = r.elo - r.lo, r.hi - r.elo
    return replace(r, elo=r.elo + offset, lo=r.elo + offset - math.hypot(lo, link),
                   hi=r.elo + offset + math.hypot(hi, link))


def read_ratings(dirs: list[str | Path]) -> tuple[list[Rating], list[str], list[str]]:
    """The ratings of every player in ``dirs`` on one scale (narrowest interval per player),
    the anchors found, and notes on the re-anchoring.

    Elo is relative to each directory's anchor; directories share the scale of the first
    directory's anchor. A directory with another anchor is shifted so that a player it shares
    with the directories already on the scale (the one with the narrowest intervals) gets the
    same rating, and that player's uncertainty is added in quadrature to the shifted intervals
    (an approximation: the two fits are independent, their covariances are ignored). A player
    rated in several directories is kept once, with its narrowest interval.

    Raises:
        ValueError: a directory without a readable ``summary.json``, or directories with another
            anchor that share no player with the rest (one line naming the anchors).
    """
    read = [(str(d), *_read_dir(d)) for d in dirs]
    loaded = [(d, anchor, ratings) for d, anchor, ratings, _ in read]
    anchors = list(dict.fromkeys(a for _, a, _ in loaded))
    notes: list[str] = []
    best: dict[str, Rating] = {}

    def place(ratings: dict[str, Rating]) -> None:
        for spec, r in ratings.items():
            if spec not in best or r.width < best[spec].width:
                best[spec] = r

    if not loaded:
        return [], [], []
    scale = anchors[0]
    waiting = []
    for d, anchor, ratings in loaded:
        if anchor == scale:
            place(ratings)
        else:
            waiting.append((d, anchor, ratings))
    while waiting:
        for k, (d, anchor, ratings) in enumerate(waiting):
            shared = [s for s in ratings if s in best and math.isfinite(best[s].width + ratings[s].width)]
            if shared:
                link = min(shared, key=lambda s: best[s].width + ratings[s].width)
                offset = best[link].elo - ratings[link].elo
                half = math.hypot(best[link].width / 2, ratings[link].width / 2)
                place({s: _shift(r, offset, half) for s, r in ratings.items()})
                notes.append(f"{Path(d).name} (anchor {short_name(anchor)}) re-anchored through "
                             f"{short_name(link)}: {offset:+.0f}")
                del waiting[k]
                break
        else:
            left = "; ".join(f"{Path(d).name}: anchor {a}" for d, a, _ in waiting)
            raise ValueError(f"these results directories are rated against other anchors than {scale} "
                             f"and share no rated player with the rest, so they cannot be put on one "
                             f"scale ({left}); plot them separately")
    unrated = sorted({s for *_, left_out in read for s in left_out} - set(best))
    if unrated:
        notes.append(f"left out (unrated: no games bound their Elo): {', '.join(short_names(unrated))}")
    return list(best.values()), anchors, notes


def _series_label(series: str) -> str:
    """``alphazero:ckpt=/x/runs/a/checkpoints/ckpt_*.pt,sims=8`` -> ``az runs/a sims=8`` (the
    last two folders of the run; :func:`rating_plot_data` uses the whole series when they clash)."""
    parsed = _options(series)
    if parsed is None:
        return series
    kind, options = parsed
    folder = re.sub(rf"[\\/]?({CHECKPOINTS}[\\/])?[^\\/]*$", "", options.get("ckpt", "")) or "."
    folder = "/".join(re.split(r"[\\/]", folder)[-2:])  # the run, e.g. runs/smoke
    rest = " ".join(f"{k}={v}" for k, v in options.items() if k != "ckpt")
    return " ".join(x for x in ("az" if kind == "alphazero" else kind, folder, rest) if x)


def rating_plot_data(dirs: list[str | Path]) -> PlotData:
    """What :func:`plot_ratings` draws from ``dirs`` (docs/arena.md, ratings over checkpoints).

    A player whose ``ckpt=`` ends in a number (``ckpt_00001234.pt``, ``model-500``) is a
    checkpoint at that step; players with the same spec apart from the step (``name=`` and
    ``device=`` aside) form one series. ``eval/frozen/ckpt_<step>_<hash>.pt`` joins the run's
    ``checkpoints/ckpt_*.pt`` series; ``eval/frozen/best_<hash>.pt`` is placed at the step whose
    checkpoint has that hash in the run's ``eval/ledger.json``. ``best.pt``, ``final.pt`` and
    copies whose step is unknown are left out with a note: neither a series nor a baseline.

    Raises:
        ValueError: see :func:`read_ratings`.
    """
    ratings, anchors, notes = read_ratings(dirs)
    data = PlotData(anchor=anchors[0] if anchors else "", notes=notes)
    points: dict[str, dict[int, Rating]] = {}
    left_out: list[str] = []
    ledgers: dict[str, dict[str, int]] = {}
    for r in ratings:
        found = checkpoint_step(r.player) or _best_copy_step(r.player, ledgers)
        if found is not None:
            series = points.setdefault(found[0], {})
            old = series.get(found[1])
            if old is None or r.width < old.width:  # one point per step: the most precise
                series[found[1]] = r
        elif (parsed := _options(r.player)) is not None and parsed[1].get("ckpt"):
            left_out.append(r.player)
        else:
            data.baselines.append(r)
    labels = {key: _series_label(key) for key in points}
    for key in sorted(points, key=lambda k: labels[k]):
        label = labels[key] if list(labels.values()).count(labels[key]) == 1 else key
        data.series[label] = sorted(points[key].items())
    data.baselines.sort(key=lambda r: -r.elo)
    if left_out:
        data.notes.append(f"left out (no training step known): {', '.join(sorted(short_names(left_out)))}")
    return data


def baseline_label(r: Rating) -> str:
    """A baseline's legend entry: ``greedy +419 (40 games)``."""
    return f"{short_name(r.player)} {r.elo:+.0f} ({r.games} games)"


def plot_ratings(dirs: list[str | Path], out: str | Path = "ratings.png", title: str | None = None) -> Path:
    """Draw the ratings of ``dirs`` (:func:`rating_plot_data`) and save them as a PNG at ``out``.

    Raises:
        ValueError: see :func:`read_ratings`.
    """
    fig = rating_figure(dirs, title)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="png", bbox_inches="tight")
    return out


def rating_figure(dirs: list[str | Path], title: str | None = None) -> Figure:
    """The figure :func:`plot_ratings` saves (a matplotlib ``Figure``, no pyplot).

    Raises:
        ValueError: see :func:`read_ratings`.
    """
    import matplotlib  # imported here: only plotting needs it
    from matplotlib.figure import Figure  # no pyplot: no global backend, no window (Agg canvas)
    from matplotlib.ticker import MaxNLocator

    data = rating_plot_data(dirs)
    fig = Figure(figsize=(11, 6), dpi=120)
    ax = fig.subplots()
    steps = data.steps
    colours = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (label, points) in enumerate(data.series.items()):
        xs = [s for s, _ in points]
        ys = [r.elo for _, r in points]
        err = [[min(r.elo - r.lo, 1e4) for _, r in points], [min(r.hi - r.elo, 1e4) for _, r in points]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, color=colours[k % len(colours)], label=label)
        for x, (_, r) in zip(xs, points, strict=True):
            ax.annotate(str(r.games), (x, r.elo), textcoords="offset points", xytext=(5, 4), fontsize=7,
                        color=colours[k % len(colours)])
    for k, r in enumerate(data.baselines):
        colour = colours[(len(data.series) + k) % len(colours)]
        ax.axhline(r.elo, color=colour, linestyle="--", linewidth=1.2, label=baseline_label(r))
        if math.isfinite(r.width) and r.width > 0:
            ax.axhspan(r.lo, r.hi, color=colour, alpha=0.10, linewidth=0)
    if steps:
        lo, hi = steps[0], steps[-1]
        pad = 0.05 * (hi - lo) if hi > lo else max(1.0, 0.05 * hi)
        ax.set_xlim(lo - pad, hi + pad)
        if len(steps) <= 12:
            ax.set_xticks(steps)
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("checkpoint (training step)", fontsize=11)
    else:
        ax.set_xticks([])
        ax.set_xlabel("(no checkpoint players in these results: baselines only)", fontsize=11)
    ax.set_ylabel(f"Elo, {short_name(data.anchor)} = 0 (95% interval; numbers: games)", fontsize=11)
    ax.tick_params(labelsize=10)
    ax.set_title(title or f"Ratings over checkpoints (anchor {short_name(data.anchor)} = 0)", fontsize=13)
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if handles:  # series first, then baselines best first (matplotlib puts lines first)
        order = sorted(range(len(labels)), key=lambda i: (labels[i] not in data.series, i))
        ax.legend([handles[i] for i in order], [labels[i] for i in order], fontsize=9, loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    if data.notes:
        fig.text(0.01, 0.01, "\n".join(data.notes), fontsize=8.5, va="bottom", ha="left", wrap=True)
    fig.tight_layout(rect=(0, 0.03 * (len(data.notes) + 1) if data.notes else 0, 1, 1))
    return fig
