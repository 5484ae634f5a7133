"""Evaluation games as Ray tasks (``backend=ray``): an arena executor for training.gating.

Each game runs as a Ray task anywhere on the cluster; the checkpoints its player specs name
travel through Ray's object store, so no filesystem is shared with the driver.

A node lost in the middle of an evaluation (its raylet or machine gone, a worker killed by the
kernel) loses the games it was playing, never half of one: a game's record exists only once its
task returned. Such a game is played again whole, with the same seeds and opening, wherever its
resources are (:data:`GAME_RETRIES` times at most, each one logged); a game lost more often
stops the run with :class:`~training.faults.ClusterError` (one line; the same command resumes,
the arena's finished games kept). An error inside a game (a bug, not a lost node) is not retried.
"""

from __future__ import annotations

import contextlib
from itertools import islice
from typing import TYPE_CHECKING, Any

from .faults import ClusterError
from .ray_cluster import connect

GAME_RETRIES = 3
"""Times an evaluation game whose node or worker died is played again (module docstring)."""

if TYPE_CHECKING:
    from .config import RayConfig


def lost_with_node(ray: Any) -> tuple[type[BaseException], ...]:
    """Ray's errors for a task whose worker, node or result was lost (not the game's own error)."""
    e = ray.exceptions
    return (e.WorkerCrashedError, e.NodeDiedError, e.ObjectLostError, e.OwnerDiedError,
            e.LocalRayletDiedError, e.ObjectFetchTimedOutError)


def _play_remote(task: Any, blobs: dict[str, Any]) -> dict[str, Any]:
    """One arena game on a Ray worker: the checkpoints its specs name come as object-store
    bytes (``blobs``: path -> [ref]), written to this node's temporary directory first (once per
    content), so no filesystem is shared with the driver."""
    import dataclasses
    import hashlib
    import tempfile
    from pathlib import Path

    import ray

    from arena.game import play_game
    from hive_env.files import write_atomic

    local = {}
    for path, (ref,) in blobs.items():
        data = ray.get(ref)
        target = Path(tempfile.gettempdir()) / "hive-zero-eval" / f"{hashlib.sha1(data).hexdigest()}.pt"
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, data)
        local[path] = str(target)
    moved = dataclasses.replace(task, white=_respec(task.white, local), black=_respec(task.black, local))
    record = play_game(moved)
    record.update(white=task.white, black=task.black)  # the arena's names, not this node's paths
    return record


def _checkpoint_of(spec: str) -> str | None:
    """The ``ckpt=`` path of an alphazero spec, else None."""
    from players.registry import parse_spec

    kind, raw = parse_spec(spec)
    return raw.get("ckpt") if kind == "alphazero" else None


def _respec(spec: str, local: dict[str, str]) -> str:
    path = _checkpoint_of(spec)
    return spec.replace(f"ckpt={path}", f"ckpt={local[path]}", 1) if path in local else spec


def ray_executor(rc: RayConfig, log=print):
    """An ``arena.executor.Executor`` that plays each game as a Ray task (``ray.eval_cpus`` CPUs,
    ``ray.eval_resources``), at most ``workers`` at a time, with the checkpoints shipped through
    the object store (each file put once per arena)."""

    def execute(tasks, workers, handle, modules=()) -> None:
        from pathlib import Path

        ray = connect(rc, log)
        remote = ray.remote(_play_remote).options(num_cpus=rc.eval_cpus, resources=dict(rc.eval_resources),
                                                   max_retries=0)
        blobs: dict[str, list] = {}

        def submit(task) -> Any:
            paths = [p for p in (_checkpoint_of(task.white), _checkpoint_of(task.black)) if p]
            for p in paths:
                if p not in blobs:
                    blobs[p] = [ray.put(Path(p).read_bytes())]
            return remote.remote(task, {p: blobs[p] for p in paths})

        lost = lost_with_node(ray)
        game_of: dict[Any, Any] = {}
        tries: dict[str, int] = {}

        def start(task) -> None:
            game_of[submit(task)] = task

        for t in islice(tasks, max(1, workers)):
            start(t)
        played, going = 0, True
        try:
            while game_of:
                ready, _ = ray.wait(list(game_of), num_returns=1)
                task = game_of.pop(ready[0])
                try:
                    record = ray.get(ready[0])
                except lost as e:
                    tries[task.id] = tries.get(task.id, 0) + 1
                    reason = (str(e).strip().splitlines() or [type(e).__name__])[0][:160]
                    if tries[task.id] > GAME_RETRIES:
                        raise ClusterError(f"evaluation game {task.id} was lost {tries[task.id]} times "
                                           f"with its Ray node or worker (last: {reason}); the games "
                                           "played are kept: run the same command to resume") from None
                    log(f"ray: evaluation game {task.id} lost with its node or worker ({reason}); "
                        f"played again whole (retry {tries[task.id]} of {GAME_RETRIES})")
                    start(task)
                    continue
                played += 1
                going = handle(record) and going
                if going:
                    for t in islice(tasks, 1):
                        start(t)
        except BaseException:
            for ref in game_of:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            raise
        retried = sum(tries.values())
        log(f"ray: {played} evaluation game(s) played as Ray tasks"
            + (f", {retried} played again after a lost node or worker" if retried else ""))

    return execute

