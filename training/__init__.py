"""Self-play training: workers, replay, trainer, checkpoints and the run loop.

Modules, in the direction data flows: ``selfplay``, ``worker``, ``selfplay_backend`` (inline,
processes or Ray), ``ray_cluster``/``ray_selfplay``/``ray_arena`` (the only modules that import
ray), ``replay``, ``trainer``, ``checkpoint``, ``run``, ``gating``, ``loop`` (``train(config)``),
``config``, ``overrides``, ``resume``, ``metrics``, ``faults``, ``model_card``,
``selfplay_records``, ``lineage``, ``cli`` (``hive-train``), ``soak`` (a run under injected
faults), ``gpu_check`` (the GPU check's steps).

See docs/layout.md (what each module holds) and docs/training.md.
"""

from hive_zero.layout import check as _check_layout

_check_layout()  # another 'training' (a user's folder, another package) is one line, not a bad import
