"""Players, search, self-play, replay, trainer, checkpoints and arena.

Modules (data flows down this list; none imports from a later one):

- ``heuristic``, ``alphabeta``: a compiled Hive evaluation and alpha-beta search
- ``players``: the player interface, spec strings and the registry (random, greedy,
  alphabeta, uhp)
- ``uhp_player``: an external UHP engine as a player
- ``mcts``: batched AlphaZero tree search (PUCT or Gumbel root)
- ``evaluator``: numpy observations -> network -> priors and values for search
- ``checkpoint``: atomic checkpoints and the checkpoint store
"""
