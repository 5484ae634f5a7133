"""The allocation-free entry points of the move generator and the encoder give the same bits as
the plain ones: ``generate_moves_with`` / ``generate_moves_pinned`` (caller-owned scratch),
``articulation_pieces``, and ``encode_games`` / ``encode_batch_kernel`` with ``reuse=True``
(rows cleared only where their previous encode wrote); the kernels compiled without reference
counting (``board.NO_REFCOUNT``) keep perft counts and every array's reference count."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from hive_env import Game, movegen, pinned, rules
from hive_env import board as board_mod
from hive_env import encode as encode_mod
from hive_env.board import NO_REFCOUNT, POS, TOP, TOP_SIDE
from hive_env.encode import (
    CHUNK,
    allocate_moves,
    allocate_observation,
    encode_batch_kernel,
    encode_games,
    encode_into,
    obs_arrays,
)
from hive_env.grid import N_HEX
from hive_env.pieces import N_PIECES, PIECE_COLOUR
from hive_env.pinned import articulation_hexes, articulation_pieces
from hive_env.rules import (
    MAX_MOVES,
    STAMP_LIMIT,
    generate_moves,
    generate_moves_pinned,
    generate_moves_with,
    new_move_scratch,
    perft,
)

from helpers import GAME_TYPES, REAL_GAMES, cells_connected, real_game_positions

ALL_EXPANSIONS = 7


def _boards(game_type: str) -> np.ndarray:
    """Every position of the real games of ``game_type``, the finished games' last positions
    and the empty board."""
    boards = [g.board for g in real_game_positions(game_type, every=1)]
    for line in REAL_GAMES.read_text().splitlines():
        if line.split(";", 1)[0] == game_type:
            boards.append(Game.from_string(line).board)
    boards.append(Game.from_string(game_type).board)
    return np.stack(boards)


def _splits_hive(board: np.ndarray, h: int) -> bool:
    """Brute force: the occupied cells other than ``h`` are not all connected."""
    return not cells_connected({int(x) for x in np.flatnonzero(board[TOP:TOP + N_HEX] >= 0)} - {h})


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_generate_moves_with_a_reused_scratch_matches_generate_moves(game_type):
    """One scratch across every position (and across a stamp restart) gives the moves of
    ``generate_moves``, in order; so does ``generate_moves_pinned`` after ``articulation_pieces``."""
    scratch = new_move_scratch()
    want, got = np.zeros(MAX_MOVES, np.int32), np.zeros(MAX_MOVES, np.int32)
    for i, board in enumerate(_boards(game_type)):
        if i == 7:
            scratch.stamp[0] = STAMP_LIMIT - 3  # the next call passes the limit: marks restart
        before = board.copy()
        n = generate_moves(board, want)
        assert generate_moves_with(board, got, scratch) == n
        assert np.array_equal(got[:n], want[:n])
        articulation_pieces(board, scratch.pinned, scratch.work)
        got[:] = 0
        assert generate_moves_pinned(board, got, scratch) == n
        assert np.array_equal(got[:n], want[:n])
        assert np.array_equal(board, before)
    assert scratch.stamp[0] < STAMP_LIMIT


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_articulation_pieces_are_the_ground_tiles_of_the_articulation_hexes(game_type):
    """``articulation_pieces`` flags exactly the ground tiles under the hexes of
    ``articulation_hexes``, which are the cells whose removal splits the hive (brute force)."""
    pinned = np.ones(N_PIECES, np.bool_)  # overwritten, whatever it held
    work = np.full(5 * N_PIECES, 99, np.int64)
    for board in _boards(game_type)[::3]:
        hexes = np.zeros(N_HEX, np.bool_)
        articulation_hexes(board, hexes)
        articulation_pieces(board, pinned, work)
        flagged = {int(board[POS + p]) for p in np.flatnonzero(pinned)}
        assert flagged == {int(h) for h in np.flatnonzero(hexes)}
        occupied = np.flatnonzero(board[TOP:TOP + N_HEX] >= 0)
        assert flagged == {int(h) for h in occupied if _splits_hive(board, int(h))}


def _fresh(boards: np.ndarray) -> tuple[dict, np.ndarray, np.ndarray]:
    """The reference: fresh arrays (sized for every game type), the exact default path."""
    obs = allocate_observation(len(boards), ALL_EXPANSIONS)
    moves = allocate_moves(len(boards))
    errors = np.zeros(len(boards), np.int8)
    encode_games(boards, obs_arrays(obs), moves, errors, 0, len(boards))
    return obs, moves, errors


def _assert_rows_equal(obs: dict, moves: np.ndarray, errors: np.ndarray, boards: np.ndarray) -> None:
    want_obs, want_moves, want_errors = _fresh(boards)
    k = len(boards)
    for key, want in want_obs.items():
        assert np.array_equal(obs[key][:k], want), key
    for b in range(k):
        n = want_obs["n_legal"][b]
        assert np.array_equal(moves[b, :n], want_moves[b, :n])
    assert np.array_equal(errors[:k], want_errors)


def test_reuse_rows_match_fresh_rows_across_sizes_and_game_types():
    """Rows re-encoded with ``reuse=True`` (serial and parallel, big positions then small ones,
    the game types mixed in one set of arrays) equal rows encoded into fresh arrays."""
    boards = np.concatenate([_boards(g) for g in GAME_TYPES])
    size = (boards[:, TOP:TOP + N_HEX] >= 0).sum(axis=1)
    big_first = boards[np.argsort(-size, kind="stable")]
    rows = 3 * CHUNK + 5
    obs = allocate_observation(rows, ALL_EXPANSIONS)
    arrays = obs_arrays(obs)
    moves = allocate_moves(rows)
    errors = np.zeros(rows, np.int8)
    rng = np.random.default_rng(0)
    batches = [big_first[i:i + rows] for i in range(0, len(big_first), rows)]  # shrinking sizes
    batches += [big_first[::-1][:rows], big_first[:rows], big_first[-rows:]]  # small -> big -> small
    batches += [boards[rng.choice(len(boards), size=rows)] for _ in range(6)]
    batches += [big_first[:CHUNK - 3], big_first[-5:]]  # fewer rows than the arrays
    for i, batch in enumerate(batches):
        batch = np.ascontiguousarray(batch)
        k = len(batch)
        if i % 2:
            encode_batch_kernel(batch, obs_arrays({key: v[:k] for key, v in obs.items()}), moves[:k],
                                errors[:k], True)
        else:
            encode_games(batch, arrays, moves, errors, 0, k, True)
        _assert_rows_equal(obs, moves, errors, batch)


def test_encode_into_and_the_default_path_are_exact_over_any_stale_row():
    """Without ``reuse`` a row is exact whatever it held (here: junk), through ``encode_into``,
    ``encode_games`` and ``encode_batch_kernel``."""
    boards = np.concatenate([_boards(g)[::4] for g in GAME_TYPES])
    k = len(boards)
    obs = allocate_observation(k, ALL_EXPANSIONS)
    for v in obs.values():
        v[...] = 1
    moves = allocate_moves(k)
    errors = np.zeros(k, np.int8)
    encode_batch_kernel(boards, obs_arrays(obs), moves, errors)
    _assert_rows_equal(obs, moves, errors, boards)
    for v in obs.values():
        v[...] = 1
    node_of_hex = np.full(N_HEX, -1, np.int16)
    for b in range(k):
        errors[b] = encode_into(boards[b], b, obs_arrays(obs), moves[b], node_of_hex)
    assert (node_of_hex == -1).all()
    _assert_rows_equal(obs, moves, errors, boards)


NO_REFCOUNT_KERNELS = [
    (board_mod, "play"), (board_mod, "unplay"), (board_mod, "compute_status"),
    (movegen, "gen_bug"), (movegen, "gen_ant"), (pinned, "articulation_pieces"),
    (rules, "generate_moves_with"), (rules, "generate_moves_pinned"), (rules, "_generate"),
    (rules, "_gen_placements"), (rules, "_gen_movements"), (rules, "_perft"), (encode_mod, "encode_row"),
]


@pytest.mark.parametrize("module, name", NO_REFCOUNT_KERNELS)
def test_the_hot_kernels_are_compiled_without_reference_counting(module, name):
    """The allocation-free kernels of move generation, perft and the encoder keep ``NO_REFCOUNT``:
    with numba's reference counting, the atomic increments of the arrays they pass were over
    half of perft on small boards."""
    if not NO_REFCOUNT:
        pytest.skip("this numba has no _nrt option: the kernels count references")
    assert NO_REFCOUNT == {"_nrt": False}
    assert getattr(module, name).targetoptions.get("_nrt") is False


PERFT_FROM_EMPTY = {"Base": [4, 96, 1440, 21600], "Base+MLP": [7, 294, 6678, 151686]}
"""Published perft counts from the empty board (nokamute and Mzinga agree), depths 1 to 4."""


@pytest.mark.parametrize("game_type", sorted(PERFT_FROM_EMPTY))
def test_perft_from_the_empty_board_and_reference_counts_are_kept(game_type):
    """Opening perft counts as published; perft, the encoder and the move generator leave every
    array's reference count (its owner's count of users) as it was."""
    game = Game.from_string(game_type)
    board, hist = game.board.copy(), game.hist.copy()
    refs = sys.getrefcount(board), sys.getrefcount(hist)
    assert [perft(board, hist, d) for d in range(1, 5)] == PERFT_FROM_EMPTY[game_type]
    assert (sys.getrefcount(board), sys.getrefcount(hist)) == refs
    assert np.array_equal(board, game.board)
    boards = _boards(game_type)[::5]
    obs = allocate_observation(len(boards), ALL_EXPANSIONS)
    arrays = obs_arrays(obs)
    moves = allocate_moves(len(boards))
    errors = np.zeros(len(boards), np.int8)
    scratch = new_move_scratch()
    refs = [sys.getrefcount(a) for a in (*arrays, *scratch, moves)]
    encode_games(boards, arrays, moves, errors, 0, len(boards), True)
    for i, board in enumerate(boards):
        generate_moves_with(board, moves[i], scratch)
    assert [sys.getrefcount(a) for a in (*arrays, *scratch, moves)] == refs


def test_top_side_table_reads_empty_and_each_colour():
    """``TOP_SIDE[top + 1]`` (the encoder's cell features): 0 for an empty hex,
    1 + the colour of the top tile otherwise."""
    table = TOP_SIDE
    assert table[0] == 0 and len(table) == N_PIECES + 1
    assert np.array_equal(table[1:], PIECE_COLOUR + 1)
