"""Batched AlphaZero tree search and the bridge to the network.

- ``mcts``: :class:`BatchedMCTS`, the driver (PUCT or a Gumbel root) and :class:`SearchConfig`
- ``tree``: the trees as one struct of arrays (``Tree``), sentinels, allocation and growth
- ``kernels``: compiled select and expand/backup, one per-game body, serial and parallel wrappers
- ``gumbel``: Gumbel root math: halving schedule, completed Q, sigma, improved policy
- ``leaves``: leaf positions, the only door into ``hive_env`` (replay, encoding, terminal values)
- ``cache``: network outputs by position, bounded (transpositions skip the network)
- ``network``: numpy observations -> an inference backend -> priors and values (``make_evaluator``)
- ``inputs``: the observation arrays the network reads, trimmed to the batch, as tensors
- ``fastnet``: the numba inference backend (the network's forward pass on exported weights)
- ``onnx_backend``: the ONNX Runtime inference backend (optional dependency)
- ``checkpoint``: the checkpoint file (model + config + encoding), saved and loaded verified
- ``alphazero_player``: a checkpoint + search as a player (the ``alphazero`` spec kind)
"""
