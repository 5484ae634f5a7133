"""Matches between players, ratings and sequential tests.

- ``config``: :class:`ArenaConfig` (what an arena plays) and the results directory's name
- ``arena``: ``run_arena``, which plays (or resumes) an arena and writes its tables
- ``game``: one game between two player specs, played to a record
- ``schedule``: the openings and every game of an arena, with its seeds
- ``executor``: games played in this process or a pool of worker processes
- ``results``: the results directory (``config.json``, ``games.jsonl``): checked, resumed
- ``report``: the index of an arena's report, its parts each a module of its own:
  ``tally`` (the running W/D/L), ``move_times`` (seconds and statistics a move),
  ``conditions`` (terminations, threads, pinning, budgets), ``standings`` (``ArenaReport``, the
  tables' rows), ``report_files`` (the CSV and JSON files), ``report_text`` (the printed tables)
- ``terminations``: how a game ended, read from its record
- ``head_to_head``: two networks' match directory, read for a model card
- ``ratings``: one rating model for every score, Elo and likelihood-ratio interval; rated players
- ``sprt``: the sequential probability ratio test of two players
- ``ladder``: a player against fixed rungs (random, greedy, alphabeta depths): its Elo vs depth 2
  (vs random, with a warning, when depth 2 is not a rung), one fit pooled with the rungs' calibration
- ``calibration``: the rungs' round robin among themselves, shipped as ``data/ladder_rungs.json``
- ``ladder_card``: a ladder's results as a section of a shipped network's model card
- ``ladder_plot``: ladders side by side, and arms over seeds (mean, spread, Welch intervals, verdict)
- ``openings``: random or file openings, each played with colours swapped
- ``tactics_suite``: exact tactics from game records, and how many of them players solve
- ``plot``: Elo over checkpoints, with the games behind each rating; unrated players left out
- ``cli``: the ``hive-arena`` command line
"""

from hive_zero.layout import check as _check_layout

_check_layout()  # another 'arena' (a user's folder, another package) is one line, not a bad import
