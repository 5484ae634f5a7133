"""The bridge from numpy observations to the network and back, for search.

``make_evaluator(model)`` returns the ``evaluate(obs) -> (policy_logits, values)`` callable
that :class:`search.mcts.BatchedMCTS` takes: one batched forward pass, no gradients, on an
inference backend (:data:`BACKENDS`: the torch model, eager or compiled, with optional
bfloat16 autocast on CUDA; the packed GEMMs of ``search.packednet``, in bfloat16 on the CPU's
matrix units where it has them; the numba kernels of ``search.fastnet``; ONNX Runtime). The torch
model stays the source of truth and checkpoints the one file format: the other backends
compute its function from weights copied out of it (``tests/search/test_fastnet.py``,
``tests/search/test_packednet.py``). :meth:`Evaluator.describe` says which runs, for logs.
Observations become tensors with ``torch.from_numpy`` (no copy on the CPU).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import torch

from hive_env.encode import ENCODING_VERSION, GF_BLACK_TO_MOVE, GF_TURN, GF_UNUSED, TURN_HORIZON
from models.gnn import NEG_INF, HiveGNN, expected_value

from .inputs import NETWORK_INPUTS, to_tensors, trim

__all__ = ["BACKENDS", "NETWORK_INPUTS", "PACKED_MIN_BATCH", "Evaluator",
           "make_evaluator", "maybe_compile", "pick_device", "resolve_backend", "to_tensors", "trim",
           "uniform_evaluate"]


def pick_device(device: str = "auto") -> torch.device:
    """``auto`` -> CUDA when present, else CPU; anything else as given."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def maybe_compile(model: HiveGNN, compile: bool) -> Callable[..., tuple[torch.Tensor, torch.Tensor]]:
    """``torch.compile`` of the model (dynamic shapes: batch, node and move counts vary) when
    asked, else the model itself. It pays off on GPUs and on CPUs alike (the tiny network's
    forward pass runs ~2.5x faster on one CPU core: its many small ops fuse); compiling
    takes ~30 s per process (a minute with the backward pass).

    Where compiling fails (a CPU machine without a C++ compiler, an op the compiler does
    not handle), the first call warns once and the model runs eagerly from then on.
    """
    if not compile:
        return model
    state: dict[str, Callable] = {"net": torch.compile(model, dynamic=True)}

    def run(*args, **kwargs):
        try:
            return state["net"](*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - any compiler failure; eager re-raises real errors
            if state["net"] is model:
                raise
            reason = (str(exc).strip().splitlines() or [""])[0][:200]
            warnings.warn(f"torch.compile failed ({type(exc).__name__}: {reason}); "
                          "the network runs without it", RuntimeWarning, stacklevel=2)
            state["net"] = model
            return model(*args, **kwargs)

    return run


BACKENDS = ("auto", "torch", "numba", "packed", "packed-fp32", "packed-bf16", "packed-int8", "onnx")
"""Inference backends: ``torch`` (the model itself, eager or ``torch.compile``), ``numba`` (the
per-game forward pass compiled from the exported weights, CPU), ``packed`` (``search.packednet``:
the whole batch's nodes packed into rows, its products in BLAS GEMMs at the precision the CPU's
matrix units serve: bf16 on AMX / AVX512-BF16 from a few positions on (``search.packednet``),
fp32 below and on CPUs without them; ``packed-fp32``, ``packed-bf16``, ``packed-int8`` force one
precision), ``onnx`` (ONNX Runtime, CPU, optional dependency: ``pip install onnxruntime
onnx``). ``auto``: ``packed`` on a CPU, which sends a narrow network's batches under
:data:`PACKED_MIN_BATCH` to numba (play's batches), larger ones (self-play's) and every batch of
wider networks to the packed GEMMs; torch elsewhere (CUDA)."""

PACKED_MIN_BATCH = 16
"""``packed`` (``auto`` on a CPU) runs a narrow network's (``search.packednet.NARROW_WIDTH``: the
tiny size, the shipped networks') batches of fewer positions on numba's per-game pass: in the
player (1 s a move, one core, shipped network) numba made 11,475 simulations/s at 4 leaves a call
and 13,089 at 8, the packed GEMMs 9,134 and 12,219 (docs/strength.md, "Throughput of the packed
network"); from 16 positions the packed GEMMs win (tiny network at 64: 2.7x numba in bf16). Wider networks run
packed at every batch (small at batch 1: fp32 3,818 positions/s, numba 2,450)."""


def resolve_backend(backend: str, device: torch.device, bf16: bool = False) -> str:
    """The backend ``backend`` stands for on ``device`` (``auto`` -> packed on CPU, else torch).

    Raises:
        ValueError: an unknown backend, or one that cannot run on ``device``.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown inference backend {backend!r} (known: {', '.join(BACKENDS)})")
    if backend == "auto":
        return "packed" if device.type == "cpu" and not bf16 else "torch"
    if (backend in ("numba", "onnx") or backend.startswith("packed")) and device.type != "cpu":
        raise ValueError(f"inference backend {backend!r} runs on the CPU only, not on {device.type}")
    return backend


class Evaluator:
    """``evaluate(obs) -> (policy_logits [B, M], values [B])`` over a model, the callable that
    :class:`search.mcts.BatchedMCTS` takes.

    Attributes:
        backend: the backend it runs (``resolve_backend``).
        model: the torch model, the source of truth. New weights: :meth:`load_weights` (or
            ``model.load_state_dict`` then :meth:`refresh`); torch reads the parameters at
            each call, numba, packed and onnx copy them. Nothing is rebuilt or recompiled.
    """

    def __init__(self, model: HiveGNN, device: torch.device, bf16: bool, compile: bool, backend: str):
        self.model = model
        self.device = device
        self.bf16 = bf16
        self.backend = backend
        model.eval()
        self._net = maybe_compile(model, compile) if backend == "torch" else None
        self._impl = None
        self._small = None  # packed: numba's per-game pass for batches under PACKED_MIN_BATCH
        self.refresh()

    def describe(self) -> str:
        """What runs the network, for logs: the backend, its precision and why it was chosen."""
        if self._small is not None:
            return f"numba (fp32) below {PACKED_MIN_BATCH} positions, packed from {PACKED_MIN_BATCH}: " \
                   f"{self._impl.describe()}"
        if self.backend.startswith("packed"):
            return f"packed, {self._impl.describe()}"
        if self.backend == "torch":
            return f"torch on {self.device}{' (bf16 autocast)' if self.bf16 else ''}"
        return f"{self.backend} (fp32)"

    def refresh(self) -> None:
        """Take the model's current weights (after ``load_state_dict``); cheap, no recompiling."""
        self.model.eval()
        if self.backend == "numba":
            from .fastnet import FastNet

            if self._impl is None:
                self._impl = FastNet(self.model)
            else:
                self._impl.load(self.model)
        elif self.backend.startswith("packed"):
            from .fastnet import FastNet
            from .packednet import NARROW_WIDTH, PackedNet

            if self._impl is None:
                self._impl = PackedNet(self.model, self.backend.partition("-")[2] or "auto")
                narrow = self.model.config.width <= NARROW_WIDTH
                self._small = FastNet(self.model) if self.backend == "packed" and narrow else None
            else:
                self._impl.load(self.model)
                if self._small is not None:
                    self._small.load(self.model)
        elif self.backend == "onnx":
            from .onnx_backend import OnnxNet

            self._impl = OnnxNet(self.model)

    def load_weights(self, state_dict: dict[str, torch.Tensor]) -> None:
        """Evaluate with new weights of the same network (a new checkpoint): loaded into the
        model in place and passed on to the backend, with no rebuilding or recompiling."""
        self.model.load_state_dict(state_dict)
        self.refresh()

    def __call__(self, obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        obs = adapt_obs(obs, self.model.encoding_version)
        if self._small is not None and obs["legal_src"].shape[0] < PACKED_MIN_BATCH:
            return self._small(obs)
        if self._impl is not None:
            return self._impl(obs)
        return self._torch(obs)

    @torch.no_grad()
    def _torch(self, obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        batch, slots = obs["legal_src"].shape
        inputs = to_tensors(trim(obs), self.device)
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.bf16):
            logits, wdl = self._net(inputs)
        out = np.full((batch, slots), NEG_INF, np.float32)
        out[:, : logits.shape[1]] = logits.float().cpu().numpy()
        return out, expected_value(wdl.float()).cpu().numpy()


def adapt_obs(obs: dict[str, np.ndarray], version: int | None) -> dict[str, np.ndarray]:
    """``obs`` (this code's encoding) as encoding ``version`` would have made it, for a network
    trained on that version (``hive_env.encode.ADAPTED_VERSIONS``); ``obs`` itself for this
    code's version or None. 2: global feature 5 was turn / 50 and 6 min(ply / 300, 1), both
    recovered exactly from this encoding's turn (exact up to ``TURN_HORIZON`` turns, where it
    saturates) and feature 0 (the side to move)."""
    if version is None or version == ENCODING_VERSION:
        return obs
    if version != 2:
        raise ValueError(f"no adapter from encoding {ENCODING_VERSION} to {version}")
    g = obs["global_feat"].copy()
    turn = np.rint(g[:, GF_TURN].astype(np.float64) * TURN_HORIZON)
    ply = 2 * (turn - 1) + g[:, GF_BLACK_TO_MOVE]
    g[:, GF_TURN] = turn / 50.0
    g[:, GF_UNUSED] = np.minimum(ply / 300.0, 1.0)
    return {**obs, "global_feat": g}


def make_evaluator(model: HiveGNN, device: torch.device | str = "cpu", bf16: bool = False,
                   compile: bool = False, backend: str = "auto") -> Evaluator:
    """An :class:`Evaluator` for search over ``model`` (put in eval mode).

    Args:
        device: where the model runs (the numba and onnx backends: CPU only).
        bf16: bfloat16 autocast (torch on CUDA).
        compile: ``torch.compile`` the model (the torch backend).
        backend: one of :data:`BACKENDS`; ``auto`` picks the fastest (:data:`BACKENDS`).

    Raises:
        ValueError: an unknown backend, or one that cannot run on ``device``.
    """
    device = torch.device(device) if isinstance(device, str) else device
    return Evaluator(model, device, bf16, compile, resolve_backend(backend, device, bf16))


def uniform_evaluate(obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Uniform priors over the legal moves and a neutral value: search without a network."""
    batch, slots = obs["legal_actions"].shape
    return np.zeros((batch, slots), np.float32), np.zeros(batch, np.float32)
