"""Evaluation during and after training: arena matches of checkpoints, logged and gated.

Each evaluated checkpoint plays a gauntlet against fixed baselines (``eval.opponents``) and
the previous best; scores (``eval/score_vs_<opponent>``, ``eval/score_vs_best``) and the
checkpoint's Elo (anchored on ``random`` when it plays) go to TensorBoard. ``best.pt`` is
chosen by the arena: with ``gating: none`` it follows the newest evaluated checkpoint; with
``score`` a checkpoint replaces it after scoring at least ``gate_score`` against it in that
gauntlet; with ``sprt`` after an SPRT (``elo0=0``, ``elo1=20``, at most ``sprt_max_games``)
accepts it as stronger. Results live in ``run_dir/eval/step_<step>/``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from arena.arena import ArenaConfig, format_report, run_arena
from hive_env.outcome import DEFAULT_PLY_CAP

from .checkpoint import CheckpointStore
from .config import RunConfig
from .loop import Run


def az_spec(path: Path, sims: int, device: str = "cpu") -> str:
    """Player spec of a checkpoint searched with ``sims`` simulations."""
    return f"alphazero:ckpt={path},sims={sims},device={device}"


class Evaluation:
    """The evaluation hook of a run (see the module docstring)."""

    def __init__(self, cfg: RunConfig, log=print):
        self.cfg = cfg
        self.ev = cfg.eval
        self.keep = cfg.train.keep_checkpoints
        self.log = log
        self.ckpts = CheckpointStore(cfg.run_dir / "checkpoints")
        self.best = self.ckpts.dir / "best.pt"
        self.count = 0

    def _arena(self, mode: str, players: tuple[str, ...], games: int, out: Path, **extra):
        config = ArenaConfig(mode=mode, players=players, games_per_pairing=games,
                             game_type=self.cfg.env.game_type, seed=self.cfg.seed,
                             openings=f"random:{self.ev.openings_plies}",
                             ply_cap=self.cfg.env.ply_cap or DEFAULT_PLY_CAP, **extra)
        anchor = "random" if "random" in players else None
        return run_arena(config, out, workers=self.ev.workers, anchor=anchor, progress=False)

    def on_checkpoint(self, run: Run, step: int) -> None:
        """Evaluate the checkpoint just published (every ``eval.every``-th one): a gauntlet
        against the baselines and the previous best, then the gating decision."""
        every = self.ev.every
        self.count += 1
        if every <= 0 or self.count % every:
            self.ckpts.prune(self.keep)
            return
        sims = self.ev.sims
        path = self.ckpts.path(step)
        me = az_spec(path, sims, self.cfg.device)
        opponents = self.ev.opponents
        rival = None
        if self.best.exists():  # a frozen copy: best.pt may change while the arena reads it
            best_copy = self.cfg.run_dir / "eval" / f"best_before_{step:08d}.pt"
            best_copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self.best, best_copy)
            rival = az_spec(best_copy, sims, self.cfg.device)
            opponents = (*opponents, rival)
        out = self.cfg.run_dir / "eval" / f"step_{step:08d}"
        report = self._arena("gauntlet", (me, *opponents), self.ev.games, out)
        scores = {}
        for _, j, stats in report.pairings:
            spec = report.config.players[j]
            name = "best" if spec == rival else spec.split(":")[0]
            scores[name] = stats.score
            run.metrics.scalar(f"eval/score_vs_{name}", stats.score, step)
        if report.fit is not None and "random" in opponents:
            run.metrics.scalar("eval/elo_vs_random", float(report.fit.elo[0]), step)
        self.log(f"step {step}: " + ", ".join(f"{k} {v:.2f}" for k, v in scores.items()))
        promoted = self._promote(step, me, rival, scores.get("best"))
        run.metrics.scalar("eval/promoted", float(promoted), step)
        if promoted:
            shutil.copyfile(path, self.best)
            self.log(f"step {step}: best.pt is now this checkpoint")
        self.ckpts.prune(self.keep)

    def _promote(self, step: int, me: str, rival: str | None, score_vs_best: float | None) -> bool:
        """The gating decision (see the module docstring)."""
        gating = self.ev.gating
        if gating == "none" or rival is None:
            return True
        if gating == "score":
            return score_vs_best is not None and score_vs_best >= self.ev.gate_score
        report = self._arena("sprt", (me, rival), self.ev.sprt_max_games,
                             self.cfg.run_dir / "eval" / f"gate_{step:08d}", elo0=0.0, elo1=20.0)
        return report.decision == "H1"

    def final_match(self, path: Path, run: Run) -> Any:
        """The final network against ``eval.final_opponents``; prints and returns the report."""
        me = az_spec(path, self.ev.final_sims or self.ev.sims, self.cfg.device)
        report = self._arena("gauntlet", (me, *self.ev.final_opponents), self.ev.final_games,
                             self.cfg.run_dir / "eval" / "final")
        print(format_report(report))
        for _, j, stats in report.pairings:
            name = report.config.players[j]
            print(f"final score vs {name}: {stats.score:.3f} "
                  f"({stats.wins} wins, {stats.draws} draws, {stats.losses} losses)")
        return report
