"""Draw a position as hexagons with matplotlib (notebooks, reports). Display only.

matplotlib is imported when a board is drawn, so the engine does not need it.
"""

from __future__ import annotations

import math

import numpy as np

from ..board import LEVEL, POS, TOP
from ..grid import NEIGH, unwrap
from ..pieces import N_PIECES, PIECE_COLOUR, piece_name

_FACE = ("#f4efe1", "#2b2b2b")
_TEXT = ("#1a1a1a", "#f4f4f4")


def draw_board(board: np.ndarray, ax=None, title: str | None = None):
    """Draw the stacks (top tile named, height shown) and the empty cells around them.

    Returns the matplotlib Axes.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import RegularPolygon

    if ax is None:
        _, ax = plt.subplots(figsize=(5, 5))
    occupied = sorted({int(board[POS + p]) for p in range(N_PIECES) if board[POS + p] >= 0})
    border = sorted({int(NEIGH[h, d]) for h in occupied for d in range(6)} - set(occupied))
    coords = unwrap(occupied + border) if occupied else {}
    for h, (q, r) in coords.items():
        x, y = math.sqrt(3) * (q + r / 2), -1.5 * r
        top = int(board[TOP + h])
        if top < 0:
            ax.add_patch(RegularPolygon((x, y), 6, radius=0.95, fill=False, ls=":", ec="#bbbbbb"))
            continue
        colour = int(PIECE_COLOUR[top])
        ax.add_patch(RegularPolygon((x, y), 6, radius=0.95, fc=_FACE[colour], ec="#555555", lw=1.2))
        label = piece_name(top)[1:]
        height = int(board[LEVEL + top]) + 1
        if height > 1:
            label += f"\n^{height}"
        ax.text(x, y, label, ha="center", va="center", color=_TEXT[colour], fontsize=9, weight="bold")
    if coords:
        xs = [math.sqrt(3) * (q + r / 2) for q, r in coords.values()]
        ys = [-1.5 * r for _, r in coords.values()]
        ax.set_xlim(min(xs) - 1.5, max(xs) + 1.5)
        ax.set_ylim(min(ys) - 1.5, max(ys) + 1.5)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title)
    return ax
