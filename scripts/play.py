"""``hive-play``: play Hive in the terminal against any player spec.

Type moves in UHP notation (``wS1``, ``bG1 wS1-``, ``wB1 bQ``, ``pass``) or a command:
``moves`` (legal moves), ``undo`` (your last move and the reply), ``board``, ``game``
(the GameString), ``resign``, ``help``, ``quit``. End of input ends the game like ``quit``.
The game record is written as a UHP GameString file at the end.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from hive_env import GAME_TYPES, Game, HiveError
from hive_env.display.text import render_board, use_colour
from hive_env.files import write_atomic
from players import Player, PlayerSpecError, make_player

HELP = """moves   list your legal moves          undo    take back your last move and the reply
board   draw the board                 game    print the GameString
resign  give up the game               quit    stop (the record is still written)
help    this text
A move is a UHP MoveString: wS1 (first tile), bG1 wS1- (right of wS1), wB1 bQ (on top of bQ),
ref/ upper right, ref- right, ref\\ lower right, /ref lower left, -ref left, \\ref upper left."""


def write_record(path: str, game_string: str) -> None:
    """Write the GameString to ``path`` atomically (a crash never leaves half a record)."""
    write_atomic(path, game_string + "\n")


class Session:
    """One game between the user (on ``inp``/``out``) and ``opponent``."""

    def __init__(self, game: Game, opponent: Player, human: int, inp: TextIO, out: TextIO):
        self.game, self.opponent, self.human = game, opponent, human
        self.inp, self.out = inp, out
        self.colour = use_colour(out)
        self.result = ""

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def show_board(self) -> None:
        self.say(render_board(self.game.board, colour=self.colour))

    def run(self) -> None:
        """Play until the game ends, the user resigns or quits, or input ends."""
        while not self.game.is_over:
            if self.game.side_to_move != self.human:
                move = self.opponent.choose(self.game)
                text = self.game.move_string(move)
                self.game.play(move)
                self.say(f"{self.opponent.name} plays {text}")
                self.show_board()
                continue
            self.out.write(f"{self.game.turn_string}> ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                self.say("")
                self.result = "stopped (end of input)"
                return
            if not self.command(line.strip()):
                return
        self.result = self.game.state

    def command(self, text: str) -> bool:
        """Carry out one line of input; False when the session should stop."""
        word = text.lower()
        if not text:
            return True
        if word == "help":
            self.say(HELP)
        elif word == "moves":
            self.say(" ".join(self.game.legal_move_strings()))
        elif word == "board":
            self.show_board()
        elif word == "game":
            self.say(self.game.game_string())
        elif word == "undo":
            self.undo()
        elif word == "resign":
            winner = "Black" if self.human == 0 else "White"
            self.result = f"{winner}Wins (you resigned)"
            return False
        elif word in ("quit", "exit"):
            self.result = "stopped"
            return False
        else:
            try:
                self.game.play(text)
            except HiveError as e:
                self.say(f"illegal: {e}")
                return True
            if self.game.is_over:
                self.show_board()
        return True

    def undo(self) -> None:
        # it is the user's turn: take back the opponent's reply and the user's move before it
        if len(self.game.moves) < 2:
            self.say("nothing to undo: you have not moved yet")
            return
        self.game.undo(2)
        self.say(f"took back 2 plies; {self.game.turn_string} to move")
        self.show_board()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hive-play", description=__doc__.splitlines()[0])
    parser.add_argument("--opponent", default="alphabeta", help="player spec, e.g. random, alphabeta:depth=3")
    parser.add_argument("--colour", "--color", default="white", choices=["white", "black"], help="you play")
    parser.add_argument("--game-type", default="Base", choices=GAME_TYPES)
    parser.add_argument("--from", dest="start", help="start from this GameString")
    parser.add_argument("--out", help="game record file (default game-<timestamp>.txt)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the opponent's random choices")
    args = parser.parse_args(argv)
    try:
        game = Game.from_string(args.start) if args.start else Game(args.game_type)
        opponent = make_player(args.opponent, args.seed)
    except (HiveError, PlayerSpecError) as e:
        print(f"hive-play: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - an engine that does not start, a missing checkpoint...
        print(f"hive-play: error: cannot start opponent {args.opponent!r}: {' '.join(str(e).split())}",
              file=sys.stderr)
        return 2
    out_path = args.out or time.strftime("game-%Y%m%d-%H%M%S.txt")
    human = 0 if args.colour == "white" else 1
    session = Session(game, opponent, human, sys.stdin, sys.stdout)
    session.say(f"hive-play: you are {args.colour.capitalize()} against {opponent.name} ({game.game_type}); "
                "type a move or help")
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
