"""Ship a trained network with the package (``models/shipped``: one per game type) and its card.

The checkpoint (default ``RUN/checkpoints/final.pt``) is copied, weights and lineage only, to the
file of its game type; a network already shipped for that type is replaced only by one that beat
it head to head (``--vs-shipped``; ``arena.head_to_head``). The card is built from the run
directory, the lineage, that match and the ladder, never typed by hand (``training.model_card``).

See docs/search.md (the shipped networks).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from arena.config import ArenaError
from arena.head_to_head import head_to_head, match_command
from arena.ladder_card import ladder_section
from hive_zero.run_layout import CHECKPOINTS, FINAL, RunLayout
from models import shipped
from training.model_card import model_card, run_facts, write_card


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m scripts.ship", description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir", type=Path, required=True, help="the training run's directory")
    parser.add_argument("--ckpt", type=Path, help=f"checkpoint to ship (default RUN/{CHECKPOINTS}/{FINAL})")
    parser.add_argument("--ladder", type=Path, required=True, help="results directory of its ladder")
    parser.add_argument("--equal-time", type=Path, help="results directory of its equal-time ladder")
    parser.add_argument("--vs-shipped", type=Path, help="results directory of its match against the "
                        "network shipped now for its game type (needed when there is one)")
    parser.add_argument("--game-type", choices=sorted(shipped.NETWORKS), help="default: the run's")
    parser.add_argument("--name", default="hive-zero base (cpu)", help="the model's name on its card")
    parser.add_argument("--out", type=Path, default=shipped.HERE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    from search.checkpoint import CheckpointError, load_model, save_checkpoint

    ckpt = args.ckpt or RunLayout(args.run_dir).final
    try:
        model, state = load_model(ckpt)
        run = run_facts(args.run_dir)
        game_type = args.game_type or run["game_type"]
        if game_type not in shipped.NETWORKS:
            raise ValueError(f"no network is shipped for {game_type} (one of {', '.join(shipped.NETWORKS)})")
        net = shipped.NETWORKS[game_type]
        incumbent = args.out / net.checkpoint.name
        replaced = None
        if incumbent.is_file():
            if args.vs_shipped is None:
                raise ValueError(f"a {game_type} network is shipped: the candidate must beat it first; play "
                                 f"{match_command(ckpt, incumbent, game_type)} and pass --vs-shipped "
                                 "runs/head_to_head")
            replaced = head_to_head(args.vs_shipped, ckpt, incumbent, game_type)
        lad = ladder_section(args.ladder)
        eq = ladder_section(args.equal_time) if args.equal_time else None
    except (CheckpointError, ArenaError, OSError, KeyError, ValueError) as e:
        print(f"ship: error: {e}", file=sys.stderr)
        sys.exit(2)
    lineage = state.get("lineage")
    if lineage and not lineage.get("ply_cap") and run.get("ply_cap"):
        lineage = {**lineage, "ply_cap": run["ply_cap"]}  # written before lineages recorded it
    extra = {"lineage": lineage} if lineage else {}
    # the network waits beside the old one while its card is written, and takes its place last:
    # a ship stopped before that leaves the old network in place, and the same command redoes it
    # (the head-to-head match is against that network, by its SHA-256)
    staged = incumbent.with_name(incumbent.name + ".new")
    try:
        save_checkpoint(staged, model, step=int(state.get("step", 0)), **extra)
        card = model_card(args.name, staged, state.get("step"), vars(model.config).copy(), run, lad, eq,
                          game_type=game_type, lineage=lineage, replaced=replaced, file=incumbent.name)
        md = write_card(args.out / net.card.name, args.out / net.model_card.name, card)
        os.replace(staged, incumbent)
    except OSError as e:
        staged.unlink(missing_ok=True)
        print(f"ship: error: {e}; the network shipped before is still in place: run the same command again",
              file=sys.stderr)
        sys.exit(1)
    print(f"shipped {ckpt} -> {incumbent} ({card['bytes']} bytes); card: {md}")


if __name__ == "__main__":
    main()
