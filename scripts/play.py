"""``hive-play``: play Hive in the terminal against any player spec (by default the shipped network).

``--level N`` (1..10) plays the network at that level (``players.levels``); without it the
network plays at the top level, 1 s a move. The opening line names the level and its time.

Type moves in UHP notation (``wS1``, ``bG1 wS1-``, ``wB1 bQ``, ``pass``) or a command:
``moves`` (legal moves, ``;``-separated as in UHP), ``undo`` (your last move and the reply),
``board``, ``game`` (the GameString), ``resign``, ``help``, ``quit``. End of input ends the
game like ``quit``. On a terminal, lines can be edited and recalled (readline). The board
keeps its place from move to move and names the last move (``players.terminal``).
The game record is written as a UHP GameString file at the end; ``--from`` reads one back.
"""

from __future__ import annotations

import argparse
import sys
import time

from hive_env import GAME_TYPES, Game, HiveError
from hive_env.records import read_record, write_record
from hive_zero import version_line
from players import PlayerSpecError, make_player, parse_spec
from players.base import prepare_for
from players.levels import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL, TOP_LEVEL_SECONDS
from players.registry import with_option
from players.terminal import Session


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hive-play", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=version_line("hive-play"))
    parser.add_argument("--opponent", default="alphazero",
                        help="player spec (default %(default)s: the network shipped with the package, at "
                             f"level {DEFAULT_LEVEL}, {TOP_LEVEL_SECONDS:g} s a move), e.g. random, "
                             "alphabeta:depth=3, alphazero:ckpt=PATH")
    parser.add_argument("--level", type=int, metavar="N",
                        help=f"the alphazero opponent's level, {MIN_LEVEL} (near random) to {MAX_LEVEL} "
                             f"(the full player, {TOP_LEVEL_SECONDS:g} s a move; the default); not with its "
                             "sims= or time=")
    parser.add_argument("--colour", "--color", default="white", choices=["white", "black"], help="you play")
    parser.add_argument("--game-type", default="Base", choices=GAME_TYPES)
    parser.add_argument("--from", dest="start", help="start from this GameString, or a game record file "
                        "(as --out writes)")
    parser.add_argument("--out", help="game record file (default game-<timestamp>.txt)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the opponent's random choices")
    args = parser.parse_args(argv)
    try:
        spec = args.opponent
        if args.level is not None:
            if parse_spec(spec)[0] != "alphazero":
                raise PlayerSpecError(f"--level is for an alphazero opponent, not {spec!r}")
            spec = with_option(spec, "level", args.level)
        game = read_record(args.start) if args.start else Game(args.game_type)
        opponent = make_player(spec, args.seed)
        prepare_for(opponent, game.game_type)  # the network of this game's type, or a refusal now
    except (HiveError, PlayerSpecError) as e:
        print(f"hive-play: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - an engine that does not start, a missing checkpoint...
        print(f"hive-play: error: cannot start opponent {args.opponent!r}: {' '.join(str(e).split())}",
              file=sys.stderr)
        return 2
    out_path = args.out or time.strftime("game-%Y%m%d-%H%M%S.txt")
    human = 0 if args.colour == "white" else 1
    editing = sys.stdin.isatty()
    if editing:
        import readline  # noqa: F401 - gives input() line editing and history, terminals only
    session = Session(game, opponent, human, sys.stdin, sys.stdout, line_editing=editing)
    level = getattr(opponent, "level", None)  # the alphazero player's (players.levels.Level)
    strength = f", {level.short()}" if level is not None else ""
    session.say(f"hive-play: you are {args.colour.capitalize()} against {opponent.name} "
                f"({game.game_type}{strength}); type a move or help")
    session.show_board()
    try:
        session.run()
    except KeyboardInterrupt:
        session.say("")
        session.result = "stopped"
    except Exception as e:  # noqa: BLE001 - e.g. an external engine died: keep the record
        session.result = f"stopped: {type(e).__name__}: {e}"
    finally:
        opponent.close()
    write_record(out_path, game.game_string())
    session.say(f"result: {session.result}")
    session.say(f"game record written to {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
