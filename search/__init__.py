"""Batched AlphaZero tree search and the bridge to the network.

Modules: ``mcts`` (the driver, :class:`SearchConfig`), ``tree``, ``kernels``, ``step``, ``cache``,
``roots``, ``root_policy``/``root_puct``/``root_gumbel``, ``gumbel``, ``leaves``, ``network``,
``inputs``, ``packednet``/``fastnet``/``onnx_backend``, ``checkpoint``, ``alphazero_player``,
``evaluation``, ``review``, ``bench_inference``/``bench_search`` (benchmarks). ``from search import
Network, Evaluation, EvaluationError`` imports ``search.evaluation`` on first use (it imports
torch; the tree search does not, and stays light).

See docs/layout.md (what each module holds) and docs/search.md.
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
