"""A fake UHP engine that keeps a real game and records every command it gets, for the
incremental-protocol tests (tests/players/test_uhp_incremental.py).

    python tests/fake_engines/uhp_recorder.py LOG [MODE]

Every command line is appended to the file LOG as it arrives. It keeps its game as a GUI's
engine does (``newgame``, ``play``, ``pass``, ``undo`` answer the GameString), answers
``bestmove`` with the first legal move, and lists two options, ``NumThreads`` (1-4, default 2)
and ``TableSizeMiB`` (1-1024, default 100). MODE:

    normal     all of the above
    drift      answers the third ``play`` with a GameString one move short (as an engine that lost
               a move would), then behaves
    stuck      answers every ``play`` and ``newgame`` of a game with moves with a GameString one
               move short (never in step)
    nooptions  answers ``options`` with ``err``
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from hive_env import Game, HiveError  # noqa: E402


def _short(game: Game) -> str:
    """The GameString of ``game`` one move short."""
    short = Game.from_string(game.game_string())
    short.undo()
    return short.game_string()


def main() -> None:
    log = Path(sys.argv[1])
    mode = sys.argv[2] if len(sys.argv) > 2 else "normal"
    options = {"NumThreads": [2, 2, 1, 4], "TableSizeMiB": [100, 100, 1, 1024]}
    game = Game("Base")
    plays = 0

    def say(*lines: str) -> None:
        sys.stdout.write("".join(line + "\n" for line in lines) + "ok\n")
        sys.stdout.flush()

    def option_line(name: str) -> str:
        value, default, low, high = options[name]
        return f"{name};int;{value};{default};{low};{high}"

    say("id recorder 1.0", "Mosquito;Ladybug;Pillbug")
    for line in sys.stdin:
        line = line.strip()
        with log.open("a") as f:
            f.write(line + "\n")
        words = line.split()
        if not words:
            continue
        command, rest = words[0], line[len(words[0]):].strip()
        try:
            if command == "exit":
                return
            if command == "newgame":
                game = Game.from_string(rest) if ";" in rest else Game(rest or "Base")
                say(_short(game) if mode == "stuck" and game.moves else game.game_string())
            elif command in ("play", "pass"):
                game.play(rest if command == "play" else "pass")
                plays += 1
                if mode == "stuck" or (mode == "drift" and plays == 3):
                    say(_short(game))
                else:
                    say(game.game_string())
            elif command == "undo":
                n = int(rest or 1)
                if n > len(game.moves):
                    say("err TooManyUndos")
                    continue
                for _ in range(n):
                    game.undo()
                say(game.game_string())
            elif command == "bestmove":
                say(game.legal_move_strings()[0])
            elif command == "options":
                if mode == "nooptions":
                    say("err unknown command")
                elif not rest:
                    say(*(option_line(name) for name in options))
                elif words[1] == "get":
                    say(option_line(words[2]))
                elif words[1] == "set" and words[2] in options:
                    options[words[2]][0] = int(words[3])
                    say(option_line(words[2]))
                else:
                    say("err bad option")
            else:
                say("err unknown command")
        except (HiveError, ValueError, IndexError) as e:
            say(f"invalidmove {e}" if command == "play" else f"err {e}")


if __name__ == "__main__":
    main()
