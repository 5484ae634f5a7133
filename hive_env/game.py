"""``Game``: the small Python API over the compiled engine (load, list, play, undo, save).

Everything here is at the edge: it validates input, keeps the move history and calls the
kernels. Illegal input raises a :class:`~hive_env.errors.HiveError` and leaves the game
untouched.
"""

from __future__ import annotations

import numpy as np

from . import explain, uhp
from .board import (
    BLACK_WINS,
    DRAW,
    EXPANSIONS,
    HIST,
    IN_PROGRESS,
    PASS,
    PLY,
    STATUS,
    WHITE_WINS,
    current_hash,
    new_board,
    play,
    unplay,
)
from .display.text import render_board
from .errors import GameStringError, HiveError, IllegalMoveError, NotationError, quoted
from .pieces import game_type_name, parse_game_type
from .rules import MAX_MOVES, generate_moves, perft

_STATE_NAMES = {WHITE_WINS: "WhiteWins", BLACK_WINS: "BlackWins", DRAW: "Draw"}

PERFT_MAX_DEPTH = 12
"""Deepest :meth:`Game.perft` depth worth asking for (``hive-perft`` accepts no more): published
counts stop at 8, and depth 9 already runs for hours."""


class Game:
    """One game of Hive: a board plus its history of moves.

    Args:
        game_type: ``"Base"``, ``"Base+MLP"``... or expansion bits (M=1, L=2, P=4).
        ply_cap: draw after this many plies (training only); 0 = off.
    """

    def __init__(self, game_type: str | int = "Base", ply_cap: int = 0):
        if isinstance(game_type, str):
            try:
                expansions = parse_game_type(game_type)
            except ValueError as e:
                raise NotationError(str(e)) from None
        else:
            expansions = int(game_type)
        self.board, self.hist = new_board(expansions, ply_cap)
        self.moves: list[int] = []
        self._tokens: list[int] = []
        self._hashes: list[int] = [0]
        self._buf = np.empty(MAX_MOVES, dtype=np.int32)
        self._legal: np.ndarray | None = None  # legal moves of the current position, cached
        self._legal_set: frozenset[int] | None = None
        self._setup_ply = 0  # plies before the recorded moves (set-up positions only)
        self._start = (self.board.copy(), self.hist.copy())  # position the moves start from

    # ----- loading -------------------------------------------------------------------------
    @classmethod
    def from_string(cls, text: str, ply_cap: int = 0) -> Game:
        """A new game from a game type, or a game from a whole GameString (its parts cut by
        :func:`hive_env.uhp.split_game_string`).

        State and result are recomputed from the moves; a header that disagrees with them
        is an error.

        Raises:
            NotationError: unparsable game type, state, turn or move.
            GameStringError: two parts only, the header's GameState or Turn disagrees with the
                moves, or a move is illegal at its point in the game.
        """
        parts = uhp.split_game_string(text)
        game = cls(parts.game_type, ply_cap)
        if parts.state is None or parts.turn is None:
            return game
        state = uhp.parse_state(parts.state)
        turn_ply = uhp.parse_turn(parts.turn)
        for i, ms in enumerate(parts.moves, start=1):
            try:
                game.play(ms)
            except HiveError as e:
                raise GameStringError(f"move {i} {quoted(ms)}: {e}") from None
        disagreement = game.header_disagreement(state, turn_ply, parts.turn)
        if disagreement:
            raise GameStringError(disagreement)
        return game

    def header_disagreement(self, state: str, turn_ply: int, turn_text: str) -> str | None:
        """Where a GameString's header (its GameState, its Turn: ``turn_text`` read as
        ``turn_ply``) disagrees with this game replayed from its moves; None when it agrees."""
        if self.state != state:
            return f"GameState {state} disagrees with the moves, which give {self.state}"
        if turn_ply != self.ply:
            return f"Turn {turn_text} disagrees with the moves, which give {self.turn_string}"
        return None

    @classmethod
    def from_board(cls, board: np.ndarray, hist: np.ndarray) -> Game:
        """A game continuing from a set-up position (see ``hive_env.position``).

        It has no move record before that position: ``undo`` stops there and
        ``game_string`` raises.
        """
        game = cls(int(board[EXPANSIONS]))
        game.board, game.hist = board.copy(), hist.copy()
        game._setup_ply = game.ply
        game._start = (game.board.copy(), game.hist.copy())
        game._hashes = [0] * game.ply + [game.hash]
        return game

    # ----- queries -------------------------------------------------------------------------
    @property
    def expansions(self) -> int:
        return int(self.board[EXPANSIONS])

    @property
    def game_type(self) -> str:
        return game_type_name(self.expansions)

    @property
    def ply(self) -> int:
        return int(self.board[PLY])

    @property
    def side_to_move(self) -> int:
        """0 for White, 1 for Black."""
        return self.ply & 1

    @property
    def status(self) -> int:
        """IN_PROGRESS, WHITE_WINS, BLACK_WINS or DRAW (``hive_env.board`` constants)."""
        return int(self.board[STATUS])

    @property
    def is_over(self) -> bool:
        return self.status != IN_PROGRESS

    @property
    def state(self) -> str:
        """UHP GameState: NotStarted, InProgress, Draw, WhiteWins or BlackWins."""
        if self.status != IN_PROGRESS:
            return _STATE_NAMES[self.status]
        return "NotStarted" if self.ply == 0 else "InProgress"

    @property
    def turn_string(self) -> str:
        return uhp.turn_string(self.ply)

    @property
    def hash(self) -> int:
        """Zobrist hash of the position (tiles by kind, side to move)."""
        return current_hash(self.board, self.hist)

    def legal_moves(self) -> np.ndarray:
        """[n] int32 encoded legal moves; empty once the game is over.

        A fresh array of the caller's own (``random.shuffle`` and ``np.random.shuffle`` work on
        it, and nothing the caller does to it reaches the game): the copy of the cached
        moves costs under a microsecond, a tenth of generating them.
        """
        return self._legal_moves().copy()

    def _legal_moves(self) -> np.ndarray:
        """The cached legal moves (read-only, shared with copies of the game): for this class."""
        if self._legal is None:
            n = generate_moves(self.board, self._buf)
            self._legal = self._buf[:n].copy()
            self._legal.flags.writeable = False
        return self._legal

    def legal_move_strings(self) -> list[str]:
        return [self.move_string(m) for m in self._legal_moves()]

    def move_string(self, move: int) -> str:
        """MoveString of an encoded move in the current position."""
        return uhp.format_move(int(move), self.board)

    def parse_move(self, text: str) -> int:
        """Encoded legal move of a MoveString.

        Raises:
            NotationError: malformed MoveString.
            IllegalMoveError: well formed but not legal here.
        """
        move = uhp.parse_move(text, self.board, self.expansions)
        self._check_legal(move, text.strip())
        return move

    @property
    def move_strings(self) -> list[str]:
        """MoveStrings of the moves played, each printed in the position it was played in."""
        board, hist = self._start[0].copy(), self._start[1].copy()
        out = []
        for move in self.moves:
            out.append(uhp.format_move(move, board))
            play(board, hist, move)
        return out

    def game_string(self) -> str:
        """UHP GameString of the game so far.

        Raises:
            HiveError: the game started from a set-up position, which has no record.
        """
        if self._setup_ply:
            raise HiveError("this game starts from a set-up position and has no GameString")
        head = f"{self.game_type};{self.state};{self.turn_string}"
        return ";".join([head, *self.move_strings])

    def perft(self, depth: int) -> int:
        """Leaf count ``depth`` plies below the current position."""
        return int(perft(self.board, self.hist, depth))

    def copy(self) -> Game:
        other = Game.__new__(Game)
        other.board, other.hist = self.board.copy(), self.hist.copy()
        other.moves = list(self.moves)
        other._tokens, other._hashes = list(self._tokens), list(self._hashes)
        other._buf = np.empty(MAX_MOVES, dtype=np.int32)
        other._legal, other._legal_set = self._legal, self._legal_set
        other._setup_ply = self._setup_ply
        other._start = self._start
        return other

    def why_illegal(self, move: int | str) -> str | None:
        """The one-line reason :meth:`play` would refuse ``move`` with; None when it is legal.

        The reason names the rule (``hive_env.explain``): ``why_illegal("bQ -wQ")`` on White's
        turn is ``"bQ -wQ: bQ is Black's: it is White's turn"``; a malformed MoveString gives
        its notation error.
        """
        try:
            self.parse_move(move) if isinstance(move, str) else self._check_legal(int(move), str(move))
        except HiveError as e:
            return str(e)
        return None

    # ----- changes -------------------------------------------------------------------------
    def play(self, move: int | str) -> None:
        """Play a move given encoded or as a MoveString.

        Raises:
            NotationError / IllegalMoveError; the game is left untouched.
        """
        if isinstance(move, str):
            move = self.parse_move(move)
        else:
            move = int(move)
            self._check_legal(move, str(move))
        self.play_trusted(move)

    def play_trusted(self, move: int) -> None:
        """Play an encoded move the caller vouches for (one of this position's generated moves,
        as self-play's): :meth:`play` without the legality check, which costs a move generation
        a ply when a finished game's record is written. An illegal move here corrupts the game."""
        self._tokens.append(int(play(self.board, self.hist, int(move))))
        self._legal = self._legal_set = None
        self.moves.append(int(move))
        self._hashes.append(self.hash)

    def undo(self, n: int = 1) -> None:
        """Take back the last ``n`` plies.

        Raises:
            HiveError: fewer than ``n`` plies have been played.
        """
        if n < 0 or n > len(self.moves):
            raise HiveError(f"cannot undo {n} plies: only {len(self.moves)} played")
        self._legal = self._legal_set = None
        for _ in range(n):
            unplay(self.board, self.moves.pop(), self._tokens.pop())
            self._hashes.pop()
        ply = self.ply
        for q in range(max(0, ply - HIST + 1), ply + 1):
            self.hist[q % HIST] = np.uint64(self._hashes[q])

    def _check_legal(self, move: int, text: str) -> None:
        if not (0 <= move <= PASS):
            raise IllegalMoveError(f"{text} is not an encoded move (0..{PASS})")
        if self.is_over:
            raise IllegalMoveError(f"{text}: the game is over ({self.state})")
        if self._legal_set is None:
            self._legal_set = frozenset(self._legal_moves().tolist())
        if move not in self._legal_set:
            raise IllegalMoveError(f"{text}: {explain.why_illegal(self.board, move)}")

    # ----- display -------------------------------------------------------------------------
    def __str__(self) -> str:
        """The text board (``hive_env.display.text``) and a status line."""
        status = f"{self.game_type}, {self.state}, {self.turn_string} to move, ply {self.ply}"
        if self.is_over:
            status = f"{self.game_type}, {self.state}, ply {self.ply}"
        return f"{render_board(self.board)}\n{status}"

    def __repr__(self) -> str:
        return f"<Game {self.game_type} {self.state} {self.turn_string}>"
