"""The match that lets a candidate network replace the shipped one (``scripts/ship.py``).

A shipped network is replaced only by a candidate that beat it head to head: a ``hive-arena
sprt`` of the two that accepted H1, or a gauntlet of the two of at least :data:`MIN_GAMES`
games that the candidate won on points; both at :data:`SIMS` simulations a move (each spec's
``sims=``), colours alternated (as every arena does), :data:`OPENINGS` openings. The players are
recognised by their checkpoints' bytes (SHA-256), so a match of other files, or of a network
since retrained, does not count. :func:`head_to_head` checks a results directory and returns the
card's section; :func:`match_command` is the command that plays such a match.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hive_env.files import sha256_file
from players.registry import parse_spec

from .config import ArenaError
from .ladder_card import ladder_rows
from .results import read_finished

MIN_GAMES = 200
SIMS = 64
OPENINGS = "random:4"


def match_command(candidate: Path, incumbent: Path, game_type: str, out: str = "runs/head_to_head") -> str:
    """The ``hive-arena sprt`` command of a qualifying match (what ``ship`` tells a user to run)."""
    a, b = (f"'alphazero:ckpt={path},sims={SIMS}'" for path in (candidate, incumbent))
    return (f"hive-arena sprt {a} {b} --game-type {game_type} --openings {OPENINGS} --max-games 400 "
            f"--out {out}")


def head_to_head(results: Path, candidate: Path, incumbent: Path, game_type: str) -> dict[str, Any]:
    """The card section of the match in ``results`` (its ``config.json``, ``games.jsonl`` and
    ``summary.json``) between the ``candidate`` and ``incumbent`` checkpoint files.

    Raises:
        ArenaError: (one line) the directory does not hold such a match, or the candidate did not
            win it.
    """
    try:
        finished = read_finished(results)
    except (OSError, ValueError, KeyError) as e:
        raise ArenaError(f"{results} holds no finished arena ({e})") from None
    config, summary = finished.settings, finished.summary
    specs = config["players"]
    want = {sha256_file(candidate): "candidate", sha256_file(incumbent): "incumbent"}
    roles: dict[str, str] = {}
    for spec in specs:
        kind, raw = parse_spec(spec)
        path = Path(raw.get("ckpt", ""))
        role = want.get(sha256_file(path)) if kind == "alphazero" and path.is_file() else None
        if role is None or role in roles.values():
            raise ArenaError(f"{results}: its players are not the candidate and the shipped network "
                             f"({', '.join(specs)})")
        if raw.get("sims") != str(SIMS):
            raise ArenaError(f"{results}: {spec} played at sims={raw.get('sims')}, not sims={SIMS}")
        roles[spec] = role
    for key, value in (("game_type", game_type), ("openings", OPENINGS)):
        if config.get(key) != value:
            raise ArenaError(f"{results}: {key} {config.get(key)!r}, not {value!r}")
    me = next(s for s, r in roles.items() if r == "candidate")
    w = d = lo = 0
    for r in finished.records:
        score = r.white_score if r.white == me else 1 - r.white_score
        w, d, lo = w + (score == 1), d + (score == 0.5), lo + (score == 0)
    games = w + d + lo
    decision = (summary.get("sprt") or {}).get("decision")
    if config["mode"] == "sprt":
        if decision != "H1":
            raise ArenaError(f"{results}: the SPRT did not accept H1 (decision {decision}, "
                             f"after {games} games)")
    elif games < MIN_GAMES or w + d / 2 <= games / 2:
        raise ArenaError(f"{results}: the candidate scored {w + d / 2:g}/{games}: it needs more than half "
                         f"of at least {MIN_GAMES} games (or an SPRT that accepts H1)")
    row = ladder_rows({"scores": {"the shipped network": {"wins": w, "draws": d, "losses": lo}}})[0]
    return {"mode": config["mode"], "decision": decision, "games": games, "seed": config.get("seed"),
            "incumbent_sha256": sha256_file(incumbent), "openings": OPENINGS, "sims": SIMS,
            "sprt": summary.get("sprt"), "row": row}
