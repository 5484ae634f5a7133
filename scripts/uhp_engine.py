"""``hive-uhp``: this project as a Universal Hive Protocol engine on stdin/stdout.

The commands, replies and options are documented in :mod:`players.uhp_server`; this is the
stdin/stdout loop around it (lines read by ``players.uhp_server.read_lines``, which bounds
their length). ``--player SPEC`` sets the player that answers ``bestmove``.
"""

from __future__ import annotations

import argparse
import os
import sys

from hive_zero import version_line
from players import PlayerSpecError
from players.uhp_client import UhpEngineError
from players.uhp_server import DEFAULT_PLAYER, LineTooLong, UhpEngine, read_lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hive-uhp", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=version_line("hive-uhp"))
    parser.add_argument("--player", default=DEFAULT_PLAYER, help="player spec answering bestmove")
    args = parser.parse_args(argv)
    sys.stdin.reconfigure(errors="replace")  # type: ignore[union-attr]  # stray bytes must not crash us
    out = sys.stdout
    engine = None
    try:
        engine = UhpEngine(args.player)
        engine.warm_up()
        out.write("\n".join(engine.handle("info")) + "\n")
        out.flush()
        for line in read_lines(sys.stdin):  # a line past MAX_LINE is never kept whole
            if isinstance(line, LineTooLong):
                reply = engine.too_long(line.length)
            elif line.strip().lower() == "exit":
                break
            else:
                reply = engine.handle(line)
            if reply:
                out.write("\n".join(reply) + "\n")
                out.flush()
    except PlayerSpecError as e:
        print(f"hive-uhp: error: {e}", file=sys.stderr)
        return 2
    except UhpEngineError as e:  # the player is an external engine that does not start
        print(f"hive-uhp: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    except BrokenPipeError:  # the controller went away: exit quietly, without a flush error at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
    finally:
        if engine is not None:
            engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
