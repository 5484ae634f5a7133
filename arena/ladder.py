"""The ladder: one fixed, reproducible strength measurement of a player.

A ladder is a gauntlet (:func:`arena.arena.run_arena`, mode ``gauntlet``) of one player against
fixed rungs, with fixed settings::

    random, greedy, alphabeta:depth=1, alphabeta:depth=2, alphabeta:depth=3, alphabeta:depth=4
    (+ any extra opponents, e.g. uhp:cmd=... engines)

    seed 0, colours alternated in pairs, openings random:4, ply cap 300, 100 games per pairing

and one number as its result: the player's Elo relative to :data:`ANCHOR` (``alphabeta:depth=2``,
or ``random`` when the rungs leave it out: :func:`anchor_note` says so, and ``hive-arena ladder``
prints it as a warning) with its 95% interval, printed as one line and stored in ``ladder.json``
beside the arena's usual results. The results directory is named by a hash of the settings
(``arena.config.default_out_dir``), so the same command resumes.

**Equal time.** ``equal_time`` puts one time budget on every move of every player (the arena's
``time_s``, which overrides what the specs say): ``alphabeta`` then deepens iteratively until the
time is up, ``alphazero`` searches until the time is up (its simulations follow from its speed),
``uhp`` engines get that time (``bestmove seconds`` where the engine takes it, else
``bestmove time`` in whole seconds, rounded up: ``players.uhp_client``), ``random`` and
``greedy`` ignore it. The depth rungs then all become the same player (alphabeta at that time),
so by default an equal-time ladder has one alphabeta rung, the anchor (:data:`EQUAL_TIME_DEPTHS`).
What each player really spent is measured, not assumed: the result line gives the mean seconds
(and simulations or nodes) per move of the player and the anchor, and ``ladder.json`` every
player's (``per_move``; ``arena.report``).

**What the interval rests on.** In a gauntlet every opponent plays only the player, so the
games form a star: in the rating model (``arena.ratings``) the player's Elo relative to the
anchor and its likelihood-ratio interval are fixed by the games against the anchor alone (the
other pairings place only their own opponent). The line therefore gives exactly the numbers of
the player's pairing row against the anchor, which are also its row in the ratings table when
the fit is anchored there; with no game against the anchor the player is unrated. The other
rungs' scores with their intervals (``ladder.json``) show where the player stands when it is
far from the anchor.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hive_env.files import write_atomic
from hive_env.outcome import DEFAULT_PLY_CAP
from players import Player, PlayerSpecError, player_label

from .arena import run_arena
from .config import ArenaConfig, ArenaError
from .ratings import PRIOR_DRAWS, PairingStats
from .report import STAT_KEYS, ArenaReport

DEPTHS = (1, 2, 3, 4)
"""The alphabeta rungs' depths."""
EQUAL_TIME_DEPTHS = (2,)
"""The default depths of an equal-time ladder: a time budget overrides the depth, so one rung."""
ANCHOR = "alphabeta:depth=2"
"""The rung rated 0; ``random`` is the anchor when the rungs leave it out."""
GAMES_PER_PAIRING = 100
OPENINGS = "random:4"
LADDER_FILE = "ladder.json"


def ladder_opponents(depths: Sequence[int] = DEPTHS, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """The rungs: ``random``, ``greedy``, ``alphabeta:depth=D`` for each depth, then ``extra``
    (those not on the ladder already)."""
    rungs = ("random", "greedy", *(f"alphabeta:depth={d}" for d in depths))
    return (*rungs, *(e for e in dict.fromkeys(extra) if e not in rungs))


def ladder_anchor(players: Sequence[str]) -> str:
    """:data:`ANCHOR` when it plays, else ``random``."""
    return ANCHOR if ANCHOR in players else "random"


def anchor_note(players: Sequence[str]) -> str | None:
    """One line when the ladder of ``players`` (the player first) is not rated against
    :data:`ANCHOR` as promised, or its Elo is 0 by definition; None otherwise."""
    anchor = ladder_anchor(players)
    if anchor == players[0]:
        return f"the player is the anchor {anchor}: its Elo vs {anchor} is 0 by definition"
    if anchor != ANCHOR:
        return f"{ANCHOR} is not among the rungs (add depth 2 to --depths): the Elo is relative to {anchor}"
    return None


def ladder_config(player: str | Player, depths: Sequence[int] | None = None, extra: Sequence[str] = (),
                  games_per_pairing: int = GAMES_PER_PAIRING, equal_time: float | None = None,
                  seed: int = 0, ply_cap: int = DEFAULT_PLY_CAP, game_type: str = "Base") -> ArenaConfig:
    """The gauntlet of ``player`` against the ladder (a rung equal to ``player`` is left out).

    Args:
        player: the player measured: a spec, or a Player object (``ArenaConfig``: played in
            this process, ``workers=1``).
        depths: the alphabeta rungs (None: :data:`DEPTHS`, or :data:`EQUAL_TIME_DEPTHS` with
            ``equal_time``).
        extra: more opponents (player specs).
        games_per_pairing: even.
        equal_time: seconds per move for every player (module docstring), or None: each
            player's own budget from its spec.
        seed: seeds the openings and the players.
        ply_cap: a game reaching this ply is a draw.
        game_type: e.g. ``"Base"``.
    """
    if depths is None:
        depths = DEPTHS if equal_time is None else EQUAL_TIME_DEPTHS
    try:
        label = player_label(player)
    except PlayerSpecError as e:
        raise ArenaError(str(e)) from None
    opponents = tuple(o for o in ladder_opponents(depths, extra) if o != label)
    return ArenaConfig("gauntlet", (player, *opponents), games_per_pairing, game_type, OPENINGS, seed,
                       ply_cap, time_s=equal_time)


@dataclass(frozen=True)
class LadderResult:
    """The player's Elo relative to the anchor, and its score against each opponent.

    ``scores`` maps each opponent spec to ``games``, ``wins``, ``draws``, ``losses``, ``score``
    and the pairing's 95% intervals (``score_lo``, ``score_hi``, ``elo``, ``elo_lo``, ``elo_hi``:
    ``arena.ratings.pairing_stats``, None where not finite). ``anchor_games`` are the games
    against the anchor (the interval rests on them); without any the player is unrated (NaN).
    ``per_move`` maps every player's spec to its mean ``seconds_per_move``, ``sims_per_move`` and
    ``nodes_per_move`` over all its games (None: unknown). ``prior_draws`` is the rating model's
    prior, ``note`` the :func:`anchor_note` of the ladder's players.
    """

    player: str
    anchor: str
    elo: float
    lo: float
    hi: float
    games: int
    anchor_games: int
    equal_time: float | None = None
    complete: bool = True
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    per_move: dict[str, dict[str, float | None]] = field(default_factory=dict)
    prior_draws: float = PRIOR_DRAWS
    note: str | None = None

    @property
    def rated(self) -> bool:
        return math.isfinite(self.elo)

    def line(self) -> str:
        """``ladder: PLAYER  Elo vs ANCHOR: +35 [-40, +110] (600 games, 100 vs ANCHOR)``, then
        (inside the brackets) the time a move with ``equal_time`` and what the player and the
        anchor spent per move when known: ``; per move: PLAYER 0.1930 s 812 sims, ANCHOR ...``."""
        tail = f"; {self.equal_time:g} s a move each" if self.equal_time is not None else ""
        spent = [f"{spec} {text}" for spec in (self.player, self.anchor)
                 if (text := _per_move_text(self.per_move.get(spec, {})))]
        if spent:
            tail += f"; per move: {', '.join(spent)}"
        rating = f"{_signed(self.elo)} [{_signed(self.lo)}, {_signed(self.hi)}]" if self.rated else "unrated"
        return (f"ladder: {self.player}  Elo vs {self.anchor}: {rating} ({self.games} games, "
                f"{self.anchor_games} vs {self.anchor}{tail})")

    def to_json(self) -> dict[str, Any]:
        """The contents of ``ladder.json`` (non-finite numbers as null)."""
        return {"summary": self.line(), "player": self.player, "anchor": self.anchor,
                "elo": _finite(self.elo), "lo": _finite(self.lo), "hi": _finite(self.hi),
                "rated": self.rated, "games": self.games, "anchor_games": self.anchor_games,
                "anchor_note": self.note, "equal_time": self.equal_time,
                "complete": self.complete, "prior_draws": self.prior_draws, "scores": self.scores,
                "per_move": self.per_move}


def _per_move_text(means: dict[str, float | None]) -> str:
    """``0.1930 s 812 sims`` (seconds, then the statistics known); ``""`` without seconds."""
    seconds = means.get("seconds_per_move")
    if seconds is None:
        return ""
    known = [f"{value:.0f} {key}" for key in STAT_KEYS if (value := means.get(f"{key}_per_move")) is not None]
    return " ".join([f"{seconds:.4f} s", *known])


def _signed(x: float) -> str:
    return f"{x:+.0f}" if math.isfinite(x) else str(x)


def _finite(x: float, digits: int = 2) -> float | None:
    return round(float(x), digits) if math.isfinite(x) else None


def _score_row(st: PairingStats) -> dict[str, Any]:
    """A pairing's counts, score and intervals for ``ladder.json`` (non-finite numbers as None)."""
    return {"games": st.games, "wins": st.wins, "draws": st.draws, "losses": st.losses,
            "score": _finite(st.score, 4), "score_lo": _finite(st.score_lo, 4),
            "score_hi": _finite(st.score_hi, 4), "elo": _finite(st.elo), "elo_lo": _finite(st.elo_lo),
            "elo_hi": _finite(st.elo_hi)}


def ladder_result(report: ArenaReport) -> LadderResult:
    """The ladder's numbers from a gauntlet report of player 0, whatever its fit's anchor: the Elo
    and interval of the player's pairing against :func:`ladder_anchor` (module docstring: in a
    star they are the fit's too), 0 [0, 0] when the player is the anchor."""
    players = report.config.players
    anchor = ladder_anchor(players)
    stats = {players[j]: st for i, j, st in report.pairings if i == 0}
    scores = {spec: _score_row(st) for spec, st in stats.items()}
    if anchor == players[0]:
        elo = lo = hi = 0.0
    else:
        st = stats.get(anchor)
        elo, lo, hi = (st.elo, st.elo_lo, st.elo_hi) if st is not None else (math.nan,) * 3
    anchor_games = scores[anchor]["games"] if anchor in scores else 0
    per_move = {players[i]: {key: _finite(value, 4 if key == "seconds_per_move" else 1)
                             for key, value in means.items()}
                for i, means in enumerate(report.per_move)}
    return LadderResult(players[0], anchor, elo, lo, hi, int(report.fit.games[0]), anchor_games,
                        report.config.time_s, report.complete, scores, per_move, report.prior_draws,
                        anchor_note(players))


def write_ladder(result: LadderResult, out_dir: str | Path) -> Path:
    """``out_dir/ladder.json``, atomically."""
    return write_atomic(Path(out_dir) / LADDER_FILE, json.dumps(result.to_json(), indent=1) + "\n")


def run_ladder(config: ArenaConfig, out_dir: str | Path, workers: int = 1, progress: bool = True,
               prior_draws: float = PRIOR_DRAWS) -> tuple[ArenaReport, LadderResult]:
    """Play (or finish) a ladder (:func:`ladder_config`) in ``out_dir``, anchored on
    :func:`ladder_anchor`; writes the arena's results and ``ladder.json``.

    Raises:
        ArenaError: bad settings or spec, other settings in ``out_dir`` (as ``run_arena``).
    """
    report = run_arena(config, out_dir, workers=workers, anchor=ladder_anchor(config.players),
                       progress=progress, prior_draws=prior_draws)
    result = ladder_result(report)
    write_ladder(result, out_dir)
    return report, result


__all__ = [
    "ANCHOR",
    "DEPTHS",
    "EQUAL_TIME_DEPTHS",
    "GAMES_PER_PAIRING",
    "LadderResult",
    "anchor_note",
    "ladder_anchor",
    "ladder_config",
    "ladder_opponents",
    "ladder_result",
    "run_ladder",
    "write_ladder",
]
