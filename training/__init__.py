"""Self-play training: workers, replay, trainer, checkpoints and the run loop.

Modules, in the direction data flows:

- ``selfplay``: batched self-play games with the search, recorded as samples
- ``worker``: one worker's games with the newest network, handed out as shards (``make_shard``)
- ``selfplay_backend``: where the workers run (inline, processes or Ray), behind one interface
- ``ray_cluster``, ``ray_selfplay``, ``ray_arena``: ``backend=ray``: the cluster, self-play
  actors, evaluation games as Ray tasks (the only modules that import ray)
- ``replay``: atomic sample shards and windowed sampling with symmetry augmentation
- ``trainer``: network updates (AdamW, schedule, losses)
- ``checkpoint``: the checkpoint store the trainer publishes to and workers poll
- ``run``: the trainer process: the loop that trains while self-play fills the replay store
- ``gating``: the :class:`Gatekeeper`: evaluation of checkpoints in the arena, the ledger, ``best.pt``
- ``loop``: the whole training job, ``train(config)`` (hive-train is its command line)
- ``config``: the Hydra config -> typed settings, checked at start-up
- ``overrides``: hive-train's command-line overrides checked and composed, and its ``--help``
- ``resume``: which settings a resumed run may change, and the record of the changes
- ``metrics``: TensorBoard (config, scalars; purged on resume) and the progress bar or lines
- ``faults``: a full disk anywhere in the run: one line naming the file, exit 74 (docs/reliability.md)
- ``model_card``: the card of a shipped network, from its run directory and ladders
- ``selfplay_records``: the game records of a network's self-play (the tactics suite's input)

Words: a ``*Config`` holds one component's settings (``SelfPlayConfig``, ``TrainConfig``,
``search.mcts.SearchConfig``, ``models.gnn.ModelConfig``); a ``*Settings`` is a hive-train
config group that extends one with what only a run needs (``SelfPlaySettings`` adds worker
processes, ``TrainSettings`` kept checkpoints, ``ModelSettings`` picks a named size that
resolves to a ``ModelConfig``). "Evaluate" is the network's call (``search.network``); judging
checkpoints in the arena is gating.
"""

from hive_zero.layout import check as _check_layout

_check_layout()  # another 'training' (a user's folder, another package) is one line, not a bad import
