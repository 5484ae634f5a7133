"""boardspace.net Hive SGF (format ``sgf``), the ``HV-*.sgf`` files of its archives.

The file's structure (game trees, properties) is read first (:func:`split`); each tree is then
replayed one action at a time by :class:`_Boardspace` (:func:`build`, which says exactly what of
the format is read: ``SU`` variants, players, meta, each action and the cells). Variations,
other games than Hive and anything not understood are refused in one line.

See docs/players.md (``hive-analyse``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..board import PASS, POS, TOP, move_of
from ..game import Game
from ..grid import NE, NEIGH, NW, ORIGIN, SE, SW, E, W, hex_of, qr_of
from ..pieces import (
    BUG_CHARS,
    BUG_COUNT,
    BUG_LETTER_CLASS,
    COLOUR_CHARS,
    EXPANSION_OF_BUG,
    PIECE_COLOUR,
    bug_in_game,
    game_type_name,
    parse_game_type,
    piece_of,
)
from .common import Format, GameRecord, RecordError, play_move

# ----- boardspace SGF: the file's structure ----------------------------------------------


@dataclass
class _SgfTree:
    """One game tree: its properties ``(name, value, line)`` in file order, nodes flattened."""

    line: int
    props: list[tuple[str, str, int]]


def detect(first: str) -> bool:
    return first.startswith("(")


def split(name: str, text: str) -> list[_SgfTree]:
    """The game trees of the file, in order."""
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
_BS_TILE = re.compile(rf"^([{COLOUR_CHARS}]?)({BUG_LETTER_CLASS})(\d?)$", re.IGNORECASE)
_BS_REF = re.compile(r"^([-/\\]?)([A-Za-z0-9]+)([-/\\]?)(\.?)$")
_CELL = r"([A-Za-z])\s+(\d+)"
_DROP_ARGS = re.compile(rf"^(\S+)\s+{_CELL}(?:\s+(\S+))?$")
_MOVE_ARGS = re.compile(rf"^(?:([{COLOUR_CHARS}{COLOUR_CHARS.upper()}])\s+)?(\S+)\s+{_CELL}(?:\s+(\S+))?$")
_PICKB_ARGS = re.compile(rf"^{_CELL}(?:\s+(\S+))?$")
_PREFIX_DIR = {"/": SW, "-": W, "\\": NW}
_SUFFIX_DIR = {"/": NE, "-": E, "\\": SE}
_EXPANSION_LETTERS = "".join(BUG_CHARS[b] for b in sorted(EXPANSION_OF_BUG)).lower()
_SU_EXPANSIONS = re.compile(rf"hive-([{_EXPANSION_LETTERS}]{{1,{len(_EXPANSION_LETTERS)}}})")

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
        if words and words[0].lower() in tuple(COLOUR_CHARS):
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
                play_move(self.game, PASS, where, f"{text} (alone: a pass)")
            return
        if turn.kind == "move":
            self._commit(turn)
        elif turn.kind == "pass":
            self._check_turn(turn)
            play_move(self.game, PASS, turn.where, turn.text)
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
        play_move(self.game, move, turn.where, f"{turn.text} ({self.game.move_string(move)})")
        self.tiles[turn.tile] = piece

    def _check_turn(self, turn: _Turn) -> None:
        """Set who plays White at the first move; read a forced pass left out of the record."""
        if self.white is None:
            self.white = turn.player
        elif self._mover() != turn.player:
            if not self._forced_pass():
                raise RecordError(f"{turn.where}: ply {self.game.ply + 1} {turn.text!r}: P{turn.player} "
                                  f"moves, but it is P{self._mover()}'s turn")
            play_move(self.game, PASS, turn.where, "pass (left out of the record)")

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
    m = _SU_EXPANSIONS.fullmatch(word)
    if m and len(set(m.group(1))) == len(m.group(1)):
        return game_type_name(parse_game_type("Base+" + m.group(1)))
    what = f"SU[{su}] is not a variant read here" if su is not None else "no SU[] variant"
    raise RecordError(f"{where}: {what} (hive, hive-m, hive-l, hive-p and their mixes such as hive-plm)")


def build(name: str, tree: _SgfTree) -> GameRecord:
    r"""The game of one tree: its header read, then its actions replayed in order
    (:class:`_Boardspace`).

    Each game tree ``(;...)`` is a game; variations (nested trees) are refused. ``SU`` gives the game type:
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
    at its cell. REF, boardspace's reference (``wA1-``, ``/wQ``, ``\bG1``, a tile name alone or
    ending in ``.`` for a climb onto it, ``.`` for none; SGF's ``\\`` is one backslash), must name
    that same cell, or the game is refused. A tile name may carry a 1 on a single tile (``wM1``)
    or lack its colour (``B1``, old records): then the W/B of ``move`` gives it, else the tile in
    hand's, else (not for a pillbug's ``pdropb``/``pmove``) the player's own. boardspace's tile
    numbers become UHP's numbers in order of entry.
    """
    where = f"{name}:{tree.line}"
    head = _sgf_head(tree, where)
    bs = _Boardspace(Game(_variant(head.get("SU"), where)))
    players = _replay_actions(bs, name, tree)
    unconfirmed = bs.finish()
    meta = _sgf_meta(head, players, bs.white)
    if unconfirmed:
        meta["Unconfirmed"] = f"{unconfirmed} (no done: not played)"
    if bs.ended:
        meta["Termination"] = bs.ended
    return GameRecord(bs.game, "sgf", where, meta)


def _sgf_head(tree: _SgfTree, where: str) -> dict[str, str]:
    """Each property's first value, stripped; a game other than Hive (GM) is refused."""
    head: dict[str, str] = {}
    for ident, value, _ in tree.props:
        head.setdefault(ident, value.strip())
    if head.get("GM", "27") != "27":
        raise RecordError(f"{where}: GM[{head['GM']}] is not Hive (boardspace's Hive is GM[27])")
    return head


def _replay_actions(bs: _Boardspace, name: str, tree: _SgfTree) -> dict[int, str]:
    """Every ``P0[...]``/``P1[...]`` of the tree in order: an action is played, an ``id`` names the
    player. Returns the players' names (0: P0, 1: P1)."""
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
    return players


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


FORMAT = Format("sgf", detect, split, build)
