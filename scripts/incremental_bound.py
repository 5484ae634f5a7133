"""What an incremental encoder could reuse: over every position of some game records, the share of
its legal moves and observation entries equal to those of the position two plies before.

``python -m scripts.incremental_bound [RECORD ...]`` (any record format ``hive-review`` reads:
GameStrings, arena ``games.jsonl``, PGN, SGF; default ``tests/data/real_games.txt``): one row per
game type and one for all, from :func:`hive_env.reuse.game_reuse`. The shares bound an incremental
encoder's saving from above (docs/scaling.md). Bad files print one line and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hive_env.records.common import RecordError
from hive_env.records.reader import read_games
from hive_env.reuse import ReuseCounts, game_reuse

DEFAULT_RECORDS = Path(__file__).resolve().parents[1] / "tests" / "data" / "real_games.txt"


def table(by_type: dict[str, ReuseCounts]) -> list[str]:
    """The rows: game type, positions, then each share in percent."""
    total = ReuseCounts()
    for counts in by_type.values():
        total.add(counts)
    names = list(total.shares())
    lines = ["| game type | positions | " + " | ".join(names) + " |", "|---" * (len(names) + 2) + "|"]
    for name, counts in [*sorted(by_type.items()), ("all", total)]:
        cells = [f"{100 * v:.1f}%" for v in counts.shares().values()]
        lines.append(f"| {name} | {counts.positions} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.incremental_bound",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="*", default=[str(DEFAULT_RECORDS)], metavar="RECORD",
                        help="game record files (default: the project's real games)")
    args = parser.parse_args(argv)
    by_type: dict[str, ReuseCounts] = {}
    try:
        for path in args.records:
            for record in read_games(Path(path)):
                by_type.setdefault(record.game.game_type, ReuseCounts()).add(game_reuse(record.game))
    except RecordError as e:
        print(f"incremental_bound: {e}", file=sys.stderr)
        return 2
    print("Shares equal to the position two plies before (same side to move); moves as (tile, destination), "
          "observation entries at the same index")
    print("\n".join(table(by_type)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
