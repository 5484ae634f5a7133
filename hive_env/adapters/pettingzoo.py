"""PettingZoo adapter: Hive as a two-agent AEC environment (optional extra).

Agents ``"white"`` and ``"black"`` alternate (a forced pass is an action like any other).
``observe(agent)`` returns ``{"observation": <the single-game arrays of hive_env.encode>,
"action_mask": [A] int8}``. The observation is always from the side to move's view (its
global feature 0 says which colour that is), and the mask is all zeros for the agent that
is not to move, as in PettingZoo's classic games. Rewards: +1 / -1 to the winner / loser
when the game ends, 0 for a draw or a ply-cap truncation.

Needs ``pettingzoo`` and ``gymnasium`` (the ``dev`` extra); nothing else in ``hive_env``
imports this module.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..actions import IllegalActionError, action_to_move
from ..encode import MAX_LEGAL, graph_dims, observe
from ..errors import HiveError
from ..game import Game
from ..outcome import DEFAULT_PLY_CAP
from ..pieces import parse_game_type
from .gym import game_outcome, observation_space

AGENTS = ("white", "black")


class HivePettingZooEnv(AECEnv):
    """Two-player Hive (AEC API).

    Args:
        game_type: ``"Base"`` .. ``"Base+MLP"``.
        ply_cap: draw (truncation) after this many plies; 0 = none.
        render_mode: ``None`` or ``"ansi"`` (the text board and a status line).
        max_legal: M, padding of the legal-action lists.
    """

    metadata = {"render_modes": ["ansi"], "name": "hive_v0", "is_parallelizable": False}

    def __init__(self, game_type: str = "Base+MLP", ply_cap: int = DEFAULT_PLY_CAP,
                 render_mode: str | None = None, max_legal: int = MAX_LEGAL):
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise HiveError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.game_type = game_type
        self.expansions = parse_game_type(game_type)
        self.ply_cap = int(ply_cap)
        self.render_mode = render_mode
        self.max_legal = max_legal
        self.possible_agents = list(AGENTS)
        n_actions = graph_dims(self.expansions)["A"]
        obs_space = observation_space(self.expansions, max_legal)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_space,
                            "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8)})
            for a in AGENTS
        }
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in AGENTS}
        self.game = Game(game_type, ply_cap=self.ply_cap)
        self._obs = observe(self.game.board, max_legal)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """New game, White to move; no randomness is used."""
        self.game = Game(self.game_type, ply_cap=self.ply_cap)
        self._obs = observe(self.game.board, self.max_legal)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[0]

    def observe(self, agent: str) -> dict:
        mask = np.zeros(self._obs["legal_mask"].shape, dtype=np.int8)
        if agent == self.agent_selection and not self.game.is_over:
            mask[self._obs["legal_mask"]] = 1
        return {"observation": {k: v.copy() for k, v in self._obs.items()}, "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = int(action)
        if not (0 <= a < self._obs["legal_mask"].shape[0] and self._obs["legal_mask"][a]):
            raise IllegalActionError(f"{agent}: action {a} is not legal here")
        self._cumulative_rewards[agent] = 0.0
        self.game.play(action_to_move(self.game.board, a))
        self._obs = observe(self.game.board, self.max_legal)
        reward, terminated, truncated = game_outcome(self.game)
        other = AGENTS[1 - AGENTS.index(agent)]
        self.rewards = {agent: reward, other: -reward if reward else 0.0}
        if terminated or truncated:
            self.terminations = dict.fromkeys(self.agents, terminated)
            self.truncations = dict.fromkeys(self.agents, truncated)
        self.agent_selection = other
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``render_mode="ansi"``: the text board and a status line (``str(game)``)."""
        if self.render_mode == "ansi":
            return str(self.game)
        return None

    def close(self) -> None:
        pass
