"""Draw a position as hexagons with matplotlib (notebooks, reports, ``hive-show --png``). Display only.

matplotlib is imported when a board is drawn, so the engine does not need it. A board drawn
on its own figure is sized to the hive: :data:`INCHES_PER_UNIT` per hex radius, at least
:data:`MIN_WIDTH_INCHES` wide (800 pixels at ``hive-show``'s 100 dpi), with labels scaled to
match, so a middle game stays readable.
"""

from __future__ import annotations

import math

import numpy as np

from ..board import LEVEL, POS, TOP
from ..grid import NEIGH, unwrap
from ..pieces import N_PIECES, PIECE_COLOUR, piece_name

_FACE = ("#f4efe1", "#2b2b2b")
_TEXT = ("#1a1a1a", "#f4f4f4")
MARK = "#e8590c"
"""Colour of the last-move marks: an outline on the moved tile's cell, a faint dashed hexagon
(lightly filled) where it came from."""
MARK_ALPHA = 0.25
"""Opacity of the fill at the last move's origin."""
INCHES_PER_UNIT = 0.6
"""Figure inches per unit of board (a hex's radius is 1); a hex is then about 100 pixels wide
at 100 dpi."""
MIN_WIDTH_INCHES = 8.0
"""The narrowest figure a board gets on its own (an opening's few tiles still fill 800 pixels)."""
MAX_WIDTH_INCHES = 24.0
"""The widest figure a board gets on its own (a sprawling hive shrinks its hexes to fit)."""


def hex_xy(q: int, r: int) -> tuple[float, float]:
    """Centre of the hex at axial ``(q, r)`` in data units (pointy-top, radius 1, y up)."""
    return math.sqrt(3) * (q + r / 2), -1.5 * r


def draw_board(board: np.ndarray, ax=None, title: str | None = None,
               last_move: tuple[int, int] | None = None):
    """Draw the stacks (top tile named, height shown) and the empty cells around them.

    Args:
        board: [BOARD_SIZE] int16 board.
        ax: matplotlib Axes to draw on; None = a new figure sized to the hive.
        title: the Axes title.
        last_move: ``(origin hex, destination hex)`` of the move that led here (origin -1 for a
            placement; ``hive_env.records.last_move_hexes``): the destination's cell gets a
            :data:`MARK` outline, the origin a faint dashed hexagon.

    Returns:
        The matplotlib Axes.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import RegularPolygon

    occupied = sorted({int(board[POS + p]) for p in range(N_PIECES) if board[POS + p] >= 0})
    border = sorted({int(NEIGH[h, d]) for h in occupied for d in range(6)} - set(occupied))
    marked = [h for h in (last_move or ()) if h >= 0]
    coords = unwrap(sorted(set(occupied + border + marked))) if occupied else {}
    centres = {h: hex_xy(q, r) for h, (q, r) in coords.items()}
    xs = [x for x, _ in centres.values()] or [0.0]
    ys = [y for _, y in centres.values()] or [0.0]
    x_lim = (min(xs) - 1.0, max(xs) + 1.0)  # a hexagon reaches 0.82 across, 0.95 up and down
    y_lim = (min(ys) - 1.1, max(ys) + 1.1)
    width, height = x_lim[1] - x_lim[0], y_lim[1] - y_lim[0]
    if ax is None:  # a figure of the board's own shape, plus a band for the title
        scale = min(max(INCHES_PER_UNIT, MIN_WIDTH_INCHES / width), MAX_WIDTH_INCHES / width)
        band = 0.6 if title else 0.0
        fig = plt.figure(figsize=(width * scale, height * scale + band))
        ax = fig.add_axes((0.0, 0.0, 1.0, height * scale / (height * scale + band)))
        inches_per_unit = scale
    else:
        box = ax.get_window_extent()
        inches_per_unit = min(box.width / width, box.height / height) / ax.figure.dpi
    font = min(max(7.0, 0.42 * 72 * inches_per_unit), 24.0)  # about 0.42 of a hex radius tall
    outline = max(1.5, 6.5 * inches_per_unit)  # points: 4 on hive-show's scale
    for h, (x, y) in centres.items():
        top = int(board[TOP + h])
        if top < 0:
            ax.add_patch(RegularPolygon((x, y), 6, radius=0.95, fill=False, ls=":", ec="#bbbbbb"))
            continue
        colour = int(PIECE_COLOUR[top])
        ax.add_patch(RegularPolygon((x, y), 6, radius=0.95, fc=_FACE[colour], ec="#555555", lw=1.2))
        label = piece_name(top)[1:]
        height_ = int(board[LEVEL + top]) + 1
        if height_ > 1:
            label += f"\n^{height_}"
        ax.text(x, y, label, ha="center", va="center", color=_TEXT[colour], fontsize=font, weight="bold",
                linespacing=0.9)
    if last_move is not None:
        origin, dest = last_move
        if origin >= 0:
            ax.add_patch(RegularPolygon(centres[origin], 6, radius=0.95, fc=MARK, alpha=MARK_ALPHA, lw=0,
                                        zorder=3))
            ax.add_patch(RegularPolygon(centres[origin], 6, radius=0.8, fill=False, ec=MARK, ls="--",
                                        lw=outline / 2, zorder=3))
        ax.add_patch(RegularPolygon(centres[dest], 6, radius=0.95, fill=False, ec=MARK, lw=outline, zorder=4))
    ax.set_xlim(*x_lim)
    ax.set_ylim(*y_lim)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=min(max(10.0, font), 18.0))
    return ax
