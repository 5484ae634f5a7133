"""What the network thinks of a position: its win/draw/loss value, its priors, and a search.

For the position on screen, :func:`analyse` returns

- the value head's win/draw/loss probabilities (softmax of ``HiveGNN``'s WDL logits, which
  are for the side to move), turned to White win / draw / Black win for the bar;
- every legal move with its prior probability (softmax of the policy logits over the legal
  moves) and, after ``sims`` simulations of :class:`search.mcts.BatchedMCTS` (a batch of one,
  no root noise, as the ``alphazero`` player searches), its share of the root visits.

Models are loaded once per checkpoint and kept (:class:`ModelCache`); a call runs in a worker
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
from hive_env.encode import MAX_LEGAL, observe_batch_with_moves
from search.checkpoint import load_model
from search.mcts import BatchedMCTS, SearchConfig
from search.network import adapt_obs, make_evaluator, pick_device, to_tensors, trim

from .view import Frame, move_cells

MAX_SIMS = 2000
"""Most simulations one analysis may ask for (about a minute on one CPU core with a small net)."""


def _open(path: Path) -> BinaryIO:
    return Path(path).open("rb")  # noqa: SIM115 (the caller closes it)


class ModelCache:
    """Loaded networks by checkpoint path, the ``size`` most recently used.

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
        self._models: OrderedDict[str, tuple] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, path: Path) -> tuple[torch.nn.Module, object, torch.device]:
        """(model, evaluate, device) of a checkpoint; raises ``CheckpointError`` when unreadable
        (``OSError`` when it cannot be opened)."""
        key = str(path)
        with self._lock:
            if key in self._models:
                self._models.move_to_end(key)
                return self._models[key]
            with self.opener(path) as f:
                model, _ = load_model(f, self.device)
            entry = (model, make_evaluator(model, self.device, bf16=self.device.type == "cuda"), self.device)
            self._models[key] = entry
            while len(self._models) > self.size:
                self._models.popitem(last=False)
            return entry


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


def analyse(game: Game, model: torch.nn.Module, evaluate, device: torch.device, sims: int) -> dict:
    """The network's view of ``game``'s position (which must be in progress).

    Args:
        game: the position; not changed.
        model: the network (eval mode), for the WDL head and the priors.
        evaluate: ``search.network.make_evaluator(model)``, for the search.
        device: where the model lives.
        sims: simulations of the search (0: priors only).

    Returns:
        ``wdl`` {white, draw, black} probabilities (sum 1), ``side_to_move``, ``sims``,
        ``search_value`` (root value from White's view, [-1, 1], None without a search), and
        ``moves``: every legal move {move, piece, from, to, pass, prior, visits, share},
        best first (by visit share, then prior); priors sum to 1, and so do shares after a search.
    """
    board = game.board
    obs, slot_moves = observe_batch_with_moves(board[None], MAX_LEGAL)
    n = int(obs["n_legal"][0])
    with torch.no_grad():
        logits, wdl_logits = model(to_tensors(trim(adapt_obs(obs, model.encoding_version)), device))
    wdl = torch.softmax(wdl_logits[0].float(), -1).cpu().numpy().astype(np.float64)
    priors = _softmax(logits[0, :n].float().cpu().numpy().astype(np.float64))
    moves = [int(m) for m in slot_moves[0, :n]]
    white = game.side_to_move == 0
    win, draw, loss = (float(x) for x in wdl)
    out = {"wdl": {"white": win if white else loss, "draw": draw, "black": loss if white else win},
           "side_to_move": "white" if white else "black", "sims": 0, "search_value": None}
    visits = np.zeros(n)
    if sims > 0 and n > 0:
        mcts = BatchedMCTS(SearchConfig(sims=sims, dirichlet_eps=0.0), 1, game.expansions, evaluate)
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

