"""Matches between players, ratings and sequential tests.

Modules: ``config``, ``arena`` (``run_arena``), ``game``, ``schedule``, ``executor``, ``results``,
``report`` (the index of ``tally``, ``move_times``, ``conditions``, ``standings``,
``report_files``, ``report_text``), ``terminations``, ``ratings``, ``sprt``, ``openings``,
``ladder``, ``calibration``, ``ladder_card``, ``ladder_plot``, ``head_to_head``,
``tactics_suite``, ``plot``, ``level_calibration`` (the play levels rated), ``cli`` (``hive-arena``).

See docs/layout.md (what each module holds) and docs/arena.md.
"""

from hive_zero.layout import check as _check_layout

_check_layout()  # another 'arena' (a user's folder, another package) is one line, not a bad import
