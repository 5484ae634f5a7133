"""HiveGNN: a policy/value graph network over the env's graph observations.

Tensors in, tensors out: the observation dict of ``hive_env.encode`` (as torch tensors) in, one
policy logit per legal-move slot and win/draw/loss logits for the side to move out. Message
passing over the hex adjacency (:class:`HexBlock`) keeps orientation without fixing one, so the
whole network is exactly invariant under the 12 hex symmetries; a move's logit comes from the
embeddings of its source and destination nodes (:class:`HiveGNN`).

See docs/search.md (the network and the search).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

NEG_INF = -1e9
AUX_OUTPUTS = 3
"""The auxiliary head's outputs: plies left, pressure on the mover's queen, on the other's."""
AUX_PLIES_SCALE = 100.0
"""Plies left are predicted divided by this (so the targets are about as large as the others)."""


@dataclass(frozen=True)
class ModelConfig:
    """Network size and input dimensions.

    Args:
        width: channels per node (reference: 32 tiny, 128 default on GPU).
        layers: residual message-passing blocks.
        node_features: F of the observation (``hive_env.encode.N_NODE_FEATURES``: models import
            no hive_env, so tests/models/test_model_inputs.py holds both defaults to the encoder's).
        global_features: G of the observation (``hive_env.encode.N_GLOBAL_FEATURES``).
        aux_head: add the auxiliary head (:class:`HiveGNN`): ``forward(obs, aux=True)``.
    """

    width: int = 64
    layers: int = 4
    node_features: int = 37
    global_features: int = 15
    aux_head: bool = False


SIZES = {
    "tiny": {"width": 32, "layers": 2},
    "small": {"width": 64, "layers": 4},
    "default": {"width": 128, "layers": 8},
    "large": {"width": 256, "layers": 12},
}
"""Named sizes: tiny for CPU tests, default and large for GPUs."""


def _rows_of_real_nodes(mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The packed layout of a padded batch: flat indices of the real nodes (``[R]``, into
    ``B * N``), each one's game (``[R]``), and ``pos [B * N]``: a padded node's packed row,
    ``R`` (the extra row every gather appends) where the node is padding."""
    b, n = mask.shape
    flat = mask.reshape(-1).nonzero().squeeze(1)
    pos = torch.full((b * n,), flat.shape[0], dtype=torch.long, device=mask.device)
    pos[flat] = torch.arange(flat.shape[0], device=mask.device)
    return flat, torch.div(flat, n, rounding_mode="floor"), pos


def _with_row(h: torch.Tensor, row: torch.Tensor) -> torch.Tensor:
    """``h [R, C]`` with ``row [C]`` appended as row R (the target of -1 indices)."""
    return torch.cat([h, row.to(h.dtype).view(1, -1)], dim=0)


def _game_mean(h: torch.Tensor, game: torch.Tensor, count: torch.Tensor) -> torch.Tensor:
    """Per-game mean of packed rows ``h [R, C]``: ``[B, C]`` (0 for a game without nodes)."""
    total = h.new_zeros(count.shape[0], h.shape[1]).index_add_(0, game, h)
    return total / count.clamp(min=1.0).to(h.dtype).unsqueeze(1)


class HexBlock(nn.Module):
    """One symmetry-invariant message-passing block: a pre-norm residual block that aggregates,
    over the six directions ``d`` of a node's hex,

    - ``sum_d h[n_d]``                 its neighbours,
    - ``sum_d h[n_d] * h[n_{d+1}]``    pairs of *adjacent* neighbours (gates, freedom to move),
    - ``sum_d h[n_d] * h[n_{d+3}]``    pairs of *opposite* neighbours (lines: grasshoppers, pins),

    where hexes that are not nodes use a learned ``void`` vector, and adds a global context
    vector (masked mean of all nodes) to every node, so reserve nodes, which have no hex, still
    see the board. The three sums are invariant under the 12 hex symmetries (a rotation shifts
    ``d`` cyclically, a mirror reverses it), and so is every node feature, so the whole network is
    exactly symmetry-invariant: its move scores for a rotated or mirrored position equal those of
    the original (tested). Symmetry augmentation of training data is therefore a no-op for this
    network; it is kept in the replay for networks that are not invariant."""

    def __init__(self, width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.void = nn.Parameter(torch.zeros(width))
        self.mix = nn.Sequential(nn.Linear(5 * width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))

    def forward(self, h: torch.Tensor, neighbours: torch.Tensor, game: torch.Tensor,
                count: torch.Tensor) -> torch.Tensor:
        """``h [R, C]`` packed real nodes, ``neighbours [R, 6]`` their packed rows (R = void)."""
        x = self.norm(h)
        r, c = x.shape
        nb = _with_row(x, self.void).index_select(0, neighbours.reshape(-1)).view(r, 6, c)
        near = nb.sum(1)
        # Adjacent pairs (d, d+1 mod 6) and opposite pairs (d, d+3), each pair once; the
        # opposite sum over all six directions counts every pair twice.
        adjacent = (nb[:, :5] * nb[:, 1:]).sum(1) + nb[:, 5] * nb[:, 0]
        opposite = 2.0 * (nb[:, :3] * nb[:, 3:]).sum(1)
        # The first layer of ``mix`` on [x, near, adjacent/6, opposite/6, context]: the
        # context's share is the same for every node of a game, so it is computed per game.
        first = self.mix[0]
        local = torch.cat([x, near, adjacent / 6.0, opposite / 6.0], dim=-1)
        per_game = nn.functional.linear(_game_mean(x, game, count), first.weight[:, 4 * c:], first.bias)
        hidden = nn.functional.linear(local, first.weight[:, : 4 * c]) + per_game.index_select(0, game)
        return h + self.mix[2](self.mix[1](hidden))


class HiveGNN(nn.Module):
    """Policy/value network: :class:`HexBlock` layers, then the heads.

    Policy: a move's logit is an MLP of ``[h_src, h_dst, h_src * h_dst, context]``, where src is
    the moving tile's stack node (or its reserve node for a placement) and dst the destination
    node; ``pass`` (src = dst = -1) is scored from the context alone. Padding slots get -inf.
    Value: WDL logits from mean- and max-pooled nodes and the global features. Auxiliary head
    (``aux_head``, off by default): from the same pooled features, the plies left in the game and
    the final pressure (occupied neighbours) on each queen, own first, as training targets only
    (KataGo's and Leela's auxiliary targets: more signal per game); search never asks for it.

    The forward pass works on packed rows: only real nodes and legal moves are computed
    (the padded batch holds ~2x more of each), and the per-game terms of the first layers
    (context) are computed once per game; the function is that of the padded network.
    """

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        self.encoding_version: int | None = None
        """The observation encoding its weights were trained on, when older than the code's
        (set by ``search.checkpoint.load_model``; ``search.network`` adapts observations to it);
        None: the code's."""
        w = config.width
        self.embed_node = nn.Linear(config.node_features, w)
        self.embed_global = nn.Linear(config.global_features, w)
        self.blocks = nn.ModuleList(HexBlock(w) for _ in range(config.layers))
        self.norm = nn.LayerNorm(w)
        self.policy = nn.Sequential(nn.Linear(4 * w, w), nn.GELU(), nn.Linear(w, 1))
        self.pass_logit = nn.Linear(w, 1)
        self.value = nn.Sequential(nn.Linear(3 * w, w), nn.GELU(), nn.Linear(w, 3))
        if config.aux_head:
            self.aux = nn.Sequential(nn.Linear(3 * w, w), nn.GELU(), nn.Linear(w, AUX_OUTPUTS))

    def forward(self, obs: dict[str, torch.Tensor], aux: bool = False) -> tuple[torch.Tensor, ...]:
        """Score the legal moves and the position.

        Args:
            obs: ``node_feat [B,N,F]``, ``neighbours [B,N,6]``, ``node_mask [B,N]``,
                ``global_feat [B,G]``, ``legal_src``/``legal_dst [B,M]``, ``n_legal [B]``.
            aux: also return the auxiliary head's outputs (needs ``aux_head``).

        Returns:
            policy_logits [B, M] (NEG_INF on padding slots), wdl_logits [B, 3]
            (win, draw, loss for the side to move), and with ``aux`` the auxiliary
            predictions [B, 3]: plies left / AUX_PLIES_SCALE, pressure on the side to move's
            queen / 6, on the other queen / 6.
        """
        if aux and not self.config.aux_head:
            raise ValueError("this network has no auxiliary head (model.aux_head=false)")
        mask = obs["node_mask"].bool()
        b, n = mask.shape
        flat, game, pos = _rows_of_real_nodes(mask)
        count = mask.sum(1)
        extra = flat.shape[0]  # the packed row that stands for "no node"

        def packed(index: torch.Tensor, of_game: torch.Tensor) -> torch.Tensor:
            rows = pos.index_select(0, (of_game * n + index.clamp(min=0)).reshape(-1)).view(index.shape)
            return rows.masked_fill(index < 0, extra)

        glob_h = self.embed_global(obs["global_feat"].float())
        node_feat = obs["node_feat"].reshape(b * n, -1).index_select(0, flat).float()
        h = self.embed_node(node_feat) + glob_h.index_select(0, game)
        neighbours = packed(obs["neighbours"].reshape(b * n, 6).index_select(0, flat).long(),
                            game.unsqueeze(1))
        for block in self.blocks:
            h = block(h, neighbours, game, count)
        h = self.norm(h)
        c = h.shape[1]
        context = _game_mean(h, game, count)  # [B, C]

        # Policy over the legal slots only: a move's first layer on [h_src, h_dst,
        # h_src * h_dst, context] is W_s h_src + W_d h_dst + W_p (h_src * h_dst) + W_c context,
        # and the W_s, W_d terms are computed once per node, W_c once per game.
        src, dst = obs["legal_src"].long(), obs["legal_dst"].long()
        m = src.shape[1]
        legal = torch.arange(m, device=src.device).unsqueeze(0) < obs["n_legal"].long().unsqueeze(1)
        move_game, move_slot = legal.nonzero(as_tuple=True)
        move_src, move_dst = src[move_game, move_slot], dst[move_game, move_slot]
        ps, pd = packed(move_src, move_game), packed(move_dst, move_game)
        first = self.policy[0]
        weight = first.weight
        hz = _with_row(h, h.new_zeros(c))
        node_s = nn.functional.linear(hz, weight[:, :c])
        node_d = nn.functional.linear(hz, weight[:, c: 2 * c])
        per_game = nn.functional.linear(context, weight[:, 3 * c:], first.bias)
        pair = hz.index_select(0, ps) * hz.index_select(0, pd)
        hidden = (node_s.index_select(0, ps) + node_d.index_select(0, pd)
                  + nn.functional.linear(pair, weight[:, 2 * c: 3 * c]) + per_game.index_select(0, move_game))
        move_logit = self.policy[2](self.policy[1](hidden)).squeeze(-1)
        pass_logit = self.pass_logit(context).squeeze(-1).index_select(0, move_game)
        move_logit = torch.where(move_src < 0, pass_logit, move_logit)
        logits = torch.full((b, m), NEG_INF, dtype=move_logit.dtype, device=move_logit.device)
        logits = logits.index_put((move_game, move_slot), move_logit)

        big = torch.finfo(h.dtype).min
        pooled_max = h.new_full((b * n, c), big).index_copy(0, flat, h).view(b, n, c).amax(1)
        pooled = torch.cat([context, pooled_max, glob_h], dim=-1)
        wdl = self.value(pooled)
        if aux:
            return logits.float(), wdl.float(), self.aux(pooled).float()
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
