"""Whole recorded games (GameStrings, arena JSONL, Mzinga PGN, boardspace SGF), read for review.

:func:`read_games` reads every game of a file, or of record text passed directly;
:func:`read_game` reads one of them (for ``hive-analyse GAME``). Each :class:`GameRecord` holds
the game replayed from the start with :meth:`Game.play`, so every move is checked by the rules.
The format is found from the content; the file name plays no part. What cannot be read is
refused with a :class:`RecordError`: one line naming the file and line, and for a move the ply
and the move. Nothing is guessed: no game comes back cut short or changed.

Formats read (``GameRecord.format``):

1. ``gamestring``: UHP GameStrings, one a line, as ``hive-play`` and self-play
   (``games_<worker>.txt``) write them; blank lines and ``#`` lines are skipped. A line may be a
   bare game type (a game with no moves). Its GameState and Turn must agree with its moves.
2. ``hive-zero-jsonl``: the arena's ``games.jsonl``, one JSON object a line. Its
   ``game_string`` is read as above; ``white``, ``black``, ``result``, ``termination`` and ``id``
   go to ``meta`` (as White, Black, Result, Termination, Id). A ``plies`` that disagrees with the
   moves is refused.
3. ``pgn``: Mzinga PGN, as MzingaViewer saves it: ``[Name "value"]`` tag lines, then one UHP
   MoveString a line, numbered by ply (``12. wA1 bQ-``, ``13. pass``), ``{...}`` comments
   anywhere, and an optional result line at the end (``WhiteWins``, ``Draw``, ``1-0``...). Every
   tag goes to ``meta``; a result line goes there as Result when no tag gives one. The game type
   is the GameType tag; without one the game is Base, as in Mzinga (a tile of an expansion then
   stops it at that ply); an unknown GameType is refused, and so is a move number that is not
   its ply. A file may hold several games, each starting at its tags.
4. ``sgf``: boardspace.net Hive SGF, the ``HV-*.sgf`` files of its archives. Each game tree
   ``(;...)`` is a game; variations (nested trees) are refused. ``SU`` gives the game type:
   ``hive`` is Base, ``hive-plm`` Base+MLP, and so on (letters in any order, later words such as
   ``2 0 101`` ignored); ``hive-ultimate``, another ``SU``, none, or a ``GM`` other than 27 is
   refused. ``P0[id "name"]`` and ``P1[...]`` go to ``meta`` as P0 and P1, and as White and Black
   (White is the player who makes the first move); RE, DT, EV, PC, RO, GN and SU go there as
   Result, Date, Event, Site, Round, GameName and Variant; other properties are ignored. Each
   ``P0[n action]`` / ``P1[n action]`` is one action of that player, case ignored:

   - ``dropb``/``pdropb`` TILE COL ROW [REF], ``move``/``pmove`` [W|B] TILE COL ROW [REF]: the
     tile goes to the cell COL ROW (p: thrown by a pillbug);
   - ``pick`` POOL SLOT [TILE], ``pickb`` COL ROW [TILE]: a tile taken in hand, from the
     reserve or the board; ``drop``: the tile put back in the reserve;
   - ``pass``; ``done`` ends the turn; ``resign``, ``offerdraw``, ``declinedraw`` and
     ``acceptdraw`` move nothing (a resignation or accepted draw, confirmed or last in the
     record, ends the game, and meta Termination says so; any move after it is refused);
   - ``start``, ``swap``, ``playwhite`` and ``playblack`` move nothing; ``edit`` is read only
     before the first move, and no tile may be set up under it.

   Any other action is refused. A turn's move is its last tile drop before ``done``; a tile
   picked up and put back where it was is no move. A ``done`` alone by the player to move is a
   pass when pass is that side's only move (and moves nothing otherwise); a move by the player
   not to move is read after the forced pass that boardspace leaves out, and refused when that
   side had a move. A move left without its ``done`` at the end is not played (meta Unconfirmed).
   The cell decides where a tile goes: columns are letters, rows numbers; the next letter is
   east, the next number north-west, both together north-east; the first tile of the game is
   at its cell. REF, boardspace's reference (``wA1-``, ``/wQ``, ``\\bG1``, a tile name alone or
   ending in ``.`` for a climb onto it, ``.`` for none; SGF's ``\\\\`` is one backslash), must name
   that same cell, or the game is refused. A tile name may carry a 1 on a single tile (``wM1``)
   or lack its colour (``B1``, old records): then the W/B of ``move`` gives it, else the tile in
   hand's, else (not for a pillbug's ``pdropb``/``pmove``) the player's own. boardspace's tile
   numbers become UHP's numbers in order of entry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import uhp
from .board import PASS, POS, TOP, move_of
from .errors import HiveError
from .game import Game
from .grid import NE, NEIGH, NW, ORIGIN, SE, SW, E, W, hex_of, qr_of
from .pieces import (
    BUG_CHARS,
    BUG_COUNT,
    COLOUR_CHARS,
    PIECE_COLOUR,
    bug_in_game,
    game_type_name,
    parse_game_type,
    piece_of,
)

FORMATS_READ = "UHP GameString lines, hive-zero games.jsonl, Mzinga PGN, boardspace SGF"
"""The formats :func:`read_games` reads, as its refusals name them."""


class RecordError(HiveError):
    """A game record that cannot be read. The message is one line: ``file:line: what``, and for a
    move ``file:line: ply N 'move': why``."""


@dataclass(frozen=True)
class GameRecord:
    """One recorded game."""

    game: Game
    """The whole game, replayed move by move from the start."""
    format: str
    """``gamestring``, ``hive-zero-jsonl``, ``pgn`` or ``sgf``."""
    source: str
    """``path:line`` where the game starts (``<text>:line`` for text passed directly)."""
    meta: dict[str, str] = field(default_factory=dict)
    """What the record says besides the moves: White, Black, Result, Date, Event..."""


def read_games(source: str | Path) -> list[GameRecord]:
    """Every game of the file ``source`` names, or of ``source`` itself when it is record text.

    Raises:
        RecordError: no such file, not a record, or a game that cannot be read.
    """
    name, text = _load(source)
    fmt, chunks = _split(name, text)
    return [fmt.build(name, chunk) for chunk in chunks]


def read_game(source: str | Path, index: int = 0, first: int = 0) -> GameRecord:
    """The ``index``-th game (from 0) of a file or of record text; the others are not replayed.
    ``first``: the number messages give the first game (1 for a command line counting from 1).

    Raises:
        RecordError: as :func:`read_games`, or there is no game ``index`` (it says how many there are).
    """
    name, text = _load(source)
    fmt, chunks = _split(name, text)
    n = len(chunks)
    if not 0 <= index < n:
        games = f"{n} game{'s' if n != 1 else ''}"
        raise RecordError(f"{name}: there is no game {index + first}: it holds {games} "
                          f"({first}..{n - 1 + first})")
    return fmt.build(name, chunks[index])


# ----- loading and detection -------------------------------------------------------------


@dataclass
class _Chunk:
    """The lines of one game: ``(line number, stripped text)``, from its first line ``line``."""

    line: int
    lines: list[tuple[int, str]]


@dataclass(frozen=True)
class _Format:
    name: str
    split: Callable[[str, str], list[Any]]
    build: Callable[[str, Any], GameRecord]


def _load(source: str | Path) -> tuple[str, str]:
    """(name for messages, text) of a file, or of text given directly (named ``<text>``)."""
    if not isinstance(source, Path) and not _is_file(source):
        return "<text>", source
    path = Path(source)
    try:
        return str(path), path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not a text file (not UTF-8); formats read: {FORMATS_READ}") from None
    except OSError as e:
        raise RecordError(f"{path}: cannot read it: {e.strerror or e}") from None


def _is_file(text: str) -> bool:
    if "\n" in text or len(text) > 4096:
        return False
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def _lines(text: str) -> list[tuple[int, str]]:
    """Numbered stripped lines, without blank lines and ``#`` comment lines."""
    out = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            out.append((number, line))
    return out


def _split(name: str, text: str) -> tuple[_Format, list[Any]]:
    """The format of the text (from its first line that is not blank or ``#``) and its games."""
    lines = _lines(text)
    if not lines:
        raise RecordError(f"{name}: empty: it holds no game record")
    number, first = lines[0]
    fmt = _detect(first)
    if fmt is None:
        what = "neither a file nor a game record" if name == "<text>" and "\n" not in text else \
            f"not a game record ({first[:30]!r})"
        where = name if name == "<text>" and "\n" not in text else f"{name}:{number}"
        raise RecordError(f"{where}: {what}; formats read: {FORMATS_READ}")
    return fmt, fmt.split(name, text)


def _detect(first: str) -> _Format | None:
    if first.startswith("("):
        return _SGF
    if first.startswith("{"):
        return _JSONL
    if first.startswith("[") or _MOVE_LINE.match(first):
        return _PGN
    if _is_game_type(first.split(";")[0]):
        return _GAMESTRING
    return None


def _is_game_type(text: str) -> bool:
    try:
        parse_game_type(text)
    except ValueError:
        return False
    return True


# ----- replaying -------------------------------------------------------------------------


def _new_game(game_type: str, where: str) -> Game:
    try:
        return Game(game_type)
    except HiveError as e:
        raise RecordError(f"{where}: {e}") from None


def _play(game: Game, move: str | int, where: str, shown: str) -> None:
    """Play one move; a refusal names the place, the ply and the move as the record writes it."""
    try:
        game.play(move)
    except HiveError as e:
        reason = str(e)
        for prefix in (f"{shown}: ", f"{move}: "):
            reason = reason.removeprefix(prefix)
        raise RecordError(f"{where}: ply {game.ply + 1} {shown!r}: {reason}") from None


# ----- UHP GameString lines --------------------------------------------------------------


def _split_lines(name: str, text: str) -> list[_Chunk]:
    return [_Chunk(number, [(number, line)]) for number, line in _lines(text)]


def _build_gamestring(name: str, chunk: _Chunk) -> GameRecord:
    where = f"{name}:{chunk.line}"
    return GameRecord(_replay_gamestring(chunk.lines[0][1], where), "gamestring", where, {})


def _replay_gamestring(text: str, where: str) -> Game:
    parts = [p.strip() for p in text.strip().split(";")]
    while len(parts) > 3 and parts[-1] == "":
        parts.pop()
    game = _new_game(parts[0], where)
    if len(parts) == 1:
        return game
    if len(parts) < 3:
        raise RecordError(f"{where}: not a GameString (GameType;GameState;Turn;moves...): {text[:40]!r}")
    try:
        state, turn = uhp.parse_state(parts[1]), uhp.parse_turn(parts[2])
    except HiveError as e:
        raise RecordError(f"{where}: {e}") from None
    for move in parts[3:]:
        _play(game, move, where, move)
    if game.state != state:
        raise RecordError(f"{where}: GameState {state} disagrees with the moves, which give {game.state}")
    if turn != game.ply:
        raise RecordError(f"{where}: Turn {parts[2]} disagrees with the moves, which give {game.turn_string}")
    return game


# ----- hive-zero games.jsonl -------------------------------------------------------------

_JSONL_META = {"white": "White", "black": "Black", "result": "Result", "termination": "Termination",
               "id": "Id"}


def _build_jsonl(name: str, chunk: _Chunk) -> GameRecord:
    where = f"{name}:{chunk.line}"
    try:
        record = json.loads(chunk.lines[0][1])
    except json.JSONDecodeError as e:
        raise RecordError(f"{where}: not a JSON object ({e.msg}, column {e.colno})") from None
    if not isinstance(record, dict) or not isinstance(record.get("game_string"), str):
        raise RecordError(f'{where}: a games.jsonl line is an object with a "game_string" text')
    game = _replay_gamestring(record["game_string"], where)
    plies = record.get("plies")
    if isinstance(plies, int) and plies != game.ply:
        raise RecordError(f"{where}: plies {plies} disagrees with the game_string, which has {game.ply}")
    meta = {key: str(record[k]) for k, key in _JSONL_META.items() if record.get(k) is not None}
    return GameRecord(game, "hive-zero-jsonl", where, meta)


# ----- Mzinga PGN ------------------------------------------------------------------------

_TAG = re.compile(r'^\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]$')
_MOVE_LINE = re.compile(r"^(\d+)\s*\.+\s*(.*)$")
_PGN_RESULTS = {"1-0": "WhiteWins", "0-1": "BlackWins", "1/2-1/2": "Draw", "*": "InProgress"}


def _split_pgn(name: str, text: str) -> list[_Chunk]:
    """Games start at a tag line after moves, or at a tag already seen in the current game."""
    chunks: list[_Chunk] = []
    keys: set[str] = set()
    moved = False
    for number, line in _lines(_drop_comments(name, text)):
        if line.startswith("%"):  # a PGN escape line
            continue
        key = _tag_key(line)
        if not chunks or (key is not None and (moved or key in keys)):
            chunks.append(_Chunk(number, []))
            keys, moved = set(), False
        chunks[-1].lines.append((number, line))
        if key is None:
            moved = True
        else:
            keys.add(key)
    return chunks


def _tag_key(line: str) -> str | None:
    if not line.startswith("["):
        return None
    m = _TAG.match(line)
    return m.group(1) if m else line


def _drop_comments(name: str, text: str) -> str:
    """The text without ``{...}`` comments; each comment leaves its newlines, so lines keep their numbers."""
    out = re.sub(r"\{[^{}]*\}", lambda m: "\n" * m.group(0).count("\n"), text)
    stray = re.search(r"[{}]", out)
    if stray:
        line = out[:stray.start()].count("\n") + 1
        raise RecordError(f"{name}:{line}: a PGN comment brace {stray.group(0)!r} without its pair")
    return out


def _build_pgn(name: str, chunk: _Chunk) -> GameRecord:
    meta: dict[str, str] = {}
    moves: list[tuple[int, str]] = []
    result = ""
    for number, line in chunk.lines:
        where = f"{name}:{number}"
        if line.startswith("["):
            m = _TAG.match(line)
            if not m:
                raise RecordError(f'{where}: not a PGN tag [Name "value"]: {line[:40]!r}')
            meta[m.group(1)] = re.sub(r"\\(.)", r"\1", m.group(2))
        elif result:
            raise RecordError(f"{where}: {line[:40]!r} after the result line {result!r}")
        elif _pgn_result(line):
            result = _pgn_result(line)
        else:
            moves.append((number, _pgn_move(line, len(moves) + 1, where)))
    if result:
        meta.setdefault("Result", result)
    game = _new_game(meta.get("GameType", "Base"), f"{name}:{chunk.line}: GameType")
    for number, move in moves:
        _play(game, move, f"{name}:{number}", move)
    return GameRecord(game, "pgn", f"{name}:{chunk.line}", meta)


def _pgn_result(line: str) -> str:
    """The game result a result line gives (a UHP GameState or 1-0, 0-1, 1/2-1/2, *), or ''."""
    if line in _PGN_RESULTS:
        return _PGN_RESULTS[line]
    try:
        return uhp.parse_state(line)
    except HiveError:
        return ""


def _pgn_move(line: str, ply: int, where: str) -> str:
    """The MoveString of a move line (``12. wA1 bQ-``; the number must be the ply)."""
    m = _MOVE_LINE.match(line)
    if not m:
        return line
    if int(m.group(1)) != ply:
        raise RecordError(f"{where}: move number {m.group(1)}, but this is ply {ply}")
    if not m.group(2).strip():
        raise RecordError(f"{where}: move number {m.group(1)} without a move")
    return m.group(2).strip()


# ----- boardspace SGF: the file's structure ----------------------------------------------


@dataclass
class _SgfTree:
    """One game tree: its properties ``(name, value, line)`` in file order, nodes flattened."""

    line: int
    props: list[tuple[str, str, int]]


def _split_sgf(name: str, text: str) -> list[_SgfTree]:
    trees: list[_SgfTree] = []
    tree: _SgfTree | None = None
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif c.isspace() or c == ";" and tree is not None:
            pass
        elif c == "(":
            if tree is not None:
                raise RecordError(f"{name}:{line}: SGF variations are not read (a record is one line "
                                  "of play)")
            tree = _SgfTree(line, [])
        elif c == ")" and tree is not None:
            trees.append(tree)
            tree = None
        elif tree is not None and c.isalnum():
            i, line = _sgf_property(name, text, i, line, tree.props)
            continue
        else:
            raise RecordError(f"{name}:{line}: not SGF: {text[i:i + 20]!r}")
        i += 1
    if tree is not None:
        raise RecordError(f"{name}:{tree.line}: the SGF game tree has no closing ')'")
    return trees


def _sgf_property(name: str, text: str, i: int, line: int,
                  props: list[tuple[str, str, int]]) -> tuple[int, int]:
    """Read ``NAME[value][value]...`` at ``i``; returns the index and line after it."""
    start = i
    while i < len(text) and text[i].isalnum():
        i += 1
    ident, count = text[start:i], len(props)
    while i < len(text) and text[i].isspace() or text.startswith("[", i):
        if text[i] == "\n":
            line += 1
        if text[i] != "[":
            i += 1
            continue
        value_line, chars = line, []
        i += 1
        while i < len(text) and text[i] != "]":
            if text[i] == "\\" and i + 1 < len(text):
                i += 1
                if text[i] != "\n":  # an escaped newline is a soft line break: nothing
                    chars.append(text[i])
            else:
                chars.append(text[i])
            line += text[i] == "\n"
            i += 1
        if i >= len(text):
            raise RecordError(f"{name}:{value_line}: SGF value {ident}[... has no closing ']'")
        props.append((ident, "".join(chars), value_line))
        i += 1
    if len(props) == count:
        raise RecordError(f"{name}:{line}: SGF property {ident} has no [value]")
    return i, line


# ----- boardspace SGF: the game ----------------------------------------------------------

_SGF_META = {"RE": "Result", "DT": "Date", "EV": "Event", "PC": "Site", "RO": "Round", "GN": "GameName",
             "SU": "Variant"}
_ACTION = re.compile(r"^(\d+)\s+(\S+)\s*(.*)$", re.DOTALL)
_BS_TILE = re.compile(r"^([wb]?)([qsbgamlp])(\d?)$", re.IGNORECASE)
_BS_REF = re.compile(r"^([-/\\]?)([A-Za-z0-9]+)([-/\\]?)(\.?)$")
_CELL = r"([A-Za-z])\s+(\d+)"
_DROP_ARGS = re.compile(rf"^(\S+)\s+{_CELL}(?:\s+(\S+))?$")
_MOVE_ARGS = re.compile(rf"^(?:([WBwb])\s+)?(\S+)\s+{_CELL}(?:\s+(\S+))?$")
_PICKB_ARGS = re.compile(rf"^{_CELL}(?:\s+(\S+))?$")
_PREFIX_DIR = {"/": SW, "-": W, "\\": NW}
_SUFFIX_DIR = {"/": NE, "-": E, "\\": SE}

_Tile = tuple[int, int, int]
"""A boardspace tile: (colour, bug, number as boardspace numbers it)."""
_Cell = tuple[int, int]
"""A boardspace cell: (column, 0 for A; row)."""


@dataclass
class _Turn:
    """What a player has done since the last ``done``, waiting for it."""

    kind: str  # move, pass, resign, offerdraw, declinedraw, acceptdraw
    player: int
    where: str
    text: str
    tile: _Tile | None = None
    cell: _Cell | None = None
    ref: str = "."


@dataclass
class _Boardspace:
    """A boardspace game being replayed, one action at a time."""

    game: Game
    anchor: _Cell | None = None  # the cell of the first tile, which the engine puts on ORIGIN
    tiles: dict[_Tile, int] = field(default_factory=dict)  # tiles in play -> engine piece
    turn: _Turn | None = None
    held: int | None = None  # colour of the tile in hand (pick, pickb), for names without one
    white: int | None = None  # the player (0: P0, 1: P1) who made the first move
    ended: str = ""
    editing: bool = False

    def act(self, player: int, command: str, args: str, text: str, where: str) -> None:
        handler = _SGF_ACTIONS.get(command)
        if handler is None:
            raise RecordError(f"{where}: SGF action {text!r} is not understood")
        if self.ended and command in _PIECE_ACTIONS:
            raise RecordError(f"{where}: {text!r} after the game ended ({self.ended})")
        if self.editing and command in _PIECE_ACTIONS:
            raise RecordError(f"{where}: {text!r}: a position set up with 'edit' is not read")
        handler(self, player, args, text, where)

    # ----- actions --------------------------------------------------------------------
    def drop(self, player: int, args: str, text: str, where: str) -> None:
        m = _DROP_ARGS.match(args)
        if not m:
            raise RecordError(f"{where}: SGF action {text!r} is not understood (dropb TILE COL ROW REF)")
        colour = self._hint(player, text)
        self._tile_to(player, _tile(m.group(1), colour, where), m.group(2), m.group(3), m.group(4),
                      text, where)

    def move(self, player: int, args: str, text: str, where: str) -> None:
        m = _MOVE_ARGS.match(args)
        if not m:
            raise RecordError(f"{where}: SGF action {text!r} is not understood (move W|B TILE COL ROW REF)")
        colour = COLOUR_CHARS.index(m.group(1).lower()) if m.group(1) else self._hint(player, text)
        self._tile_to(player, _tile(m.group(2), colour, where), m.group(3), m.group(4), m.group(5),
                      text, where)

    def pick(self, player: int, args: str, text: str, where: str) -> None:
        words = args.split()
        if words and words[0].lower() in ("w", "b"):
            self.held = COLOUR_CHARS.index(words[0].lower())
        if len(words) >= 3 and _BS_TILE.match(words[-1]):
            self.held = _tile(words[-1], self.held, where)[0]

    def pickb(self, player: int, args: str, text: str, where: str) -> None:
        m = _PICKB_ARGS.match(args)
        if not m:
            raise RecordError(f"{where}: SGF action {text!r} is not understood (pickb COL ROW TILE)")
        cell = _cell(m.group(1), m.group(2))
        turn = self.turn
        if turn is not None and turn.kind == "move":
            if turn.cell != cell:
                raise RecordError(f"{where}: {text!r} while the tile put at {_cell_name(turn.cell)} "
                                  "waits for its done")
            self.turn, self.held = None, turn.tile[0] if turn.tile else None
            return
        top = int(self.game.board[TOP + self._hex(cell)]) if self.anchor is not None else -1
        if top < 0:
            raise RecordError(f"{where}: {text!r}: no tile at {_cell_name(cell)}")
        self.held = int(PIECE_COLOUR[top])

    def unpick(self, player: int, args: str, text: str, where: str) -> None:
        if self.turn is not None and self.turn.kind == "move":
            self.turn = None
        self.held = None

    def note(self, player: int, args: str, text: str, where: str) -> None:
        """pass, resign and the draw actions: they wait for done like moves."""
        kind = text.split()[0].lower()
        if kind == "resign" and self.turn is not None and self.turn.kind == "resign":
            self.turn = None  # a second resign takes the first back
            return
        self.turn = _Turn(kind, player, where, text)

    def done(self, player: int, args: str, text: str, where: str) -> None:
        turn, self.turn, self.held = self.turn, None, None
        if turn is None:
            if self.white is not None and self._mover() == player and self._forced_pass():
                _play(self.game, PASS, where, f"{text} (alone: a pass)")
            return
        if turn.kind == "move":
            self._commit(turn)
        elif turn.kind == "pass":
            self._check_turn(turn)
            _play(self.game, PASS, turn.where, turn.text)
        elif turn.kind == "resign":
            self.ended = f"P{turn.player} resigned"
        elif turn.kind == "acceptdraw":
            self.ended = "draw agreed"

    def nothing(self, player: int, args: str, text: str, where: str) -> None:
        """start, swap, playwhite, playblack: no move (the first move tells who plays White)."""
        if text.split()[0].lower() == "start":
            self.editing = False

    def edit(self, player: int, args: str, text: str, where: str) -> None:
        if self.game.ply or self.turn is not None:
            raise RecordError(f"{where}: {text!r} changes the position during the game: not read")
        self.editing = True

    def finish(self) -> str:
        """End of the record: a resignation or accepted draw without its done still ends the
        game; a move or pass without it is not played. Returns that action ('' if none)."""
        turn, self.turn = self.turn, None
        if turn is not None and turn.kind == "resign":
            self.ended = f"P{turn.player} resigned"
        elif turn is not None and turn.kind == "acceptdraw":
            self.ended = "draw agreed"
        elif turn is not None and turn.kind in ("move", "pass"):
            return turn.text
        return ""

    # ----- turns ----------------------------------------------------------------------
    def _hint(self, player: int, text: str) -> int | None:
        """The colour of a tile named without one: the tile in hand's, else (not by a pillbug:
        dropb, move) the player's own."""
        if self.held is not None or text.split()[0].lower().startswith("p"):
            return self.held
        if self.white is None:
            return 0  # the first move is White's
        return 0 if player == self.white else 1

    def _tile_to(self, player: int, tile: _Tile, col: str, row: str, ref: str | None, text: str,
                 where: str) -> None:
        cell = _cell(col, row)
        self.held = None
        piece = self.tiles.get(tile)
        if piece is not None and int(self.game.board[POS + piece]) == self._hex(cell):
            self.turn = None  # put back where it was: no move
            return
        self.turn = _Turn("move", player, where, text, tile, cell, ref or ".")

    def _commit(self, turn: _Turn) -> None:
        assert turn.tile is not None and turn.cell is not None
        self._check_turn(turn)
        piece = self._piece(turn)
        if self.anchor is None:
            self.anchor = turn.cell
        dest = self._hex(turn.cell)
        by_ref = self._ref_hex(turn)
        if by_ref is not None and by_ref != dest:
            raise RecordError(f"{turn.where}: {turn.text!r}: its reference {turn.ref!r} names another "
                              f"cell than {_cell_name(turn.cell)}")
        move = move_of(piece, dest)
        _play(self.game, move, turn.where, f"{turn.text} ({self.game.move_string(move)})")
        self.tiles[turn.tile] = piece

    def _check_turn(self, turn: _Turn) -> None:
        """Set who plays White at the first move; read a forced pass left out of the record."""
        if self.white is None:
            self.white = turn.player
        elif self._mover() != turn.player:
            if not self._forced_pass():
                raise RecordError(f"{turn.where}: ply {self.game.ply + 1} {turn.text!r}: P{turn.player} "
                                  f"moves, but it is P{self._mover()}'s turn")
            _play(self.game, PASS, turn.where, "pass (left out of the record)")

    def _mover(self) -> int:
        assert self.white is not None
        return self.white ^ self.game.side_to_move

    def _forced_pass(self) -> bool:
        legal = self.game.legal_moves()
        return len(legal) == 1 and int(legal[0]) == PASS

    def _piece(self, turn: _Turn) -> int:
        """The engine piece of the turn's tile; a tile entering play gets the next UHP number."""
        assert turn.tile is not None
        if turn.tile in self.tiles:
            return self.tiles[turn.tile]
        colour, bug, _ = turn.tile
        if not bug_in_game(bug, self.game.expansions):
            raise RecordError(f"{turn.where}: {turn.text!r}: no {BUG_CHARS[bug]} tile in "
                              f"{self.game.game_type}")
        placed = sum(1 for c, b, _ in self.tiles if (c, b) == (colour, bug))
        if placed >= BUG_COUNT[bug]:
            raise RecordError(f"{turn.where}: {turn.text!r}: every {COLOUR_CHARS[colour]}{BUG_CHARS[bug]} "
                              "tile is in play already")
        return piece_of(colour, bug, placed + 1)

    def _hex(self, cell: _Cell) -> int:
        """The engine hex of a boardspace cell: its offset from the first tile's cell, turned into
        axial steps (next letter: east; next number: north-west)."""
        assert self.anchor is not None
        q0, r0 = qr_of(ORIGIN)
        dc, dr = cell[0] - self.anchor[0], cell[1] - self.anchor[1]
        return hex_of(q0 + dc, r0 - dr)

    def _ref_hex(self, turn: _Turn) -> int | None:
        """The hex the turn's reference names (None for '.')."""
        if turn.ref == ".":
            return None
        m = _BS_REF.match(turn.ref)
        if not m or (m.group(1) and m.group(3)) or (m.group(4) and (m.group(1) or m.group(3))):
            raise RecordError(f"{turn.where}: {turn.text!r}: reference {turn.ref!r} is not understood")
        piece = self.tiles.get(_tile(m.group(2), None, turn.where))
        if piece is None:
            raise RecordError(f"{turn.where}: {turn.text!r}: reference tile {m.group(2)} is not in play")
        h = int(self.game.board[POS + piece])
        if m.group(1):
            return int(NEIGH[h, _PREFIX_DIR[m.group(1)]])
        if m.group(3):
            return int(NEIGH[h, _SUFFIX_DIR[m.group(3)]])
        return h


_SGF_ACTIONS: dict[str, Callable[[_Boardspace, int, str, str, str], None]] = {
    "dropb": _Boardspace.drop, "pdropb": _Boardspace.drop, "move": _Boardspace.move,
    "pmove": _Boardspace.move, "pick": _Boardspace.pick, "pickb": _Boardspace.pickb,
    "drop": _Boardspace.unpick, "done": _Boardspace.done, "pass": _Boardspace.note,
    "resign": _Boardspace.note, "offerdraw": _Boardspace.note, "declinedraw": _Boardspace.note,
    "acceptdraw": _Boardspace.note, "start": _Boardspace.nothing, "swap": _Boardspace.nothing,
    "playwhite": _Boardspace.nothing, "playblack": _Boardspace.nothing, "edit": _Boardspace.edit,
}
_PIECE_ACTIONS = {"dropb", "pdropb", "move", "pmove", "pick", "pickb", "drop", "pass"}


def _tile(token: str, colour: int | None, where: str) -> _Tile:
    """A boardspace tile name (``wA1``, ``bq``, ``wM1``; ``B1`` takes ``colour``)."""
    m = _BS_TILE.match(token)
    if not m:
        raise RecordError(f"{where}: {token!r} is not a tile name")
    if m.group(1):
        colour = COLOUR_CHARS.index(m.group(1).lower())
    if colour is None:
        raise RecordError(f"{where}: tile {token!r} has no colour, and no tile was taken in hand")
    bug = BUG_CHARS.index(m.group(2).upper())
    count = int(BUG_COUNT[bug])
    number = int(m.group(3)) if m.group(3) else 1 if count == 1 else 0
    if not 1 <= number <= count:
        raise RecordError(f"{where}: {token!r} is not a tile name (its number is 1..{count})")
    return colour, bug, number


def _cell(col: str, row: str) -> _Cell:
    return ord(col.upper()) - ord("A"), int(row)


def _cell_name(cell: _Cell | None) -> str:
    return f"{chr(ord('A') + cell[0])} {cell[1]}" if cell else "?"


def _variant(su: str | None, where: str) -> str:
    """The UHP game type of boardspace's SU variant."""
    word = su.split()[0].lower() if su and su.split() else ""
    if word == "hive":
        return "Base"
    m = re.fullmatch(r"hive-([plm]{1,3})", word)
    if m and len(set(m.group(1))) == len(m.group(1)):
        return game_type_name(parse_game_type("Base+" + m.group(1)))
    what = f"SU[{su}] is not a variant read here" if su is not None else "no SU[] variant"
    raise RecordError(f"{where}: {what} (hive, hive-m, hive-l, hive-p and their mixes such as hive-plm)")


def _build_sgf(name: str, tree: _SgfTree) -> GameRecord:
    where = f"{name}:{tree.line}"
    head: dict[str, str] = {}
    for ident, value, _ in tree.props:
        head.setdefault(ident, value.strip())
    if head.get("GM", "27") != "27":
        raise RecordError(f"{where}: GM[{head['GM']}] is not Hive (boardspace's Hive is GM[27])")
    bs = _Boardspace(Game(_variant(head.get("SU"), where)))
    players: dict[int, str] = {}
    for ident, value, line in tree.props:
        if ident not in ("P0", "P1"):
            continue
        value = value.strip()
        m = _ACTION.match(value)
        if m:  # P0[12 dropb wA1 N 12 wQ-]: the action is read without its sequence number
            command, args = m.group(2), m.group(3).strip()
            bs.act(int(ident[1]), command.lower(), args, f"{command} {args}".strip(), f"{name}:{line}")
        elif value[:1].isdigit():
            raise RecordError(f"{name}:{line}: SGF action {value!r} is not understood")
        elif value.startswith("id"):
            players[int(ident[1])] = value[2:].strip().strip('"')
    unconfirmed = bs.finish()
    meta = _sgf_meta(head, players, bs.white)
    if unconfirmed:
        meta["Unconfirmed"] = f"{unconfirmed} (no done: not played)"
    if bs.ended:
        meta["Termination"] = bs.ended
    return GameRecord(bs.game, "sgf", where, meta)


def _sgf_meta(head: dict[str, str], players: dict[int, str], white: int | None) -> dict[str, str]:
    """The header's meta: Result, Date..., P0, P1, and White and Black (P0 is White until a move
    says otherwise)."""
    meta = {key: head[ident] for ident, key in _SGF_META.items() if ident in head}
    meta.update({f"P{p}": players[p] for p in sorted(players)})
    white = white or 0
    for colour, player in (("White", white), ("Black", 1 - white)):
        if player in players:
            meta[colour] = players[player]
    return meta


_GAMESTRING = _Format("gamestring", _split_lines, _build_gamestring)
_JSONL = _Format("hive-zero-jsonl", _split_lines, _build_jsonl)
_PGN = _Format("pgn", _split_pgn, _build_pgn)
_SGF = _Format("sgf", _split_sgf, _build_sgf)
