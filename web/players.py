"""The allow-list of opponents the page may choose, by ids the server hands out.

The browser never sends a player spec or a path: it names an entry of :func:`Catalogue.entries` by
its id (``human``, ``shipped``, ``random``, ``greedy``, ``alphabeta-1`` .. ``alphabeta-4``,
``newest``, ``ckpt-<12 hex>``), so ``uhp:cmd=...`` or ``../x.pt`` can never be named. Only ``*.pt``
files under the models directory that load as a network are listed, and every open checks again
(:func:`open_inside`). An ``alphazero`` seat plays at a level (``players.levels``, default 10).

See docs/web.md.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

from models import shipped
from players import Budget, Player, make_player, parse_spec
from players.levels import DEFAULT_LEVEL, MAX_LEVEL, level
from search.alphazero_player import DEFAULT_LEAVES, AlphaZeroPlayer
from search.checkpoint import CheckpointError, load_model

from .analysis import MAX_SIMS

HUMAN = "human"
SHIPPED = "shipped"
NEWEST = "newest"
MAX_LISTED = 20
"""Checkpoints listed by name, newest first (a long run writes hundreds)."""
RESCAN_S = 2.0
"""Seconds a scan of the models directory is reused (a run directory holds many files)."""
CLASSICAL = {
    "random": ("random", "Random (uniform over legal moves)"),
    "greedy": ("greedy", "Greedy (one ply, heuristic)"),
    **{f"alphabeta-{d}": (f"alphabeta:depth={d}", f"Alpha-beta, depth {d}") for d in range(1, 5)},
}
"""id -> (player spec, label) of the classical players."""
TIMED_COST = MAX_SIMS
"""What a move searched for a time (the top level) counts in the search slots' simulations in
flight (``web.limits``): as much as a full analysis, one thread busy for its time. It is also
the most any move counts: a search holds one thread, whatever its simulations, so a level
below the top (level 9: 2,400) never counts more than the top level does."""


class UnknownPlayerError(ValueError):
    """An id that is not on the allow-list (or a checkpoint that has become unreadable)."""


def open_inside(root: Path, path: Path) -> BinaryIO:
    """``path`` opened for reading, if it is a regular file inside ``root`` (resolved) now.

    The resolved path is opened one component at a time from a descriptor of ``root`` with
    ``O_NOFOLLOW``, so a component swapped for a symbolic link after the check fails to open
    instead of leading elsewhere.

    Raises:
        OSError: missing, outside ``root``, not a regular file, or changed while opening.
    """
    real = Path(path).resolve(strict=True)
    if not real.is_relative_to(root) or real == root:
        raise OSError(f"not inside the models directory: {path}")
    parts = real.relative_to(root).parts
    nofollow = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        for part in parts[:-1]:
            sub = os.open(part, nofollow | getattr(os, "O_DIRECTORY", 0), dir_fd=fd)
            os.close(fd)
            fd = sub
        file_fd = os.open(parts[-1], nofollow, dir_fd=fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(os.fstat(file_fd).st_mode):
        os.close(file_fd)
        raise OSError(f"not a regular file: {path}")
    return os.fdopen(file_fd, "rb")


@dataclass(frozen=True)
class Entry:
    """One choice of the opponent list.

    Attributes:
        id: what the page sends back.
        label: what the page shows.
        kind: ``human``, ``classical`` or ``alphazero``.
        spec: player spec of a classical player ("" otherwise).
        path: absolute checkpoint path of an ``alphazero`` entry (never sent to the page);
            None for the shipped networks (the game's type picks one).
        level: an ``alphazero`` seat's level (None: a listed entry, not yet a seat; it then
            plays :data:`players.levels.DEFAULT_LEVEL`).
    """

    id: str
    label: str
    kind: str
    spec: str = ""
    path: Path | None = None
    level: int | None = None

    def public(self) -> dict:
        out = {"id": self.id, "label": self.label, "kind": self.kind}
        if self.level is not None:
            out["level"] = self.level
        return out


class Catalogue:
    """The players of one server: the classical ones and the checkpoints under ``models_dir``.

    Checkpoint ids are made from the file's path relative to the models directory; only ``*.pt``
    files under that directory (symbolic links resolved, and refused when they lead outside it)
    that load as a network (:func:`search.checkpoint.load_model`: weights of the shapes its config
    says) are listed. A listed file can change after the scan (replaced, or swapped for a symbolic
    link leading out of the directory), so every open checks again (:func:`open_inside`). The page
    and the API see checkpoint ids and relative paths only, never the server's absolute paths.

    Args:
        models_dir: directory searched recursively for ``*.pt`` checkpoints (may not exist).
        move_time: seconds an alpha-beta move may take at most (its iterative deepening stops).
        sims: simulations per move of the ``alphazero`` players at the top level (None: its
            time, 1 s a move: ``hive-web --sims N``, a lighter server, fast tests); the levels
            below keep their own.
        leaves: their leaves per network call (``search.alphazero_player``).
    """

    def __init__(self, models_dir: str | Path, move_time: float = 10.0, sims: int | None = None,
                 leaves: int = DEFAULT_LEAVES):
        self.root = Path(models_dir).resolve()
        self.move_time = move_time
        self.sims = sims
        self.leaves = leaves
        self._checked: dict[tuple[str, int, int], bool] = {}  # (path, mtime_ns, size) -> readable
        self._lock = threading.Lock()
        self._scan: tuple[float, list[Path]] = (-RESCAN_S, [])

    # ----- listing --------------------------------------------------------------------------
    def checkpoints(self) -> list[Path]:
        """Readable checkpoints under the models directory, newest first (at most MAX_LISTED)."""
        when, found = self._scan
        if time.monotonic() - when < RESCAN_S:
            return found
        found = self._find()
        self._scan = (time.monotonic(), found)
        return found

    def _find(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        found = []
        for path in self.root.rglob("*.pt"):
            try:
                real = path.resolve(strict=True)
                stat = real.stat()
            except OSError:
                continue
            if not real.is_file() or not real.is_relative_to(self.root):
                continue
            found.append((stat.st_mtime_ns, str(path), path, stat.st_size))
        found.sort(reverse=True)
        out = []
        for mtime, _, path, size in found:
            if len(out) >= MAX_LISTED:
                break
            if self._readable(path, mtime, size):
                out.append(path)
        return out

    def _readable(self, path: Path, mtime: int, size: int) -> bool:
        """Whether a file loads as a network (checked once per version of the file)."""
        key = (str(path), mtime, size)
        with self._lock:
            if key not in self._checked:
                try:
                    with self.open(path) as f:
                        load_model(f, "cpu")
                    self._checked[key] = True
                except (CheckpointError, OSError):
                    self._checked[key] = False
            return self._checked[key]

    def open(self, path: Path) -> BinaryIO:
        """A checkpoint file opened for reading: one under the models directory only through
        :func:`open_inside` (checked now, not at the last scan); a shipped network (inside the
        package, never chosen by a client) directly.

        Raises:
            OSError: a path under the models directory that is no longer a file inside it.
        """
        path = Path(path)
        if path.is_absolute() and path.is_relative_to(self.root):
            return open_inside(self.root, path)
        return path.open("rb")

    def checkpoint_id(self, path: Path) -> str:
        rel = path.relative_to(self.root).as_posix()
        return "ckpt-" + hashlib.sha1(rel.encode()).hexdigest()[:12]

    def entries(self) -> list[Entry]:
        """Every choice, in the order the page lists them."""
        out = [Entry(HUMAN, "Human (at this screen)", "human"), self.shipped()]
        ckpts = self.checkpoints()
        if ckpts:
            rel = ckpts[0].relative_to(self.root).as_posix()
            out.append(Entry(NEWEST, f"AlphaZero, newest checkpoint ({rel})", "alphazero", path=ckpts[0]))
        out += [Entry(k, label, "classical", spec=spec) for k, (spec, label) in CLASSICAL.items()]
        for path in ckpts:
            rel = path.relative_to(self.root).as_posix()
            out.append(Entry(self.checkpoint_id(path), f"AlphaZero {rel}", "alphazero", path=path))
        return out

    def shipped(self) -> Entry:
        """The networks shipped with the package (``models.shipped``), always on the list: the one
        of the game's type (``path`` None: :meth:`network_path` picks it)."""
        return Entry(SHIPPED, "AlphaZero, the shipped network", "alphazero")

    def network_path(self, entry: Entry, game_type: str) -> Path:
        """The checkpoint an ``alphazero`` entry plays ``game_type`` with.

        Raises:
            UnknownPlayerError: the shipped entry, and no network is shipped for that type.
        """
        if entry.path is not None:
            return entry.path
        try:
            return shipped.network(game_type).checkpoint
        except shipped.NoShippedNetworkError as e:
            raise UnknownPlayerError(str(e)) from None

    def entry(self, player_id: str) -> Entry:
        """The entry of an id.

        Raises:
            UnknownPlayerError: not an id of this catalogue.
        """
        if player_id == HUMAN:
            return Entry(HUMAN, "Human (at this screen)", "human")
        if player_id == SHIPPED:
            return self.shipped()
        if player_id in CLASSICAL:
            spec, label = CLASSICAL[player_id]
            return Entry(player_id, label, "classical", spec=spec)
        for e in self.entries():
            if e.id == player_id:
                return e
        shown = player_id if len(player_id) <= 40 else player_id[:37] + "..."
        raise UnknownPlayerError(f"unknown player {shown!r}: choose an id listed by GET /api/players")

    # ----- levels -----------------------------------------------------------------------------
    def _top_sims(self, entry: Entry) -> int | None:
        """The server's ``--sims`` when ``entry`` plays the top level, else None."""
        return self.sims if (entry.level or DEFAULT_LEVEL) == MAX_LEVEL else None

    def strength(self, entry: Entry) -> str:
        """``"level 10, 1 s a move"``: what an ``alphazero`` seat's label shows."""
        number = entry.level or DEFAULT_LEVEL
        if (sims := self._top_sims(entry)) is not None:
            return f"level {number}, {sims} simulations a move"
        return level(number).short()

    def at_level(self, entry: Entry, number: int) -> Entry:
        """An ``alphazero`` entry as a seat at level ``number`` (1..10), its label naming it;
        other entries unchanged.

        Raises:
            UnknownPlayerError: a level out of range (the request body checks it first).
        """
        if entry.kind != "alphazero":
            return entry
        try:
            level(number)
        except ValueError as e:
            raise UnknownPlayerError(str(e)) from None
        seat = replace(entry, level=number)
        return replace(seat, label=f"{entry.label}, {self.strength(seat)}")

    def search_cost(self, entry: Entry) -> int | None:
        """Simulations an engine's move counts in the search slots (``web.limits``): an
        ``alphazero`` seat its level's (or ``--sims``) up to :data:`TIMED_COST`, which a time
        counts; 0 for alpha-beta (a search without simulations); None: not a search (random,
        greedy)."""
        if entry.kind == "alphazero":
            sims = self._top_sims(entry) or level(entry.level or DEFAULT_LEVEL).sims
            return TIMED_COST if sims is None else min(sims, TIMED_COST)
        return 0 if entry.spec.startswith("alphabeta") else None

    def clock_budget(self, entry: Entry, time_s: float) -> Budget:
        """An engine's budget for a move of a clock game: the time manager's ``time_s`` in place
        of ``move_time``, with the entry's own depth (alpha-beta) or simulations (an AlphaZero
        level below the top, or ``--sims``) as the other limit, whichever comes first; the top
        level searches the share; the random and greedy players ignore it."""
        if entry.kind == "alphazero":
            sims = self._top_sims(entry) or level(entry.level or DEFAULT_LEVEL).sims
            return Budget(time_s=time_s, sims=sims)
        depth = parse_spec(entry.spec)[1].get("depth") if entry.spec.startswith("alphabeta") else None
        return Budget(time_s=time_s, depth=int(depth) if depth else None)

    # ----- building ---------------------------------------------------------------------------
    def build(self, entry: Entry, seed: int = 0) -> Player | None:
        """A fresh player for an entry (None for a person)."""
        if entry.kind == "human":
            return None
        if entry.kind == "classical":
            spec = entry.spec
            if spec.startswith("alphabeta"):
                spec += f",time={self.move_time:g}"
            return make_player(spec, seed=seed)
        sims = self._top_sims(entry)
        budget = {"sims": sims} if sims is not None else {"level": entry.level or DEFAULT_LEVEL}
        if entry.path is None:  # the shipped networks (AlphaZeroPlayer picks the game type's)
            return AlphaZeroPlayer(None, device="auto", seed=seed, name=entry.label, leaves=self.leaves,
                                   **budget)
        try:
            with self.open(entry.path) as f:
                return AlphaZeroPlayer(f, device="auto", seed=seed, name=entry.label, leaves=self.leaves,
                                       **budget)
        except (CheckpointError, OSError):  # the message would name the server's paths
            raise UnknownPlayerError(f"checkpoint {entry.id} cannot be loaded (changed, moved or removed "
                                     "since it was listed)") from None
