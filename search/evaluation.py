"""What a network thinks of a position, in one call: its win/draw/loss and its move priors.

``Network.load(path | "shipped").evaluate(game)`` gives the network's own outputs, no search
(what OpenSpiel's AlphaZero evaluator returns as the value and the prior of a state); a search
guided by the same network takes :attr:`Network.evaluator` (``search.review`` and hive-web's
analysis do both). A finished game, a game of another type than the network learnt, or anything
but a ``hive_env.Game`` is refused in one line (:class:`EvaluationError`).

See docs/extension.md (a position through the network).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import torch

from hive_env import Game
from hive_env.encode import MAX_LEGAL, observe_batch_with_moves
from models import shipped
from models.gnn import HiveGNN

from .checkpoint import CheckpointError, load_model
from .network import Evaluator, adapt_obs, make_evaluator, pick_device, to_tensors, trim

EVAL_BATCH = 256
"""Most positions of one forward pass in :meth:`Network.evaluate_many` (bounds its memory)."""


class EvaluationError(ValueError):
    """A position the network cannot evaluate (a one-line reason)."""


@dataclass(frozen=True)
class Evaluation:
    """The network's view of one position.

    Attributes:
        side_to_move: ``"white"`` or ``"black"``.
        white, draw, black: probabilities of a White win, a draw, a Black win (sum 1).
        priors: the policy's probability of each legal move, by MoveString, best first (sum 1;
            ties in the engine's move order).
        move_priors: the same, by encoded move (``game.play`` takes either key).
    """

    side_to_move: str
    white: float
    draw: float
    black: float
    priors: dict[str, float] = field(repr=False, hash=False)
    move_priors: dict[int, float] = field(repr=False, hash=False)

    @property
    def wdl(self) -> tuple[float, float, float]:
        """Win, draw, loss probabilities of the side to move."""
        if self.side_to_move == "white":
            return self.white, self.draw, self.black
        return self.black, self.draw, self.white

    @property
    def value(self) -> float:
        """The side to move's value in [-1, 1]: P(win) - P(loss) (``models.gnn.expected_value``,
        the value search backs up)."""
        win, _, loss = self.wdl
        return win - loss

    @property
    def score(self) -> float:
        """The side to move's expected score in [0, 1]: P(win) + P(draw) / 2 (= (1 + value) / 2)."""
        win, draw, _ = self.wdl
        return win + draw / 2

    @property
    def best(self) -> str:
        """The MoveString of the highest prior."""
        return next(iter(self.priors))


def trained_game_type(state: dict[str, Any], path: str | Path | None = None) -> str | None:
    """The game type a checkpoint's network plays: for a shipped file the type it is shipped for
    (the shipped networks' table: a Base+MLP network shipped for Base+M plays Base+M), else the
    type it learnt, its lineage's (every checkpoint a run writes now), else its run's config's
    (``env.game_type``); None when nothing says (an older checkpoint)."""
    if path is not None and (shipped_for := shipped.game_type_of(path)) is not None:
        return shipped_for
    lineage = state.get("lineage")
    if isinstance(lineage, dict) and isinstance(lineage.get("game_type"), str):
        return lineage["game_type"]
    env = (state.get("config") or {}).get("env") if isinstance(state.get("config"), dict) else None
    if isinstance(env, dict) and isinstance(env.get("game_type"), str):
        return env["game_type"]
    return None


@dataclass
class Network:
    """A network loaded once: positions evaluated in one call (:meth:`evaluate`), searches guided
    by :attr:`evaluator`.

    Attributes:
        model: the torch model, in eval mode (the source of truth for :meth:`evaluate`).
        evaluator: ``search.network.make_evaluator(model)``, the callable ``BatchedMCTS`` takes.
        name: for messages (the checkpoint's file name).
        game_type: the game type the network learnt (None: unknown, every type evaluated).
    """

    model: HiveGNN
    evaluator: Evaluator
    name: str = "network"
    game_type: str | None = None

    @classmethod
    def load(cls, path: str | Path | BinaryIO = shipped.SHIPPED, backend: str = "auto", device: str = "cpu",
             threads: int | None = 1) -> Network:
        """The network of a checkpoint (read verified: ``search.checkpoint.load_model``).

        Args:
            path: a checkpoint file, or ``"shipped"`` (the network shipped for Base) or
                ``"shipped:GAME_TYPE"`` (``models.shipped.resolve``, as ``train.init_from``),
                or a binary file the caller opened (a server that checked it when opening it).
            backend: the search evaluator's inference backend (``search.network.BACKENDS``).
            device: ``cpu``, ``cuda`` or ``auto``.
            threads: on a CPU, torch's threads for the whole process (``torch.set_num_threads``),
                1 as the ``alphazero`` player sets it: this small network's batches gain
                nothing from more, and on a busy machine spinning threads make a position take
                0.5 s instead of 4 ms; None leaves torch's setting.

        Raises:
            CheckpointError: no such type shipped, a missing, damaged or unsafe file (one line).
            ValueError: an unknown backend, or one the device cannot run.
        """
        if isinstance(path, (str, Path)):
            try:
                found = shipped.resolve(str(path))
            except shipped.NoShippedNetworkError as e:
                raise CheckpointError(str(e)) from None
            file: Path | BinaryIO = found if found is not None else Path(path)
            named: Path | None = file
        else:  # an open file: named by its file name when it has one
            file = path
            named = Path(path.name) if isinstance(getattr(path, "name", None), str) else None
        where = pick_device(device)
        if where.type == "cpu" and threads is not None:
            torch.set_num_threads(threads)
        model, state = load_model(file, where)
        evaluator = make_evaluator(model, where, bf16=where.type == "cuda", backend=backend)
        name = named.name if named is not None else "network"
        return cls(model, evaluator, name, trained_game_type(state, named))

    @property
    def device(self) -> torch.device:
        """Where the model's weights live."""
        return next(self.model.parameters()).device

    def check_game_type(self, game_type: str) -> None:
        """Raise :class:`EvaluationError` when the network learnt another game type than ``game_type``."""
        if self.game_type is not None and game_type != self.game_type:
            hint = f"Network.load('shipped:{game_type}')" if game_type in shipped.available() else \
                f"a network trained on {game_type} (hive-train env.game_type=...)"
            raise EvaluationError(f"{self.name} learnt {self.game_type} games, not {game_type}: "
                                  f"use {hint}")

    def evaluate(self, game: Game) -> Evaluation:
        """The network's view of ``game``'s position; ``game`` is not changed.

        The value head's win/draw/loss, a softmax of its logits, which are for the side to move;
        the policy's prior of each legal move, a softmax of its logits over the legal moves.
        Observations are those the network learnt on (a network of an older encoding gets them
        through ``search.network.adapt_obs``, as in search); the forward pass is the torch
        model's in float32 (the source of truth; inference backends are tested against it).
        Another game type is refused when :attr:`game_type` is known (from the checkpoint's
        lineage, its run's config or the shipped networks' table); older checkpoints evaluate any.

        Raises:
            EvaluationError: a finished game, another game type than the network's, not a Game.
        """
        return self.evaluate_many([game])[0]

    def evaluate_many(self, games: Sequence[Game]) -> list[Evaluation]:
        """:meth:`evaluate` of each game, in order, in batches of at most :data:`EVAL_BATCH` a
        forward pass (equal to one call each). Every game is checked before any is evaluated.

        Raises:
            EvaluationError: as :meth:`evaluate`, naming the game's index when there are several.
        """
        games = list(games)
        for i, game in enumerate(games):
            where = f"game {i}: " if len(games) > 1 else ""
            if not isinstance(game, Game):
                raise EvaluationError(f"{where}evaluate takes a hive_env.Game, not {type(game).__name__} "
                                      "(Game.from_string(...) reads a GameString)")
            if game.is_over:
                raise EvaluationError(f"{where}the game is over ({game.state}): there is no move to evaluate")
            try:
                self.check_game_type(game.game_type)
            except EvaluationError as e:
                raise EvaluationError(f"{where}{e}") from None
        out: list[Evaluation | None] = [None] * len(games)
        by_type: dict[int, list[int]] = {}
        for i, game in enumerate(games):  # one observation batch holds one game type
            by_type.setdefault(game.expansions, []).append(i)
        for rows in by_type.values():
            for start in range(0, len(rows), EVAL_BATCH):
                chunk = rows[start:start + EVAL_BATCH]
                for i, ev in zip(chunk, self._forward([games[i] for i in chunk]), strict=True):
                    out[i] = ev
        return out  # type: ignore[return-value]

    @torch.no_grad()
    def _forward(self, games: list[Game]) -> list[Evaluation]:
        """One forward pass over ``games`` (one game type, in progress)."""
        obs, slot_moves = observe_batch_with_moves(np.stack([g.board for g in games]), MAX_LEGAL)
        inputs = to_tensors(trim(adapt_obs(obs, self.model.encoding_version)), self.device)
        logits, wdl_logits = self.model(inputs)
        wdl = _softmax(wdl_logits.float().cpu().numpy().astype(np.float64))
        logits = logits.float().cpu().numpy().astype(np.float64)
        out = []
        for k, game in enumerate(games):
            n = int(obs["n_legal"][k])
            priors = _softmax(logits[k, :n])
            order = np.argsort(-priors, kind="stable")
            moves = [int(slot_moves[k, s]) for s in order]
            move_priors = {m: float(priors[s]) for m, s in zip(moves, order, strict=True)}
            win, draw, loss = (float(x) for x in wdl[k])
            white = game.side_to_move == 0
            by_string = {game.move_string(m): p for m, p in move_priors.items()}
            out.append(Evaluation("white" if white else "black", win if white else loss, draw,
                                  loss if white else win, by_string, move_priors))
        return out


def _softmax(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis (float64)."""
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
