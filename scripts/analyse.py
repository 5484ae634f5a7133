"""``hive-analyse``: review a whole game with the network and the search, move by move.

    hive-analyse game.pgn                            # the shipped network, 400 simulations a position
    hive-analyse games.jsonl --game 3 --sims 800 --json review.json --png review.png
    hive-analyse HV-a-b-2019-01-01-1234.sgf --player "alphazero:ckpt=runs/x/checkpoints/best.pt"

GAME is a UHP GameString, a file of them (hive-play's records, self-play's ``games_<worker>.txt``),
an arena ``games.jsonl``, a Mzinga PGN or a boardspace SGF (``hive_env.records`` says what
of each is read). Prints a table: White's expected score before each move, the search's best move
and its visit share, the played move's rank and the drop in the mover's expected score, and the
marks (``search.review``: inaccuracy / mistake / blunder by the drop; missed win / allowed win
by the exact checks).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hive_env import HiveError
from hive_env.records import read_game
from hive_zero import version_line
from players import PlayerSpecError
from players.registry import check_spec, parse_spec

SPEC = "alphazero[:ckpt=PATH,sims=N,leaves=L,backend=B]"


def main(argv: list[str] | None = None) -> int:
    from search.review import DEFAULT_SIMS  # imports torch, which a review needs anyway

    parser = argparse.ArgumentParser(prog="hive-analyse", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=version_line("hive-analyse"))
    parser.add_argument("game", help="a game record file or a GameString")
    parser.add_argument("--game", dest="index", type=int, default=1, metavar="N",
                        help="which game of the file, from 1 (default %(default)s)")
    parser.add_argument("--sims", type=int, default=None,
                        help=f"simulations a position (default: the spec's sims=, else {DEFAULT_SIMS})")
    parser.add_argument("--player", default="alphazero", help=f"{SPEC} (default: the network shipped "
                        "for the game's type)")
    parser.add_argument("--json", help="also write the review as JSON to this file")
    parser.add_argument("--png", help="also draw White's expected score over the game to this PNG")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    try:
        if args.index < 1:
            raise HiveError(f"--game counts from 1, not {args.index}")
        record = read_game(args.game, args.index - 1, first=1)
        path, sims, leaves, backend = _network_spec(args.player, record.game.game_type)
        sims = args.sims or sims
        if sims < 1:
            raise PlayerSpecError(f"--sims must be >= 1, not {sims}")
    except (HiveError, PlayerSpecError, ValueError) as e:
        print(f"hive-analyse: error: {e}", file=sys.stderr)
        return 2
    from search.checkpoint import CheckpointError
    from search.review import Network, plot_review, review_game, table

    try:
        network = Network.load(path, backend=backend)
        if network.game_type not in (None, record.game.game_type):
            raise ValueError(f"{path.name} learnt {network.game_type} games, not {record.game.game_type}: "
                             "leave out ckpt= for the network shipped for that type")
    except (CheckpointError, ValueError) as e:
        print(f"hive-analyse: error: {e}", file=sys.stderr)
        return 2
    game = record.game
    print(f"hive-analyse: {record.source} ({record.format}, {game.game_type}, {game.ply} plies, "
          f"{game.state}); network {path}, {sims} simulations a position")
    review = review_game(game, network, sims=sims, leaves=leaves, progress=_bar(args.no_progress))
    print(table(review))
    try:
        if args.json:
            print(f"review written to {review.write_json(args.json)}")
        if args.png:
            print(f"chart drawn to {plot_review(review, args.png, f'{game.game_type}: {record.source}')}")
    except OSError as e:
        print(f"hive-analyse: error: {e}", file=sys.stderr)
        return 2
    return 0


def _network_spec(spec: str, game_type: str) -> tuple[Path, int, int, str]:
    """(checkpoint, sims, leaves, backend) of an ``alphazero`` spec; the shipped network of
    ``game_type`` without ``ckpt=``."""
    from models import shipped
    from search.review import DEFAULT_LEAVES, DEFAULT_SIMS

    check_spec(spec)  # the registry's own checks of every value (sims >= 1, leaves >= 1, ...)
    kind, raw = parse_spec(spec)
    unknown = set(raw) - {"ckpt", "sims", "leaves", "backend", "name", "device"}
    if kind != "alphazero" or unknown:
        raise PlayerSpecError(f"--player must be {SPEC}, not {spec!r}")
    if "ckpt" in raw:
        path = Path(raw["ckpt"])
    else:
        try:
            path = shipped.network(game_type).checkpoint
        except shipped.NoShippedNetworkError as e:
            raise PlayerSpecError(str(e)) from None
    try:
        return path, int(raw.get("sims", DEFAULT_SIMS)), int(raw.get("leaves", DEFAULT_LEAVES)), \
            raw.get("backend", "auto")
    except ValueError:
        raise PlayerSpecError(f"--player {spec!r}: sims and leaves are whole numbers") from None


def _bar(off: bool):
    """A progress callback drawing a bar on stderr (None when off or not on a terminal)."""
    if off:
        return None
    from tqdm import tqdm

    bar = tqdm(total=100, desc="reviewing", unit="%", file=sys.stderr, leave=False,
               disable=not sys.stderr.isatty())

    def progress(share: float) -> None:
        bar.update(round(100 * share) - bar.n)
        if share >= 1:
            bar.close()

    return progress


if __name__ == "__main__":
    sys.exit(main())
