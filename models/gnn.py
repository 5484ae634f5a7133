"""HiveGNN: a policy/value graph network over the env's graph observations.

Tensors in, tensors out. The input is the observation dict of ``hive_env.encode`` (as
torch tensors); the outputs are one policy logit per legal-move slot and win/draw/loss
logits for the side to move.

Message passing keeps orientation without fixing one: each layer aggregates, over the six
directions ``d`` of a node's hex,

- ``sum_d h[n_d]``                 its neighbours,
- ``sum_d h[n_d] * h[n_{d+1}]``    pairs of *adjacent* neighbours (gates, freedom to move),
- ``sum_d h[n_d] * h[n_{d+3}]``    pairs of *opposite* neighbours (lines: grasshoppers, pins),

where hexes that are not nodes use a learned ``void`` vector. The three sums are invariant
under the 12 hex symmetries (a rotation shifts ``d`` cyclically, a mirror reverses it), and
so is every node feature, so the whole network is exactly symmetry-invariant: its move
scores for a rotated or mirrored position equal those of the original (tested). Symmetry
augmentation of training data is therefore a no-op for this network; it is kept in the
replay for networks that are not invariant.

Layers are pre-norm residual blocks with a global context vector (masked mean of all nodes)
added to every node, so reserve nodes, which have no hex, still see the board.

Policy: a move's logit is an MLP of ``[h_src, h_dst, h_src * h_dst, context]``, where src is
the moving tile's stack node (or its reserve node for a placement) and dst the destination
node; ``pass`` (src = dst = -1) is scored from the context alone. Padding slots get -inf.
Value: WDL logits from mean- and max-pooled nodes and the global features.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

NEG_INF = -1e9


@dataclass(frozen=True)
class ModelConfig:
    """Network size and input dimensions.

    Args:
        width: channels per node (reference: 32 tiny, 128 default on GPU).
        layers: residual message-passing blocks.
        node_features: F of the observation (hive_env.encode).
        global_features: G of the observation.
    """

    width: int = 64
    layers: int = 4
    node_features: int = 37
    global_features: int = 15


SIZES = {
    "tiny": {"width": 32, "layers": 2},
    "small": {"width": 64, "layers": 4},
    "default": {"width": 128, "layers": 8},
    "large": {"width": 256, "layers": 12},
}
"""Named sizes: tiny for CPU tests, default and large for GPUs."""


def _flat_index(index: torch.Tensor, n: int) -> torch.Tensor:
    """Row indices into ``[B * (n + 1), C]`` (each game's rows then one extra row) for an
    index ``[B, R, K]`` of node numbers, -1 picking the extra row; flattened."""
    b = index.shape[0]
    extra = torch.full_like(index, n)
    offset = (torch.arange(b, device=index.device) * (n + 1)).view(b, 1, 1)
    idx = torch.where(index < 0, extra, index) + offset
    return idx.reshape(-1)


def _rows(h: torch.Tensor, extra: torch.Tensor, flat: torch.Tensor) -> torch.Tensor:
    """Rows of ``h`` [B, N, C] (plus ``extra`` [C] as row N of every game) at ``flat``."""
    b, n, c = h.shape
    ext = torch.cat([h, extra.to(h.dtype).view(1, 1, c).expand(b, 1, c)], dim=1).reshape(b * (n + 1), c)
    return ext.index_select(0, flat)


def _masked_mean(h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    m = mask.unsqueeze(-1).to(h.dtype)
    return (h * m).sum(1) / m.sum(1).clamp(min=1.0)


class HexBlock(nn.Module):
    """One symmetry-invariant message-passing block (see the module docstring)."""

    def __init__(self, width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.void = nn.Parameter(torch.zeros(width))
        self.mix = nn.Sequential(nn.Linear(5 * width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))

    def forward(self, h: torch.Tensor, flat_nb: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.norm(h)
        b, n, c = x.shape
        nb = _rows(x, self.void, flat_nb).view(b, n, 6, c)
        near = nb.sum(2)
        # Adjacent pairs (d, d+1 mod 6) and opposite pairs (d, d+3), each pair once; the
        # opposite sum over all six directions counts every pair twice.
        adjacent = (nb[:, :, :5] * nb[:, :, 1:]).sum(2) + nb[:, :, 5] * nb[:, :, 0]
        opposite = 2.0 * (nb[:, :, :3] * nb[:, :, 3:]).sum(2)
        context = _masked_mean(x, mask).unsqueeze(1).expand_as(x)
        out = self.mix(torch.cat([x, near, adjacent / 6.0, opposite / 6.0, context], dim=-1))
        return h + out * mask.unsqueeze(-1).to(out.dtype)


class HiveGNN(nn.Module):
    """Policy/value network; see the module docstring."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        w = config.width
        self.embed_node = nn.Linear(config.node_features, w)
        self.embed_global = nn.Linear(config.global_features, w)
        self.blocks = nn.ModuleList(HexBlock(w) for _ in range(config.layers))
        self.norm = nn.LayerNorm(w)
        self.policy = nn.Sequential(nn.Linear(4 * w, w), nn.GELU(), nn.Linear(w, 1))
        self.pass_logit = nn.Linear(w, 1)
        self.value = nn.Sequential(nn.Linear(3 * w, w), nn.GELU(), nn.Linear(w, 3))

    def forward(self, obs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """Score the legal moves and the position.

        Args:
            obs: ``node_feat [B,N,F]``, ``neighbours [B,N,6]``, ``node_mask [B,N]``,
                ``global_feat [B,G]``, ``legal_src``/``legal_dst [B,M]``, ``n_legal [B]``.

        Returns:
            policy_logits [B, M] (NEG_INF on padding slots), wdl_logits [B, 3]
            (win, draw, loss for the side to move).
        """
        mask = obs["node_mask"]
        glob = obs["global_feat"].float()
        b, n = mask.shape
        flat_nb = _flat_index(obs["neighbours"].long(), n)
        h = self.embed_node(obs["node_feat"].float()) + self.embed_global(glob).unsqueeze(1)
        h = h * mask.unsqueeze(-1).to(h.dtype)
        for block in self.blocks:
            h = block(h, flat_nb, mask)
        h = self.norm(h)
        context = _masked_mean(h, mask)  # [B, C]

        src = obs["legal_src"].long()
        dst = obs["legal_dst"].long()
        m = src.shape[1]
        zero = h.new_zeros(h.shape[-1])
        hs = _rows(h, zero, _flat_index(src.unsqueeze(-1), n)).view(b, m, -1)
        hd = _rows(h, zero, _flat_index(dst.unsqueeze(-1), n)).view(b, m, -1)
        ctx = context.unsqueeze(1).expand_as(hs)
        logits = self.policy(torch.cat([hs, hd, hs * hd, ctx], dim=-1)).squeeze(-1)
        logits = torch.where(src < 0, self.pass_logit(context), logits)
        slots = torch.arange(m, device=src.device).unsqueeze(0)
        logits = logits.masked_fill(slots >= obs["n_legal"].long().unsqueeze(1), NEG_INF)

        big = torch.finfo(h.dtype).min
        pooled_max = h.masked_fill(~mask.unsqueeze(-1), big).amax(1)
        wdl = self.value(torch.cat([context, pooled_max, self.embed_global(glob)], dim=-1))
        return logits.float(), wdl.float()


def model_config(size: str, **overrides) -> ModelConfig:
    """The settings of a named size (``SIZES``), with any field of ModelConfig overridden.

    Raises:
        ValueError: an unknown size.
    """
    if size not in SIZES:
        raise ValueError(f"unknown model size {size!r} (known: {', '.join(SIZES)})")
    return ModelConfig(**{**SIZES[size], **overrides})


def build_model(size: str | None = None, **overrides) -> HiveGNN:
    """A network of a named size (``SIZES``), with any field of ModelConfig overridden."""
    return HiveGNN(model_config(size, **overrides) if size else ModelConfig(**overrides))



def expected_value(wdl_logits: torch.Tensor) -> torch.Tensor:
    """Scalar value in [-1, 1] for the side to move: P(win) - P(loss)."""
    p = wdl_logits.softmax(-1)
    return p[..., 0] - p[..., 2]
