"""What an incremental encoder could take over from an earlier position: the share of a position's
legal moves, and of its observation's entries, that equal those of the position two plies before.

Two plies, because that is the nearest earlier position with the same side to move (the parent's
legal moves are the opponent's, and its observation is from the opponent's point of view). The
shares bound what an encoder that kept the earlier position's output and rewrote only what changed
could save: it would still write everything that differs (docs/scaling.md). Counted per position,
summed over games: :func:`game_reuse`, :class:`ReuseCounts`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .board import PASS, POS, move_dest, move_piece
from .encode import observe_batch_with_moves
from .game import Game


@dataclass
class ReuseCounts:
    """Counts over positions compared with the position two plies before (the ``*_same`` fields:
    how many of the field before them are unchanged)."""

    positions: int = 0
    moves: int = 0
    """Legal moves (a pass not counted)."""
    moves_same: int = 0
    """... whose (piece, destination) was legal two plies before too."""
    placements: int = 0
    placements_same: int = 0
    movements: int = 0
    """Moves of tiles already on the board."""
    movements_same: int = 0
    movements_of_unchanged: int = 0
    """Movements of the tiles whose whole set of destinations is unchanged: all a generator that
    reran only the tiles a move touched could skip (by an oracle that knew which ones)."""
    pieces: int = 0
    """Tiles on the board with at least one movement."""
    pieces_same: int = 0
    node_rows: int = 0
    """Node rows of the observation (its ``n_nodes``)."""
    node_rows_same: int = 0
    """... whose features equal those at the same index two plies before."""
    link_rows_same: int = 0
    """... whose six neighbour links equal those at the same index two plies before."""
    slots: int = 0
    """Legal slots of the observation (its ``n_legal``)."""
    slots_same: int = 0
    """... whose action id, source and destination node equal those of the same slot before."""

    def add(self, other: ReuseCounts) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def shares(self) -> dict[str, float]:
        """Each ``*_same`` (and ``movements_of_unchanged``) as a fraction of what it counts."""
        def share(part: int, whole: int) -> float:
            return part / whole if whole else float("nan")
        return {"moves": share(self.moves_same, self.moves),
                "placements": share(self.placements_same, self.placements),
                "movements": share(self.movements_same, self.movements),
                "movements of unchanged tiles": share(self.movements_of_unchanged, self.movements),
                "tiles with unchanged moves": share(self.pieces_same, self.pieces),
                "node features": share(self.node_rows_same, self.node_rows),
                "node links": share(self.link_rows_same, self.node_rows),
                "legal slots": share(self.slots_same, self.slots)}


@dataclass
class PositionParts:
    """What the comparison needs of one position: its legal destinations by tile, the tiles on
    the board, its observation (one row)."""

    destinations: dict[int, frozenset[int]]
    on_board: frozenset[int]
    obs: dict[str, np.ndarray]


def position_parts(game: Game) -> PositionParts:
    """The parts of ``game``'s position that :func:`compare` compares (the legal moves are the
    encoder's own, those of its legal slots)."""
    obs, moves = observe_batch_with_moves(game.board[None])
    by_piece: dict[int, set[int]] = {}
    for m in moves[0, :obs["n_legal"][0]].tolist():
        if m != PASS:
            by_piece.setdefault(int(move_piece(m)), set()).add(int(move_dest(m)))
    on = frozenset(p for p in by_piece if game.board[POS + p] >= 0)
    return PositionParts({p: frozenset(d) for p, d in by_piece.items()}, on, obs)


def compare(now: PositionParts, before: PositionParts) -> ReuseCounts:
    """The counts of one position against the one two plies before it."""
    c = ReuseCounts(positions=1)
    for p, dests in now.destinations.items():
        same = len(dests & before.destinations.get(p, frozenset()))
        c.moves += len(dests)
        c.moves_same += same
        if p not in now.on_board:
            c.placements += len(dests)
            c.placements_same += same
            continue
        c.movements += len(dests)
        c.movements_same += same
        c.pieces += 1
        if before.destinations.get(p) == dests and p in before.on_board:
            c.pieces_same += 1
            c.movements_of_unchanged += len(dests)
    a, b = now.obs, before.obs
    n = int(a["n_nodes"][0])
    c.node_rows = n
    c.node_rows_same = int((a["node_feat"][0, :n] == b["node_feat"][0, :n]).all(axis=1).sum())
    c.link_rows_same = int((a["neighbours"][0, :n] == b["neighbours"][0, :n]).all(axis=1).sum())
    k = int(a["n_legal"][0])
    c.slots = k
    c.slots_same = _same_slots(a, b, k)
    return c


def _same_slots(a: dict[str, np.ndarray], b: dict[str, np.ndarray], k: int) -> int:
    same = np.ones(k, dtype=np.bool_)
    for f in ("legal_actions", "legal_src", "legal_dst"):
        same &= a[f][0, :k] == b[f][0, :k]
    return int(same.sum())


def game_reuse(game: Game) -> ReuseCounts:
    """The counts over every position of ``game`` from its third ply to its last before the end,
    each against the position two plies before (the game itself is left as it was)."""
    replay = game.copy()
    moves = list(replay.moves)
    replay.undo(len(moves))
    total = ReuseCounts()
    kept: list[PositionParts] = []
    for move in moves:
        kept = [*kept[-2:], position_parts(replay)]
        if len(kept) == 3:
            total.add(compare(kept[2], kept[0]))
        replay.play_trusted(move)
    return total
