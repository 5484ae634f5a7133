"""Evaluation during and after training: arena matches of checkpoints, logged and gated.

Each evaluated checkpoint plays a gauntlet against fixed baselines (``eval.opponents``);
scores and the checkpoint's Elo (anchored on ``random`` when it plays) go to TensorBoard
under ``eval/``. ``checkpoints/best.pt`` is chosen by the arena: with ``gating: none`` it
follows the newest evaluated checkpoint; with ``score`` a checkpoint replaces it after
scoring at least ``gate_score`` against it; with ``sprt`` after an SPRT (``elo0=0``,
``elo1=20``) accepts it as stronger. Results live in ``run_dir/eval/step_<step>/``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from .arena import ArenaConfig, format_report, run_arena
from .checkpoint import CheckpointStore
from .loop import Run, RunConfig


def az_spec(path: Path, sims: int, device: str = "cpu") -> str:
    """Player spec of a checkpoint searched with ``sims`` simulations."""
    return f"alphazero:ckpt={path},sims={sims},device={device}"


class Evaluation:
    """The evaluation hook of a run (see the module docstring)."""

    def __init__(self, cfg: RunConfig, keep: int = 20, log=print):
        self.cfg = cfg
        self.ev: dict[str, Any] = dict(cfg.eval)
        self.keep = keep
        self.log = log
        self.ckpts = CheckpointStore(cfg.run_dir / "checkpoints")
        self.best = self.ckpts.dir / "best.pt"
        self.count = 0

    def _arena(self, mode: str, players: tuple[str, ...], games: int, out: Path, **extra):
        config = ArenaConfig(mode=mode, players=players, games_per_pairing=games,
                             game_type=self.cfg.game_type, seed=self.cfg.seed,
                             openings=f"random:{int(self.ev.get('openings_plies', 2))}",
                             ply_cap=max(self.cfg.ply_cap, 10), **extra)
        anchor = "random" if "random" in players else None
        return run_arena(config, out, workers=int(self.ev.get("workers", 1)), anchor=anchor, progress=False)

    def on_checkpoint(self, run: Run, step: int) -> None:
        """Evaluate the checkpoint just published (every ``eval.every``-th one)."""
        every = int(self.ev.get("every", 1))
        self.count += 1
        if every <= 0 or self.count % every:
            self.ckpts.prune(self.keep)
            return
        path = self.ckpts.path(step)
        me = az_spec(path, int(self.ev.get("sims", 32)), self.cfg.device)
        opponents = tuple(self.ev.get("opponents", ["random"]))
        games = int(self.ev.get("games", 10))
        out = self.cfg.run_dir / "eval" / f"step_{step:08d}"
        report = self._arena("gauntlet", (me, *opponents), games, out)
        for _, j, stats in report.pairings:
            name = report.config.players[j].split(":")[0]
            run.writer.add_scalar(f"eval/score_vs_{name}", stats.score, step)
        if report.fit is not None and "random" in opponents:
            run.writer.add_scalar("eval/elo_vs_random", float(report.fit.elo[0]), step)
        self.log(f"step {step}: " + ", ".join(
            f"{report.config.players[j].split(':')[0]} {stats.score:.2f}" for _, j, stats in report.pairings))
        self._gate(run, step, path)
        self.ckpts.prune(self.keep)

    def _gate(self, run: Run, step: int, path: Path) -> None:
        gating = self.ev.get("gating", "none")
        if gating == "none" or not self.best.exists():
            shutil.copyfile(path, self.best)
            return
        me = az_spec(path, int(self.ev.get("sims", 32)), self.cfg.device)
        best_copy = self.cfg.run_dir / "eval" / f"best_before_{step:08d}.pt"
        shutil.copyfile(self.best, best_copy)
        rival = az_spec(best_copy, int(self.ev.get("sims", 32)), self.cfg.device)
        out = self.cfg.run_dir / "eval" / f"gate_{step:08d}"
        if gating == "score":
            report = self._arena("gauntlet", (me, rival), int(self.ev.get("games", 10)), out)
            score = report.pairings[0][2].score
            promoted = score >= float(self.ev.get("gate_score", 0.55))
            run.writer.add_scalar("eval/score_vs_best", score, step)
        else:
            report = self._arena("sprt", (me, rival), int(self.ev.get("sprt_max_games", 200)), out,
                                 elo0=0.0, elo1=20.0)
            promoted = report.decision == "H1"
        run.writer.add_scalar("eval/promoted", float(promoted), step)
        if promoted:
            shutil.copyfile(path, self.best)
            self.log(f"step {step}: promoted to best")

    def final_match(self, path: Path, run: Run) -> Any:
        """The final network against ``eval.final_opponents``; prints and returns the report."""
        opponents = tuple(self.ev.get("final_opponents", ["random"]))
        games = int(self.ev.get("final_games", 10))
        me = az_spec(path, int(self.ev.get("final_sims", self.ev.get("sims", 32))), self.cfg.device)
        report = self._arena("gauntlet", (me, *opponents), games, self.cfg.run_dir / "eval" / "final")
        print(format_report(report))
        for _, j, stats in report.pairings:
            name = report.config.players[j]
            print(f"final score vs {name}: {stats.score:.3f} "
                  f"({stats.wins} wins, {stats.draws} draws, {stats.losses} losses)")
        return report
