"""The trainer: network updates from replay samples, with its full state for resuming.

Loss = policy cross-entropy (search policy over the legal-move slots) + ``value_weight`` x
WDL cross-entropy (final result from the side to move's view, optionally mixed with the
search's root value: ``value_target_q``). AdamW with linear warm-up then cosine decay (over
the steps, or the wall-clock budget ``max_minutes`` when that runs out first), gradient
clipping, and bfloat16 autocast on CUDA. With the network's auxiliary head, optional terms:
``moves_left_weight`` x Huber loss of the plies left (scaled by ``AUX_PLIES_SCALE``) and
``pressure_weight`` x squared error of the final pressure on each queen (/6; samples of old
shards, which lack it, are masked out).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional

from hive_env.encode import observe_batch
from hive_zero.checks import bounded, check_ranges
from models.gnn import AUX_PLIES_SCALE, HiveGNN
from search.network import maybe_compile, to_tensors, trim

from .replay import Samples


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation settings (reference values: KataGo, Leela Chess Zero).

    Args:
        batch_size: samples per step.
        lr: peak learning rate (AdamW).
        weight_decay: AdamW decoupled weight decay.
        warmup_steps: linear warm-up from 0.
        steps: total training steps of the run (cosine decay to ``lr * min_lr_ratio``).
        min_lr_ratio: floor of the schedule.
        grad_clip: max global gradient norm.
        value_weight: weight of the value loss.
        samples_per_position: training samples drawn per new self-play position (KataGo ~4).
        window: replay window in positions.
        augment: random hex symmetry per sample. Off by default: HiveGNN is exactly invariant
            under the 12 symmetries, so it changes nothing for it and costs a Python loop per batch;
            turn it on for a network that is not invariant.
        checkpoint_every: steps between published checkpoints.
        min_positions: positions in replay before training starts. Read by the run loop
            (training.run), not by the trainer: a full run's value; the experiment presets set
            their own.
        value_target_q: weight of the search's root value q in the value target: the WDL
            target is (1 - a) x one-hot(result) + a x (win (1+q)/2, draw 0, loss (1-q)/2).
            Less noisy than the result alone (KataGo mixes in short-term values); 0 = result only.
        max_minutes: wall-clock budget of the training loop (summed over resumes), after
            which the run ends as if ``steps`` were reached; 0 = none. The learning rate's
            schedule follows whichever of the two runs out first, so runs compared at the
            same wall clock both finish their schedule.
        budget_includes_eval: ``max_minutes`` counts the evaluations during training too (their
            wall clock, self-play paused), so that a run with evaluation ends within its minutes
            (the from-zero recipes); off: training time only, evaluations on top.
        moves_left_weight: weight of the auxiliary plies-left loss (needs ``model.aux_head``).
        pressure_weight: weight of the auxiliary final-queen-pressure loss (needs ``model.aux_head``).
    """

    batch_size: int = bounded(256, ge=1)
    lr: float = bounded(1e-3, gt=0.0)
    weight_decay: float = 1e-4
    warmup_steps: int = 100
    steps: int = bounded(10000, ge=1)
    min_lr_ratio: float = 0.05
    grad_clip: float = 1.0
    value_weight: float = 1.0
    samples_per_position: float = bounded(4.0, gt=0.0)
    window: int = bounded(200000, ge=1)
    augment: bool = False
    checkpoint_every: int = bounded(500, ge=1)
    min_positions: int = 2000
    value_target_q: float = bounded(0.0, ge=0.0, le=1.0)
    max_minutes: float = bounded(0.0, ge=0.0, note="0 = no budget")
    budget_includes_eval: bool = False
    moves_left_weight: float = bounded(0.0, ge=0.0)
    pressure_weight: float = bounded(0.0, ge=0.0)

    def __post_init__(self):
        check_ranges(self)

    @property
    def aux(self) -> bool:
        """Whether the auxiliary head is trained."""
        return self.moves_left_weight > 0 or self.pressure_weight > 0


def lr_at(step: int, cfg: TrainConfig, time_used: float = 0.0) -> float:
    """Learning rate of a step: linear warm-up, then cosine to ``lr * min_lr_ratio``; the
    cosine's progress is that of the steps or ``time_used`` (share of ``max_minutes``
    spent), whichever is further."""
    if step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    t = min(1.0, max((step - cfg.warmup_steps) / max(1, cfg.steps - cfg.warmup_steps), time_used))
    return cfg.lr * (cfg.min_lr_ratio + (1 - cfg.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * t)))


class Trainer:
    """Owns the model's optimiser and schedule; one :meth:`train_step` per batch."""

    def __init__(self, model: HiveGNN, config: TrainConfig, device: torch.device, max_legal: int,
                 compile: bool = False):
        self.model = model.to(device)
        self.net = maybe_compile(self.model, compile)
        self.config = config
        self.device = device
        self.max_legal = max_legal
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
        self.step = 0
        self.seconds = 0.0  # wall clock of training, all resumes together (train.max_minutes)
        self.eval_seconds = 0.0  # wall clock of evaluations, apart from training's
        self.amp = device.type == "cuda"

    def time_used(self) -> float:
        """Share of the wall-clock budget spent (0 without one): training's seconds, plus the
        evaluations' with ``budget_includes_eval``."""
        budget = self.config.max_minutes * 60
        spent = self.seconds + (self.eval_seconds if self.config.budget_includes_eval else 0.0)
        return spent / budget if budget > 0 else 0.0

    def out_of_time(self) -> bool:
        return self.time_used() >= 1.0

    def losses(self, samples: Samples) -> dict[str, torch.Tensor]:
        """Loss terms and metrics of a batch (tensors; ``total`` has a gradient)."""
        obs = trim(observe_batch(samples.board, self.max_legal))
        inputs = to_tensors(obs, self.device)
        moves = inputs["legal_src"].shape[1]
        target = torch.from_numpy(samples.policy[:, :moves].astype(np.float32)).to(self.device)
        z = torch.from_numpy(samples.z.astype(np.int64)).to(self.device)
        wdl_target = 1 - z  # +1 -> 0 (win), 0 -> 1 (draw), -1 -> 2 (loss)
        soft = functional.one_hot(wdl_target, 3).float()
        a = self.config.value_target_q
        if a > 0:
            q = torch.from_numpy(samples.q.astype(np.float32)).to(self.device).clamp(-1, 1)
            soft = (1 - a) * soft + a * torch.stack([(1 + q) / 2, torch.zeros_like(q), (1 - q) / 2], -1)
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.amp):
            out = self.net(inputs, aux=True) if self.config.aux else self.net(inputs)
        logits, wdl = out[0].float(), out[1].float()
        logp = torch.log_softmax(logits, dim=-1)
        legal = target.new_zeros(target.shape, dtype=torch.bool)
        legal |= torch.arange(moves, device=self.device)[None] < inputs["n_legal"].long()[:, None]
        safe_logp = torch.where(legal, logp, torch.zeros_like(logp))
        policy_loss = -(target * safe_logp).sum(-1).mean()
        value_loss = functional.cross_entropy(wdl, soft)
        p = torch.softmax(logits, dim=-1)
        entropy = -(p * safe_logp).sum(-1).mean()
        value = torch.softmax(wdl, -1)
        expected = value[:, 0] - value[:, 2]
        total = policy_loss + self.config.value_weight * value_loss
        terms = {}
        if self.config.aux:
            terms = self._aux_losses(out[2].float(), samples)
            total = (total + self.config.moves_left_weight * terms["moves_left"]
                     + self.config.pressure_weight * terms["pressure"])
        return {
            "total": total, "policy": policy_loss.detach(), "value": value_loss.detach(),
            "entropy": entropy.detach(),
            "value_accuracy": (wdl.argmax(-1) == wdl_target).float().mean().detach(),
            "value_mse": ((expected - z.float()) ** 2).mean().detach(),
            **{k: v.detach() for k, v in terms.items()},
        }

    def _aux_losses(self, pred: torch.Tensor, samples: Samples) -> dict[str, torch.Tensor]:
        """The auxiliary head's losses (with gradients): plies left, final queen pressure."""
        plies = torch.from_numpy(samples.plies_left.astype(np.float32)).to(self.device) / AUX_PLIES_SCALE
        moves_left = functional.smooth_l1_loss(pred[:, 0], plies)
        pressure = torch.from_numpy(samples.pressure.astype(np.float32)).to(self.device)
        known = pressure >= 0  # -1: a shard from before the pressure was recorded
        err = (pred[:, 1:] - pressure / 6.0) ** 2
        pressure_loss = torch.where(known, err, torch.zeros_like(err)).sum() / known.sum().clamp(min=1)
        return {"moves_left": moves_left, "pressure": pressure_loss}

    def train_step(self, samples: Samples) -> dict[str, float]:
        """One optimiser step on a batch; returns scalar metrics."""
        self.model.train()
        for group in self.optimizer.param_groups:
            group["lr"] = lr_at(self.step, self.config, self.time_used())
        out = self.losses(samples)
        self.optimizer.zero_grad(set_to_none=True)
        out["total"].backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_clip)
        self.optimizer.step()
        self.step += 1
        metrics = {k: float(v.detach()) for k, v in out.items()}
        metrics["grad_norm"] = float(grad_norm)
        metrics["lr"] = self.optimizer.param_groups[0]["lr"]
        return metrics

    def state(self) -> dict:
        return {"optimizer": self.optimizer.state_dict(), "train_step": self.step, "seconds": self.seconds,
                "eval_seconds": self.eval_seconds}

    def load_state(self, state: dict) -> None:
        self.optimizer.load_state_dict(state["optimizer"])
        self.step = int(state["train_step"])
        self.seconds = float(state.get("seconds", 0.0))
        self.eval_seconds = float(state.get("eval_seconds", 0.0))

    def load_optimizer(self, state: dict) -> None:
        """Another run's optimiser state (moments), its learning rate reset to this schedule's."""
        self.optimizer.load_state_dict(state)
        for group in self.optimizer.param_groups:
            group["lr"] = lr_at(self.step, self.config, self.time_used())
