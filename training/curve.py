"""A run's strength curve: its saved checkpoints rated against fixed anchors, by wall-clock minutes.

Each chosen checkpoint plays the ladder (``arena.ladder``: random, greedy, alphabeta at the
curve's depths, the ladder's seed and openings) at fixed simulations, plus nokamute at a fixed
short time where one is found (``players.engines``; left out with one line where not) and, with
``shipped``, the shipped Base network at the same simulations. One rating fit
(``arena.ratings.fit_elo``) then takes every game of every checkpoint of every run given, pooled
with the rungs' calibration (``arena.calibration``), anchored on alphabeta:depth=2: the
checkpoints, nokamute and the shipped network are placed on one scale, each reference by its games
against all of them. The table says when each run first passed the strongest alphabeta rung,
nokamute and the shipped network (point estimates). The
x axes come from each checkpoint's lineage (``training.lineage``): minutes of wall clock
(training plus the evaluations during it, the run's own clock), core-minutes (minutes times the
cores the run had) and self-play positions. The curve's own games are played after the run and
are not in those minutes; ``curve.json`` says how long they took.

    hive-curve runs/zero_s7 runs/zero_s8 --out curves/zero     # curve.json, curve.md, curve.png
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from arena.calibration import shipped_calibrations
from arena.ladder import ANCHOR, ladder_config, run_ladder
from arena.ratings import PRIOR_DRAWS, fit_elo, game_scores, tally
from hive_env.files import write_atomic
from hive_zero.checks import bounded, check_ranges
from hive_zero.run_layout import CHECKPOINTS, RunLayout
from models import shipped as shipped_networks
from players.engines import missing_line, nokamute_spec
from search.checkpoint import read_checkpoint

from .checkpoint import CheckpointStore

CURVE_FILE = "curve.json"
NOKAMUTE = "nokamute"
"""The name of the nokamute rung in the fit and the tables."""
SHIPPED = "shipped"
"""The name of the shipped network's rung in the fit and the tables."""


@dataclass(frozen=True)
class CurveSettings:
    """How the curve's games are played.

    Args:
        games: games per rung and checkpoint (even: colours alternate in pairs).
        sims: the checkpoints' simulations a move.
        depths: the alphabeta rungs.
        nokamute_time: nokamute's seconds a move (0: leave it out).
        shipped: also rate the shipped Base network (``models.shipped``), at ``sims``.
        points: at most this many checkpoints a run, spread evenly over its minutes (the last
            always among them).
        seed: the openings' seed (the ladder's: 0).
        device: the checkpoints' device.
    """

    games: int = bounded(10, ge=2, even=True, note="colours alternate in pairs")
    sims: int = bounded(64, ge=1)
    depths: tuple[int, ...] = (1, 2, 3, 4)
    nokamute_time: float = bounded(0.1, ge=0.0)
    points: int = bounded(8, ge=1)
    seed: int = 0
    device: str = "cpu"
    shipped: bool = False

    def __post_init__(self):
        check_ranges(self)
        if 2 not in self.depths:
            raise ValueError(f"the depths must hold 2 (the anchor {ANCHOR}), got {list(self.depths)}")


@dataclass(frozen=True)
class Checkpoint:
    """A saved checkpoint of a run and where it stood: its step, the run's minutes (training and
    evaluation) and self-play positions when it was saved (its lineage), and the run's cores."""

    run: str
    path: Path
    step: int
    train_minutes: float
    eval_minutes: float
    positions: int
    cpus: int

    @property
    def minutes(self) -> float:
        return self.train_minutes + self.eval_minutes

    @property
    def core_minutes(self) -> float:
        return self.minutes * self.cpus


@dataclass
class CurvePoint:
    """A rated checkpoint: where it stood and its Elo relative to alphabeta:depth=2 [95%], with
    its W-D-L against nokamute (None without)."""

    run: str
    step: int
    minutes: float
    core_minutes: float
    positions: int
    elo: float | None
    lo: float | None
    hi: float | None
    nokamute_wdl: tuple[int, int, int] | None = None


@dataclass
class Curve:
    """Every run's points on one scale, the references' Elo on it (:attr:`references`), the
    settings and the seconds the curve's games took."""

    points: list[CurvePoint]
    settings: CurveSettings
    play_seconds: float
    notes: list[str] = field(default_factory=list)
    references: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    """Elo [95%] of what each run is measured against, by name: the strongest alphabeta rung,
    nokamute (:data:`NOKAMUTE`) and the shipped network (:data:`SHIPPED`) where rated."""

    @property
    def nokamute(self) -> tuple[float, float, float] | None:
        """Nokamute's Elo [95%] on the curve's scale (None: left out or unrated)."""
        return self.references.get(NOKAMUTE)

    def to_json(self) -> dict[str, Any]:
        return {"anchor": ANCHOR, "settings": asdict(self.settings), "nokamute": self.nokamute,
                "references": self.references, "play_seconds": round(self.play_seconds, 1),
                "notes": self.notes, "points": [asdict(p) for p in self.points]}


def run_checkpoints(run_dir: str | Path) -> list[Checkpoint]:
    """The run's step checkpoints (and ``final.pt`` when no step checkpoint holds its step),
    oldest first, with their lineage's totals."""
    run_dir = Path(run_dir)
    layout = RunLayout(run_dir)
    store = CheckpointStore(layout.checkpoints, create=False)
    if not store.dir.is_dir():
        raise FileNotFoundError(f"{run_dir} holds no {CHECKPOINTS}/ (is it a training run directory?)")
    paths = [store.path(step) for step in store.steps()]
    final = layout.final
    out = [_checkpoint(run_dir.name, p) for p in paths]
    if final.is_file():
        last = _checkpoint(run_dir.name, final)
        if not out or last.step != out[-1].step:
            out.append(last)
    return out


def _checkpoint(run: str, path: Path) -> Checkpoint:
    state = read_checkpoint(path)
    lineage = state.get("lineage") or {}
    totals = lineage.get("totals") or {}
    return Checkpoint(run, path, int(state.get("step", 0)), float(totals.get("train_minutes", 0.0)),
                      float(totals.get("eval_minutes", 0.0)), int(totals.get("positions", 0)),
                      int(lineage.get("cpus") or 1))


def pick(checkpoints: Sequence[Checkpoint], n: int) -> list[Checkpoint]:
    """At most ``n`` of ``checkpoints`` (oldest first), the nearest to ``n`` even steps of the
    minutes up to the last one, which is always chosen; the untrained step 0 is left out when
    others exist."""
    trained = [c for c in checkpoints if c.step > 0] or list(checkpoints)
    if len(trained) <= n:
        return trained
    last = trained[-1].minutes
    chosen = {len(trained) - 1}
    for k in range(1, n):
        target = last * k / n
        chosen.add(min(range(len(trained)), key=lambda i: abs(trained[i].minutes - target)))
    return [trained[i] for i in sorted(chosen)]


def _spec(c: Checkpoint, settings: CurveSettings) -> str:
    return f"alphazero:ckpt={c.path},sims={settings.sims},device={settings.device},name={c.run}@{c.step}"


def shipped_spec(settings: CurveSettings) -> str:
    """The shipped Base network's rung: the checkpoints' simulations and device."""
    return (f"alphazero:ckpt={shipped_networks.CHECKPOINT},sims={settings.sims},device={settings.device},"
            f"name={SHIPPED}")


def measure(run_dirs: Sequence[str | Path], out_dir: str | Path, settings: CurveSettings = CurveSettings(),
            workers: int = 1, log: Callable[[str], None] = print, progress: bool = False) -> Curve:
    """Play (or finish: each ladder's directory resumes) the curve's games of ``run_dirs`` in
    ``out_dir`` and fit them (module docstring); writes ``curve.json``, ``curve.md`` and
    ``curve.png`` there.

    Raises:
        FileNotFoundError: a run directory without checkpoints.
        arena.config.ArenaError: a checkpoint or setting the arena refuses.
    """
    out_dir = Path(out_dir)
    notes = []
    nokamute = nokamute_spec(settings.nokamute_time) if settings.nokamute_time else None
    if settings.nokamute_time and nokamute is None:
        notes.append(missing_line())
        log(notes[-1])
    extras = {**({nokamute: NOKAMUTE} if nokamute else {}),
              **({shipped_spec(settings): SHIPPED} if settings.shipped else {})}
    chosen = [c for run in run_dirs for c in pick(run_checkpoints(run), settings.points)]
    start = time.monotonic()
    reports = []
    for i, c in enumerate(chosen):
        config = ladder_config(_spec(c, settings), settings.depths, extra=tuple(extras),
                               games_per_pairing=settings.games, seed=settings.seed)
        report, result = run_ladder(config, out_dir / c.run / f"step_{c.step:08d}", workers=workers,
                                    progress=progress)
        reports.append(report)
        log(f"curve {i + 1}/{len(chosen)}: {c.run} step {c.step} ({c.minutes:.1f} min): {result.line()}")
    curve = fit_curve(chosen, reports, settings, extras)
    curve.play_seconds = time.monotonic() - start
    curve.notes = notes
    write_curve(curve, out_dir)
    return curve


def fit_curve(chosen: Sequence[Checkpoint], reports: Sequence[Any], settings: CurveSettings,
              extras: dict[str, str]) -> Curve:
    """One fit over every report's games (each a ladder of ``chosen[i]``) and the calibration's
    games between the rungs; each of ``extras`` (the reports' players that are no rung, spec ->
    name: nokamute, the shipped network) is one player across all reports."""
    rungs = [p for p in reports[0].config.players[1:] if p not in extras] if reports else []
    names = [*rungs, *dict.fromkeys(extras.values()), *(f"{c.run}@{c.step}" for c in chosen)]
    index = {name: i for i, name in enumerate(names)}
    results: list[tuple[int, int, float]] = []  # (i, j, i's score) of every game, for arena.ratings.tally
    wdl_vs_nokamute: dict[int, tuple[int, int, int]] = {}
    for k, report in enumerate(reports):
        me = index[f"{chosen[k].run}@{chosen[k].step}"]
        players = report.config.players
        for i, j, st in report.pairings:
            if i != 0:
                continue
            other = extras.get(players[j], players[j])
            results += [(me, index[other], s) for s in game_scores(st.wins, st.draws, st.losses)]
            if other == NOKAMUTE:
                wdl_vs_nokamute[k] = (st.wins, st.draws, st.losses)
    calibration = next((c for c in shipped_calibrations()
                        if reports and c.mismatch(reports[0].config) is None), None)
    if calibration is not None:
        for a in range(len(rungs)):
            for b in range(a + 1, len(rungs)):
                if (wdl := calibration.pairing(rungs[a], rungs[b])) is not None:
                    results += [(a, b, s) for s in game_scores(*wdl)]
    points, games = tally(len(names), results)
    fit = fit_elo(points, games, index[ANCHOR], PRIOR_DRAWS) if rungs else None

    def rating(i: int) -> tuple[float | None, float | None, float | None]:
        if fit is None or not math.isfinite(fit.elo[i]):
            return None, None, None
        return tuple(round(float(x), 1) if math.isfinite(x) else None  # type: ignore[return-value]
                     for x in (fit.elo[i], fit.lo[i], fit.hi[i]))

    out = [CurvePoint(c.run, c.step, round(c.minutes, 2), round(c.core_minutes, 2), c.positions,
                      *rating(index[f"{c.run}@{c.step}"]), wdl_vs_nokamute.get(k))
           for k, c in enumerate(chosen)]
    depths = [r for r in rungs if r.startswith("alphabeta:depth=")]
    references = {name: rating(index[name]) for name in (*depths[-1:], *dict.fromkeys(extras.values()))}
    references = {name: r for name, r in references.items() if r[0] is not None}
    return Curve(out, settings, 0.0, references=references)  # type: ignore[arg-type]


def first_passing(points: Sequence[CurvePoint], elo: float) -> CurvePoint | None:
    """The earliest point (by minutes) whose Elo is above ``elo``."""
    above = [p for p in points if p.elo is not None and p.elo > elo]
    return min(above, key=lambda p: p.minutes) if above else None


def curve_table(curve: Curve) -> str:
    """The curve as a Markdown table, run by run, with each reference's Elo (the strongest
    alphabeta rung, nokamute, the shipped network) and when each run first passed it."""
    rows = ["| run | step | minutes | core-minutes | positions | Elo vs alphabeta:depth=2 [95%] | "
            "vs nokamute (W-D-L) |", "|---|---|---|---|---|---|---|"]
    for p in curve.points:
        elo = "unrated" if p.elo is None else f"{p.elo:+.0f} [{_num(p.lo)}, {_num(p.hi)}]"
        wdl = "-".join(map(str, p.nokamute_wdl)) if p.nokamute_wdl else ""
        rows.append(f"| {p.run} | {p.step} | {p.minutes:.1f} | {p.core_minutes:.1f} | {p.positions:,} | "
                    f"{elo} | {wdl} |")
    lines = ["\n".join(rows), ""]
    for name, (e, lo, hi) in curve.references.items():
        lines.append(f"{reference_label(curve, name)}: {e:+.0f} [{_num(lo)}, {_num(hi)}]")
        for run in dict.fromkeys(p.run for p in curve.points):
            first = first_passing([p for p in curve.points if p.run == run], e)
            when = f"{first.minutes:.1f} min (step {first.step})" if first else "not within the run"
            lines.append(f"- {run} first above {name} (point estimates): {when}")
    lines.append(f"\nThe curve's own games took {curve.play_seconds / 60:.1f} min "
                 "(not in the minutes above).")
    return "\n".join(lines) + "\n"


def reference_label(curve: Curve, name: str) -> str:
    """How the table and the plot name a reference: with nokamute's seconds and the shipped
    network's simulations a move."""
    if name == NOKAMUTE:
        return f"nokamute at {curve.settings.nokamute_time:g} s a move"
    if name == SHIPPED:
        return f"the shipped Base network at {curve.settings.sims} simulations a move"
    return name


def _num(x: float | None) -> str:
    return "?" if x is None else f"{x:+.0f}"


def write_curve(curve: Curve, out_dir: str | Path) -> list[Path]:
    """``curve.json``, ``curve.md`` and ``curve.png`` in ``out_dir``, each written atomically."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [write_atomic(out_dir / CURVE_FILE, json.dumps(curve.to_json(), indent=1) + "\n"),
             write_atomic(out_dir / "curve.md", curve_table(curve))]
    paths.append(plot_curve(curve, out_dir / "curve.png"))
    return paths


def plot_curve(curve: Curve, out: Path) -> Path:
    """Elo against wall-clock minutes, one line a run with its 95% intervals, nokamute's Elo as a
    horizontal line with its band; the legend below the axes (over them it hid points); written
    atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for run in dict.fromkeys(p.run for p in curve.points):
        pts = [p for p in curve.points if p.run == run and p.elo is not None]
        x = [p.minutes for p in pts]
        y = np.array([p.elo for p in pts])
        err = np.array([[p.elo - (p.lo if p.lo is not None else p.elo) for p in pts],
                        [(p.hi if p.hi is not None else p.elo) - p.elo for p in pts]])
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=run)
    styles = {NOKAMUTE: ("black", "--"), SHIPPED: ("tab:red", "-.")}
    for name, (e, lo, hi) in curve.references.items():
        colour, line = styles.get(name, ("tab:grey", ":"))
        ax.axhline(e, color=colour, linestyle=line, label=reference_label(curve, name))
        if lo is not None and hi is not None and name in styles:
            ax.axhspan(lo, hi, color=colour, alpha=0.08)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("wall-clock minutes of the run (training + its evaluations)")
    ax.set_ylabel(f"Elo vs {ANCHOR}")
    ax.set_title(f"Strength by minutes ({curve.settings.sims} simulations a move, "
                 f"{curve.settings.games} games a rung)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    tmp = out.with_name(out.name + ".tmp.png")
    fig.savefig(tmp, dpi=110, bbox_inches="tight")
    plt.close(fig)
    tmp.replace(out)
    return out
