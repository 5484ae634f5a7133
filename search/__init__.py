"""Batched AlphaZero tree search and the bridge to the network.

- ``mcts``: :class:`BatchedMCTS`, the driver (PUCT or a Gumbel root) and :class:`SearchConfig`
- ``tree``: the trees as one struct of arrays (``Tree``), sentinels, allocation and growth
- ``kernels``: compiled select and expand/backup, one per-game body, serial and parallel wrappers
- ``root_policy``: the root policy interface (``RootPolicy``, ``RootState``): how a root explores,
  spends its simulations and picks a move
- ``root_puct``: the PUCT root (Dirichlet noise, visit shares, most visited or sampled move)
- ``root_gumbel``: the Gumbel root (candidates, sequential halving, improved policy)
- ``gumbel``: Gumbel root math: halving schedule, completed Q, sigma, improved policy
- ``leaves``: leaf positions, the only door into ``hive_env`` (replay, encoding, terminal values)
- ``cache``: network outputs by position, bounded, in flat arrays (transpositions skip the network)
- ``step``: the search step's compiled leaf pass (cache hits served, misses gathered and scattered)
- ``roots``: every root's exact checks, statistics and tree reuse, one compiled call for all games
- ``network``: numpy observations -> an inference backend -> priors and values (``make_evaluator``)
- ``inputs``: the observation arrays the network reads, trimmed to the batch, as tensors
- ``fastnet``: the numba inference backend (the network's forward pass on exported weights)
- ``onnx_backend``: the ONNX Runtime inference backend (optional dependency)
- ``checkpoint``: the checkpoint file (model + config + encoding), saved and loaded verified
- ``alphazero_player``: a checkpoint + search as a player (the ``alphazero`` spec kind)
- ``evaluation``: ``Network.load(path | "shipped").evaluate(game)``: win/draw/loss and move priors
- ``review``: a whole game reviewed (every position searched, every move judged)

``from search import Network, Evaluation, EvaluationError`` imports ``search.evaluation`` on first
use (it imports torch; the tree search, ``search.mcts``, does not, and stays light to import).
"""

from __future__ import annotations

from typing import Any

from hive_zero.layout import check as _check_layout

_check_layout()  # another 'search' (a user's folder, another package) is one line, not a bad import

__all__ = ["Evaluation", "EvaluationError", "Network"]


def __getattr__(name: str) -> Any:
    """The evaluation API (``__all__``), imported when first asked for (module docstring)."""
    if name in __all__:
        from . import evaluation

        return getattr(evaluation, name)
    raise AttributeError(f"module 'search' has no attribute {name!r}")
