"""Matches between players, ratings and sequential tests.

- ``config``: :class:`ArenaConfig` (what an arena plays) and the results directory's name
- ``arena``: scheduling and playing games (in processes), resumable results (``run_arena``)
- ``report``: tallies, pairing tables and the results files
- ``ratings``: scores with intervals and Elo by maximum likelihood
- ``sprt``: the sequential probability ratio test of two players
- ``ladder``: a player against fixed rungs (random, greedy, alphabeta depths): its Elo vs depth 2
- ``openings``: random or file openings, each played with colours swapped
- ``plot``: Elo over checkpoints
"""
