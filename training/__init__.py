"""Players, search, self-play, replay, trainer, checkpoints and arena.

Modules, in the direction data flows (``players`` builds ``alphazero`` players lazily):

- ``heuristic``, ``alphabeta``: a compiled Hive evaluation and alpha-beta search
- ``players``: the player interface, spec strings and the registry (random, greedy,
  alphabeta, uhp, alphazero)
- ``uhp_player``: an external UHP engine as a player; ``uhp_engine``: this project as one
- ``mcts``: batched AlphaZero tree search (PUCT or Gumbel root)
- ``evaluator``: numpy observations -> network -> priors and values for search
- ``checkpoint``: atomic checkpoints and the checkpoint store
- ``alphazero_player``: a checkpoint + search as a player
- ``selfplay``, ``replay``, ``trainer``: self-play games, sample shards, network updates
- ``loop``, ``config``: the training run and its typed settings
- ``openings``, ``ratings``, ``sprt``, ``arena``, ``arena_report``, ``arena_plot``: matches,
  Elo, sequential tests, result tables and plots
- ``evaluation``: arena evaluation and gating during training
"""
