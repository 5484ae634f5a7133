"""The Gumbel root (Gumbel MuZero, Danihelka et al. 2022): Gumbel noise picks the root
candidates, sequential halving spends the simulations on them, the best survivor is played and
the improved policy is the training target.

The select kernel visits the remaining candidates in turn (``RootPolicy.forced_root``); the
math is ``search.gumbel``'s. See ``search.root_policy``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import gumbel
from .root_noise import gumbel_
from .root_policy import RootState, child_stats
from .tree import Tree


@dataclass(frozen=True)
class GumbelRoot:
    """The Gumbel root (``search.root_policy.RootPolicy``).

    Args:
        m: candidate actions sampled at the root (``SearchConfig.gumbel_m``).
        c_visit, c_scale: sigma(q) = (c_visit + max N) * c_scale * q (``SearchConfig.gumbel_c_*``).
    """

    m: int
    c_visit: float
    c_scale: float
    forced_root = True  # the kernel visits the candidates in turn (a class constant, not a field)

    def roots_to_evaluate(self, count: np.ndarray) -> np.ndarray:
        """Every root: the halving needs each root's logits and value (a kept root's come from the
        evaluation cache)."""
        return np.arange(count.shape[0])

    def sims_done(self, sims: int, n_legal: int) -> int:
        """The halving schedule's total over ``min(m, n_legal)`` candidates (its rounding may
        differ from ``sims``)."""
        return gumbel.halving_schedule(sims, min(self.m, n_legal))[-1]

    def begin(self, tree: Tree, roots: RootState, b: int, lost: np.ndarray, add_noise: bool,
              sims: int) -> list[int]:
        """Game b's Gumbel noise (``add_noise``, else none) and its ``m`` candidates; the halving
        schedule of ``sims`` simulations over them."""
        n = int(roots.n_legal[b])
        if add_noise:
            gumbel_(int(roots.seeds[b]), roots.noise[b, :n])
        else:
            roots.noise[b, :n] = 0.0
        m = min(self.m, n)
        roots.candidates[b, _candidates(roots.noise[b, :n] + roots.logits[b, :n], lost, m)] = 1
        return gumbel.halving_schedule(sims, m)

    def end_phase(self, tree: Tree, roots: RootState, b: int) -> None:
        """End of a halving phase in game b: keep the better half of its candidates."""
        n = int(roots.n_legal[b])
        alive = np.flatnonzero(roots.candidates[b, :n] == 1)
        if alive.size <= 1:
            return
        visits, q = child_stats(tree, b, n)
        sig = self._sigma(roots, b, n, visits, q)
        keep = gumbel.halve_candidates(alive, roots.noise[b, :n] + roots.logits[b, :n] + sig)
        roots.candidates[b, :n] = 0
        roots.candidates[b, keep] = 1

    def choose(self, roots: RootState, visits: np.ndarray, q: np.ndarray, allowed: np.ndarray,
               prior_raw: np.ndarray, temps: np.ndarray, policy: np.ndarray, chosen: np.ndarray) -> None:
        """Every game's improved policy and move: the best surviving allowed candidate by
        noise + logits + sigma (any allowed move when no candidate is); temperatures unused."""
        for b in np.flatnonzero(roots.n_legal):
            n = int(roots.n_legal[b])
            sig = self._sigma(roots, b, n, visits[b, :n], q[b, :n])
            policy[b, :n] = gumbel.improved_policy(roots.logits[b, :n], sig)
            ok = allowed[b, :n]
            alive = np.flatnonzero((roots.candidates[b, :n] == 1) & ok)
            if not alive.size:
                alive = np.flatnonzero(ok)
            score = roots.noise[b, :n] + roots.logits[b, :n] + sig
            chosen[b] = alive[np.argmax(score[alive])]

    def _sigma(self, roots: RootState, b: int, n: int, visits: np.ndarray, q: np.ndarray) -> np.ndarray:
        """sigma(completed q) [n] of game b's root actions (v_hat: the network's value)."""
        prior = gumbel.softmax(roots.logits[b, :n])
        completed = gumbel.completed_q(float(roots.values[b]), prior, visits, q)
        return gumbel.sigma(completed, visits, self.c_visit, self.c_scale)


def _candidates(score: np.ndarray, lost: np.ndarray, m: int) -> np.ndarray:
    """The root slots of the Gumbel candidates: the ``m`` best of ``score`` (noise + logits),
    proven-lost moves left out unless every move is lost."""
    if lost.any() and not lost.all():
        score = np.where(lost, -np.inf, score)
    top = gumbel.top_candidates(score, m)
    return top[~lost[top]] if not lost.all() else top
