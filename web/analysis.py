"""What the network thinks of a position: its win/draw/loss value, its priors, and a search.

For the position on screen, :func:`analyse` returns

- the value head's win/draw/loss probabilities as White win / draw / Black win for the bar, and
- every legal move with its prior probability, both from ``search.evaluation``
  (``Network.evaluate``: the network's outputs in one call), and, after ``sims`` simulations of
  :class:`search.mcts.BatchedMCTS` (a batch of one, no root noise, as the ``alphazero`` player
  searches), its share of the root visits.

Networks are loaded once per checkpoint and kept (:class:`ModelCache`); a call runs in a worker
thread of the server, never on the event loop.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import numpy as np
import torch

from hive_env import PASS, Game
from hive_env.board import move_dest
from search.evaluation import Network
from search.mcts import BatchedMCTS, SearchConfig
from search.network import Evaluator, pick_device

from .view import Frame, move_cells

MAX_SIMS = 2000
"""Most simulations one analysis may ask for (about a minute on one CPU core with a small net)."""


def _open(path: Path) -> BinaryIO:
    return Path(path).open("rb")  # noqa: SIM115 (the caller closes it)


class ModelCache:
    """Loaded networks (``search.evaluation.Network``) by checkpoint path, the ``size`` most
    recently used.

    Args:
        device: ``auto``, ``cpu`` or ``cuda``.
        size: models kept in memory.
        opener: opens a checkpoint for reading (``web.players.Catalogue.open``, which checks a
            path under the models directory when it opens it); default ``open(path, "rb")``.
    """

    def __init__(self, device: str = "auto", size: int = 2,
                 opener: Callable[[Path], BinaryIO] | None = None):
        self.device = pick_device(device)
        self.size = size
        self.opener = opener or _open
        self._models: OrderedDict[str, Network] = OrderedDict()
        self._lock = threading.Lock()

    def network(self, path: Path) -> Network:
        """The network of a checkpoint (``Network.load`` of the file ``opener`` opens, on this
        cache's device); raises ``CheckpointError`` when unreadable (``OSError`` when it cannot
        be opened)."""
        key = str(path)
        with self._lock:
            if key in self._models:
                self._models.move_to_end(key)
                return self._models[key]
            with self.opener(path) as f:
                network = Network.load(f, device=str(self.device))
            self._models[key] = network
            while len(self._models) > self.size:
                self._models.popitem(last=False)
            return network

    def get(self, path: Path) -> tuple[torch.nn.Module, Evaluator, torch.device]:
        """(model, evaluator, device) of a checkpoint, :func:`analyse`'s arguments; raises
        ``CheckpointError`` when unreadable (``OSError`` when it cannot be opened)."""
        network = self.network(path)
        return network.model, network.evaluator, self.device


def analyse(game: Game, model: torch.nn.Module | Network, evaluate: Evaluator | None = None,
            device: torch.device | None = None, sims: int = 0) -> dict:
    """The network's view of ``game``'s position (which must be in progress).

    Args:
        game: the position; not changed.
        model: the network (eval mode), for the WDL head and the priors; or a
            ``search.evaluation.Network`` (``evaluate`` and ``device`` then come from it).
        evaluate: ``search.network.make_evaluator(model)``, for the search.
        device: where the model lives (unused: the model's weights say it).
        sims: simulations of the search (0: priors only).

    Returns:
        ``wdl`` {white, draw, black} probabilities (sum 1), ``side_to_move``, ``sims``,
        ``search_value`` (root value from White's view, [-1, 1], None without a search), and
        ``moves``: every legal move {move, piece, from, to, pass, prior, visits, share},
        best first (by visit share, then prior); priors sum to 1, and so do shares after a search.
    """
    if not isinstance(model, Network) and evaluate is None:
        raise TypeError("analyse takes a search.evaluation.Network, or a model and its evaluator")
    network = model if isinstance(model, Network) else Network(model, evaluate)
    view = network.evaluate(game)
    board = game.board
    moves = list(view.move_priors)
    priors = list(view.move_priors.values())
    n = len(moves)
    white = view.side_to_move == "white"
    out = {"wdl": {"white": view.white, "draw": view.draw, "black": view.black},
           "side_to_move": view.side_to_move, "sims": 0, "search_value": None}
    visits = np.zeros(n)
    if sims > 0 and n > 0:
        mcts = BatchedMCTS(SearchConfig(sims=sims, dirichlet_eps=0.0), 1, game.expansions, network.evaluator)
        result = mcts.search(board[None], game.hist[None], [0], add_noise=False)
        by_move = {int(m): float(v) for m, v in zip(result.moves[0, :n], result.visits[0, :n], strict=True)}
        visits = np.array([by_move.get(m, 0.0) for m in moves])
        value = float(result.value[0])
        out["sims"] = int(result.sims_done[0])
        out["search_value"] = value if white else -value
    total = visits.sum()
    frame = Frame(board, [move_dest(m) for m in moves if m != PASS])
    rows = []
    for i, m in enumerate(moves):
        rows.append({"move": game.move_string(m), **move_cells(game, m, frame), "prior": float(priors[i]),
                     "visits": int(visits[i]), "share": float(visits[i] / total) if total > 0 else None})
    rows.sort(key=lambda r: (r["share"] or 0.0, r["prior"]), reverse=True)
    out["moves"] = rows
    return out

