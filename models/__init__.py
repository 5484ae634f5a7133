"""Neural networks (torch only; they know tensor shapes, not the game).

- ``gnn``: :class:`HiveGNN` (symmetry-invariant graph policy/value network), :class:`ModelConfig`,
  ``SIZES`` (the one registry of named sizes: tiny, small, default, large), ``build_model``
"""

from hive_zero.layout import check as _check_layout

_check_layout()  # another 'models' (a user's folder, another package) is one line, not a bad import
