"""Why a move is illegal: one line naming the rule it breaks, for people (plain Python, edges only).

:func:`why_illegal` answers for a move that ``rules.generate_moves`` does not list. It never
decides legality (the generator does): it only looks for the first rule, in the order a player
would check them, that the move breaks. Freedom to move is told apart from the bug's own rule by
the reference rules' reach with their gate test dropped (``reference_rules``, ``gates=False``),
so the movement rules are written twice in the engine, never a third time here.

See docs/engine.md (the engine) and docs/rules.md.
"""

from __future__ import annotations

import numpy as np

from .board import BELOW, LAST, LEVEL, PASS, PLY, POS, TOP, move_dest, move_piece
from .grid import N_HEX, NEIGH
from .movegen import can_step
from .pieces import (
    ANT,
    BEETLE,
    BUG_NAMES,
    BUG_RULES,
    COLOUR_NAMES,
    GRASSHOPPER,
    LADYBUG,
    MOSQUITO,
    PIECE_BUG,
    PIECE_COLOUR,
    PIECE_NUMBER,
    PIECES_PER_COLOUR,
    PILLBUG,
    QUEEN,
    SPIDER,
    piece_name,
)
from .pinned import articulation_hexes
from .reference_rules import Position, ant_moves, ladybug_moves, spider_moves

GATE = "freedom to move: it cannot slide through the gap between two tiles"
GATE_HIGH = "freedom to move: higher stacks on both sides close the way"


def why_illegal(board: np.ndarray, move: int) -> str:
    """One-line reason why ``move`` is refused in the position ``board`` (for people): the first
    rule it breaks, in the order a player would check them:

    - a placement: not your tile, the Queen on the first turn, the Queen by the fourth turn,
      number order, then the cell (taken, not touching, touching the opponent);
    - a movement: not your tile (unless your pillbug could throw it: then why it cannot), your
      Queen not in play, covered by a beetle, thrown by a pillbug on the previous turn, the
      one-hive rule (a pinned tile; a destination apart from the hive), then the bug's own rule
      (how it moves, freedom to move: a gate it cannot slide through), and when a pillbug beside
      it could have thrown it there, why it cannot.

    Args:
        board: [BOARD_SIZE] int16 board; not changed.
        move: an encoded move (``PASS`` too) that ``generate_moves`` does not list, in a game
            still in progress.

    Returns:
        The rule it breaks, e.g. ``"bQ is Black's: it is White's turn"`` or ``"moving wA1
        would split the hive (one-hive rule)"``; no trailing full stop.
    """
    if move == PASS:
        return "pass is legal only when no other move is"
    piece = move_piece(move)
    if board[POS + piece] < 0:
        return _placement_reason(board, piece, move_dest(move))
    return _movement_reason(board, piece, move_dest(move))


# ----- placements -----------------------------------------------------------------------------
def _placement_reason(board: np.ndarray, piece: int, dst: int) -> str:
    name = piece_name(piece)
    colour = int(board[PLY]) & 1
    turn = int(board[PLY]) // 2 + 1
    queen_in = board[POS + colour * PIECES_PER_COLOUR] >= 0
    if PIECE_COLOUR[piece] != colour:
        return f"{name} is not yours to place"
    bug = int(PIECE_BUG[piece])
    if bug == QUEEN and turn == 1:
        return "tournament rule: the Queen may not be placed on the first turn"
    if not queen_in and turn == 4 and bug != QUEEN:
        return "the Queen must be placed by your fourth turn"
    if PIECE_NUMBER[piece] > 1 and board[POS + piece - 1] < 0:
        return f"tiles are placed in number order: {piece_name(piece - 1)} first"
    return f"{name} cannot be placed there: {_placement_rule(board, dst)}"


def _placement_rule(board: np.ndarray, h: int) -> str:
    """The placement rule a placement on hex ``h`` breaks (its tile is otherwise placeable)."""
    if board[TOP + h] >= 0:
        return "a tile is placed on an empty cell (only beetles and mosquitoes climb, by moving)"
    if board[PLY] == 1:
        return "Black's first tile must touch White's first tile"
    if all(board[TOP + int(NEIGH[h, d])] < 0 for d in range(6)):
        return "a placed tile must touch the hive"
    return "a placed tile may not touch an opponent's tile (after each side's first placement)"


# ----- movements ------------------------------------------------------------------------------
def _movement_reason(board: np.ndarray, piece: int, dst: int) -> str:
    name = piece_name(piece)
    colour = int(board[PLY]) & 1
    side = COLOUR_NAMES[colour]
    src = int(board[POS + piece])
    if PIECE_COLOUR[piece] != colour:
        mine = f"{name} is {COLOUR_NAMES[1 - colour]}'s: it is {side}'s turn"
        throw = _throw_reason(board, piece, dst)
        if throw is None:
            return mine
        return f"{mine}, and {piece_name(throw[0])} cannot throw it there: {throw[1]}"
    if board[POS + colour * PIECES_PER_COLOUR] < 0:
        return f"{side}'s Queen is not in play yet: no tile moves before its side's Queen is placed"
    if board[TOP + src] != piece:
        return f"{name} is covered by {piece_name(int(board[TOP + src]))} and cannot move"
    if board[LAST] == piece:
        return f"{name} was moved by a pillbug on the previous turn and cannot move this turn"
    if dst == src:
        return f"{name} is already there: a move goes to another cell"
    if board[LEVEL + piece] == 0 and _pinned(board)[src]:  # (nor may a pillbug throw it)
        return f"moving {name} would split the hive (one-hive rule)"
    reason = _own_reason(board, piece, src, dst)
    throw = _throw_reason(board, piece, dst)
    if throw is not None and _direction(int(board[POS + throw[0]]), dst) >= 0:  # a throw could go there
        reason += f"; nor can {piece_name(throw[0])} throw it there: {throw[1]}"
    return reason


def _pinned(board: np.ndarray) -> np.ndarray:
    out = np.zeros(N_HEX, dtype=np.bool_)
    articulation_hexes(board, out)
    return out


def _lifted(board: np.ndarray, piece: int) -> np.ndarray:
    """A copy of ``board`` with ``piece`` taken off its cell (as the generators see it)."""
    lifted = board.copy()
    lifted[TOP + int(board[POS + piece])] = board[BELOW + piece]
    return lifted


def _own_reason(board: np.ndarray, piece: int, src: int, dst: int) -> str:
    """Why ``piece`` (the mover's own, free to move, not pinned) cannot go to ``dst`` by its own
    movement."""
    name = piece_name(piece)
    on_top = board[LEVEL + piece] > 0
    lifted = _lifted(board, piece)
    if lifted[TOP + dst] < 0 and not _neighbours(lifted, dst):
        return f"{name} would end apart from the hive (one-hive rule)"
    bug = int(PIECE_BUG[piece])
    if bug != MOSQUITO:
        return _bug_reason(lifted, bug, name, src, dst)
    if on_top:
        return f"a mosquito on the hive moves as a beetle: {_bug_reason(lifted, BEETLE, name, src, dst)}"
    kinds = sorted({int(PIECE_BUG[t]) for t in _neighbours(board, src)} - {MOSQUITO})
    if not kinds:
        return f"{name} touches only mosquitoes, so it has no move ({BUG_RULES[MOSQUITO]})"
    if lifted[TOP + dst] >= 0 and BEETLE not in kinds:
        return "the cell is taken: a mosquito climbs onto the hive only as a beetle, when it touches one"
    by_reason: dict[str, list[str]] = {}  # one clause per reason: "as a Queen or an ant, ..."
    for k in kinds:
        by_reason.setdefault(_bug_reason(lifted, k, name, src, dst), []).append(_a(BUG_NAMES[k]))
    as_each = "; ".join(f"as {' or '.join(bugs)}, {why}" for why, bugs in by_reason.items())
    return f"{BUG_RULES[MOSQUITO]}: {as_each}"


def _a(noun: str) -> str:
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def _neighbours(board: np.ndarray, h: int) -> list[int]:
    """Top tiles of the stacks around hex ``h``."""
    return [int(board[TOP + NEIGH[h, d]]) for d in range(6) if board[TOP + NEIGH[h, d]] >= 0]


def _bug_reason(lifted: np.ndarray, bug: int, name: str, src: int, dst: int) -> str:
    """Why a ``bug`` at ``src`` (already lifted) cannot go to ``dst``: the bug's rule or a gate."""
    taken = lifted[TOP + dst] >= 0
    if taken and bug != BEETLE:
        if bug == LADYBUG:
            return "the cell is taken: a ladybug ends its move on an empty cell"
        return "the cell is taken: only a beetle (or a mosquito touching one) climbs onto the hive"
    if bug in (QUEEN, SPIDER, ANT, PILLBUG) and len(_neighbours(lifted, dst)) == 6:
        return "freedom to move: tiles close that cell in on all six sides, so nothing slides in"
    if bug in (QUEEN, PILLBUG, BEETLE):
        d = _direction(src, dst)
        if d < 0:
            return BUG_RULES[bug]
        return _step_reason(lifted, src, d)
    if bug == GRASSHOPPER:
        return BUG_RULES[GRASSHOPPER]
    heights = Position(lifted).height  # the reference's view, the mover lifted
    if bug == LADYBUG:
        if dst in ladybug_moves(src, heights, gates=False):
            return GATE_HIGH
        return BUG_RULES[LADYBUG]
    reach = spider_moves if bug == SPIDER else ant_moves
    if dst in reach(src, heights, gates=False):
        return GATE
    if bug == ANT:
        return f"{BUG_RULES[ANT]}, but that cell lies in a hole closed in by tiles"
    return BUG_RULES[bug]


def _direction(src: int, dst: int) -> int:
    """The direction from ``src`` to its neighbour ``dst``; -1 when they are not neighbours."""
    for d in range(6):
        if NEIGH[src, d] == dst:
            return d
    return -1


def _step_reason(lifted: np.ndarray, src: int, d: int) -> str:
    """Why one step from ``src`` in direction ``d`` is refused (the mover lifted)."""
    dst = int(NEIGH[src, d])
    if _height(lifted, src) or _height(lifted, dst):
        return GATE_HIGH  # a step at height: only a gate of higher stacks stops it
    left = lifted[TOP + NEIGH[src, (d + 5) % 6]] >= 0
    right = lifted[TOP + NEIGH[src, (d + 1) % 6]] >= 0
    if left and right:
        return GATE
    return "a tile slides along the hive and may not lose touch with it on the way (one-hive rule)"


def _height(board: np.ndarray, h: int) -> int:
    t = int(board[TOP + h])
    return 0 if t < 0 else int(board[LEVEL + t]) + 1


# ----- pillbug throws -------------------------------------------------------------------------
def _throw_reason(board: np.ndarray, piece: int, dst: int) -> tuple[int, str] | None:
    """(thrower, why it cannot throw ``piece`` to ``dst``) for a pillbug of the side to move (or
    its mosquito touching a pillbug) beside ``piece``; None when there is none."""
    colour = int(board[PLY]) & 1
    src = int(board[POS + piece])
    throwers = [t for t in _neighbours(board, src) if PIECE_COLOUR[t] == colour and board[LEVEL + t] == 0
                and (PIECE_BUG[t] == PILLBUG or (PIECE_BUG[t] == MOSQUITO and any(
                    PIECE_BUG[n] == PILLBUG for n in _neighbours(board, int(board[POS + t])))))]
    if not throwers:
        return None
    beside = [t for t in throwers if _direction(int(board[POS + t]), dst) >= 0]
    thrower = beside[0] if beside else throwers[0]
    who = piece_name(thrower)
    name = piece_name(piece)
    if board[POS + colour * PIECES_PER_COLOUR] < 0:
        return thrower, f"{COLOUR_NAMES[colour]}'s Queen is not in play yet, so no tile of theirs moves"
    if not beside:
        return thrower, "a pillbug puts the tile down on an empty cell beside itself"
    if board[LAST] == thrower:
        return thrower, f"{who} was moved on the previous turn, so it cannot use its power"
    if board[LEVEL + piece] > 0 or board[TOP + src] != piece:
        return thrower, "a pillbug throws only a tile alone on its cell"
    if board[LAST] == piece:
        return thrower, f"{name} moved on the previous turn, so it cannot be thrown"
    if _pinned(board)[src]:
        return thrower, f"throwing {name} would split the hive (one-hive rule)"
    if board[TOP + dst] >= 0:
        return thrower, "a pillbug puts the tile down on an empty cell"
    lifted = _lifted(board, piece)
    at = int(board[POS + thrower])
    if not can_step(lifted, src, _direction(src, at)) or not can_step(lifted, at, _direction(at, dst)):
        return thrower, GATE_HIGH
    return thrower, "it cannot"  # not reached: every rule of a throw holds
