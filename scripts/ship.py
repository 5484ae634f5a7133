"""Ship a trained network with the package: ``models/shipped/base.pt`` and its model card.

    python -m scripts.ship --run-dir RUN --ladder LADDER_DIR [--equal-time LADDER_DIR] [--ckpt PATH]

The checkpoint (default ``RUN/checkpoints/final.pt``) is copied with its weights, model config,
encoding version and step only (no optimiser, no replay bookkeeping: a few hundred KB). The
card is built from the run directory and the ladder results, never typed by hand:
``card.json`` holds the command, git commit, seed, steps, wall time, machine, whether the
optional alpha-beta warm start was used, and the ladder (each rung's W/D/L, score with its
95% interval and Elo); ``MODEL_CARD.md`` says the same for people.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from hive_env.files import write_atomic

SHIPPED = Path(__file__).resolve().parents[1] / "models" / "shipped"
_LOG_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)")


def run_facts(run_dir: Path) -> dict[str, Any]:
    """Command, commit, seed, config and wall time of a run, from its directory."""
    from omegaconf import OmegaConf

    config_text = (run_dir / "config.yaml").read_text()
    config = OmegaConf.to_container(OmegaConf.create(config_text), resolve=True)
    commit = next((line.split("git:", 1)[1].strip() for line in config_text.splitlines()
                   if line.startswith("# git:")), "unknown")
    overrides_path = run_dir / "hydra" / "overrides.yaml"
    overrides = OmegaConf.to_container(OmegaConf.load(overrides_path)) if overrides_path.is_file() else []
    stamps = [m.group(1) for line in (run_dir / "train.log").read_text().splitlines()
              if (m := _LOG_TIME.match(line))] if (run_dir / "train.log").is_file() else []
    minutes = None
    if len(stamps) >= 2:
        fmt = "%Y-%m-%d %H:%M:%S"
        span = datetime.strptime(stamps[-1], fmt) - datetime.strptime(stamps[0], fmt)
        minutes = round(span.total_seconds() / 60, 1)
    return {"command": " ".join(["hive-train", *overrides]), "git": commit, "seed": config.get("seed"),
            "experiment": config.get("name"), "wall_minutes": minutes,
            "pretrain": bool((config.get("pretrain") or {}).get("games", 0)),
            "config": {k: config[k] for k in ("model", "search", "selfplay", "train") if k in config}}


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}, no GPU used"


def ladder_rows(ladder: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per rung: counts, score with its 95% interval, Elo of the player against it."""
    from arena.ratings import pairing_stats

    rows = []
    for opponent, s in ladder["scores"].items():
        st = pairing_stats(s["wins"], s["draws"], s["losses"])
        rows.append({"opponent": opponent, "games": st.games, "wins": st.wins, "draws": st.draws,
                     "losses": st.losses, "score": round(st.score, 4),
                     "score_95": [round(st.score_lo, 4), round(st.score_hi, 4)],
                     "elo": _num(st.elo), "elo_95": [_num(st.elo_lo), _num(st.elo_hi)]})
    return rows


def _num(x: float) -> float | None:
    return None if x != x or abs(x) == float("inf") else round(x, 1)


def _elo(x: float | None) -> str:
    return "inf" if x is None else f"{x:+.0f}"


def markdown(card: dict[str, Any]) -> str:
    run = card["run"]
    warm = "yes (not pure self-play)" if run["pretrain"] else "no (pure self-play)"
    lines = [f"# The shipped network: {card['name']}", "",
             f"- Trained by: `{run['command']}` at git `{run['git'][:12]}`, seed {run['seed']}",
             f"- Steps: {card['step']}; wall time: {run['wall_minutes']} min on {card['machine']}",
             f"- Alpha-beta warm start (pretrain): {warm}",
             f"- Network: HiveGNN width {card['model']['width']}, {card['model']['layers']} residual blocks; "
             f"file {card['file']}, {card['bytes']} bytes", ""]
    for key, title in (("ladder", "Ladder"), ("equal_time", "Equal-time ladder")):
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
    return "\n".join(lines)


def ladder_section(path: Path) -> dict[str, Any]:
    ladder = json.loads((path / "ladder.json").read_text())
    config = json.loads((path / "config.json").read_text()) if (path / "config.json").is_file() else {}
    spec = ladder["player"]
    depths = sorted({int(o.split("=")[1]) for o in ladder["scores"] if o.startswith("alphabeta:depth=")})
    per = max((s["games"] for s in ladder["scores"].values()), default=0)
    command = (f"hive-arena ladder \"{re.sub(r'ckpt=[^,]*,?', '', spec).rstrip(':,')}\" "
               f"--depths {' '.join(map(str, depths))} --games-per-pairing {per}"
               + (f" --equal-time {ladder['equal_time']:g}" if ladder.get("equal_time") else "")
               + f" --seed {config.get('seed', 0)}")
    return {"command": command, "summary": ladder["summary"].replace(spec, "the shipped network"),
            "anchor": ladder["anchor"], "elo": ladder["elo"], "elo_95": [ladder["lo"], ladder["hi"]],
            "equal_time": ladder.get("equal_time"), "rows": ladder_rows(ladder)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m scripts.ship", description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir", type=Path, required=True, help="the training run's directory")
    parser.add_argument("--ckpt", type=Path, help="checkpoint to ship (default RUN/checkpoints/final.pt)")
    parser.add_argument("--ladder", type=Path, required=True, help="results directory of its ladder")
    parser.add_argument("--equal-time", type=Path, help="results directory of its equal-time ladder")
    parser.add_argument("--name", default="hive-zero base (cpu)", help="the model's name on its card")
    parser.add_argument("--out", type=Path, default=SHIPPED, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    from search.checkpoint import CheckpointError, load_model, save_checkpoint

    ckpt = args.ckpt or args.run_dir / "checkpoints" / "final.pt"
    try:
        model, state = load_model(ckpt)
        run = run_facts(args.run_dir)
        lad = ladder_section(args.ladder)
        eq = ladder_section(args.equal_time) if args.equal_time else None
    except (CheckpointError, OSError, KeyError, ValueError) as e:
        print(f"ship: error: {e}", file=sys.stderr)
        sys.exit(2)
    target = save_checkpoint(args.out / "base.pt", model, step=int(state.get("step", 0)))
    card = {"name": args.name, "file": target.name, "bytes": target.stat().st_size, "step": state.get("step"),
            "model": vars(model.config).copy(), "machine": machine(), "run": run, "ladder": lad,
            "equal_time": eq}
    write_atomic(args.out / "card.json", json.dumps(card, indent=1) + "\n")
    write_atomic(args.out / "MODEL_CARD.md", markdown(card) + "\n")
    print(f"shipped {ckpt} -> {target} ({card['bytes']} bytes); card: {args.out / 'MODEL_CARD.md'}")


if __name__ == "__main__":
    main()
