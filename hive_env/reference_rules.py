"""A slow, pure-Python reference legal-move generator, written straight from docs/rules.md.

The engine's second statement of the movement rules, for two uses: the tests cross-check the
compiled engine (``hive_env.rules``) against it, and ``hive_env.explain`` asks it where a tile
would get with the freedom-to-move gates ignored (``gates=False``), to tell a gate from a bug's
own rule. It shares no code with ``movegen``, ``rules`` or ``pinned`` and deliberately uses the
plain, obvious algorithm wherever the engine is clever (:func:`reference_moves`).

See docs/rules.md.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

import numpy as np

from .board import EXPANSIONS, IN_PROGRESS, LAST, LEVEL, PASS, PLY, POS, STATUS, TOP, move_of
from .grid import N_HEX, NEIGH, ORIGIN
from .pieces import (
    ANT,
    BEETLE,
    BUG_COUNT,
    BUG_FIRST_SLOT,
    GRASSHOPPER,
    LADYBUG,
    MOSQUITO,
    N_BUGS,
    N_PIECES,
    PIECE_BUG,
    PIECE_COLOUR,
    PIECES_PER_COLOUR,
    PILLBUG,
    QUEEN,
    SPIDER,
    bug_in_game,
)

# Plain Python copies of the static tables, so nothing below touches numpy scalars.
_NB: list[tuple[int, ...]] = [tuple(int(x) for x in row) for row in NEIGH]
_BUG: list[int] = [int(b) for b in PIECE_BUG]
_COLOUR: list[int] = [int(c) for c in PIECE_COLOUR]


def _flanks(a: int, d: int) -> tuple[int, int]:
    """The two cells flanking the step from ``a`` in direction ``d`` (its directions d-1, d+1)."""
    return _NB[a][(d - 1) % 6], _NB[a][(d + 1) % 6]


def is_connected(cells: set[int]) -> bool:
    """Whether a set of hexes is one edge-connected group (the empty set counts as connected).

    Plain breadth-first search from an arbitrary cell.
    """
    if not cells:
        return True
    start = next(iter(cells))
    seen = {start}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        for n in _NB[h]:
            if n in cells and n not in seen:
                seen.add(n)
                queue.append(n)
    return len(seen) == len(cells)


class Position:
    """A read-only, dict-based view of one board array.

    Attributes:
        top: hex -> top piece of its stack, for occupied hexes only.
        height: hex -> number of tiles in its stack, for occupied hexes only.
        pos: [28] hex of each piece, -1 in reserve.
        level: [28] level of each piece (0 = on the ground).
        ply, last, status, expansions: the scalar fields of the board.
    """

    def __init__(self, board: np.ndarray):
        b = [int(x) for x in board]
        self.top: dict[int, int] = {h: b[TOP + h] for h in range(N_HEX) if b[TOP + h] >= 0}
        self.pos: list[int] = b[POS : POS + N_PIECES]
        self.level: list[int] = b[LEVEL : LEVEL + N_PIECES]
        self.height: dict[int, int] = {h: self.level[p] + 1 for h, p in self.top.items()}
        self.ply = b[PLY]
        self.last = b[LAST]
        self.status = b[STATUS]
        self.expansions = b[EXPANSIONS]
        self._pinned: dict[int, bool] = {}

    @property
    def colour(self) -> int:
        """Side to move: 0 White, 1 Black."""
        return self.ply & 1

    def lifted_heights(self, piece: int) -> dict[int, int]:
        """Stack heights (occupied hexes only) with ``piece`` lifted off its stack."""
        heights = dict(self.height)
        h = self.pos[piece]
        if heights[h] == 1:
            del heights[h]
        else:
            heights[h] -= 1
        return heights

    def is_pinned(self, piece: int) -> bool:
        """One hive: would lifting this (uncovered, in play) tile split the hive?

        A tile on top of a stack never splits it: the stack stays. For a ground tile,
        remove its cell and check the remaining occupied cells by BFS.
        """
        if piece not in self._pinned:
            if self.level[piece] > 0:
                self._pinned[piece] = False
            else:
                rest = set(self.top)
                rest.discard(self.pos[piece])
                self._pinned[piece] = not is_connected(rest)
        return self._pinned[piece]


# ----- movement of one tile, by bug ------------------------------------------------------------
# Each function takes the tile's hex and the stack heights with the tile lifted, and returns
# the set of destination hexes. Ground movers are always on level 0 here (only beetles and
# mosquitoes climb, and a mosquito on top moves as a beetle).


def slides_from(a: int, heights: dict[int, int], gates: bool = True) -> list[int]:
    """Cells one legal ground slide away from ``a``.

    Freedom to move and keeping contact, checked literally: the target is empty and
    exactly one of the two flanking cells is occupied (``gates`` False: at least one, the
    freedom-to-move gate ignored).
    """
    out = []
    for d in range(6):
        b = _NB[a][d]
        if b in heights:
            continue
        f1, f2 = _flanks(a, d)
        if ((f1 in heights) != (f2 in heights)) if gates else (f1 in heights or f2 in heights):
            out.append(b)
    return out


def queen_moves(a: int, heights: dict[int, int]) -> set[int]:
    """Queen (and Pillbug walk): exactly one slide."""
    return set(slides_from(a, heights))


def spider_moves(a: int, heights: dict[int, int], gates: bool = True) -> set[int]:
    """Spider: the ends of every path of exactly three slides that never revisits a cell
    (the origin included)."""
    out: set[int] = set()

    def walk(cell: int, path: list[int]) -> None:
        if len(path) == 4:
            out.add(cell)
            return
        for n in slides_from(cell, heights, gates):
            if n not in path:
                walk(n, path + [n])

    walk(a, [a])
    return out


def ant_moves(a: int, heights: dict[int, int], gates: bool = True) -> set[int]:
    """Soldier Ant: every cell reachable by one or more slides (BFS), never the origin."""
    seen = {a}
    queue = deque([a])
    while queue:
        cell = queue.popleft()
        for n in slides_from(cell, heights, gates):
            if n not in seen:
                seen.add(n)
                queue.append(n)
    seen.discard(a)
    return seen


def grasshopper_moves(a: int, heights: dict[int, int]) -> set[int]:
    """Grasshopper: in each direction, over one or more occupied cells to the first empty one."""
    out = set()
    for d in range(6):
        cell = _NB[a][d]
        if cell not in heights:
            continue
        while cell in heights:
            cell = _NB[cell][d]
        out.add(cell)
    return out


def is_gated(a: int, d: int, heights: dict[int, int]) -> bool:
    """Gate at height for a step from ``a`` in direction ``d``: blocked when both flanking
    stacks are taller than both the origin stack and the destination stack (heights with
    the mover lifted)."""
    b = _NB[a][d]
    f1, f2 = _flanks(a, d)
    return min(heights.get(f1, 0), heights.get(f2, 0)) > max(heights.get(a, 0), heights.get(b, 0))


def beetle_moves(a: int, heights: dict[int, int]) -> set[int]:
    """Beetle: one step in any direction at any height, subject to the gate at height;
    a step from the ground to the ground is an ordinary slide."""
    out = set()
    for d in range(6):
        b = _NB[a][d]
        if heights.get(a, 0) == 0 and heights.get(b, 0) == 0:
            if b in slides_from(a, heights):
                out.add(b)
        elif not is_gated(a, d, heights):
            out.add(b)
    return out


def ladybug_moves(a: int, heights: dict[int, int], gates: bool = True) -> set[int]:
    """Ladybug: climb onto the hive, one step along its top, then one step down into an empty
    cell other than the origin; every step passes the gate at height (``gates`` False: none
    is tested)."""
    def gated(x: int, d: int) -> bool:
        return gates and is_gated(x, d, heights)

    out = set()
    for d1 in range(6):
        x = _NB[a][d1]
        if x not in heights or gated(a, d1):
            continue
        for d2 in range(6):
            y = _NB[x][d2]
            if y not in heights or gated(x, d2):
                continue
            for d3 in range(6):
                z = _NB[y][d3]
                if z in heights or z == a or gated(y, d3):
                    continue
                out.add(z)
    return out


_MOVERS: dict[int, Callable[[int, dict[int, int]], set[int]]] = {
    QUEEN: queen_moves,
    SPIDER: spider_moves,
    BEETLE: beetle_moves,
    GRASSHOPPER: grasshopper_moves,
    ANT: ant_moves,
    LADYBUG: ladybug_moves,
    PILLBUG: queen_moves,  # its walk; the throw is separate (pillbug_throws)
}


def mosquito_powers(pos: Position, piece: int) -> set[int]:
    """Bug kinds a mosquito borrows: the top tiles of its neighbouring stacks, mosquitoes
    excluded; a mosquito on top of the hive is a beetle and nothing else."""
    h = pos.pos[piece]
    if pos.level[piece] > 0:
        return {BEETLE}
    return {_BUG[pos.top[n]] for n in _NB[h] if n in pos.top} - {MOSQUITO}


def tile_moves(pos: Position, piece: int) -> set[int]:
    """Destinations of an ordinary move (not a throw) of one uncovered tile in play."""
    if pos.is_pinned(piece):
        return set()
    a = pos.pos[piece]
    heights = pos.lifted_heights(piece)
    bug = _BUG[piece]
    kinds = mosquito_powers(pos, piece) if bug == MOSQUITO else {bug}
    out: set[int] = set()
    for kind in kinds:
        out |= _MOVERS[kind](a, heights)
    out.discard(a)
    return out


def pillbug_throws(pos: Position, thrower: int) -> set[int]:
    """Encoded throws by one pillbug (or mosquito with the pillbug power).

    The thrower must be uncovered, on the ground and not the tile moved last; its being
    pinned does not matter. It lifts an adjacent tile that is alone in its stack, is not
    the tile moved last and whose lifting keeps one hive, over itself (gate from the
    tile's height 0 up to the thrower's height 1) onto an empty neighbour of the thrower
    (gate from height 1 down to 0).
    """
    out: set[int] = set()
    p = pos.pos[thrower]
    if pos.level[thrower] != 0 or pos.top[p] != thrower or thrower == pos.last:
        return out
    for d_in in range(6):
        n = _NB[p][d_in]
        if pos.height.get(n, 0) != 1:
            continue
        tile = pos.top[n]
        if tile == pos.last or pos.is_pinned(tile):
            continue
        heights = pos.lifted_heights(tile)
        # The lift is the step from n to p, i.e. direction d_in + 3 seen from n.
        if is_gated(n, (d_in + 3) % 6, heights):
            continue
        for d_out in range(6):
            e = _NB[p][d_out]
            if e == n or e in heights or is_gated(p, d_out, heights):
                continue
            out.add(move_of(tile, e))
    return out


# ----- placements --------------------------------------------------------------------------------


def placement_cells(pos: Position, colour: int) -> set[int]:
    """Empty cells where ``colour`` may place a tile now (ignoring which tile)."""
    if not pos.top:
        return {ORIGIN}
    own_in_play = any(pos.pos[colour * PIECES_PER_COLOUR + s] >= 0 for s in range(PIECES_PER_COLOUR))
    candidates = {n for h in pos.top for n in _NB[h] if n not in pos.top}
    if not own_in_play:  # Black's first tile: anywhere touching the hive (White's first tile)
        return candidates
    out = set()
    for c in candidates:
        colours = {_COLOUR[pos.top[n]] for n in _NB[c] if n in pos.top}
        if colours == {colour}:
            out.add(c)
    return out


def placeable_pieces(pos: Position, colour: int) -> list[int]:
    """The tiles ``colour`` may place now: the lowest-numbered reserve tile of each kind in
    the game, with the tournament rule (no Queen on turn 1) and the Queen forced on turn 4."""
    turn = pos.ply // 2 + 1
    queen = colour * PIECES_PER_COLOUR + int(BUG_FIRST_SLOT[QUEEN])
    if turn == 4 and pos.pos[queen] < 0:
        return [queen]
    out = []
    for bug in range(N_BUGS):
        if not bug_in_game(bug, pos.expansions) or (bug == QUEEN and turn == 1):
            continue
        first = colour * PIECES_PER_COLOUR + int(BUG_FIRST_SLOT[bug])
        for piece in range(first, first + int(BUG_COUNT[bug])):
            if pos.pos[piece] < 0:
                out.append(piece)
                break
    return out


# ----- the whole move list -----------------------------------------------------------------------


def _own_top_tiles(pos: Position, colour: int) -> Iterable[int]:
    """Tiles of ``colour`` in play that are the top of their stack."""
    for piece in pos.top.values():
        if _COLOUR[piece] == colour:
            yield piece


def reference_moves(board: np.ndarray) -> set[int]:
    """The set of encoded legal moves of a position, from docs/rules.md alone, by the plain
    algorithm wherever the engine is clever:

    - one hive: lift the tile and run a breadth-first search over the occupied cells
      (the engine uses articulation points);
    - freedom to move: look at the two cells flanking each step explicitly;
    - Ant: breadth-first search over slides; Spider: enumerate every 3-slide path with no
      revisits; Mosquito: the union of its neighbours' powers, computed by calling them;
    - Ladybug and Beetle: explicit gate-at-height checks per step, on heights with the
      mover lifted;
    - Pillbug: its throw exactly as docs/rules.md words it (lift gate, drop gate, one hive for
      the lifted tile, not the tile moved last).

    It reads only the int16 board array and the static tables of ``hive_env.grid`` and
    ``hive_env.pieces``. Speed is irrelevant here: a position takes about a millisecond, which
    is plenty for tests.

    Args:
        board: [BOARD_SIZE] int16 board array (``hive_env.board`` layout).

    Returns:
        Encoded moves (``move_of(piece, hex)``), each (piece, destination) once; ``{PASS}``
        when nothing else is legal; the empty set when the game is over.
    """
    pos = Position(board)
    if pos.status != IN_PROGRESS:
        return set()
    colour = pos.colour
    moves: set[int] = set()

    cells = placement_cells(pos, colour)
    for piece in placeable_pieces(pos, colour):
        moves.update(move_of(piece, c) for c in cells)

    queen = colour * PIECES_PER_COLOUR + int(BUG_FIRST_SLOT[QUEEN])
    if pos.pos[queen] >= 0:  # no movement (throws included) before the own Queen is in play
        for piece in _own_top_tiles(pos, colour):
            if piece == pos.last:
                continue
            moves.update(move_of(piece, h) for h in tile_moves(pos, piece))
        for piece in _own_top_tiles(pos, colour):
            bug = _BUG[piece]
            if bug == PILLBUG or (bug == MOSQUITO and PILLBUG in mosquito_powers(pos, piece)):
                moves |= pillbug_throws(pos, piece)

    return moves or {PASS}
