"""The arena: matches between players given as spec strings, with resumable, trustworthy results.

A *game task* is everything one game needs: the two player specs, the opening, the ply cap,
the budget and the players' seeds. :func:`play_game` builds both players from their specs in the
process that plays (players are never pickled), plays to the end and returns a plain-dict record.

Schedules (:func:`schedule`), for each pairing and each round ``k``, play two games from opening
``k`` (cycled when there are fewer openings than rounds) with colours swapped:

- ``gauntlet``: the first player against each of the others;
- ``roundrobin``: every pair of players;
- ``sprt``: two players, rounds until the SPRT decides (``arena.sprt``) or ``max games``.

Games run in-process (``workers=1``) or in a ``ProcessPoolExecutor`` of fresh (spawned, so
CUDA-safe) processes. Those know the kinds registered by ``players.registry`` and import the
module of each player's class first, so a kind registered next to its class is known too.
Each game's seeds derive from (arena seed, pairing, round, colour), so results do not depend on
the number of workers (apart from time-limited players).

Results directory (``out``):

- ``config.json``: the settings and the openings; a resume with other settings is refused, except
  more ``games_per_pairing`` (a finished arena grows: its games are kept, the new rounds are
  played, and ``config.json`` is updated; fewer is refused).
- ``games.jsonl``: one JSON record per finished game (its UHP GameString, result, termination,
  plies, players and colours, opening, seconds, each move's seconds and search statistics),
  appended, flushed and fsynced as each game ends. A rerun reads it, skips the games it holds
  (by game id) and plays the rest; a truncated last line (a crash mid-write: not JSON) is
  dropped, any other bad record (a field missing or of the wrong type, a game not in the
  schedule) is an :class:`ArenaError` naming file and line. Records without the per-move fields
  (written before they existed) are valid.
- ``pairings.csv``, ``ratings.csv``, ``summary.json``: the tables (``arena.report``),
  written atomically at the end and on interruption.
"""

from __future__ import annotations

import importlib
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from hive_env import BLACK_WINS, WHITE_WINS, Game, IllegalMoveError
from hive_env.files import write_atomic
from players import Budget, PlayerSpecError, make_player, search_stats
from players.uhp_client import UhpEngineError, UhpIllegalMoveError, clip

from .config import CONFIG_VERSION, ArenaConfig, ArenaError, default_out_dir
from .openings import OpeningsError, load_openings, random_openings
from .report import ArenaReport, Tally, build_report, format_report, write_report

DETAIL_CHARS = 300
"""A record's ``detail`` (why a player lost by fault) is clipped to this many characters."""


def resolve_openings(config: ArenaConfig) -> list[str]:
    """The openings of ``config.openings`` (``random:PLIES`` draws one per round)."""
    spec = config.openings
    try:
        if spec.startswith("random:"):
            try:
                plies = int(spec.removeprefix("random:"))
            except ValueError:
                raise OpeningsError(f"bad openings {spec!r}: expected random:PLIES or a file") from None
            return random_openings(config.game_type, config.rounds, plies, seed=config.seed)
        return load_openings(spec, config.game_type)
    except OpeningsError as e:
        raise ArenaError(str(e)) from None


# ----- one game -----------------------------------------------------------------------------
@dataclass(frozen=True)
class GameTask:
    """One scheduled game. ``id`` is unique in its arena and stable across reruns."""

    id: str
    white: str
    black: str
    white_index: int
    black_index: int
    round: int
    opening_index: int
    opening: str
    ply_cap: int
    seeds: tuple[int, int]
    budget: Budget | None = None


def play_game(task: GameTask) -> dict[str, Any]:
    """Build both players from their specs, play the game, return its record.

    The game ends with the rules (a surrounded Queen, repetition: ``termination`` is the UHP
    GameState), at the ply cap (a draw, ``PlyCap``; the GameString stays ``InProgress``), or with
    a loss for the player at fault: ``IllegalMove`` when it answers an illegal move (an external
    engine: also garbage, or no move), ``EngineError`` when an external engine fails (it cannot
    start, dies, times out, refuses a command or loses sync). Those records carry a short
    ``detail``. Other player errors propagate. ``white_score`` is 1, 0.5 or 0.

    Time is measured around ``choose`` alone. ``move_seconds`` holds one entry per move played
    after the opening, in play order (move ``k`` is ply ``plies - len(move_seconds) + k``, White's
    on even plies), and ``move_stats`` beside it the mover's ``players.base.search_stats`` (e.g.
    ``{"sims": 812}``), or null when it reports none. ``white_seconds`` and ``black_seconds`` are
    each side's whole time, a last failed ``choose`` (an illegal move, an engine error) included.
    """
    start = time.perf_counter()
    game = Game.from_string(task.opening)
    spent = [0.0, 0.0]
    move_seconds: list[float] = []
    move_stats: list[dict[str, int] | None] = []
    players = []
    termination, white_score, detail = "", 0.5, ""
    side = 0
    try:
        for side, spec in enumerate((task.white, task.black)):
            players.append(make_player(spec, task.seeds[side]))
        while not game.is_over and game.ply < task.ply_cap:
            side = game.side_to_move
            tick = time.perf_counter()
            try:
                move = players[side].choose(game, task.budget)
            finally:
                took = time.perf_counter() - tick
                spent[side] += took
            stats = search_stats(players[side])
            try:
                game.play(int(move))
            except IllegalMoveError as e:
                termination, detail = "IllegalMove", f"played {move}: {e}"
                break
            move_seconds.append(round(took, 4))
            move_stats.append(stats or None)
    except UhpEngineError as e:  # an external engine's fault: its loss, and the arena goes on
        termination = "IllegalMove" if isinstance(e, UhpIllegalMoveError) else "EngineError"
        detail = str(e)
    finally:
        for p in players:
            p.close()
    if termination:
        white_score = float(side)
        detail = clip(f"{'white' if side == 0 else 'black'} {detail}", DETAIL_CHARS)
    elif game.is_over:
        termination = game.state
        white_score = {WHITE_WINS: 1.0, BLACK_WINS: 0.0}.get(game.status, 0.5)
    else:
        termination = "PlyCap"
    result = {1.0: "1-0", 0.0: "0-1"}.get(white_score, "1/2-1/2")
    record = {"id": task.id, "white": task.white, "black": task.black, "white_index": task.white_index,
              "black_index": task.black_index, "round": task.round, "opening": task.opening_index,
              "result": result, "white_score": white_score, "termination": termination,
              "plies": game.ply, "seconds": round(time.perf_counter() - start, 4),
              "white_seconds": round(spent[0], 4), "black_seconds": round(spent[1], 4),
              "move_seconds": move_seconds, "move_stats": move_stats,
              "seeds": list(task.seeds), "game_string": game.game_string()}
    if detail:
        record["detail"] = detail
    return record


def schedule(config: ArenaConfig, openings: list[str]) -> list[GameTask]:
    """Every game of the arena, round by round (all pairings of round 0, then round 1...).

    Game ``{i}v{j}-r{k}-a`` has player ``i`` White, ``...-b`` the same opening with colours
    swapped. Seeds come from ``SeedSequence([seed, i, j, k, swap])``.
    """
    budget = config.budget()
    tasks = []
    for k in range(config.rounds):
        o = k % len(openings)
        for i, j in config.pairings():
            for swap in (0, 1):
                w, b = (i, j) if swap == 0 else (j, i)
                seeds = np.random.SeedSequence([config.seed, i, j, k, swap]).generate_state(2)
                tasks.append(GameTask(f"{i}v{j}-r{k}-{'ab'[swap]}", config.players[w], config.players[b],
                                      w, b, k, o, openings[o], config.ply_cap,
                                      (int(seeds[0]), int(seeds[1])), budget))
    return tasks


# ----- parallel execution -------------------------------------------------------------------
def _init_worker(modules: list[str], parent: int) -> None:
    """Set up a pool worker; ``parent`` is the arena's pid, taken there (a parent that died while
    this worker started would already be replaced by init in ``os.getppid()`` here)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    for name in modules:
        importlib.import_module(name)


def _exit_with_parent(parent: int) -> None:
    """A killed parent (SIGKILL, OOM) leaves pool workers running: end this one when it is gone.

    External engines die with the worker (``players.uhp_client`` sets ``PR_SET_PDEATHSIG``).
    """
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def execute(tasks: Iterator[GameTask], workers: int, handle: Callable[[dict[str, Any]], bool],
            modules: Sequence[str] = ()) -> None:
    """Play ``tasks``, calling ``handle(record)`` in this process as each game finishes.

    ``handle`` returns False to stop taking new tasks (games already running still finish and
    are handled). On an exception (from a game, from ``handle``, Ctrl-C) unfinished games are
    abandoned: the worker processes are stopped and the exception propagates. Worker processes
    import ``modules`` first (where player kinds beyond ``players.registry`` are registered).
    """
    if workers <= 1:
        for task in tasks:
            if not handle(play_game(task)):
                return
        return
    with _unimportable_main_hidden():
        before = set(multiprocessing.active_children())
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_init_worker, initargs=(sorted(set(modules)), os.getpid()))
        try:
            running = {pool.submit(play_game, t) for t in islice(tasks, workers)}
            going = True
            while running:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    going = handle(future.result()) and going
                    if going:
                        running |= {pool.submit(play_game, t) for t in islice(tasks, 1)}
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in set(multiprocessing.active_children()) - before:
                proc.terminate()
            raise
        pool.shutdown()


@contextmanager
def _unimportable_main_hidden() -> Iterator[None]:
    """Spawned workers re-import the parent's ``__main__`` from its file; a script fed on stdin
    (``python - < x.py``) has the file ``<stdin>``, which does not exist, and every worker would
    die. Hide such a file while the pool starts workers (they start on demand, so throughout)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    hide = path is not None and not os.path.isfile(path)
    if hide:
        del main.__file__
    try:
        yield
    finally:
        if hide:
            main.__file__ = path


# ----- results directory ----------------------------------------------------------------------
class ResultsDir:
    """``config.json`` + ``games.jsonl`` of one arena (module docstring)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.games = self.path / "games.jsonl"
        self.dropped_partial_line = False

    def open(self, config: ArenaConfig, openings: list[str], tasks: list[GameTask]) -> list[dict[str, Any]]:
        """Create or check the directory; the records already in it (in file order).

        Raises:
            ArenaError: other settings, or records that are corrupt or not in the schedule.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        wanted = {"version": CONFIG_VERSION, "settings": config.settings(), "openings": openings}
        wanted = json.loads(json.dumps(wanted))
        config_path = self.path / "config.json"
        if config_path.exists():
            try:
                found = json.loads(config_path.read_text())
            except (OSError, json.JSONDecodeError) as e:
                raise ArenaError(f"cannot read {config_path}: {e}") from None
            if found != wanted:
                if _is_shrink(found, wanted):
                    had = found["settings"]["games_per_pairing"]
                    raise ArenaError(f"{self.path} holds an arena of {had} games per pairing: "
                                     f"it can grow but not shrink to "
                                     f"{config.games_per_pairing}; choose another --out")
                if not _is_growth(found, wanted):
                    raise ArenaError(f"{self.path} holds an arena with other settings "
                                     f"({_differences(found, wanted)}); rerun with the same settings to "
                                     "resume, or choose another --out")
                write_atomic(config_path, json.dumps(wanted, indent=1) + "\n")  # grown: more games
        elif self.games.exists():
            raise ArenaError(f"{self.games} exists without config.json: not an arena directory")
        else:
            write_atomic(config_path, json.dumps(wanted, indent=1) + "\n")
        return self._read(tasks)

    def _read(self, tasks: list[GameTask]) -> list[dict[str, Any]]:
        if not self.games.exists():
            return []
        by_id = {t.id: t for t in tasks}
        data = self.games.read_bytes()
        lines = data.split(b"\n")  # the last item is what follows the last newline: b"" normally
        records, seen, offset = [], set(), 0
        for number, line in enumerate(lines, start=1):
            last = number == len(lines)
            if line.strip():
                record, problem = _parse_record(line, by_id)
                if record is None and last:  # a crash mid-write: drop the partial line
                    with open(self.games, "r+b") as f:
                        f.truncate(offset)
                    self.dropped_partial_line = True
                    break
                if problem or record is None:
                    raise ArenaError(f"{self.games} line {number}: {problem}")
                if record["id"] in seen:
                    raise ArenaError(f"{self.games} line {number}: game {record['id']} is recorded twice")
                seen.add(record["id"])
                records.append(record)
                if last:  # a whole record without its newline: end the line before appending
                    with open(self.games, "ab") as f:
                        f.write(b"\n")
            offset += len(line) + 1
        return records

    def append(self, record: dict[str, Any]) -> None:
        """Add one record durably (flush + fsync), before anything else sees it."""
        with open(self.games, "a") as f:
            f.write(json.dumps(record) + "\n")
            f.flush()
            os.fsync(f.fileno())


_RECORD_FIELDS: dict[str, type | tuple[type, ...]] = {
    "id": str, "white": str, "black": str, "white_index": int, "black_index": int, "round": int,
    "opening": int, "result": str, "white_score": (int, float), "termination": str, "plies": int,
    "seconds": (int, float), "white_seconds": (int, float), "black_seconds": (int, float), "seeds": list,
    "game_string": str,
}
"""Every field of a ``games.jsonl`` record (``detail`` is optional) and its JSON type.

``move_seconds`` and ``move_stats`` are optional too (:func:`_check_moves`): records written before
they existed stay valid, and the report leaves their per-move means unknown."""
_SCORES = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}


def _check_moves(record: dict[str, Any]) -> str:
    """What is wrong with a record's ``move_seconds`` / ``move_stats`` (``""``: fine or absent).

    Both or neither; lists of one length, at most ``plies``; seconds finite numbers >= 0; each
    stats entry null or an object of integers.
    """
    seconds, stats = record.get("move_seconds"), record.get("move_stats")
    if seconds is None and stats is None:
        return ""
    if not isinstance(seconds, list) or not isinstance(stats, list):
        return "game record with move_seconds or move_stats missing or not a list"
    if len(seconds) != len(stats) or len(seconds) > record["plies"]:
        return (f"game record with {len(seconds)} move_seconds, {len(stats)} move_stats "
                f"and {record['plies']} plies")
    if any(isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 <= x < float("inf")
           for x in seconds):
        return "game record with a bad 'move_seconds' entry"
    if any(x is not None and not (isinstance(x, dict) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in x.values())) for x in stats):
        return "game record with a bad 'move_stats' entry"
    return ""


def _parse_record(line: bytes, by_id: dict[str, GameTask]) -> tuple[dict[str, Any] | None, str]:
    """A record and ``""``; ``{}`` and what is wrong with it; ``None`` and why for a line that is
    not JSON at all (as a crash mid-write leaves it)."""
    try:
        record = json.loads(line)
    except ValueError as e:
        return None, f"not a game record ({type(e).__name__})"
    if not isinstance(record, dict):
        return {}, f"not a game record (a JSON {type(record).__name__})"
    for key, kind in _RECORD_FIELDS.items():
        if key not in record:
            return {}, f"game record without {key!r}"
        value = record[key]
        if isinstance(value, bool) or not isinstance(value, kind):
            return {}, f"game record with a bad {key!r}: {clip(repr(value), 60)}"
    if "detail" in record and not isinstance(record["detail"], str):
        return {}, "game record with a bad 'detail'"
    problem = _check_moves(record)
    if problem:
        return {}, problem
    task = by_id.get(record["id"])
    if task is None:
        return {}, f"game {clip(record['id'], 60)!r} is not in this arena's schedule"
    if (record["white"], record["black"]) != (task.white, task.black):
        return {}, f"game {record['id']!r} has other players than scheduled"
    if (record["white_index"], record["black_index"], record["round"]) != (
            task.white_index, task.black_index, task.round):
        return {}, f"game {record['id']!r} has other player indices or round than scheduled"
    if _SCORES.get(record["white_score"]) != record["result"]:
        return {}, (f"game {record['id']!r} has white_score {clip(repr(record['white_score']), 20)} "
                    f"and result {clip(record['result'], 20)!r}")
    return record, ""


def _is_growth(found: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """Whether ``wanted`` is ``found`` with more games per pairing and nothing else changed.

    The schedule's game ids, seeds and openings do not depend on the number of rounds (random
    openings with a larger count extend the list), so every game played stays in the larger
    arena with the same id. Shrinking is not growth: it would orphan games already played.
    """
    old, new = found.get("settings", {}), wanted["settings"]
    if found.get("version") != wanted["version"] or not isinstance(old, dict):
        return False
    before, after = old.get("games_per_pairing"), new["games_per_pairing"]
    if not isinstance(before, int) or before >= after:
        return False
    if {**old, "games_per_pairing": after} != new:
        return False
    openings = found.get("openings")
    return isinstance(openings, list) and openings == wanted["openings"][:len(openings)]


def _is_shrink(found: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """Whether ``wanted`` is ``found`` with fewer games per pairing and nothing else changed."""
    return isinstance(found.get("settings"), dict) and _is_growth(wanted, found)


def _differences(found: dict[str, Any], wanted: dict[str, Any]) -> str:
    old, new = found.get("settings", {}), wanted["settings"]
    diffs = [f"{k}: {old.get(k)!r} -> {new.get(k)!r}"
             for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    if found.get("openings") != wanted["openings"]:
        diffs.append("the openings differ")
    if found.get("version") != wanted["version"]:
        diffs.append(f"version {found.get('version')!r} -> {wanted['version']!r}")
    return "; ".join(diffs) or "unreadable settings"


def resolve_anchor(config: ArenaConfig, anchor: str | None) -> int:
    """Index of the anchor: the one named, else ``random`` if playing, else B (sprt) or the first."""
    if anchor is not None:
        if anchor not in config.players:
            raise ArenaError(f"anchor {anchor!r} is not one of the players ({', '.join(config.players)})")
        return config.players.index(anchor)
    if "random" in config.players:
        return config.players.index("random")
    return 1 if config.mode == "sprt" else 0


def check_players(config: ArenaConfig) -> list[str]:
    """Build (and close) every player once, so a bad spec fails before any game starts.

    Returns:
        the modules defining the players' classes, for worker processes to import (a kind
        registered outside ``players.registry`` is registered by importing its player's module).
    """
    modules = []
    needed = Game(config.game_type).expansions
    for spec in config.players:
        try:
            player = make_player(spec, seed=0)
            supported = getattr(player, "expansions", needed)  # external engines say what they play
            player.close()
        except PlayerSpecError as e:
            raise ArenaError(str(e)) from None
        except Exception as e:  # an engine that does not start, a missing checkpoint...
            raise ArenaError(f"cannot build player {spec!r}: {' '.join(str(e).split())}") from None
        if needed & ~supported:
            raise ArenaError(f"player {spec!r} does not support game type {config.game_type}")
        modules.append(type(player).__module__)
    return modules


Executor = Callable[[Iterator[GameTask], int, Callable[[dict[str, Any]], bool], Sequence[str]], None]
"""How an arena's games are played: :func:`execute` (this machine), or another with its contract
(``training.ray_backend.ray_executor``: Ray tasks on a cluster)."""


def run_arena(config: ArenaConfig, out_dir: str | Path, workers: int = 1, anchor: str | None = None,
              progress: bool = True, on_record: Callable[[dict[str, Any]], None] | None = None,
              prior_draws: float = 1.0, executor: Executor | None = None) -> ArenaReport:
    """Play (or finish) an arena and write its results; see the module docstring.

    Args:
        config: what to play.
        out_dir: the results directory; an existing one with the same settings is resumed.
        workers: processes playing games (1: in this process).
        anchor: the player rated 0 (:func:`resolve_anchor`); may change between reruns.
        progress: show a tqdm bar (stderr) with the running score or the SPRT's LLR.
        on_record: called with each new record after it is stored (tests use it to interrupt).
        prior_draws: the ratings' prior (``arena.ratings.fit_elo``).
        executor: plays the games (default :func:`execute`: in this process or a process pool).

    Raises:
        ArenaError: bad settings or spec, unusable openings, other settings in ``out_dir``.
    """
    config.check()
    if workers < 1 or prior_draws < 0:
        raise ArenaError(f"workers must be >= 1 and the Elo prior >= 0 (got {workers}, {prior_draws})")
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
    done = {r["id"] for r in records}
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
            (executor or execute)(pending, workers, handle, modules)
    except BaseException:
        if records:
            try:
                write_report(build_report(config, store.path, anchor_index, records, len(tasks), prior_draws),
                             prior_draws)
            except Exception as e:  # never hide the interruption behind a reporting problem
                print(f"hive-arena: could not write partial tables: {e}", file=sys.stderr)
        raise
    finally:
        bar.close()
    report = build_report(config, store.path, anchor_index, records, len(tasks), prior_draws)
    write_report(report, prior_draws)
    return report


__all__ = [
    "ArenaConfig",
    "ArenaError",
    "ArenaReport",
    "Executor",
    "GameTask",
    "ResultsDir",
    "Tally",
    "build_report",
    "default_out_dir",
    "execute",
    "format_report",
    "play_game",
    "resolve_openings",
    "run_arena",
    "schedule",
]
