"""Hex-grid geometry: a 32x32 wrapping grid of pointy-top hexes in axial coordinates.

A *hex* is an index ``r * 32 + q`` into the flat grid (``q, r`` taken mod 32); the grid wraps in
both axes, so it is never exhausted (:data:`SIDE`). Directions ``NE, E, SE, SW, W, NW`` = 0..5
run clockwise from upper right; :data:`NEIGH` holds every hex's six neighbours, and the
symmetry maps (:func:`direction_map`, :func:`hex_map`) rotate and mirror the grid.

See docs/engine.md (the board arrays) and docs/rules.md (notation).
"""

from __future__ import annotations

import numpy as np

SIDE = 32
"""The grid's side. It wraps in both axes, so it is never exhausted: a connected hive of 28 tiles
spans at most 27 cells along any axis (29 with its empty border), which stays below 32, so no
two cells that are far apart on the real plane ever look adjacent here
(``tests/hive_env/test_grid.py``)."""
N_HEX = SIDE * SIDE
HEX_MASK = SIDE - 1
ORIGIN = 0  # where White's first tile goes

NE, E, SE, SW, W, NW = range(6)
"""Directions, following the UHP picture of a pointy-top hex, clockwise from upper right::

        NW(5)  NE(0)
    W(4)    hex    E(1)
        SW(3)  SE(2)

The two cells that flank a step from ``h`` in direction ``d`` are the neighbours of ``h`` in
directions ``d - 1`` and ``d + 1`` (mod 6); the opposite direction is ``d + 3``."""
# Axial offsets (dq, dr) per direction, pointy-top layout.
DIR_DQ = np.array([1, 1, 0, -1, -1, 0], dtype=np.int64)
DIR_DR = np.array([-1, 0, 1, 1, 0, -1], dtype=np.int64)


def hex_of(q: int, r: int) -> int:
    """Hex index of axial coordinates (taken mod 32)."""
    return (r & HEX_MASK) * SIDE + (q & HEX_MASK)


def qr_of(h: int) -> tuple[int, int]:
    """Wrapped axial coordinates (0..31) of a hex."""
    return h & HEX_MASK, h >> 5


def _build_neighbours() -> np.ndarray:
    table = np.empty((N_HEX, 6), dtype=np.int16)
    for h in range(N_HEX):
        q, r = qr_of(h)
        for d in range(6):
            table[h, d] = hex_of(q + DIR_DQ[d], r + DIR_DR[d])
    return table


NEIGH = _build_neighbours()
"""[1024, 6] int16: neighbour hex of each hex in each direction."""


def rotate_qr(q: int, r: int, k: int, mirror: bool) -> tuple[int, int]:
    """Apply one of the 12 hex symmetries about the origin to axial coordinates.

    Mirror first (swap q and r, a reflection), then rotate k * 60 degrees clockwise.
    """
    if mirror:
        q, r = r, q
    for _ in range(k % 6):
        q, r = -r, q + r
    return q, r


def direction_map(k: int, mirror: bool) -> np.ndarray:
    """[6] int: where each direction goes under the symmetry ``(k, mirror)``."""
    out = np.empty(6, dtype=np.int64)
    for d in range(6):
        q, r = rotate_qr(int(DIR_DQ[d]), int(DIR_DR[d]), k, mirror)
        for d2 in range(6):
            if DIR_DQ[d2] == q and DIR_DR[d2] == r:
                out[d] = d2
    return out


def hex_map(k: int, mirror: bool) -> np.ndarray:
    """[1024] int16: image of every hex under the symmetry ``(k, mirror)`` about ORIGIN.

    Symmetries are integer linear maps of determinant +-1, so they act on the wrapped
    grid exactly as on the plane.
    """
    out = np.empty(N_HEX, dtype=np.int16)
    for h in range(N_HEX):
        q, r = qr_of(h)
        out[h] = hex_of(*rotate_qr(q, r, k, mirror))
    return out


def unwrap(hexes: list[int]) -> dict[int, tuple[int, int]]:
    """Plane coordinates of a connected set of hexes, relative to the first one.

    Breadth-first over adjacency, so coordinates are exact however the set wraps.
    Hexes not connected to the first are placed by their shortest wrapped offset.
    """
    if not hexes:
        return {}
    wanted = set(hexes)
    first = hexes[0]
    coords = {first: (0, 0)}
    queue = [first]
    while queue:
        h = queue.pop()
        q, r = coords[h]
        for d in range(6):
            n = int(NEIGH[h, d])
            if n in wanted and n not in coords:
                coords[n] = (q + int(DIR_DQ[d]), r + int(DIR_DR[d]))
                queue.append(n)
    fq, fr = qr_of(first)
    for h in hexes:
        if h not in coords:
            q, r = qr_of(h)
            coords[h] = ((q - fq + 16) % 32 - 16, (r - fr + 16) % 32 - 16)
    return coords
