"""The game behind ``hive-play``: a person typing on a text stream against any :class:`Player`.

:class:`Session` reads lines from ``inp`` and writes to ``out``: UHP moves (``wS1``, ``bG1 wS1-``,
``pass``) or commands (``moves``, ``undo``, ``board``, ``game``, ``resign``, ``help``, ``quit``;
:data:`HELP`). The board keeps its place from move to move (``hive_env.display.text.View``) and
names the last move. The command line (options, the record file) is ``scripts/play.py``.
"""

from __future__ import annotations

import time
from typing import TextIO

from hive_env import Game, HiveError
from hive_env.display.text import View, render_board, use_colour

from .base import Player

HELP = """moves   list your legal moves (; between)  undo    take back your last move and the reply
board   draw the board                 game    print the GameString
resign  give up the game               quit    stop (the record is still written)
help    this text
A move is a UHP MoveString: wS1 (first tile), bG1 wS1- (right of wS1), wB1 bQ (on top of bQ),
ref/ upper right, ref- right, ref\\ lower right, /ref lower left, -ref left, \\ref upper left."""


class Session:
    """One game between the user (on ``inp``/``out``) and ``opponent``."""

    def __init__(self, game: Game, opponent: Player, human: int, inp: TextIO, out: TextIO,
                 line_editing: bool = False):
        self.game, self.opponent, self.human = game, opponent, human
        self.inp, self.out = inp, out
        self.colour = use_colour(out)
        self.view = View()  # the board keeps its place on screen from move to move
        self.line_editing = line_editing
        self.result = ""

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def show_board(self) -> None:
        self.say(render_board(self.game.board, colour=self.colour, view=self.view))
        if self.game.moves:
            who = "White" if self.game.ply % 2 == 1 else "Black"  # the side not to move
            self.say(f"last move: {who} {self.game.move_strings[-1]}")

    def read_line(self) -> str | None:
        """The next line of input without its newline; None at end of input."""
        prompt = f"{self.game.turn_string}> "
        if self.line_editing:  # readline edits and recalls lines typed at input()
            try:
                return input(prompt)
            except EOFError:
                return None
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        return line.rstrip("\n") if line else None

    def run(self) -> None:
        """Play until the game ends, the user resigns or quits, or input ends."""
        while not self.game.is_over:
            if self.game.side_to_move != self.human:
                self.say(f"{self.opponent.name} is thinking...")
                tick = time.perf_counter()
                move = self.opponent.choose(self.game)
                seconds = time.perf_counter() - tick
                text = self.game.move_string(move)
                self.game.play(move)
                self.say(f"{self.opponent.name} plays {text} ({seconds:.1f} s)")
                self.show_board()
                continue
            line = self.read_line()
            if line is None:
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
            self.say("; ".join(self.game.legal_move_strings()))  # a move holds spaces: ; as in UHP
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
