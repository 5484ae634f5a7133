"""The PUCT root (AlphaZero): Dirichlet noise on the root priors, one phase of simulations, the
most visited move played (or one sampled from the visits at a temperature).

The select kernel chooses the root edge by PUCT like any other (``search.kernels``); the
training target is the root children's visit shares. See ``search.root_policy``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .root_noise import dirichlet_, sample_index
from .root_policy import RootState
from .tree import UNEXPANDED, Tree


@dataclass(frozen=True)
class PuctRoot:
    """The PUCT root (``search.root_policy.RootPolicy``).

    Args:
        dirichlet_alpha: root noise concentration (``SearchConfig.dirichlet_alpha``).
        dirichlet_eps: weight of root noise when asked for (``SearchConfig.dirichlet_eps``); 0 disables.
    """

    dirichlet_alpha: float
    dirichlet_eps: float
    forced_root = False  # the root edge is chosen by PUCT (a class constant, not a field)

    def roots_to_evaluate(self, count: np.ndarray) -> np.ndarray:
        """Only the roots not expanded yet: a kept root already holds its priors and value."""
        return np.flatnonzero(count == UNEXPANDED)

    def sims_done(self, sims: int, n_legal: int) -> int:
        """All of them: one phase of ``sims``."""
        return sims

    def begin(self, tree: Tree, roots: RootState, b: int, lost: np.ndarray, add_noise: bool,
              sims: int) -> list[int]:
        """Mix Dirichlet noise into the priors PUCT uses at game b's root (self-play, more than one
        move); one phase of ``sims`` simulations."""
        n = int(roots.n_legal[b])
        if add_noise and self.dirichlet_eps > 0 and n > 1:
            first = int(tree.node_first[b, tree.roots[b]])
            noise = np.empty(n, np.float64)
            dirichlet_(int(roots.seeds[b]), float(self.dirichlet_alpha), noise)
            raw = tree.edge_prior_raw[b, first:first + n]
            tree.edge_prior[b, first:first + n] = (1 - self.dirichlet_eps) * raw + self.dirichlet_eps * noise
        return [sims]

    def end_phase(self, tree: Tree, roots: RootState, b: int) -> None:
        """Never called: a PUCT search has one phase."""

    def choose(self, roots: RootState, visits: np.ndarray, q: np.ndarray, allowed: np.ndarray,
               prior_raw: np.ndarray, temps: np.ndarray, policy: np.ndarray, chosen: np.ndarray) -> None:
        """Visit shares as the target (all zero where nothing was visited); the most visited allowed
        move (the best prior among them when none was visited), or one sampled from
        visits ** (1 / temperature) by the game's own stream."""
        n_legal = roots.n_legal
        legal = np.arange(visits.shape[1])[None] < n_legal[:, None]
        total = visits.sum(axis=1, keepdims=True)
        policy[:] = np.where(legal, visits / np.where(total > 0, total, 1.0), 0.0)
        w = np.where(allowed, visits, 0.0).astype(np.float64)
        unvisited = w.sum(axis=1) == 0
        w[unvisited] = np.where(allowed[unvisited], prior_raw[unvisited], 0.0)
        chosen[:] = np.where(n_legal > 0, np.argmax(w, axis=1), -1)
        for b in np.flatnonzero((n_legal > 0) & (temps > 1e-6) & ~unvisited):
            wb = w[b, :n_legal[b]] ** (1.0 / temps[b])
            chosen[b] = sample_index(int(roots.seeds[b]), wb)
