"""Ladders side by side, and arms compared over seeds: ``hive-arena compare``.

An ablation ends in ladders (``hive-arena ladder``, each writing ``ladder.json``), one per arm and
seed. ``compare`` groups them into *arms* (:func:`compare_data`: labelled ladder directories, or a
sweep directory, :func:`sweep_ladders`), gives each arm its mean Elo over seeds and each arm after
the first its difference to the first with a 95% Welch t interval and a verdict
(:func:`arm_stats`), and draws them (:func:`plot_ladders`).

See docs/arena.md (``compare``) and docs/research.md.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hive_zero.run_layout import SWEEP_FILE, RunLayout
from players.registry import short_name, short_names

from .ladder import LADDER_FILE
from .ratings import PRIOR_DRAWS, PairingStats, pairing_stats
from .seeds import LEVEL, mean_interval, welch_interval

if TYPE_CHECKING:
    from matplotlib.figure import Figure

BETTER, WORSE, NO_DIFFERENCE = "better", "worse", "no difference larger than the interval shows"
FEW_SEEDS = "needs at least 2 seeds an arm"
REFERENCE = "reference"


# ----- ladders and arms -------------------------------------------------------------------------
@dataclass(frozen=True)
class Ladder:
    """One ``ladder.json``: Elo vs the anchor with interval (NaN: unrated), scores by opponent."""

    path: str
    player: str
    elo: float
    lo: float
    hi: float
    games: int
    complete: bool
    rating: str
    prior_draws: float
    scores: dict[str, dict[str, Any]]


@dataclass
class Arm:
    """The ladders of one arm (its seeds)."""

    label: str
    ladders: list[Ladder] = field(default_factory=list)

    @property
    def elos(self) -> list[float]:
        """The rated ladders' Elos."""
        return [lad.elo for lad in self.ladders if math.isfinite(lad.elo)]

    def scores(self, opponent: str) -> PairingStats | None:
        """The arm's results against ``opponent`` over all its ladders; None without a game."""
        counts = [0, 0, 0]
        for lad in self.ladders:
            s = lad.scores.get(opponent) or {}
            for k, key in enumerate(("wins", "draws", "losses")):
                counts[k] += int(s.get(key) or 0)
        if not sum(counts):
            return None
        return pairing_stats(*counts, prior_draws=self.ladders[0].prior_draws)


@dataclass(frozen=True)
class ArmStats:
    """An arm's Elo over seeds and, after the first arm, its difference to the first (:func:`arm_stats`)."""

    label: str
    seeds: int
    elo_mean: float | None
    elo_sd: float | None
    elos: list[float]
    diff: float | None = None
    diff_lo: float | None = None
    diff_hi: float | None = None
    verdict: str = REFERENCE

    def to_json(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 2)

        return {"label": self.label, "seeds": self.seeds, "elo_mean": r(self.elo_mean),
                "elo_sd": r(self.elo_sd), "elos": [r(e) for e in self.elos], "diff": r(self.diff),
                "diff_lo": r(self.diff_lo), "diff_hi": r(self.diff_hi), "verdict": self.verdict}

    def line(self, reference: str, width: int) -> str:
        """One row of :func:`format_table`."""
        mean = f"{self.elo_mean:+.0f}" if self.elo_mean is not None else "-"
        sd = f"{self.elo_sd:.0f}" if self.elo_sd is not None else "-"
        if self.verdict == REFERENCE:
            diff = f"(reference: {reference})"
        elif self.diff_lo is None:
            diff = f"{self.diff:+.0f}" if self.diff is not None else "-"
        else:
            diff = f"{self.diff:+.0f} [{self.diff_lo:+.0f}, {self.diff_hi:+.0f}]"
        verdict = "" if self.verdict == REFERENCE else self.verdict
        return f"{self.label:<{width}}  {self.seeds:>5}  {mean:>8}  {sd:>5}  {diff:<22}  {verdict}".rstrip()


@dataclass
class CompareData:
    """What :func:`plot_ladders` draws and ``compare`` prints."""

    anchor: str
    arms: list[Arm] = field(default_factory=list)
    opponents: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stats: list[ArmStats] = field(default_factory=list)


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


def _ladder(path: str | Path, data: dict[str, Any]) -> Ladder:
    """A ``ladder.json``'s numbers; fields an older ladder lacks take their old meaning."""
    return Ladder(str(path), str(data.get("player", path)), _number(data.get("elo")), _number(data.get("lo")),
                  _number(data.get("hi")), int(data.get("games") or 0), bool(data.get("complete", True)),
                  str(data.get("rating") or "anchor"), _number(data.get("prior_draws"), PRIOR_DRAWS),
                  data["scores"])


@dataclass(frozen=True)
class SweepLadders:
    """A sweep's ladders: ``dirs`` with their ``arms`` (arms in ``order``, then jobs in order),
    every arm of the sweep in ``order``, and one text per job without a ``ladder.json`` yet."""

    dirs: list[Path]
    arms: list[str]
    order: list[str]
    skipped: list[str]


def sweep_ladders(sweep_dir: str | Path) -> SweepLadders:
    """The ladders of a sweep's jobs: its ``sweep.json`` lists the jobs, each with its arm, seed
    and run directory; a job's ladder is ``<run_dir>/ladder/ladder.json``, and jobs without one
    yet are left out with a warning. Run directories that are relative are relative to
    ``sweep_dir``.

    Raises:
        ValueError: no readable ``sweep.json`` with jobs, or no job with a ladder.
    """
    sweep_dir = Path(sweep_dir)
    file = sweep_dir / SWEEP_FILE
    try:
        data = json.loads(file.read_text())
        jobs = [(str(j["arm"]), Path(j["run_dir"]), j) for j in data["jobs"]]
        order = list(dict.fromkeys(str(a) for a in data.get("arms") or []))
    except FileNotFoundError:
        raise ValueError(f"{sweep_dir}: no {SWEEP_FILE}") from None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{file}: not a sweep's jobs ({type(e).__name__}: {e})") from None
    order += [arm for arm, _, _ in jobs if arm not in order]
    found: list[tuple[int, Path, str]] = []
    skipped = []
    for arm, run_dir, job in jobs:
        ladder = RunLayout(run_dir if run_dir.is_absolute() else sweep_dir / run_dir).ladder
        if (ladder / LADDER_FILE).is_file():
            found.append((order.index(arm), ladder, arm))
        else:
            skipped.append(f"job {job.get('job', '?')} ({arm}, seed {job.get('seed', '?')})")
    if not found:
        raise ValueError(f"{sweep_dir}: no job of the sweep has a {LADDER_FILE} yet")
    found.sort(key=lambda f: f[0])
    return SweepLadders([f[1] for f in found], [f[2] for f in found], order, skipped)


def compare_data(dirs: Sequence[str | Path], labels: Sequence[str] | None = None) -> CompareData:
    """The arms of ``dirs`` with their statistics over seeds. Ladders with the same label are
    seeds of one arm (arms in the order of first appearance; default: each ladder its own arm,
    labelled by the player's short name). Ladders with other anchors are refused (their Elo would
    not be on one scale), as are directories without a ``ladder.json``.

    Raises:
        ValueError: no directories, a count of labels that is not the count of directories, a
            directory that is not a ladder's, or ladders with different anchors.
    """
    if not dirs:
        raise ValueError("no ladder directories given")
    if labels is not None and len(labels) != len(dirs):
        raise ValueError(f"{len(labels)} labels for {len(dirs)} ladders: give one label per ladder "
                         "(the same label for the seeds of one arm)")
    raw = [read_ladder(d) for d in dirs]
    anchors = {lad["anchor"] for lad in raw}
    if len(anchors) > 1:
        raise ValueError(f"ladders with different anchors ({', '.join(sorted(map(str, anchors)))}) "
                         "are not on one Elo scale")
    ladders = [_ladder(d, lad) for d, lad in zip(dirs, raw, strict=True)]
    if labels is None:  # the players' names, told apart (an ablation's arms are all final.pt)
        labels = short_names([lad.player for lad in ladders])
    data = CompareData(anchor=raw[0]["anchor"])
    arms: dict[str, Arm] = {}
    for label, lad in zip(labels, ladders, strict=True):
        arms.setdefault(label, Arm(label)).ladders.append(lad)
        for opponent in lad.scores:
            if opponent not in data.opponents:
                data.opponents.append(opponent)
    data.arms = list(arms.values())
    for arm in data.arms:
        data.notes += _arm_notes(arm, data.anchor)
    if len({lad.rating for lad in ladders}) > 1:
        alone = sorted({arm.label for arm in data.arms for lad in arm.ladders if lad.rating != "pooled"})
        data.notes.append(f"Elo from the games against the anchor alone (not pooled) in {', '.join(alone)}")
    data.stats = arm_stats(data.arms)
    return data


def _arm_notes(arm: Arm, anchor: str) -> list[str]:
    """What a reader must know of an arm's ladders: unrated or unfinished ones."""
    notes = []
    unrated = [lad for lad in arm.ladders if not math.isfinite(lad.elo)]
    if unrated:
        which = "" if len(arm.ladders) == 1 else f" {len(unrated)} of {len(arm.ladders)} ladders, left out"
        notes.append(f"{arm.label}: unrated{which} (no Elo relative to {short_name(anchor)})")
    unfinished = [lad for lad in arm.ladders if not lad.complete and math.isfinite(lad.elo)]
    if unfinished:
        games = ", ".join(str(lad.games) for lad in unfinished)
        notes.append(f"{arm.label}: {len(unfinished)} ladder{'s' * (len(unfinished) > 1)} not finished "
                     f"({games} games)")
    return notes


def arm_stats(arms: Sequence[Arm], level: float = LEVEL) -> list[ArmStats]:
    """Each arm's Elo over its seeds and its difference to the first arm (the statistics in
    ``arena.seeds``).

    Each arm's Elo is the mean of its seeds' ladder Elos (``elo``: pooled with the rungs'
    calibration where it applies, ``arena.ladder``) with their sample standard deviation; each
    arm after the first (the reference) gets the difference of means to the reference with a 95%
    Welch t interval over seeds (the seeds' spread, not the ladders' own intervals: it is the
    seed-to-seed variation that decides whether an arm is better) and a verdict: ``better`` when
    the interval lies above 0, ``worse`` below, else no difference larger than the interval
    shows. One seed in either arm gives no interval over seeds, and says so. An unrated ladder
    (no Elo) is left out of its arm's statistics, with a note."""
    out = []
    reference = arms[0].elos if arms else []
    for k, arm in enumerate(arms):
        elos = arm.elos
        mean = statistics.fmean(elos) if elos else None
        sd = statistics.stdev(elos) if len(elos) > 1 else None
        st = ArmStats(arm.label, len(elos), mean, sd, elos)
        if k > 0:
            diff = mean - statistics.fmean(reference) if elos and reference else None
            if len(elos) > 1 and len(reference) > 1:
                diff, lo, hi = welch_interval(reference, elos, level)
                verdict = BETTER if lo > 0 else WORSE if hi < 0 else NO_DIFFERENCE
                st = ArmStats(arm.label, len(elos), mean, sd, elos, diff, lo, hi, verdict)
            else:
                st = ArmStats(arm.label, len(elos), mean, sd, elos, diff, verdict=FEW_SEEDS)
        out.append(st)
    return out


def format_table(data: CompareData) -> str:
    """One line per arm: seeds, mean Elo, sd, the difference to the reference with its interval, verdict."""
    width = max(4, *(len(s.label) for s in data.stats))
    ref = data.stats[0].label
    head = (f"{'arm':<{width}}  {'seeds':>5}  {'Elo mean':>8}  {'sd':>5}  {'diff [95%]':<22}  verdict"
            f"   (Elo vs {data.anchor}; diff: mean minus {ref}'s, Welch t over seeds)")
    return "\n".join([head, *(s.line(ref, width) for s in data.stats)])


# ----- the plot ---------------------------------------------------------------------------------
def ladder_figure(dirs: Sequence[str | Path], labels: Sequence[str] | None = None,
                  title: str | None = None, data: CompareData | None = None) -> Figure:
    """The figure :func:`plot_ladders` saves (no pyplot: an Agg canvas, no window).

    Raises:
        ValueError: see :func:`compare_data`.
    """
    from matplotlib.figure import Figure

    data = data or compare_data(dirs, labels)
    n = len(data.arms)
    seeded = any(len(arm.ladders) > 1 for arm in data.arms)
    height = 1.6 + (1.0 if seeded else 0.7) * n  # inches
    fig = Figure(figsize=(12, height), dpi=120)
    left, right = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 2]})
    rows = list(range(n))[::-1]  # the first arm on top
    _draw_scores(left, data, rows)
    for row, arm, st in zip(rows, data.arms, data.stats, strict=True):
        _draw_elo(right, row, arm, st, seeded)
    right.axvline(0, color="grey", linewidth=0.8, linestyle=":")
    what = "circles: seeds; square: their mean,\n95% t interval" if seeded else "95% interval"
    right.set_xlabel(f"Elo, {short_name(data.anchor)} = 0 ({what})", fontsize=10)
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


def _draw_scores(ax: Any, data: CompareData, rows: list[int]) -> None:
    """Each arm's score against every opponent over its ladders, one colour per opponent."""
    import matplotlib

    colours = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    width = 0.6 / max(1, len(data.opponents))
    for j, opponent in enumerate(data.opponents):
        offset = 0.3 - (j + 0.5) * width
        xs, ys, err = [], [], [[], []]
        for row, arm in zip(rows, data.arms, strict=True):
            st = arm.scores(opponent)
            if st is None:
                continue
            xs.append(100 * st.score)
            ys.append(row + offset)
            err[0].append(100 * max(0.0, st.score - st.score_lo))  # a 100% score: bounds round past it
            err[1].append(100 * max(0.0, st.score_hi - st.score))
        ax.errorbar(xs, ys, xerr=err, fmt="o", capsize=2, markersize=4, color=colours[j % len(colours)],
                    label=f"vs {short_name(opponent)}")
    ax.axvline(50, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlim(-1, 101)
    ax.set_xlabel("score against each opponent over the arm's ladders,\n% (95% interval)", fontsize=10)
    ax.set_yticks(rows)
    ax.set_yticklabels([arm.label if len(arm.ladders) == 1 else f"{arm.label}\n{len(arm.elos)} seeds"
                        for arm in data.arms], fontsize=10)


def _draw_elo(ax: Any, row: int, arm: Arm, st: ArmStats, seeded: bool) -> None:
    """One arm's Elo: the ladder's with its interval (``one ladder`` among arms of ``seeded``
    ones), or the seeds and their mean with its t interval."""
    elos = arm.elos
    if not elos:
        return
    if len(arm.ladders) == 1:
        lad = arm.ladders[0]
        elo, lo, hi = lad.elo, lad.lo, lad.hi
        text = f"{elo:+.0f} [{lo:+.0f}, {hi:+.0f}]" + (" one ladder" if seeded else "")
    elif len(elos) == 1:
        elo = lo = hi = elos[0]
        text = f"{elo:+.0f} (1 seed)"
    else:
        elo, lo, hi = mean_interval(elos)
        text = f"{elo:+.0f} [{lo:+.0f}, {hi:+.0f}] mean of {len(elos)}"
    if len(arm.ladders) > 1:
        ax.plot(elos, [row - 0.18] * len(elos), "o", markersize=4, markerfacecolor="none", color="tab:blue")
    below = math.isfinite(lo) and lo < elo
    above = math.isfinite(hi) and hi > elo
    ax.errorbar([elo], [row], xerr=[[elo - lo if below else 0.0], [hi - elo if above else 0.0]], fmt="s",
                capsize=3, color="black")
    ax.annotate(text, (elo, row), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    if st.verdict not in (REFERENCE, FEW_SEEDS):
        ax.annotate(f"diff {st.diff:+.0f} [{st.diff_lo:+.0f}, {st.diff_hi:+.0f}]: {st.verdict}", (elo, row),
                    textcoords="offset points", xytext=(0, -22), ha="center", fontsize=7.5, color="dimgray")


def plot_ladders(dirs: Sequence[str | Path], out: str | Path = "ladders.png",
                 labels: Sequence[str] | None = None, title: str | None = None,
                 data: CompareData | None = None) -> Path:
    """Draw the arms of ``dirs`` side by side as a PNG at ``out``: arms are rows; on the left
    each arm's score against every opponent over all its ladders' games (a point with its 95%
    interval, one colour per opponent), on the right its Elo relative to the common anchor: with
    one ladder its Elo with the ladder's interval, with several each seed as a small circle and
    the mean as a square with the 95% t interval of the mean, the difference to the reference
    written under it.

    Raises:
        ValueError: see :func:`compare_data`.
    """
    fig = ladder_figure(dirs, labels, title, data)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="png", bbox_inches="tight")
    return out
