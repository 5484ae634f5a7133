"""Ship a trained network with the package: ``models/shipped/base.pt`` and its model card.

    python -m scripts.ship --run-dir RUN --ladder LADDER_DIR [--equal-time LADDER_DIR] [--ckpt PATH]

The checkpoint (default ``RUN/checkpoints/final.pt``) is copied with its weights, model config,
encoding version and step only (no optimiser, no replay bookkeeping: a few hundred KB). The
card is built from the run directory and the ladder results, never typed by hand
(``training.model_card``, ``arena.ladder_card``): ``card.json`` holds the command, git commit,
seed, steps, wall time, machine and the ladder (each rung's W/D/L, score with its 95% interval
and Elo); ``MODEL_CARD.md`` says the same for people.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arena.ladder_card import ladder_section
from models import shipped
from training.model_card import model_card, run_facts, write_card


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m scripts.ship", description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir", type=Path, required=True, help="the training run's directory")
    parser.add_argument("--ckpt", type=Path, help="checkpoint to ship (default RUN/checkpoints/final.pt)")
    parser.add_argument("--ladder", type=Path, required=True, help="results directory of its ladder")
    parser.add_argument("--equal-time", type=Path, help="results directory of its equal-time ladder")
    parser.add_argument("--name", default="hive-zero base (cpu)", help="the model's name on its card")
    parser.add_argument("--out", type=Path, default=shipped.HERE, help=argparse.SUPPRESS)
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
    card = model_card(args.name, target, state.get("step"), vars(model.config).copy(), run, lad, eq)
    write_card(args.out, card)
    print(f"shipped {ckpt} -> {target} ({card['bytes']} bytes); card: {args.out / 'MODEL_CARD.md'}")


if __name__ == "__main__":
    main()
