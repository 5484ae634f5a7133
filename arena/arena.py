"""An arena: matches between players given as spec strings (or Player objects), with resumable,
trustworthy results.

:func:`run_arena` puts the pieces together: the openings and the schedule (``arena.schedule``),
each player built once to check its spec (``arena.game``), the results directory with the games
already played (``arena.results``), the games left played in this process or a process pool
(``arena.executor``), and the tables written at the end and on interruption (``arena.report``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from hive_env import Game
from hive_env.files import is_disk_full
from hive_env.records.arena_record import ArenaRecord
from players import Player, PlayerSpecError, player_label

from .config import ArenaConfig, ArenaError
from .executor import Executor, execute
from .game import check_players
from .report import ArenaReport, Tally, build_report, write_report
from .results import ResultsDir
from .schedule import resolve_openings, schedule


def resolve_anchor(config: ArenaConfig, anchor: str | Player | None) -> int:
    """Index of the anchor: the one named (a spec or label, or a Player object of the arena), else
    ``random`` if playing, else B (sprt) or the first."""
    if anchor is not None:
        try:
            anchor = player_label(anchor)
        except PlayerSpecError as e:
            raise ArenaError(f"anchor: {e}") from None
        if anchor not in config.players:
            raise ArenaError(f"anchor {anchor!r} is not one of the players ({', '.join(config.players)})")
        return config.players.index(anchor)
    if "random" in config.players:
        return config.players.index("random")
    return 1 if config.mode == "sprt" else 0


def run_arena(config: ArenaConfig, out_dir: str | Path, workers: int = 1, anchor: str | Player | None = None,
              progress: bool = True, on_record: Callable[[dict[str, Any]], None] | None = None,
              prior_draws: float = 1.0, executor: Executor | None = None) -> ArenaReport:
    """Play (or finish) an arena and write its results (``arena.results`` says what they are).

    Args:
        config: what to play (player specs, or Player objects: ``ArenaConfig``).
        out_dir: the results directory; an existing one with the same settings is resumed.
        workers: processes playing games (1: in this process; Player objects need 1).
        anchor: the player rated 0 (:func:`resolve_anchor`); may change between reruns.
        progress: show a tqdm bar (stderr) with the running score or the SPRT's LLR.
        on_record: called with each new record after it is stored (tests use it to interrupt).
        prior_draws: the ratings' prior (``arena.ratings.fit_elo``).
        executor: plays the games (default :func:`execute`: in this process or a process pool).

    Raises:
        ArenaError: bad settings or spec, unusable openings, other settings in ``out_dir``.
    """
    if workers < 1 or prior_draws < 0:
        raise ArenaError(f"workers must be >= 1 and the Elo prior >= 0 (got {workers}, {prior_draws})")
    if config.player_objects and workers > 1 and executor is None:
        raise ArenaError(f"{', '.join(config.player_objects)}: a Player object plays in this process only "
                         "(workers=1); for worker processes, register its kind (players.register_player) "
                         "and give its spec")
    openings = resolve_openings(config)
    longest = max(Game.from_string(o).ply for o in openings)
    if longest >= config.ply_cap:
        raise ArenaError(f"ply cap {config.ply_cap} must exceed the openings' length ({longest} plies)")
    anchor_index = resolve_anchor(config, anchor)
    modules = check_players(config)
    tasks = schedule(config, openings)
    store = ResultsDir(out_dir)
    records = store.open(config, openings, tasks)
    counts = Tally(config, records)
    done = {ArenaRecord.from_json(r).id for r in records}
    pending = (t for t in tasks if t.id not in done)
    bar = tqdm(total=len(tasks), initial=len(records), desc=config.mode, disable=not progress,
               dynamic_ncols=True, file=sys.stderr)
    bar.set_postfix_str(counts.postfix(config.players, config.mode))

    def handle(record: dict[str, Any]) -> bool:
        store.append(record)
        records.append(record)
        counts.add(record)
        bar.update(1)
        bar.set_postfix_str(counts.postfix(config.players, config.mode))
        if on_record is not None:
            on_record(record)
        return counts.decision is None

    try:
        if counts.decision is None:
            if executor is None:  # timed matches: one core a side (arena.executor)
                execute(pending, workers, handle, modules, pin=config.thread_limit() == 1)
            else:
                executor(pending, workers, handle, modules)
    except BaseException as stopped:
        if records:
            try:
                write_report(build_report(config, store.path, anchor_index, records, len(tasks), prior_draws),
                             prior_draws)
            except Exception as e:  # never hide the interruption behind a reporting problem
                if not (is_disk_full(e) and is_disk_full(stopped)):  # the same full disk: said once
                    print(f"hive-arena: could not write partial tables: {e}", file=sys.stderr)
        raise
    finally:
        bar.close()
    report = build_report(config, store.path, anchor_index, records, len(tasks), prior_draws)
    write_report(report, prior_draws)
    return report
