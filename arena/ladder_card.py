"""A ladder's results directory as a section of a model card (``scripts/ship.py``).

The section says how to rerun the ladder (the ``hive-arena ladder`` command, without the
checkpoint path of the machine it ran on), its one-line summary with the player named "the
shipped network", its Elo with the 95% interval as ``ladder.json`` gives it (``rating``: pooled
with the rungs' calibration, named by ``calibration``, or from the games against the anchor
alone; ``arena.ladder``) with the anchor-only numbers beside it, and one row per rung: W/D/L,
the score with its 95% interval and the player's Elo against that rung with its interval
(``arena.ratings.pairing_stats`` with the ladder's prior: the same numbers as the ladder's
tables; null where not finite).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .ladder import LADDER_FILE
from .ratings import PRIOR_DRAWS, pairing_stats


def ladder_section(path: Path) -> dict[str, Any]:
    """The card section of the ladder results in ``path`` (``ladder.json``, ``config.json``).

    Raises:
        OSError, KeyError, ValueError: no ladder there, or a file without what a ladder writes.
    """
    ladder = json.loads((path / LADDER_FILE).read_text())
    config = json.loads((path / "config.json").read_text()) if (path / "config.json").is_file() else {}
    settings = config.get("settings", {})
    game_type = settings.get("game_type", "Base")
    spec = ladder["player"]
    depths = sorted({int(o.split("=")[1]) for o in ladder["scores"] if o.startswith("alphabeta:depth=")})
    per = max((s["games"] for s in ladder["scores"].values()), default=0)
    command = (f"hive-arena ladder \"{re.sub(r'ckpt=[^,]*,?', '', spec).rstrip(':,')}\" "
               f"--depths {' '.join(map(str, depths))} --games-per-pairing {per}"
               + (f" --equal-time {ladder['equal_time']:g}" if ladder.get("equal_time") else "")
               + (f" --game-type {game_type}" if game_type != "Base" else "")
               + f" --seed {settings.get('seed', 0)}")
    return {"command": command, "summary": ladder["summary"].replace(spec, "the shipped network"),
            "anchor": ladder["anchor"], "elo": ladder["elo"], "elo_95": [ladder["lo"], ladder["hi"]],
            "rating": ladder.get("rating", "anchor"), "calibration": ladder.get("calibration"),
            "anchor_elo": ladder.get("anchor_elo", ladder["elo"]),
            "anchor_elo_95": [ladder.get("anchor_lo", ladder["lo"]), ladder.get("anchor_hi", ladder["hi"])],
            "equal_time": ladder.get("equal_time"), "rows": ladder_rows(ladder)}


def ladder_rows(ladder: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per rung: counts, score with its 95% interval, Elo of the player against it."""
    rows, prior = [], ladder.get("prior_draws", PRIOR_DRAWS)
    for opponent, s in ladder["scores"].items():
        st = pairing_stats(s["wins"], s["draws"], s["losses"], prior_draws=prior)
        rows.append({"opponent": opponent, "games": st.games, "wins": st.wins, "draws": st.draws,
                     "losses": st.losses, "score": round(st.score, 4),
                     "score_95": [round(st.score_lo, 4), round(st.score_hi, 4)],
                     "elo": _num(st.elo), "elo_95": [_num(st.elo_lo), _num(st.elo_hi)]})
    return rows


def _num(x: float) -> float | None:
    """``x`` rounded to 0.1, or None when it is not finite (JSON has no infinity)."""
    return None if x != x or abs(x) == float("inf") else round(x, 1)


def matches_section(paths: list[Path], player_name: str = "the shipped network",
                    game_type: str | None = None) -> dict[str, Any]:
    """The card section of equal-time matches (gauntlet results directories: ``summary.json``,
    ``config.json``), one row per opponent and time: the command of each, its W/D/L, score and
    Elo with their 95% intervals as the arena's tables give them. Shaped as a ladder section
    (``training.model_card.markdown`` draws both alike).

    Raises:
        OSError, KeyError, ValueError: a directory without what a gauntlet writes, or a match of
            another game type than ``game_type`` (when given).
    """
    commands, rows, names = [], [], []
    for path in paths:
        summary = json.loads((path / "summary.json").read_text())
        settings = summary["settings"]
        players = settings.get("players", [])
        seconds = settings.get("time_s")
        if not seconds or settings.get("mode") != "gauntlet":
            raise ValueError(f"{path}: not an equal-time gauntlet (hive-arena gauntlet ... --time S)")
        played = settings.get("game_type", "Base")
        if game_type is not None and played != game_type:
            raise ValueError(f"{path}: a {played} match, not {game_type}")
        for pairing in summary["pairings"]:
            opponent = pairing["opponent"]
            names += [opponent] if opponent not in names else []
            spec = next((o for o in players if f"name={opponent}" in o), opponent)
            own = re.search(r"time=([\d.]+)", spec)
            label = f"{opponent}, {seconds:g} s a move"
            if own:
                label = f"{opponent} at {float(own.group(1)):g} s, the network at {seconds:g} s"
            rows.append({"opponent": label, "games": pairing["games"], "wins": pairing["wins"],
                         "draws": pairing["draws"], "losses": pairing["losses"],
                         "score": round(pairing["score"], 4),
                         "score_95": [round(pairing["score_lo"], 4), round(pairing["score_hi"], 4)],
                         "elo": _num(pairing["elo"]),
                         "elo_95": [_num(pairing["elo_lo"]), _num(pairing["elo_hi"])]})
        opponents = " ".join(f'"{_portable(o)}"' for o in players[1:])
        commands.append(f"hive-arena gauntlet \"alphazero:device=cpu\" {opponents} --time {seconds:g} "
                        f"--games-per-pairing {settings.get('games_per_pairing')} --workers 2 "
                        f"--seed {settings.get('seed', 0)}"
                        + (f" --game-type {played}" if played != "Base" else ""))
    return {"command": "; ".join(commands),
            "summary": f"{player_name} against {', '.join(names)}, one core a side, each side its full time",
            "rows": rows}


def add_matches(section: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """The equal-time matches ``section`` of a card with the section ``new`` (of
    :func:`matches_section`) added: its rows after the old ones (an old row of the same opponent
    and times replaced), its commands after theirs. For matches played after the old ones' results
    directories are gone.

    Raises:
        ValueError: ``section`` is an equal-time ladder's, not matches'.
    """
    if not section:
        return new
    if not section.get("command", "").startswith("hive-arena gauntlet") or \
            any("opponent" not in row for row in section.get("rows", [])):
        raise ValueError("the card's equal-time section is a ladder's, not matches': "
                         "redraw it with --matches")
    labels = {row["opponent"] for row in new["rows"]}
    commands = section["command"].split("; ")
    commands += [c for c in new["command"].split("; ") if c not in commands]
    summary = section["summary"] if section["summary"] == new["summary"] else \
        f"{section['summary']}; {new['summary']}"
    return {"command": "; ".join(commands), "summary": summary,
            "rows": [row for row in section["rows"] if row["opponent"] not in labels] + new["rows"]}


def _portable(spec: str) -> str:
    """A player spec with its engine's path (``cmd=/some/dir/nokamute``) as the engine's name in
    capitals (``cmd=NOKAMUTE``), its arguments kept (``cmd=NOKAMUTE --quiet-search``): the card
    names no directory of the machine it was made on, and every option the engine played with."""
    def engine(m: re.Match) -> str:
        program, *args = m.group(1).split()
        return "cmd=" + " ".join([Path(program).name.upper(), *args])
    return re.sub(r"cmd=([^,]+)", engine, spec)


def levels_section(path: Path) -> dict[str, Any]:
    """The card section of a levels' calibration (``scripts/calibrate_levels.py``'s
    ``levels.json``): its command (both parts, no results directory), one row per level (what
    it plays, its Elo relative to the anchor with the 95% interval, its margin over the level
    below with that margin's own interval and whether the interval confirms it, games and
    score), one per anchor.

    Raises:
        OSError, KeyError, ValueError: a file without what the calibration writes.
    """
    return levels_section_of(json.loads(Path(path).read_text()))


def levels_section_of(data: dict[str, Any]) -> dict[str, Any]:
    """:func:`levels_section` of a calibration's result as ``levels.json`` holds it."""

    def row(p: dict[str, Any]) -> dict[str, Any]:
        out = {"player": p["player"], "elo": p["elo"], "elo_95": [p["lo"], p["hi"]], "games": p["games"],
               "score": p["score"]}
        if p.get("level") is not None:
            gap = p.get("over_below")
            over = None if gap is None else {"elo": gap["elo"], "elo_95": [gap["lo"], gap["hi"]],
                                             "confirmed": gap["confirmed"]}
            plays = data["levels"][str(p["level"])].split(": ", 1)[1]
            out.update(level=p["level"], plays=plays, over_below=over)
        return out

    players = data["players"]
    command = re.sub(r" --(out|part) \S+| --no-progress", "", data["command"])  # the whole study, anywhere
    return {"command": command, "anchor": data["anchor"], "games": data["games"],
            "complete": data["complete"], "game_type": data["game_type"],
            "rows": [row(p) for p in players if p.get("level") is not None],
            "anchors": [row(p) for p in players if p.get("level") is None]}

