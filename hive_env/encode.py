"""Graph observations for a graph network, from the side to move's point of view.

A position becomes a padded graph with a fixed node count per game type (reserve nodes, stack
nodes, the empty cells around the hive), with node and global features and each legal move as a
(source node, destination node) pair. The specification (node order, sizes, every array, the
feature tables behind the ``F_*`` and ``GF_*`` constants) is docs/encoding.md.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .actions import N_GAME_PIECES, REL_PIECE, action_of, num_actions, transform_actions
from .board import (
    BELOW,
    BOARD_SIZE,
    EXPANSIONS,
    LAST,
    LEVEL,
    NO_REFCOUNT,
    PASS,
    PLY,
    POS,
    TOP,
    TOP_SIDE,
    move_dest,
    move_piece,
)
from .errors import HiveError
from .grid import N_HEX, NEIGH, ORIGIN
from .outcome import queen_pressure
from .parallel import launching
from .pieces import (
    BUG_COUNT,
    BUG_FIRST_SLOT,
    EXP_LADYBUG,
    EXP_MOSQUITO,
    EXP_PILLBUG,
    N_BUGS,
    PIECE_BUG,
    PIECE_COLOUR,
    PIECES_PER_COLOUR,
    bug_in_game,
)
from .pinned import articulation_pieces
from .rules import MAX_MOVES, generate_moves_pinned, new_move_scratch
from .symmetry import DIR_MAPS, HEX_MAPS

ENCODING_VERSION = 3
"""Bump when observation features or action ids change meaning (old checkpoints are refused,
except those :data:`ADAPTED_VERSIONS` names)."""
ADAPTED_VERSIONS = {2: "global features 5 (turn / 50, unbounded) and 6 (min(ply / 300, 1))"}
"""Older encodings whose observations follow exactly from this one's (``search.network.adapt_obs``):
networks of these versions still play, and a run may start from them (their clock features
relearnt). 2 -> 3: the clock features (module docstring)."""
TURN_HORIZON = 150
"""Turns after which ``GF_TURN`` saturates: the 300-ply cap of play is 150 turns."""
MAX_LEGAL = 512
NODE_RESERVE, NODE_STACK, NODE_EMPTY, NODE_PAD = 0, 1, 2, -1


def feature_offsets(table: tuple[tuple[str, int], ...]) -> tuple[dict[str, int], int]:
    """First index of each row of an ordered feature table of (name, width) rows, and the
    total width: each row starts where the one before it ends."""
    offsets, at = {}, 0
    for name, width in table:
        offsets[name] = at
        at += width
    return offsets, at


NODE_FEATURE_TABLE = (
    ("TYPE", NODE_EMPTY + 1), ("BUG", N_BUGS), ("OWN", 1), ("OPP", 1), ("HEIGHT", 1), ("OWN_TILES", 1),
    ("OPP_TILES", 1), ("GROUND_BUG", N_BUGS), ("GROUND_OWN", 1), ("GROUND_OPP", 1), ("PINNED", 1),
    ("COVERED", 1), ("LAST_MOVED", 1), ("NEIGHBOURS", 1), ("NEXT_OWN_QUEEN", 1), ("NEXT_OPP_QUEEN", 1),
    ("PLACE_OWN", 1), ("PLACE_OPP", 1), ("RESERVE_COUNT", 1), ("MOVES_FROM", 1), ("MOVES_TO", 1),
)
"""The node features in order, (name, width): a one-hot is as wide as its choices (node
types, bugs). Meanings in docs/encoding.md; the ``F_*`` constants are the first indices."""
_F, N_NODE_FEATURES = feature_offsets(NODE_FEATURE_TABLE)
F_TYPE = _F["TYPE"]
F_BUG = _F["BUG"]
F_OWN = _F["OWN"]
F_OPP = _F["OPP"]
F_HEIGHT = _F["HEIGHT"]
F_OWN_TILES = _F["OWN_TILES"]
F_OPP_TILES = _F["OPP_TILES"]
F_GROUND_BUG = _F["GROUND_BUG"]
F_GROUND_OWN = _F["GROUND_OWN"]
F_GROUND_OPP = _F["GROUND_OPP"]
F_PINNED = _F["PINNED"]
F_COVERED = _F["COVERED"]
F_LAST_MOVED = _F["LAST_MOVED"]
F_NEIGHBOURS = _F["NEIGHBOURS"]
F_NEXT_OWN_QUEEN = _F["NEXT_OWN_QUEEN"]
F_NEXT_OPP_QUEEN = _F["NEXT_OPP_QUEEN"]
F_PLACE_OWN = _F["PLACE_OWN"]
F_PLACE_OPP = _F["PLACE_OPP"]
F_RESERVE_COUNT = _F["RESERVE_COUNT"]
F_MOVES_FROM = _F["MOVES_FROM"]
F_MOVES_TO = _F["MOVES_TO"]

GLOBAL_FEATURE_TABLE = (
    ("BLACK_TO_MOVE", 1), ("OWN_QUEEN", 1), ("OPP_QUEEN", 1), ("QUEEN_DUE", 1), ("FIRST_TURN", 1),
    ("TURN", 1), ("UNUSED", 1), ("OWN_QUEEN_FREE", 1), ("OPP_QUEEN_FREE", 1), ("OWN_RESERVE", 1),
    ("OPP_RESERVE", 1), ("PASSED", 1), ("MOSQUITO", 1), ("LADYBUG", 1), ("PILLBUG", 1),
)
"""The global features in order, (name, width), as :data:`NODE_FEATURE_TABLE`; the ``GF_*``
constants are their indices."""
_GF, N_GLOBAL_FEATURES = feature_offsets(GLOBAL_FEATURE_TABLE)
GF_BLACK_TO_MOVE = _GF["BLACK_TO_MOVE"]
GF_OWN_QUEEN = _GF["OWN_QUEEN"]
GF_OPP_QUEEN = _GF["OPP_QUEEN"]
GF_QUEEN_DUE = _GF["QUEEN_DUE"]
GF_FIRST_TURN = _GF["FIRST_TURN"]
GF_TURN = _GF["TURN"]
GF_UNUSED = _GF["UNUSED"]
GF_OWN_QUEEN_FREE = _GF["OWN_QUEEN_FREE"]
GF_OPP_QUEEN_FREE = _GF["OPP_QUEEN_FREE"]
GF_OWN_RESERVE = _GF["OWN_RESERVE"]
GF_OPP_RESERVE = _GF["OPP_RESERVE"]
GF_PASSED = _GF["PASSED"]
GF_MOSQUITO = _GF["MOSQUITO"]
GF_LADYBUG = _GF["LADYBUG"]
GF_PILLBUG = _GF["PILLBUG"]

MOVES_SCALE = 1.0 / 16.0


class ObsArrays(NamedTuple):
    """The arrays of an observation as the kernels take them (numba passes this tuple of
    arrays as one argument); fields, shapes and dtypes as in the module docstring."""

    node_feat: np.ndarray
    node_type: np.ndarray
    neighbours: np.ndarray
    node_mask: np.ndarray
    node_hex: np.ndarray
    n_nodes: np.ndarray
    global_feat: np.ndarray
    legal_mask: np.ndarray
    legal_actions: np.ndarray
    legal_src: np.ndarray
    legal_dst: np.ndarray
    n_legal: np.ndarray
    current_player: np.ndarray


OBS_FIELDS = ObsArrays._fields
"""Keys of an observation dict, in the order of :class:`ObsArrays`."""

# Kernel error codes (0 = ok).
ERR_TOO_MANY_MOVES, ERR_TOO_MANY_NODES, ERR_UNMAPPED_MOVE = 1, 2, 3


class EncodingError(HiveError):
    """A position that does not fit the fixed padding (too many legal moves or cells)."""


def _build_kinds() -> tuple[np.ndarray, np.ndarray]:
    kind_bug = np.full((8, N_BUGS), -1, dtype=np.int64)  # [exp, k] -> bug
    bug_kind = np.full((8, N_BUGS), -1, dtype=np.int64)  # [exp, bug] -> k
    for exp in range(8):
        k = 0
        for bug in range(N_BUGS):
            if bug_in_game(bug, exp):
                kind_bug[exp, k] = bug
                bug_kind[exp, bug] = k
                k += 1
    return kind_bug, bug_kind


KIND_BUG, BUG_KIND = _build_kinds()
_N_KINDS = (KIND_BUG >= 0).sum(axis=1).astype(np.int64)
_N_NODES = 2 * _N_KINDS + 3 * N_GAME_PIECES + 4


def graph_dims(expansions: int, max_legal: int = MAX_LEGAL) -> dict[str, int]:
    """Padding sizes of a game type: n (pieces), K (kinds per colour), N, F, G, A, M."""
    return {
        "n": int(N_GAME_PIECES[expansions]), "K": int(_N_KINDS[expansions]), "N": int(_N_NODES[expansions]),
        "F": N_NODE_FEATURES, "G": N_GLOBAL_FEATURES, "A": int(num_actions(expansions)), "M": max_legal,
    }


def allocate_observation(batch: int, expansions: int, max_legal: int = MAX_LEGAL) -> dict[str, np.ndarray]:
    """Fresh, empty observation arrays for ``batch`` games of a game type (padding values)."""
    d = graph_dims(expansions, max_legal)
    N, M = d["N"], d["M"]
    return {
        "node_feat": np.zeros((batch, N, N_NODE_FEATURES), dtype=np.float32),
        "node_type": np.full((batch, N), NODE_PAD, dtype=np.int8),
        "neighbours": np.full((batch, N, 6), -1, dtype=np.int16),
        "node_mask": np.zeros((batch, N), dtype=np.bool_),
        "node_hex": np.full((batch, N), -1, dtype=np.int16),
        "n_nodes": np.zeros(batch, dtype=np.int32),
        "global_feat": np.zeros((batch, N_GLOBAL_FEATURES), dtype=np.float32),
        "legal_mask": np.zeros((batch, d["A"]), dtype=np.bool_),
        "legal_actions": np.full((batch, M), -1, dtype=np.int32),
        "legal_src": np.full((batch, M), -1, dtype=np.int16),
        "legal_dst": np.full((batch, M), -1, dtype=np.int16),
        "n_legal": np.zeros(batch, dtype=np.int32),
        "current_player": np.zeros(batch, dtype=np.int8),
    }


def obs_arrays(obs: dict[str, np.ndarray]) -> ObsArrays:
    """The arrays of an observation dict as the kernels take them (shared, not copied)."""
    return ObsArrays(*(obs[k] for k in OBS_FIELDS))


def allocate_moves(batch: int) -> np.ndarray:
    """[B, MAX_MOVES] int32 move buffers: ``encode_into`` leaves each game's legal moves
    there, slot m aligned with ``legal_actions[b, m]``."""
    return np.zeros((batch, MAX_MOVES), dtype=np.int32)


# ----- the encoder: encode_into runs one kernel per section of the graph ---------------------
# The section kernels are inlined into it (``inline="always"``, numba IR inlining): as plain
# calls, each passing the tuple of 13 arrays, the vec-env benchmark ran about 5% slower.


@njit(cache=True, nogil=True)
def encode_into(board, b, obs, moves, node_of_hex):
    """Encode ``board`` into row ``b`` of the observation arrays ``obs`` (an
    :class:`ObsArrays`); return 0 or the first ``ERR_*`` code.

    ``moves`` [MAX_MOVES] int32 receives the legal moves (slot m <-> legal_actions[b, m]);
    ``node_of_hex`` [1024] int16 must be all -1 on entry and is restored on return, as is
    ``board``. Allocates the move generator's work arrays: loops over many boards call
    :func:`encode_row` with one ``MoveScratch``.
    """
    return encode_row(board, b, obs, moves, node_of_hex, new_move_scratch(), False)


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def encode_row(board, b, obs, moves, node_of_hex, scratch, reuse):
    """:func:`encode_into` with caller-owned work arrays: ``scratch`` a ``rules.MoveScratch``.

    ``reuse`` False: the row is reset to padding first (exact whatever it held). True: only
    the entries the row's previous encoding wrote are reset (bounded by its ``n_nodes`` and
    ``n_legal``), which is exact only while the row holds padding or exactly what the last
    encode into it wrote (see :func:`encode_games`).
    """
    if reuse:
        _clear_used(obs, b)
    else:
        _clear_row(obs, b)
    me = np.int64(board[PLY]) & 1
    first_stack = 2 * _N_KINDS[board[EXPANSIONS]]
    reserve_own, reserve_opp = _reserve_nodes(board, obs, b, me)
    articulation_pieces(board, scratch.pinned, scratch.work)
    stack_end = _stack_nodes(board, obs, b, me, first_stack, node_of_hex, scratch.pinned)
    err = 0
    if stack_end == first_stack:  # empty board
        n_nodes = _origin_node(obs, b, stack_end, node_of_hex)
    else:
        n_nodes, err = _frontier_nodes(board, obs, b, first_stack, stack_end, node_of_hex)
        _cell_features(board, obs, b, me, first_stack, stack_end, n_nodes, node_of_hex)
    n_legal, err_moves = _legal_moves(board, obs, b, moves, node_of_hex, scratch)
    _global_features(board, obs.global_feat[b], reserve_own, reserve_opp)
    obs.n_nodes[b] = n_nodes
    obs.n_legal[b] = n_legal
    obs.current_player[b] = me
    _restore_scratch(obs.node_hex[b], first_stack, n_nodes, node_of_hex)
    return err if err != 0 else err_moves


@njit(cache=True, nogil=True, inline="always")
def _clear_row(obs, b):
    """Padding values in row ``b`` of the per-node, per-feature and per-action arrays."""
    obs.node_feat[b, :, :] = 0.0
    obs.node_type[b, :] = NODE_PAD
    obs.neighbours[b, :, :] = -1
    obs.node_mask[b, :] = False
    obs.node_hex[b, :] = -1
    obs.global_feat[b, :] = 0.0
    obs.legal_mask[b, :] = False
    obs.legal_actions[b, :] = -1
    obs.legal_src[b, :] = -1
    obs.legal_dst[b, :] = -1


@njit(cache=True, nogil=True, inline="always")
def _clear_used(obs, b):
    """:func:`_clear_row` for a row that holds padding or exactly what an encode wrote: only
    its first ``n_nodes`` nodes, first ``n_legal`` slots and the mask bits they set."""
    nn = obs.n_nodes[b]
    obs.node_feat[b, :nn, :] = 0.0
    obs.node_type[b, :nn] = NODE_PAD
    obs.neighbours[b, :nn, :] = -1
    obs.node_mask[b, :nn] = False
    obs.node_hex[b, :nn] = -1
    obs.global_feat[b, :] = 0.0
    nl = obs.n_legal[b]
    A = obs.legal_mask.shape[1]
    for m in range(min(nl, obs.legal_actions.shape[1])):
        a = obs.legal_actions[b, m]
        if 0 <= a < A:
            obs.legal_mask[b, a] = False
    obs.legal_actions[b, :nl] = -1
    obs.legal_src[b, :nl] = -1
    obs.legal_dst[b, :nl] = -1


@njit(cache=True, nogil=True, inline="always")
def _new_node(obs, b, node, kind):
    """Make ``node`` of row ``b`` a real node of type ``kind`` (``NODE_*``)."""
    obs.node_type[b, node] = kind
    obs.node_mask[b, node] = True
    obs.node_feat[b, node, F_TYPE + kind] = 1.0


@njit(cache=True, nogil=True, inline="always")
def _new_hex_node(obs, b, node, kind, h, node_of_hex):
    """Make ``node`` the stack or empty-cell node of hex ``h`` (and record it in ``node_of_hex``)."""
    _new_node(obs, b, node, kind)
    obs.node_hex[b, node] = h
    node_of_hex[h] = node


@njit(cache=True, nogil=True, inline="always")
def _reserve_count(board, colour, bug):
    """Tiles of ``colour``'s ``bug`` kind still in reserve."""
    cnt = 0
    for j in range(BUG_COUNT[bug]):
        if board[POS + colour * PIECES_PER_COLOUR + BUG_FIRST_SLOT[bug] + j] < 0:
            cnt += 1
    return cnt


@njit(cache=True, nogil=True, inline="always")
def _reserve_nodes(board, obs, b, me):
    """Reserve nodes at fixed indices ``side * K + kind`` (side 0: the mover ``me``).

    Returns the tiles in reserve of the mover and of the opponent (global features).
    """
    exp = board[EXPANSIONS]
    K = _N_KINDS[exp]
    reserve_own = 0
    reserve_opp = 0
    for side in range(2):
        colour = me if side == 0 else 1 - me
        for k in range(K):
            bug = KIND_BUG[exp, k]
            cnt = _reserve_count(board, colour, bug)
            if side == 0:
                reserve_own += cnt
            else:
                reserve_opp += cnt
            node = side * K + k
            _new_node(obs, b, node, NODE_RESERVE)
            f = obs.node_feat[b, node]
            f[F_BUG + bug] = 1.0
            f[F_OWN + side] = 1.0
            f[F_RESERVE_COUNT] = cnt
    return reserve_own, reserve_opp


@njit(cache=True, nogil=True, inline="always")
def _stack_nodes(board, obs, b, me, first, node_of_hex, pinned):
    """Stack nodes from index ``first``, one per occupied hex, in relative order of the top
    tile (the mover's tiles first); returns the index after the last.

    ``pinned`` [N_PIECES] holds ``articulation_pieces`` of the board.
    """
    exp = board[EXPANSIONS]
    nn = first
    for rel in range(N_GAME_PIECES[exp]):
        p = REL_PIECE[exp, me, rel]
        h = board[POS + p]
        if h < 0 or board[TOP + h] != p:
            continue
        _new_hex_node(obs, b, nn, NODE_STACK, h, node_of_hex)
        _stack_features(board, obs.node_feat[b, nn], p, me, pinned[p])
        nn += 1
    return nn


@njit(cache=True, nogil=True, inline="always")
def _stack_features(board, f, p, me, pinned):
    """Features of the stack topped by tile ``p`` into ``f`` [F]; ``pinned``: ``p`` is a
    ground tile whose hex is an articulation point of the hive."""
    f[F_BUG + PIECE_BUG[p]] = 1.0
    f[F_OWN + (0 if PIECE_COLOUR[p] == me else 1)] = 1.0
    height = board[LEVEL + p] + 1
    f[F_HEIGHT] = height
    g = p
    ground = p
    while g >= 0:
        if PIECE_COLOUR[g] == me:
            f[F_OWN_TILES] += 1.0
        else:
            f[F_OPP_TILES] += 1.0
        ground = g
        g = board[BELOW + g]
    f[F_GROUND_BUG + PIECE_BUG[ground]] = 1.0
    f[F_GROUND_OWN + (0 if PIECE_COLOUR[ground] == me else 1)] = 1.0
    if height == 1 and pinned:
        f[F_PINNED] = 1.0
    if height > 1:
        f[F_COVERED] = 1.0
    if p == board[LAST]:
        f[F_LAST_MOVED] = 1.0


@njit(cache=True, nogil=True, inline="always")
def _origin_node(obs, b, node, node_of_hex):
    """The empty board's only cell node, the origin, at index ``node`` (the first player
    places there); returns the node count."""
    _new_hex_node(obs, b, node, NODE_EMPTY, ORIGIN, node_of_hex)
    obs.node_feat[b, node, F_PLACE_OWN] = 1.0
    return node + 1


@njit(cache=True, nogil=True, inline="always")
def _frontier_nodes(board, obs, b, first, end, node_of_hex):
    """Empty-cell nodes from index ``end``: the empty hexes next to the stack nodes
    ``first .. end-1``, in order of discovery.

    Returns (the node count, ``ERR_TOO_MANY_NODES`` if they did not fit or 0).
    """
    N = obs.node_type.shape[1]
    nn = end
    err = 0
    for s in range(first, end):
        h = obs.node_hex[b, s]
        for d in range(6):
            c = NEIGH[h, d]
            if board[TOP + c] >= 0 or node_of_hex[c] >= 0:
                continue
            if nn >= N:
                err = ERR_TOO_MANY_NODES
                break
            _new_hex_node(obs, b, nn, NODE_EMPTY, c, node_of_hex)
            nn += 1
    return nn, err


@njit(cache=True, nogil=True, inline="always")
def _in_play(board, colour):
    """Whether ``colour`` has a tile on the board."""
    for i in range(PIECES_PER_COLOUR):
        if board[POS + colour * PIECES_PER_COLOUR + i] >= 0:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def _cell_features(board, obs, b, me, first, stack_end, end, node_of_hex):
    """Neighbour links and adjacency features of the hex nodes ``first .. end-1`` (stacks,
    then empty cells from ``stack_end``), and the placement flags of the empty cells.

    Branch-free over the six neighbours (counts from :data:`TOP_SIDE`, queen flags or-ed):
    whether a neighbour is occupied, and by whom, is a coin toss the CPU cannot predict.
    """
    own_in_play = _in_play(board, me)
    opp_in_play = _in_play(board, 1 - me)
    q_own = board[POS + me * PIECES_PER_COLOUR]
    q_opp = board[POS + (1 - me) * PIECES_PER_COLOUR]
    own_side = me + 1
    for node in range(first, end):
        f = obs.node_feat[b, node]
        links = obs.neighbours[b, node]
        h = obs.node_hex[b, node]
        occ = 0
        own_tops = 0
        next_own = False
        next_opp = False
        for d in range(6):
            c = NEIGH[h, d]
            links[d] = node_of_hex[c]
            side = TOP_SIDE[board[TOP + c] + 1]
            occ += side != 0
            own_tops += side == own_side
            next_own |= c == q_own
            next_opp |= c == q_opp
        if next_own:
            f[F_NEXT_OWN_QUEEN] = 1.0
        if next_opp:
            f[F_NEXT_OPP_QUEEN] = 1.0
        f[F_NEIGHBOURS] = occ
        if node >= stack_end:
            _placement_flags(f, occ, own_tops, occ - own_tops, own_in_play, opp_in_play)


@njit(cache=True, nogil=True, inline="always")
def _placement_flags(f, occ, own_tops, opp_tops, own_in_play, opp_in_play):
    """PLACE_OWN / PLACE_OPP of an empty cell with ``occ`` occupied neighbours, ``own_tops``
    / ``opp_tops`` of them topped by the mover's / opponent's tiles: a placed tile touches
    its own colour and no other; a side's first tile may touch anything."""
    if (own_tops > 0 and opp_tops == 0) or (not own_in_play and occ > 0):
        f[F_PLACE_OWN] = 1.0
    if (opp_tops > 0 and own_tops == 0) or (not opp_in_play and occ > 0):
        f[F_PLACE_OPP] = 1.0


@njit(cache=True, nogil=True, inline="always")
def _legal_moves(board, obs, b, moves, node_of_hex, scratch):
    """The legal moves into ``moves``, their action ids, source and destination nodes into
    row ``b``, and the MOVES_FROM / MOVES_TO counts of the nodes (``scratch.pinned`` holds
    articulation_pieces of the board).

    Returns (the number of legal slots, the first ``ERR_*`` code or 0).
    """
    exp = np.int64(board[EXPANSIONS])
    n_pieces = N_GAME_PIECES[exp]
    mover = np.int64(board[PLY]) & 1
    feat = obs.node_feat[b]
    mask = obs.legal_mask[b]
    actions = obs.legal_actions[b]
    legal_src = obs.legal_src[b]
    legal_dst = obs.legal_dst[b]
    err = 0
    nm = generate_moves_pinned(board, moves, scratch)
    if nm > actions.shape[0]:
        err = ERR_TOO_MANY_MOVES
        nm = actions.shape[0]
    for m in range(nm):
        mv = moves[m]
        a = action_of(board, mv, exp, n_pieces, mover)
        mask[a] = True
        actions[m] = a
        if mv == PASS:
            continue
        p = move_piece(mv)
        ph = board[POS + p]
        src = BUG_KIND[exp, PIECE_BUG[p]] if ph < 0 else node_of_hex[ph]
        dst = node_of_hex[move_dest(mv)]
        if src < 0 or dst < 0:
            if err == 0:
                err = ERR_UNMAPPED_MOVE
            continue
        legal_src[m] = src
        legal_dst[m] = dst
        feat[src, F_MOVES_FROM] += MOVES_SCALE
        feat[dst, F_MOVES_TO] += MOVES_SCALE
    return nm, err


@njit(cache=True, nogil=True, inline="always")
def _queen_free(board, colour):
    """Empty hexes around ``colour``'s queen / 6, 0 while it is in reserve (the count the
    tactics checks read too)."""
    if board[POS + colour * PIECES_PER_COLOUR] < 0:
        return 0.0
    return (6 - queen_pressure(board, colour)) / 6.0


@njit(cache=True, nogil=True, inline="always")
def _global_features(board, gf, reserve_own, reserve_opp):
    """The global features of ``board`` into ``gf`` [G] (all 0 on entry), given the tiles
    in reserve of the mover and of the opponent."""
    exp = board[EXPANSIONS]
    ply = np.int64(board[PLY])
    me = ply & 1
    turn = ply // 2 + 1
    half = N_GAME_PIECES[exp] // 2
    q_own = board[POS + me * PIECES_PER_COLOUR]
    q_opp = board[POS + (1 - me) * PIECES_PER_COLOUR]
    gf[GF_BLACK_TO_MOVE] = me
    gf[GF_OWN_QUEEN] = 1.0 if q_own >= 0 else 0.0
    gf[GF_OPP_QUEEN] = 1.0 if q_opp >= 0 else 0.0
    gf[GF_QUEEN_DUE] = 1.0 if q_own < 0 and turn == 4 else 0.0
    gf[GF_FIRST_TURN] = 1.0 if turn == 1 else 0.0
    gf[GF_TURN] = min(turn, TURN_HORIZON) / TURN_HORIZON
    gf[GF_OWN_QUEEN_FREE] = _queen_free(board, me)
    gf[GF_OPP_QUEEN_FREE] = _queen_free(board, 1 - me)
    gf[GF_OWN_RESERVE] = reserve_own / half
    gf[GF_OPP_RESERVE] = reserve_opp / half
    gf[GF_PASSED] = 1.0 if ply > 0 and board[LAST] < 0 else 0.0
    gf[GF_MOSQUITO] = 1.0 if exp & EXP_MOSQUITO else 0.0
    gf[GF_LADYBUG] = 1.0 if exp & EXP_LADYBUG else 0.0
    gf[GF_PILLBUG] = 1.0 if exp & EXP_PILLBUG else 0.0


@njit(cache=True, nogil=True, inline="always")
def _restore_scratch(node_hex, first, end, node_of_hex):
    """Reset the ``node_of_hex`` entries of the hex nodes ``first .. end-1`` (``node_hex`` [N])
    back to -1."""
    for node in range(first, end):
        node_of_hex[node_hex[node]] = -1


CHUNK = 8
"""Games per parallel task: each task's scratch arrays stay hot in cache across its games."""


@njit(cache=True, nogil=True)
def encode_games(boards, obs, moves, errors, lo, hi, reuse=False):
    """``encode_into`` for games ``lo .. hi-1`` on the calling thread, with one scratch.

    ``reuse`` True clears only what the previous encode of each row wrote (:func:`encode_row`):
    the same arrays as with False provided rows ``lo .. hi-1`` of ``obs`` hold padding (fresh
    from :func:`allocate_observation`) or exactly what the last ``encode_*`` call into them
    wrote, nothing else having written there since (buffers private to their encoder).
    """
    node_of_hex = np.full(N_HEX, -1, dtype=np.int16)
    scratch = new_move_scratch()
    for b in range(lo, hi):
        errors[b] = encode_row(boards[b], b, obs, moves[b], node_of_hex, scratch, reuse)


@njit(parallel=True, nogil=True, cache=True)
def encode_batch_kernel(boards, obs, moves, errors, reuse=False):
    """``encode_into`` for every game of a batch, in parallel over chunks of games
    (``reuse`` as in :func:`encode_games`)."""
    B = boards.shape[0]
    for c in prange((B + CHUNK - 1) // CHUNK):
        encode_games(boards, obs, moves, errors, c * CHUNK, min(B, (c + 1) * CHUNK), reuse)


_ERR_TEXT = {
    ERR_TOO_MANY_MOVES: "more legal moves than max_legal",
    ERR_TOO_MANY_NODES: "more empty cells around the hive than 2 * stacks + 4 (disconnected hive?)",
    ERR_UNMAPPED_MOVE: "a legal move whose source or destination is not a node (engine bug?)",
}


def raise_encoding_errors(errors: np.ndarray, max_legal: int = MAX_LEGAL) -> None:
    """Raise :class:`EncodingError` for the first game with a non-zero kernel error code."""
    bad = np.flatnonzero(errors)
    if bad.size:
        b = int(bad[0])
        text = _ERR_TEXT[int(errors[b])].replace("max_legal", f"max_legal={max_legal}")
        raise EncodingError(f"game {b}: cannot encode the position: {text}")


def _as_boards(boards: np.ndarray) -> np.ndarray:
    boards = np.ascontiguousarray(boards)
    if boards.ndim != 2 or boards.shape[1] != BOARD_SIZE or boards.dtype != np.int16:
        raise HiveError(f"expected [B, {BOARD_SIZE}] int16 boards, got {boards.shape} {boards.dtype}")
    return boards


def observe_batch_with_moves(boards: np.ndarray, max_legal: int = MAX_LEGAL) -> tuple[dict[str, np.ndarray],
                                                                                     np.ndarray]:
    """:func:`observe_batch` plus the engine moves of the legal slots: ``[B, MAX_MOVES] int32``,
    slot m of game b holding the move of ``legal_actions[b, m]`` (search expands with them)."""
    boards = _as_boards(boards).copy()
    B = boards.shape[0]
    # boards of several game types (a network learning several): arrays sized for them all
    obs = allocate_observation(B, int(np.bitwise_or.reduce(boards[:, EXPANSIONS])) if B else 0, max_legal)
    moves = allocate_moves(B)
    errors = np.zeros(B, dtype=np.int8)
    if B <= CHUNK:
        encode_games(boards, obs_arrays(obs), moves, errors, 0, B)
    else:
        with launching():
            encode_batch_kernel(boards, obs_arrays(obs), moves, errors)
    raise_encoding_errors(errors, max_legal)
    return obs, moves


def observe_batch(boards: np.ndarray, max_legal: int = MAX_LEGAL) -> dict[str, np.ndarray]:
    """Observations of a batch of boards (fresh arrays, compiled, parallel); boards of several
    game types are padded to the arrays of the smallest type holding them all (each encoded
    as its own type: the same rows as alone, then padding).

    Args:
        boards: [B, BOARD_SIZE] int16; not modified.

    Returns:
        dict of the arrays in the module docstring, each with a leading [B].

    Raises:
        EncodingError: a position does not fit the padding.
    """
    return observe_batch_with_moves(boards, max_legal)[0]


def observe(board: np.ndarray, max_legal: int = MAX_LEGAL) -> dict[str, np.ndarray]:
    """Observation of one board: the arrays of ``observe_batch`` without the leading [B]."""
    obs = observe_batch(np.asarray(board)[None], max_legal)
    return {k: v[0, ...] for k, v in obs.items()}  # [B] fields become 0-d arrays


def transform_observation(
    obs: dict[str, np.ndarray], sym: int, board: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Image of an observation (one game or a batch) under hex symmetry ``sym`` (0..11).

    Nodes keep their indices (they are tiles and cells, not coordinates), so the graph
    changes only in the direction axis of ``neighbours`` (``DIR_MAPS``) and in the
    ``node_hex`` metadata (``HEX_MAPS``); features, ``legal_src`` and ``legal_dst`` are
    unchanged. Action ids depend on the reference directions: with ``board`` ([BOARD_SIZE]
    or [B, BOARD_SIZE], the position(s) observed) ``legal_actions`` and ``legal_mask`` are
    relabelled with ``transform_actions``; without it they are copied unchanged.

    Returns:
        A new dict (inputs are not modified).
    """
    out = {k: np.array(v, copy=True) for k, v in obs.items()}
    dmap = np.asarray(DIR_MAPS[sym])
    out["neighbours"][..., dmap] = obs["neighbours"]
    hexes = obs["node_hex"]
    out["node_hex"] = np.where(hexes >= 0, HEX_MAPS[sym][np.maximum(hexes, 0)], -1).astype(np.int16)
    if board is not None:
        batched = obs["legal_actions"].ndim == 2
        boards = np.asarray(board).reshape(-1, BOARD_SIZE)
        acts = out["legal_actions"].reshape(boards.shape[0], -1)
        mask = out["legal_mask"].reshape(boards.shape[0], -1)
        for i in range(boards.shape[0]):
            acts[i] = transform_actions(boards[i], acts[i], sym)
            mask[i] = False
            mask[i, acts[i][acts[i] >= 0]] = True
        if not batched:
            out["legal_actions"], out["legal_mask"] = acts[0], mask[0]
    return out
