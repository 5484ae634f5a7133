"""``HiveVecEnv``: B games stepped at once by compiled kernels, graph observations out.

The env contract: ``reset``, ``step`` (every action validated first, in one compiled pass: an
illegal one raises ``IllegalActionError`` and no game changes; finished games reset at once),
``observe``, and ``get_state`` / ``set_state`` for search. Rewards are from the view of the
player who just moved; ``terminated`` is a real result, ``truncated`` the ply cap.

See docs/engine.md (the vectorized environment) and docs/encoding.md (the observations).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from .actions import IllegalActionError, decode_action, num_actions
from .board import (
    BOARD_SIZE,
    DRAW,
    EXPANSIONS,
    HIST,
    IN_PROGRESS,
    PLY,
    STATUS,
    new_board,
    play,
)
from .encode import (
    CHUNK,
    MAX_LEGAL,
    allocate_moves,
    allocate_observation,
    encode_games,
    encode_row,
    obs_arrays,
    raise_encoding_errors,
)
from .errors import HiveError
from .grid import N_HEX
from .outcome import DEFAULT_PLY_CAP, is_real_draw, mover_reward
from .parallel import launching
from .pieces import parse_game_type
from .rules import new_move_scratch
from .uhp import format_move


class Games(NamedTuple):
    """An env's games as its kernels take them (the arrays the env holds, not copies)."""

    boards: np.ndarray
    """[B, BOARD_SIZE] int16 every game's board."""
    hists: np.ndarray
    """[B, HIST] uint64 their position keys (repetitions)."""
    moves: np.ndarray
    """[B, MAX_MOVES] int32 each game's legal moves (a private copy of the encoder's)."""
    n_moves: np.ndarray
    """[B] int32 how many."""
    errors: np.ndarray
    """[B] int8 the last encode's error codes (``encode.raise_encoding_errors``)."""
    start: np.ndarray
    """[BOARD_SIZE] int16 the empty board a finished game restarts from."""


class StepResults(NamedTuple):
    """What one step reports per game (``HiveVecEnv.step``)."""

    rewards: np.ndarray
    """[B] float32 from the view of the player who just moved."""
    terminated: np.ndarray
    """[B] bool a real result."""
    truncated: np.ndarray
    """[B] bool the ply cap."""
    final_status: np.ndarray
    """[B] int8 the status the game ended with (``IN_PROGRESS``: it goes on)."""
    episode_length: np.ndarray
    """[B] int32 plies of a game that ended (else 0)."""


def allocate_results(batch: int) -> StepResults:
    """Fresh :class:`StepResults` of ``batch`` games."""
    return StepResults(np.empty(batch, np.float32), np.empty(batch, np.bool_), np.empty(batch, np.bool_),
                       np.empty(batch, np.int8), np.empty(batch, np.int32))


@njit(cache=True, nogil=True)
def _find_slot(board, action, moves, n):
    """Slot of ``action`` among the ``n`` legal moves, or -1 if it is not legal."""
    move = decode_action(board, action)
    if move < 0:
        return -1
    for m in range(n):
        if moves[m] == move:
            return m
    return -1


@njit(cache=True, nogil=True)
def _play_one(board, hist, move, start, b, out):
    """Play ``move`` in game ``b``, record its outcome in ``out`` (:class:`StepResults`), reset
    it if it ended."""
    play(board, hist, move)
    status = board[STATUS]
    out.rewards[b] = 0.0
    out.terminated[b] = False
    out.truncated[b] = False
    out.final_status[b] = status
    out.episode_length[b] = 0
    if status != IN_PROGRESS:
        out.episode_length[b] = board[PLY]
        out.rewards[b] = mover_reward(board)
        if status == DRAW and not is_real_draw(board, hist):
            out.truncated[b] = True
        else:
            out.terminated[b] = True
        board[:] = start
        hist[:] = 0


@njit(cache=True, nogil=True)
def _validate_games(games, actions, slots, lo, hi):
    for b in range(lo, hi):
        slots[b] = _find_slot(games.boards[b], actions[b], games.moves[b], games.n_moves[b])


@njit(cache=True, nogil=True)
def _step_games(games, slots, obs, out, lo, hi):
    """Play (``slots[b]``: the slot of game b's move; -1: reset it), record in ``out``,
    auto-reset and re-encode games ``lo .. hi-1`` (one scratch per call)."""
    node_of_hex = np.full(N_HEX, -1, dtype=np.int16)
    scratch = new_move_scratch()
    boards, hists = games.boards, games.hists
    for b in range(lo, hi):
        if slots[b] >= 0:
            _play_one(boards[b], hists[b], games.moves[b, slots[b]], games.start, b, out)
        else:  # reset
            boards[b, :] = games.start
            hists[b, :] = 0
        games.errors[b] = encode_row(boards[b], b, obs, games.moves[b], node_of_hex, scratch, False)
        games.n_moves[b] = obs.n_legal[b]  # a private copy survives callers writing into obs


@njit(parallel=True, nogil=True, cache=True)
def _step_parallel(games, actions, obs, out):
    """Validate every action, then play, auto-reset and re-encode every game, in parallel
    over chunks of games. Returns the first game whose action is illegal (then nothing
    changed), or -1."""
    B = games.boards.shape[0]
    n_chunks = (B + CHUNK - 1) // CHUNK
    slots = np.empty(B, dtype=np.int64)
    for c in prange(n_chunks):
        _validate_games(games, actions, slots, c * CHUNK, min(B, (c + 1) * CHUNK))
    for b in range(B):
        if slots[b] < 0:
            return b
    for c in prange(n_chunks):
        _step_games(games, slots, obs, out, c * CHUNK, min(B, (c + 1) * CHUNK))
    return -1


@njit(cache=True, nogil=True)
def _step_serial(games, actions, obs, out):
    """``_step_parallel`` on the calling thread (small batches, one numba thread)."""
    B = games.boards.shape[0]
    slots = np.empty(B, dtype=np.int64)
    _validate_games(games, actions, slots, 0, B)
    for b in range(B):
        if slots[b] < 0:
            return b
    _step_games(games, slots, obs, out, 0, B)
    return -1


@njit(parallel=True, nogil=True, cache=True)
def _reset_parallel(games, obs, out):
    """Every game back to the empty board, encoded (``out``: scratch, nothing is reported)."""
    B = games.boards.shape[0]
    slots = np.full(B, -1, dtype=np.int64)  # -1 = reset
    for c in prange((B + CHUNK - 1) // CHUNK):
        _step_games(games, slots, obs, out, c * CHUNK, min(B, (c + 1) * CHUNK))


class HiveVecEnv:
    """B games of one game type, stepped together (docs/engine.md).

    Every game held is in progress: one that ends on a step reports its reward, ``terminated``
    or ``truncated``, ``info["final_status"]`` (0 = ``IN_PROGRESS`` for games that did not end)
    and ``info["episode_length"]`` (plies), and is reset at once, so its returned observation is
    the new game's first position. ``obs["legal_mask"][b]`` has exactly ``obs["n_legal"][b] >= 1``
    True entries, one per legal move (perft convention); pass (``A - 1``) is legal only alone.

    Threads: kernels run on ``numba.get_num_threads()`` threads, in chunks of ``CHUNK`` games;
    batches of at most ``CHUNK`` games, or one thread, take a serial kernel. On machines whose
    cores are shared, ``OMP_WAIT_POLICY=PASSIVE`` keeps idle OpenMP workers from spinning.

    Memory: the observation arrays are preallocated and overwritten in place by every
    ``reset``/``step``/``set_state`` (copy what you keep); they are C-contiguous, so
    ``torch.from_numpy`` shares their memory. ``rewards``, ``terminated``, ``truncated`` and the
    ``info`` arrays are fresh per call.

    Args:
        num_envs: B, number of games.
        game_type: ``"Base"`` .. ``"Base+MLP"`` or expansion bits.
        ply_cap: a game reaching this many plies ends as a draw, reported as truncated;
            0 = no cap (games still end by threefold repetition).
        seed: kept for API compatibility: ``reset`` gives the empty board, so the env
            consumes no randomness.
        max_legal: M, padding of the legal-action lists.
    """

    def __init__(self, num_envs: int, game_type: str | int = "Base+MLP", ply_cap: int = DEFAULT_PLY_CAP,
                 seed: int = 0, max_legal: int = MAX_LEGAL):
        if num_envs < 1:
            raise HiveError(f"num_envs must be >= 1, got {num_envs}")
        if not 0 <= ply_cap < 2**15:
            raise HiveError(f"ply_cap must be in 0..32767, got {ply_cap}")
        self.num_envs = int(num_envs)
        self.expansions = parse_game_type(game_type) if isinstance(game_type, str) else int(game_type)
        self.ply_cap = int(ply_cap)
        self.seed = seed
        self.max_legal = int(max_legal)
        self.num_actions = int(num_actions(self.expansions))
        self._start, _ = new_board(self.expansions, self.ply_cap)
        B = self.num_envs
        self.boards = np.tile(self._start, (B, 1))
        self.hists = np.zeros((B, HIST), dtype=np.uint64)
        self.obs = allocate_observation(B, self.expansions, self.max_legal)
        self._obs_t = obs_arrays(self.obs)
        self._moves = allocate_moves(B)
        self._n_moves = np.zeros(B, dtype=np.int32)
        self._errors = np.zeros(B, dtype=np.int8)
        self._games = Games(self.boards, self.hists, self._moves, self._n_moves, self._errors, self._start)
        self.reset()

    # ----- the contract ------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> tuple[dict[str, np.ndarray], dict]:
        """Reset every game to the empty board. Returns ``(obs, {})``."""
        if seed is not None:
            self.seed = seed
        with launching():
            _reset_parallel(self._games, self._obs_t, allocate_results(self.num_envs))
        raise_encoding_errors(self._errors, self.max_legal)
        return self.obs, {}

    def step(self, actions) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play ``actions[b]`` in game ``b`` for every b; auto-reset finished games.

        Args:
            actions: [B] int action ids (legal in the current observation).

        Returns:
            ``(obs, rewards [B] float32, terminated [B] bool, truncated [B] bool, info)``,
            ``info = {"final_status": [B] int8, "episode_length": [B] int32}``.

        Raises:
            IllegalActionError: some action is not legal; no game was changed.
        """
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise IllegalActionError(
                f"expected [{self.num_envs}] integer actions, got {acts.shape} {acts.dtype}")
        acts = np.ascontiguousarray(acts, dtype=np.int64)
        out = allocate_results(self.num_envs)
        kernel = _step_serial if self.num_envs <= CHUNK or numba.get_num_threads() == 1 else _step_parallel
        with launching(kernel is _step_parallel):
            bad = kernel(self._games, acts, self._obs_t, out)
        if bad >= 0:
            raise IllegalActionError(self._illegal_message(int(bad), int(acts[bad])))
        raise_encoding_errors(self._errors, self.max_legal)
        return self.obs, out.rewards, out.terminated, out.truncated, {"final_status": out.final_status,
                                                                      "episode_length": out.episode_length}

    def observe(self) -> dict[str, np.ndarray]:
        """The current observation (the preallocated arrays; copy to keep)."""
        return self.obs

    @property
    def legal_mask(self) -> np.ndarray:
        """[B, A] bool, True = legal."""
        return self.obs["legal_mask"]

    @property
    def current_player(self) -> np.ndarray:
        """[B] int8, 0 White 1 Black."""
        return self.obs["current_player"]

    # ----- single-game state for search ---------------------------------------------------
    def get_state(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Copies of game ``i``'s ``(board [BOARD_SIZE] int16, hist [64] uint64)``."""
        return self.boards[i].copy(), self.hists[i].copy()

    def set_state(self, i: int, board: np.ndarray, hist: np.ndarray) -> None:
        """Overwrite game ``i`` with a copy of ``(board, hist)`` and re-encode its observation
        (the board's own ply cap travels with it).

        Raises:
            HiveError: wrong shape/dtype, another game type, or a finished game.
        """
        board = np.asarray(board)
        hist = np.asarray(hist)
        if board.shape != (BOARD_SIZE,) or board.dtype != np.int16:
            raise HiveError(f"expected a [{BOARD_SIZE}] int16 board, got {board.shape} {board.dtype}")
        if hist.shape != (HIST,) or hist.dtype != np.uint64:
            raise HiveError(f"expected a [{HIST}] uint64 hist, got {hist.shape} {hist.dtype}")
        if int(board[EXPANSIONS]) != self.expansions:
            raise HiveError(f"game {i}: board is of another game type (bits {int(board[EXPANSIONS])})")
        if int(board[STATUS]) != IN_PROGRESS:
            raise HiveError(f"game {i}: cannot hold a finished game (status {int(board[STATUS])})")
        self.boards[i] = board
        self.hists[i] = hist
        sl = slice(i, i + 1)
        obs_rows = obs_arrays({k: v[sl] for k, v in self.obs.items()})
        errors = np.zeros(1, dtype=np.int8)
        encode_games(self.boards[sl], obs_rows, self._moves[sl], errors, 0, 1)
        self._n_moves[i] = self.obs["n_legal"][i]
        raise_encoding_errors(errors, self.max_legal)

    # ----- helpers -----------------------------------------------------------------------
    def _illegal_message(self, b: int, action: int) -> str:
        board = self.boards[b]
        move = int(decode_action(board, action)) if 0 <= action < self.num_actions else -1
        what = f" ({format_move(move, board)})" if move >= 0 else ""
        why = "not canonical or out of range" if move < 0 else "not legal"
        return (f"game {b}: action {action}{what} is {why} "
                f"(A = {self.num_actions}, {int(self._n_moves[b])} legal actions); no game was changed")

    def __repr__(self) -> str:
        return f"HiveVecEnv(num_envs={self.num_envs}, expansions={self.expansions}, ply_cap={self.ply_cap})"
