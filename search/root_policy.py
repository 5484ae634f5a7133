"""The root policy of a search: how the root explores, spends its simulations and picks a move.

The tree below the root is the same for every search (PUCT, ``search.kernels``); only the root
differs, as mctx separates ``root_action_selection_fn`` from the tree. :class:`BatchedMCTS`
(``search.mcts``) holds one :class:`RootPolicy`, chosen once from its config: the PUCT root
(``search.root_puct``) or the Gumbel root (``search.root_gumbel``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .tree import NO_NODE, Tree


@dataclass
class RootState:
    """Every game's root during one search (never kept between searches)."""

    n_legal: np.ndarray
    """[B] int32 legal moves at each root (0: finished)."""
    logits: np.ndarray
    """[B, M] float32 the network's policy logits at the roots it evaluated."""
    values: np.ndarray
    """[B] float32 the network's values of those roots."""
    seeds: np.ndarray
    """[B] int64 each game's seed: its root noise and sampled move (``search.root_noise``)."""
    noise: np.ndarray
    """[B, M] float64 the root moves' exploration noise (Gumbel; zeros for PUCT)."""
    candidates: np.ndarray
    """[B, M] int8 1 for the root moves the select kernel still visits in turn (Gumbel)."""


class RootPolicy(Protocol):
    """A root's exploration, simulation schedule and move choice.

    Attributes:
        forced_root: the select kernel visits the root's ``candidates`` in turn (fewest visits
            first) instead of choosing the root edge by PUCT.
    """

    forced_root: bool

    def roots_to_evaluate(self, count: np.ndarray) -> np.ndarray:
        """The games whose root the network evaluates before the search, from each root's
        ``node_count`` [B] (``UNEXPANDED`` for a root not expanded yet)."""
        ...

    def sims_done(self, sims: int, n_legal: int) -> int:
        """Simulations a search of ``sims`` performs at a root with ``n_legal >= 1`` moves."""
        ...

    def begin(self, tree: Tree, roots: RootState, b: int, lost: np.ndarray, add_noise: bool,
              sims: int) -> list[int]:
        """Prepare game b's expanded root (its ``n_legal[b] > 0`` moves, ``lost`` [n] bool the
        proven-lost ones): exploration noise (``add_noise``) and candidates. Returns the
        cumulative simulations at the end of each phase of a search of ``sims`` simulations."""
        ...

    def end_phase(self, tree: Tree, roots: RootState, b: int) -> None:
        """Game b has done a phase that is not its last."""
        ...

    def choose(self, roots: RootState, visits: np.ndarray, q: np.ndarray, allowed: np.ndarray,
               prior_raw: np.ndarray, temps: np.ndarray, policy: np.ndarray, chosen: np.ndarray) -> None:
        """Every game's training target and move, from its root statistics (``search.roots.root_stats``).

        Args:
            roots: the search's roots.
            visits: [B, M] float32 the root children's visits; q: [B, M] float64 their values
                (the root mover's view, 0 unvisited); prior_raw: [B, M] float32 the raw priors.
            allowed: [B, M] bool the legal moves that may be played (not proven lost unless all are).
            temps: [B] float64 move temperatures.
            policy: [B, M] float32 written: the training target.
            chosen: [B] int32 written at every game with moves: the slot to play.
        """
        ...


def child_stats(tree: Tree, b: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Visits [n] float32 and values q [n] (root mover's view, 0 if unvisited) of game b's root children."""
    first = int(tree.node_first[b, tree.roots[b]])
    child = tree.edge_child[b, first:first + n]
    safe = np.maximum(child, 0)
    visits = np.where(child != NO_NODE, tree.node_visits[b, safe], 0.0).astype(np.float32)
    wsum = np.where(child != NO_NODE, tree.node_wsum[b, safe], 0.0).astype(np.float64)
    q = np.where(visits > 0, -wsum / np.maximum(visits, 1e-9), 0.0)
    return visits, q
