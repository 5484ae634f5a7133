"""The model card of a shipped network, built from its run directory and ladder results.

Never typed by hand: ``card.json`` holds the command that trained the network (as a user types
it in a checkout: a ``run_dir`` under ``runs/``, not the training machine's absolute path), the
git commit, seed, steps, wall time, machine, the model's config and the ladder sections
(``arena.ladder_card``); ``MODEL_CARD.md`` says the same for people. ``scripts/ship.py`` copies
the weights and writes both.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import hive_zero
from hive_env.files import write_atomic
from hive_zero.machine import machine
from hive_zero.run_layout import SWEEP_FILE, RunLayout

_LOG_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")


def run_facts(run_dir: Path) -> dict[str, Any]:
    """Command, commit, seed, config and wall time of a run, from its directory. The command of
    a sweep's job (its directory beside the sweep's ``sweep.json``) is ``hive-train -m`` with that
    job's overrides, which runs that job alone (pinned to one core)."""
    from omegaconf import OmegaConf

    layout = RunLayout(run_dir)
    config_text = layout.config.read_text()
    config = OmegaConf.to_container(OmegaConf.create(config_text), resolve=True)
    commit = next((line.split("git:", 1)[1].strip() for line in config_text.splitlines()
                   if line.startswith("# git:")), "unknown")
    overrides_path = run_dir / "hydra" / "overrides.yaml"
    overrides = OmegaConf.to_container(OmegaConf.load(overrides_path)) if overrides_path.is_file() else []
    stamps = [m.group(1) for line in layout.train_log.read_text().splitlines()
              if (m := _LOG_TIME.match(line))] if layout.train_log.is_file() else []
    minutes = None
    if len(stamps) >= 2:
        fmt = "%Y-%m-%d %H:%M:%S"
        span = datetime.strptime(stamps[-1], fmt) - datetime.strptime(stamps[0], fmt)
        minutes = round(span.total_seconds() / 60, 1)
    sweep_job = (run_dir.parent / SWEEP_FILE).is_file()  # then the sweep of that job alone
    words = ["hive-train", *(["-m"] if sweep_job else []), *map(as_typed, overrides),
             *([f"hydra.sweep.dir=sweeps/{run_dir.parent.name}"] if sweep_job else [])]
    return {"command": " ".join(words), "git": commit, "sweep_job": sweep_job,
            "seed": config.get("seed"), "experiment": config.get("name"), "wall_minutes": minutes,
            "game_type": (config.get("env") or {}).get("game_type", "Base"),
            "game_types": list((config.get("selfplay") or {}).get("game_types") or ()),
            "ply_cap": (config.get("env") or {}).get("ply_cap"),
            "config": {k: config[k] for k in ("model", "search", "selfplay", "train", "stages")
                       if config.get(k)}}


def as_typed(override: str) -> str:
    """A Hydra override as a user types it in a checkout: an absolute ``run_dir`` becomes
    ``runs/<its last folder>`` (where runs go by default), so the card names no directory of the
    machine that trained the network."""
    key, sep, value = override.partition("=")
    if sep and key.lstrip("+~") == "run_dir" and Path(value).is_absolute():
        return f"{key}=runs/{Path(value).name}"
    return override


def model_card(name: str, checkpoint: Path, step: int | None, model_config: dict[str, Any],
               run: dict[str, Any], ladder: dict[str, Any], equal_time: dict[str, Any] | None,
               game_type: str = "Base", lineage: dict[str, Any] | None = None,
               replaced: dict[str, Any] | None = None, file: str | None = None) -> dict[str, Any]:
    """The card (``.json``) of the network shipped as ``checkpoint`` (``file``: the name it is
    shipped under, when it is staged under another): ``lineage`` from its checkpoint
    (training.lineage), ``replaced`` the match it won against the network it replaces
    (``arena.head_to_head``; None for the first of its game type)."""
    return {"name": name, "game_type": game_type, "file": file or checkpoint.name,
            "bytes": checkpoint.stat().st_size,
            "step": step, "model": model_config, "lineage": lineage, "run": run,
            "machine": ("one core (a sweep job) of " if run.get("sweep_job") else "")
            + machine((lineage or {}).get("device")),
            "version": (lineage or {}).get("version"), "shipped_by": hive_zero.__version__,
            "replaced": replaced, "ladder": ladder, "equal_time": equal_time}


def write_card(card_json: Path, model_card_md: Path, card: dict[str, Any]) -> Path:
    """Write the card's ``.json`` and ``.md`` atomically; the Markdown file."""
    write_atomic(card_json, json.dumps(card, indent=1) + "\n")
    return write_atomic(model_card_md, markdown(card) + "\n")


def markdown(card: dict[str, Any]) -> str:
    """The card for people, the matches as tables."""
    run = card["run"]
    lines = [f"# The shipped network: {card['name']}", "",
             f"- Game type: {card.get('game_type', 'Base')}{_trained_on(card)}",
             f"- Trained by: `{run['command']}` at git `{run['git'][:12]}`, seed {run['seed']}",
             f"- Steps: {card['step']}; wall time: {run['wall_minutes']} min on {card['machine']}",
             *([f"- Trained with hive-zero {card['version'] or '(version not recorded)'}; shipped with "
                f"{card.get('shipped_by')}"] if "version" in card else []),  # older cards: as they were
             f"- Training: {_lineage_line(card.get('lineage'))}",
             f"- Network: HiveGNN width {card['model']['width']}, {card['model']['layers']} residual blocks; "
             f"file {card['file']}, {card['bytes']} bytes", ""]
    lines += _replaced_lines(card.get("replaced"))
    for key, title in (("ladder", "Ladder"), ("equal_time", "Equal time")):
        lad = card.get(key)
        if not lad:
            continue
        lines += [f"## {title}", "", f"`{lad['command']}`", "", f"{lad['summary']}", "",
                  "| opponent | games | W-D-L | score [95%] | Elo of the network vs it [95%] |",
                  "|---|---|---|---|---|"]
        for r in lad["rows"]:
            lo, hi = (100 * x for x in r["score_95"])
            lines.append(f"| {r['opponent']} | {r['games']} | {r['wins']}-{r['draws']}-{r['losses']} | "
                         f"{100 * r['score']:.1f}% [{lo:.1f}, {hi:.1f}] | "
                         f"{_elo(r['elo'])} [{_elo(r['elo_95'][0])}, {_elo(r['elo_95'][1])}] |")
        lines.append("")
    lines += _levels_lines(card.get("levels"))
    return "\n".join(lines)


def _levels_lines(levels: dict[str, Any] | None) -> list[str]:
    """The playing levels (``alphazero:level=N``) with their calibrated Elo, as a table."""
    if not levels:
        return []
    return ["## Levels", "", f"`{levels['command']}`", "",
            f"`alphazero:level=N` with this network: one rating fit of {levels['games']} games among "
            f"the levels and the anchors, Elo relative to `{levels['anchor']}` with 95% intervals; "
            "the margin over the level below is the fit anchored on that level (its own interval).", "",
            *levels_table(levels), ""]


def levels_table(levels: dict[str, Any], counts: bool = False) -> list[str]:
    """The levels' table, then the anchors', as Markdown lines, from a levels' card section
    (``arena.ladder_card.levels_section``); ``counts`` adds each player's games and score (the
    calibration's own ``levels.md``)."""

    def elo(x: float | None, lo: float | None, hi: float | None) -> str:
        if x is None:
            return "unrated"
        return f"{x:+.0f}" + ("" if lo is None or hi is None else f" [{lo:+.0f}, {hi:+.0f}]")

    def extra(r: dict[str, Any]) -> str:
        score = "" if r.get("score") is None else f"{r['score']:.3f}"
        return f" {r['games']} | {score} |" if counts else ""

    more, rule = (" games | score |", "---|---|") if counts else ("", "")
    lines = [f"| level | what it plays | Elo [95%] | over the level below [95%] |{more}",
             f"|---|---|---|---|{rule}"]
    for r in levels["rows"]:
        gap = r.get("over_below")
        over = "" if not gap or gap["elo"] is None else (
            elo(gap["elo"], *gap["elo_95"]) + (" (confirmed)" if gap["confirmed"] else " (not confirmed)"))
        lines.append(f"| {r['level']} | {r['plays']} | {elo(r['elo'], *r['elo_95'])} | {over} |{extra(r)}")
    lines += ["", f"| anchor | Elo [95%] |{more}", f"|---|---|{rule}"]
    lines += [f"| `{r['player']}` | {elo(r['elo'], *r['elo_95'])} |{extra(r)}" for r in levels["anchors"]]
    return lines


def _trained_on(card: dict[str, Any]) -> str:
    """``(trained on ... games)`` when the network learnt from games of another type, or of
    several (``selfplay.game_types``)."""
    run = card["run"]
    types = list(run.get("game_types") or ()) or ([run["game_type"]] if run.get("game_type") else [])
    if not types or types == [card.get("game_type", "Base")]:
        return ""
    listed = types[0] if len(types) == 1 else f"{', '.join(types[:-1])} and {types[-1]}"
    return f" (trained on {listed} games)"


def _lineage_line(lineage: dict[str, Any] | None) -> str:
    """Where the network comes from and the work of its whole line."""
    if not lineage or not lineage.get("parent"):
        return "pure self-play from a random network"
    p, t = lineage["parent"], lineage["totals"]
    positions = "not recorded for every network" if t["positions"] is None else f"{t['positions']:,}"
    return (f"pure self-play, fine-tuned from the network with SHA-256 `{p['sha256'][:12]}` "
            f"(step {p['step']}, {p.get('game_type') or 'Base'}; network {lineage['generations']} of its "
            f"line); over the whole line: {t['steps']:,} steps, positions {positions}, "
            f"{t['train_minutes']:.0f} min of training and {t['eval_minutes']:.0f} min of evaluation")


def _replaced_lines(replaced: dict[str, Any] | None) -> list[str]:
    """The head-to-head match against the network this one replaced, as a table."""
    if not replaced:
        return ["The first network shipped for its game type: it replaced none.", ""]
    r = replaced["row"]
    lo, hi = (100 * x for x in r["score_95"])
    how = (f"SPRT (accepted {replaced['decision']})" if replaced["mode"] == "sprt"
           else f"{replaced['mode']} of {replaced['games']} games")
    return ["## Against the network it replaced", "",
            f"{how}, {replaced['sims']} simulations a move each, colours alternated, openings "
            f"{replaced['openings']}, seed {replaced['seed']}; that network's SHA-256 "
            f"`{replaced['incumbent_sha256'][:12]}`.", "",
            "| games | W-D-L | score [95%] | Elo [95%] |", "|---|---|---|---|",
            f"| {r['games']} | {r['wins']}-{r['draws']}-{r['losses']} | {100 * r['score']:.1f}% "
            f"[{lo:.1f}, {hi:.1f}] | {_elo(r['elo'])} [{_elo(r['elo_95'][0])}, {_elo(r['elo_95'][1])}] |", ""]


def _elo(x: float | None) -> str:
    return "inf" if x is None else f"{x:+.0f}"
