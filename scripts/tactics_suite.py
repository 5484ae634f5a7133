"""The tactics suite: exact one- and two-move tactics taken from real game records, and a scorer.

``python -m scripts.tactics_suite make RECORDS... --out tests/data/tactics.txt [--max-per-kind N]
[--seed S]`` reads game records (arena ``games.jsonl`` files, or text files of one UHP GameString
a line such as self-play's game records), replays every game, and keeps each position in
progress that holds one of these, found exactly (``hive_env.tactics``, every move and reply
played where it matters):

- ``win1``: the side to move can win at once; the solutions are the winning moves;
- ``defend``: no win at once, and some moves but not all lose at once or let the opponent win
  at once; the solutions are the others (a move that draws at once is one of them);
- ``win2``: no win at once, and some move wins in two (whatever the reply, a win in one
  follows); the solutions are those moves.

Positions are deduplicated (the same position reached twice counts once); when a kind has more
than ``--max-per-kind`` positions in one game type, a seeded sample of that many is kept. Each
line of the suite is ``kind<TAB>GameString<TAB>solutions`` (UHP moves joined by ``;``).

``python -m scripts.tactics_suite selfplay --out GAMES.txt [--ckpt CKPT] [--games 16] [--sims 64]
[--game-type Base] [--seed S]`` writes the records of self-play games of a network (the shipped one by
default; the self-play of training, ``training.selfplay``, with its root noise and opening
temperature, ply cap 300), one GameString a line: self-play records for ``make``.

``python -m scripts.tactics_suite score PLAYER... [--suite tests/data/tactics.txt] [--seed S]``
lets each player (a spec of ``players.registry``, e.g. ``alphazero:sims=64``) choose a move in
every position and prints, per kind, how many it solved, with the seconds a move.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from hive_env import Game, HiveError
from hive_env.files import write_atomic
from hive_env.tactics import PROVEN_LOSS, PROVEN_WIN, move_proofs, wins_in_two
from players import make_player

KINDS = ("win1", "defend", "win2")
DEFAULT_SUITE = Path(__file__).resolve().parents[1] / "tests" / "data" / "tactics.txt"


def read_records(path: str | Path) -> list[str]:
    """The GameStrings of a record file: ``games.jsonl`` lines (their ``game_string``) or plain
    lines of GameStrings (blank lines and ``#`` comments skipped)."""
    out = []
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        out.append(json.loads(line)["game_string"] if line.startswith("{") else line)
    return out


def classify(game: Game) -> tuple[str, list[int]] | None:
    """The kind of tactic in ``game`` (a position in progress) and its solution moves, or None."""
    moves, codes = move_proofs(game.board, game.hist)
    if (codes == PROVEN_WIN).any():
        return "win1", [int(m) for m in moves[codes == PROVEN_WIN]]
    lost = codes == PROVEN_LOSS
    if lost.any() and not lost.all():
        return "defend", [int(m) for m in moves[~lost]]
    two = wins_in_two(game.board, game.hist, moves)
    if two.any():
        return "win2", [int(m) for m in moves[two]]
    return None


def positions_of(game_string: str) -> list[Game]:
    """Every position in progress along a recorded game (the start of each move)."""
    record = Game.from_string(game_string)
    game = Game.from_string(record.game_type)
    out = []
    for move in record.moves:
        out.append(game.copy())
        game.play(int(move))
        if game.is_over:
            break
    return out


def make_suite(records: list[str], max_per_kind: int, seed: int) -> list[tuple[str, str, str]]:
    """(kind, GameString, solutions) of every tactic in ``records``, sampled per kind and game type."""
    found: dict[str, list[tuple[str, str, str]]] = {k: [] for k in KINDS}
    seen = set()
    for text in records:
        for game in positions_of(text):
            key = (game.game_type, game.hash, game.ply & 1)
            if key in seen:
                continue
            seen.add(key)
            tactic = classify(game)
            if tactic is None:
                continue
            kind, solutions = tactic
            found[kind].append((kind, game.game_string(), ";".join(game.move_string(m) for m in solutions)))
    rng = np.random.default_rng(seed)
    suite = []
    for kind in KINDS:
        for game_type in dict.fromkeys(row[1].split(";", 1)[0] for row in found[kind]):
            rows = [row for row in found[kind] if row[1].split(";", 1)[0] == game_type]
            if len(rows) > max_per_kind:
                rows = [rows[i] for i in sorted(rng.choice(len(rows), max_per_kind, replace=False))]
            suite += rows
    return suite


def read_suite(path: str | Path) -> list[tuple[str, Game, set[int]]]:
    """The suite's positions: (kind, game, solution moves)."""
    out = []
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            kind, text, solutions = line.split("\t")
            game = Game.from_string(text)
            out.append((kind, game, {game.parse_move(s) for s in solutions.split(";")}))
        except (ValueError, HiveError) as e:
            raise ValueError(f"{path}:{n}: not a suite line (kind, GameString, solutions): {e}") from None
    return out


def score(spec: str, suite: list[tuple[str, Game, set[int]]],
          seed: int = 0) -> dict[str, tuple[int, int, float]]:
    """Per kind: (solved, positions, seconds a move) of the player ``spec``."""
    player = make_player(spec, seed=seed)
    solved = {k: 0 for k in KINDS}
    total = {k: 0 for k in KINDS}
    seconds = {k: 0.0 for k in KINDS}
    try:
        for kind, game, solutions in suite:
            start = time.perf_counter()
            move = int(player.choose(game.copy()))
            seconds[kind] += time.perf_counter() - start
            total[kind] += 1
            solved[kind] += move in solutions
    finally:
        player.close()
    return {k: (solved[k], total[k], seconds[k] / max(total[k], 1)) for k in KINDS if total[k]}


def selfplay_records(ckpt: str | None, games: int, sims: int, game_type: str, seed: int) -> list[str]:
    """GameStrings of ``games`` self-play games of a checkpoint (the shipped network if None)."""
    from models import shipped
    from search.checkpoint import load_model
    from search.mcts import SearchConfig
    from search.network import make_evaluator
    from training.selfplay import SelfPlay, SelfPlayConfig

    model, _ = load_model(shipped.CHECKPOINT if ckpt is None else ckpt, "cpu")
    play = SelfPlay(SelfPlayConfig(games=games), SearchConfig(sims=sims, leaves_per_tree=4), game_type, 300,
                    make_evaluator(model, "cpu"), seed=seed)
    records: list[str] = []
    while len(records) < games:
        records += [g.game_string for g in play.step()]
    return records[:games]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tactics-suite", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    mk = sub.add_parser("make", help="collect the tactics of game records into a suite file")
    mk.add_argument("records", nargs="+", help="games.jsonl files or files of GameStrings")
    mk.add_argument("--out", required=True)
    mk.add_argument("--max-per-kind", type=int, default=150, help="per kind and game type")
    mk.add_argument("--seed", type=int, default=0)
    sp = sub.add_parser("selfplay", help="write the records of self-play games of a network")
    sp.add_argument("--out", required=True)
    sp.add_argument("--ckpt", default=None, help="checkpoint (default: the shipped network)")
    sp.add_argument("--games", type=int, default=16)
    sp.add_argument("--sims", type=int, default=64)
    sp.add_argument("--game-type", default="Base")
    sp.add_argument("--seed", type=int, default=0)
    sc = sub.add_parser("score", help="how many of the suite's positions players solve")
    sc.add_argument("players", nargs="+", help="player specs, e.g. alphazero:sims=64")
    sc.add_argument("--suite", default=str(DEFAULT_SUITE))
    sc.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        if args.command == "make":
            records = [g for path in args.records for g in read_records(path)]
            suite = make_suite(records, args.max_per_kind, args.seed)
            write_atomic(args.out, "".join("\t".join(row) + "\n" for row in suite))
            counts = {k: sum(r[0] == k for r in suite) for k in KINDS}
            print(f"{len(records)} games -> {args.out}: " + ", ".join(f"{counts[k]} {k}" for k in KINDS))
            return 0
        if args.command == "selfplay":
            from search.checkpoint import CheckpointError

            try:
                records = selfplay_records(args.ckpt, args.games, args.sims, args.game_type, args.seed)
            except CheckpointError as e:
                raise ValueError(str(e)) from None
            write_atomic(args.out, "".join(r + "\n" for r in records))
            print(f"{len(records)} self-play games -> {args.out}")
            return 0
        suite = read_suite(args.suite)
        print("| player | " + " | ".join(KINDS) + " | s/move |")
        print("|---|" + "---|" * (len(KINDS) + 1))
        for spec in args.players:
            result = score(spec, suite, args.seed)
            cells = [f"{s}/{n} ({100 * s / n:.1f}%)" if n else "-" for s, n, _ in
                     (result.get(k, (0, 0, 0.0)) for k in KINDS)]
            per_move = sum(r[2] * r[1] for r in result.values()) / max(sum(r[1] for r in result.values()), 1)
            print(f"| {spec} | " + " | ".join(cells) + f" | {per_move:.3f} |", flush=True)
        return 0
    except (OSError, ValueError, HiveError) as e:
        print(f"tactics-suite: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
