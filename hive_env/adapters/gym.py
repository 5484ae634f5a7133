"""Gymnasium adapter: one game of Hive as a self-play ``gymnasium.Env`` (optional extra).

Each ``step`` plays the move of whichever side is to move, so one agent plays both sides:
observations are the single-game arrays of ``hive_env.encode``, the action space is
``Discrete(A)`` of ``hive_env.actions``, and ``info["action_mask"]`` the legal mask. Importing
this module registers ``"Hive-v0"``. Needs ``gymnasium`` (the ``dev`` extra); nothing else in
``hive_env`` imports this module.

See docs/engine.md (the vectorized environment: adapters).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from ..actions import IllegalActionError, action_to_move, decode_action
from ..board import DRAW, IN_PROGRESS
from ..encode import (
    MAX_LEGAL,
    MOVES_SCALE,
    N_GLOBAL_FEATURES,
    N_NODE_FEATURES,
    NODE_EMPTY,
    NODE_PAD,
    graph_dims,
    observe,
)
from ..errors import HiveError
from ..game import Game
from ..grid import N_HEX
from ..outcome import DEFAULT_PLY_CAP, is_real_draw, mover_reward
from ..pieces import parse_game_type
from ..rules import MAX_MOVES


def observation_space(expansions: int, max_legal: int = MAX_LEGAL) -> spaces.Dict:
    """The ``gymnasium.spaces.Dict`` of one game's observation arrays (bounds are loose
    but finite: features are counts, flags and fractions)."""
    d = graph_dims(expansions, max_legal)
    N, A, M = d["N"], d["A"], d["M"]

    def box(low, high, shape, dtype):
        return spaces.Box(low=low, high=high, shape=shape, dtype=dtype)

    return spaces.Dict({
        "node_feat": box(0.0, MAX_MOVES * MOVES_SCALE, (N, N_NODE_FEATURES), np.float32),  # MOVES_FROM/TO cap
        "node_type": box(NODE_PAD, NODE_EMPTY, (N,), np.int8),
        "neighbours": box(-1, N - 1, (N, 6), np.int16),
        "node_mask": box(0, 1, (N,), np.bool_),
        "node_hex": box(-1, N_HEX - 1, (N,), np.int16),
        "n_nodes": box(0, N, (), np.int32),
        "global_feat": box(0.0, 2**15 / 100.0, (N_GLOBAL_FEATURES,), np.float32),
        "legal_mask": box(0, 1, (A,), np.bool_),
        "legal_actions": box(-1, A - 1, (M,), np.int32),
        "legal_src": box(-1, N - 1, (M,), np.int16),
        "legal_dst": box(-1, N - 1, (M,), np.int16),
        "n_legal": box(0, M, (), np.int32),
        "current_player": box(0, 1, (), np.int8),
    })


def game_outcome(game: Game) -> tuple[float, bool, bool]:
    """``(reward for the player who just moved, terminated, truncated)`` after a move."""
    status = game.status
    if status == IN_PROGRESS:
        return 0.0, False, False
    if status != DRAW:
        return mover_reward(game.board), True, False
    real = bool(is_real_draw(game.board.copy(), game.hist))  # by the rules, or by the ply cap?
    return 0.0, real, not real


class HiveGymEnv(gymnasium.Env):
    """One self-play game of Hive.

    ``info["action_mask"]`` is the ``[A] int8`` legal mask (1 = legal: Gymnasium's
    ``Discrete.sample(mask)`` wants int8; the observation's own ``legal_mask`` is bool). The
    reward is from the view of the player who just moved: +1 if the move won, -1 if it lost (it
    can: a move may surround its own queen), 0 otherwise. ``terminated`` = the game has a result;
    ``truncated`` = the ply cap ended it (a draw that is not a result). After either, ``reset()``
    starts a new game; stepping a finished episode raises ``HiveError``. An illegal action
    forfeits by default: the board is unchanged and the observation is the position it was
    refused in, so agents that ignore the mask learn that it matters, and Gymnasium's
    ``check_env``, which steps random actions, passes.

    Args:
        game_type: ``"Base"`` .. ``"Base+MLP"``.
        ply_cap: draw (truncation) after this many plies; 0 = none.
        render_mode: ``None`` or ``"ansi"`` (the text board and a status line).
        max_legal: M, padding of the legal-action lists.
        illegal_action: ``"lose"`` (an illegal action ends the episode, reward -1,
            ``info["illegal_action"] = True``) or ``"raise"`` (``IllegalActionError``, the
            episode goes on).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}  # fps: Gymnasium asks; text has none

    def __init__(self, game_type: str = "Base+MLP", ply_cap: int = DEFAULT_PLY_CAP,
                 render_mode: str | None = None, max_legal: int = MAX_LEGAL, illegal_action: str = "lose"):
        if render_mode not in (None, "ansi"):
            raise HiveError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if illegal_action not in ("lose", "raise"):
            raise HiveError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        self._forfeited = False
        self.game_type = game_type
        self.expansions = parse_game_type(game_type)
        self.ply_cap = int(ply_cap)
        self.render_mode = render_mode
        self.max_legal = max_legal
        self.observation_space = observation_space(self.expansions, max_legal)
        self.action_space = spaces.Discrete(graph_dims(self.expansions)["A"])
        self.game = Game(game_type, ply_cap=self.ply_cap)
        self._obs: dict[str, np.ndarray] = {}

    def _observe(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        self._obs = observe(self.game.board, self.max_legal)
        info = {"action_mask": self._obs["legal_mask"].astype(np.int8),
                "current_player": int(self.game.side_to_move)}
        return self._obs, info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """New game. Returns ``(obs, info)``; no randomness is used.

        ``options`` may start elsewhere than the empty board: ``{"game_string": "Base;..."}``
        (a UHP GameString) or ``{"game": Game}`` (copied; e.g. ``Game.from_board`` of a
        set-up position). The position must be of this env's game type and in progress.
        """
        super().reset(seed=seed)
        options = options or {}
        if "game_string" in options:
            game = Game.from_string(options["game_string"], ply_cap=self.ply_cap)
        elif "game" in options:
            game = options["game"].copy()
        else:
            game = Game(self.game_type, ply_cap=self.ply_cap)
        if game.expansions != self.expansions or game.is_over:
            raise HiveError(f"cannot start from a {game.game_type} game in state {game.state}")
        self.game = game
        self._forfeited = False
        return self._observe()

    def step(self, action):
        """Play ``action`` for the side to move.

        An illegal action ends the episode as a loss for the side to move (reward -1,
        ``info["illegal_action"] = True``, the board unchanged), or raises with
        ``illegal_action="raise"``.

        Raises:
            IllegalActionError: the action is not legal and ``illegal_action="raise"``.
            HiveError: the episode is over (call ``reset``).
        """
        if self.game.is_over or self._forfeited:
            raise HiveError("the game is over: call reset()")
        a = int(action)
        if not (0 <= a < self.action_space.n and self._obs["legal_mask"][a]):
            move = int(decode_action(self.game.board, a)) if 0 <= a < self.action_space.n else -1
            what = f" ({self.game.move_string(move)})" if move >= 0 else ""
            if self.illegal_action == "raise":
                raise IllegalActionError(f"action {a}{what} is not legal here")
            self._forfeited = True
            obs, info = self._observe()
            info["illegal_action"] = True
            return obs, -1.0, True, False, info
        self.game.play(action_to_move(self.game.board, a))
        reward, terminated, truncated = game_outcome(self.game)
        obs, info = self._observe()
        return obs, reward, terminated, truncated, info

    def render(self) -> str | None:
        """``render_mode="ansi"``: the text board and a status line (``str(game)``)."""
        if self.render_mode == "ansi":
            return str(self.game)
        return None


if "Hive-v0" not in gymnasium.registry:  # a module reload must not register it twice
    gymnasium.register(id="Hive-v0", entry_point="hive_env.adapters.gym:HiveGymEnv")
