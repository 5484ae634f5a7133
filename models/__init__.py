"""Neural networks (torch only; they know tensor shapes, not the game).

- ``gnn``: :class:`HiveGNN` (symmetry-invariant graph policy/value network), :class:`ModelConfig`,
  ``SIZES`` (the one registry of named sizes: tiny, small, default, large), ``build_model``
"""
