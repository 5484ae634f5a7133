"""Redraw a shipped network's card with new results: matches, a ladder, levels.

The network itself is untouched: its card (``models/shipped/<type>.card.json`` and the Markdown
drawn from it) gets the sections given (:func:`sections`), each built from results as
``scripts/ship.py`` builds them (``arena.ladder_card``), never typed by hand. The results must be
of the card's game type.

See docs/search.md (the shipped networks).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from arena.ladder_card import add_matches, ladder_section, levels_section, matches_section
from models import shipped
from training.model_card import write_card


def sections(args: argparse.Namespace, game_type: str, card: dict) -> dict:
    """The card sections the arguments name, each checked to be of ``game_type``:

    - ``--matches``: equal-time gauntlets of this network against other engines (``hive-arena
      gauntlet ... --time S``), the card's "Equal time" section (one row per opponent and time);
    - ``--add-matches``: such gauntlets added to the rows ``card`` has (whose results directories
      may be gone), a row of the same opponent and times replaced;
    - ``--equal-time``: an equal-time ladder instead (the same section);
    - ``--levels``: a levels' calibration (``scripts/calibrate_levels.py``'s ``levels.json``);
    - ``--ladder``: the ladder (``hive-arena ladder``).
    """
    out = {}
    if args.ladder:
        out["ladder"] = ladder_section(args.ladder)
    if args.equal_time:
        out["equal_time"] = ladder_section(args.equal_time)
    if args.matches:
        out["equal_time"] = matches_section(args.matches, game_type=game_type)
    if args.add_matches:
        out["equal_time"] = add_matches(card.get("equal_time"), matches_section(args.add_matches,
                                                                                 game_type=game_type))
    if args.levels:
        out["levels"] = levels_section(args.levels)
        if out["levels"]["game_type"] != game_type:
            raise ValueError(f"{args.levels}: levels of {out['levels']['game_type']}, not {game_type}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.card", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game-type", required=True, choices=sorted(shipped.NETWORKS),
                        help="the shipped network whose card is redrawn")
    parser.add_argument("--matches", type=Path, nargs="+", help="results directories of equal-time gauntlets")
    parser.add_argument("--add-matches", type=Path, nargs="+",
                        help="equal-time gauntlets added to the card's (a row of the same opponent replaced)")
    parser.add_argument("--equal-time", type=Path, help="results directory of an equal-time ladder")
    parser.add_argument("--levels", type=Path, help="levels.json of a levels' calibration")
    parser.add_argument("--ladder", type=Path, help="results directory of its ladder")
    parser.add_argument("--out", type=Path, default=shipped.HERE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not (args.matches or args.add_matches or args.equal_time or args.levels or args.ladder):
        parser.error("nothing to redraw: give --matches, --add-matches, --equal-time, --levels or --ladder")
    if sum(bool(x) for x in (args.matches, args.add_matches, args.equal_time)) > 1:
        parser.error("--matches, --add-matches and --equal-time all draw the equal-time section: give one")
    net = shipped.NETWORKS[args.game_type]
    card_json = args.out / net.card.name
    if not card_json.is_file():
        print(f"card: error: no {args.game_type} network is shipped ({card_json} missing)", file=sys.stderr)
        return 2
    try:
        card = json.loads(card_json.read_text())
        new = sections(args, args.game_type, card)
        card.update(new)
        md = write_card(card_json, args.out / net.model_card.name, card)
    except KeyError as e:
        print(f"card: error: a results file without {e}: not what the arena or calibration writes",
              file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:
        print(f"card: error: {e}", file=sys.stderr)
        return 2
    print(f"card: {', '.join(new)} redrawn in {card_json} and {md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
