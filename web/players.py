"""The allow-list of opponents the page may choose, by ids the server hands out.

The browser never sends a player spec or a path: it names an entry of :func:`Catalogue.entries`
by its id (``human``, ``shipped`` (the network shipped with the package), ``random``, ``greedy``,
``alphabeta-1`` .. ``alphabeta-4``, ``newest``, ``ckpt-<12 hex>``). Checkpoint ids are made from
the file's path relative to the models directory; only ``*.pt`` files under that directory
(symbolic links resolved, and refused when they lead outside it) that
:func:`search.checkpoint.read_checkpoint` accepts are listed.
So ``uhp:cmd=...`` (which runs programs) or ``../x.pt`` can never be named.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from models import shipped
from players import Player, make_player
from search.alphazero_player import DEFAULT_LEAVES, DEFAULT_SIMS, AlphaZeroPlayer
from search.checkpoint import CheckpointError, read_checkpoint

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


class UnknownPlayerError(ValueError):
    """An id that is not on the allow-list (or a checkpoint that has become unreadable)."""


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
    """

    id: str
    label: str
    kind: str
    spec: str = ""
    path: Path | None = None

    def public(self) -> dict:
        return {"id": self.id, "label": self.label, "kind": self.kind}


class Catalogue:
    """The players of one server: the classical ones and the checkpoints under ``models_dir``.

    Args:
        models_dir: directory searched recursively for ``*.pt`` checkpoints (may not exist).
        move_time: seconds an alpha-beta move may take at most (its iterative deepening stops).
        sims: simulations per move of the ``alphazero`` players.
        leaves: their leaves per network call (``search.alphazero_player``).
    """

    def __init__(self, models_dir: str | Path, move_time: float = 10.0, sims: int = DEFAULT_SIMS,
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
        key = (str(path), mtime, size)
        with self._lock:
            if key not in self._checked:
                try:
                    read_checkpoint(path)
                    self._checked[key] = True
                except CheckpointError:
                    self._checked[key] = False
            return self._checked[key]

    def checkpoint_id(self, path: Path) -> str:
        rel = path.relative_to(self.root).as_posix()
        return "ckpt-" + hashlib.sha1(rel.encode()).hexdigest()[:12]

    def entries(self) -> list[Entry]:
        """Every choice, in the order the page lists them."""
        out = [Entry(HUMAN, "Human (at this screen)", "human"), self.shipped()]
        ckpts = self.checkpoints()
        if ckpts:
            rel = ckpts[0].relative_to(self.root).as_posix()
            out.append(Entry(NEWEST, f"AlphaZero, newest checkpoint ({rel}, {self.sims} sims)", "alphazero",
                             path=ckpts[0]))
        out += [Entry(k, label, "classical", spec=spec) for k, (spec, label) in CLASSICAL.items()]
        for path in ckpts:
            rel = path.relative_to(self.root).as_posix()
            out.append(Entry(self.checkpoint_id(path), f"AlphaZero {rel}", "alphazero", path=path))
        return out

    def shipped(self) -> Entry:
        """The networks shipped with the package (``models.shipped``), always on the list: the one
        of the game's type (``path`` None: :meth:`network_path` picks it)."""
        return Entry(SHIPPED, f"AlphaZero, the shipped network ({self.sims} sims)", "alphazero")

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
        try:
            return AlphaZeroPlayer(entry.path, sims=self.sims, device="auto", seed=seed, name=entry.label,
                                   leaves=self.leaves)
        except (CheckpointError, OSError) as e:
            raise UnknownPlayerError(f"checkpoint of {entry.id!r} cannot be loaded: {e}") from None
