"""An external Universal Hive Protocol engine (Mzinga, nokamute, our ``hive-uhp``) as a player.

The engine runs as a subprocess speaking UHP on its stdin/stdout. Each ``choose`` sends
``newgame <GameString of our game>``, so the engine sees exactly our position whatever it
was asked before (no incremental state to drift), checks that the engine's reply names the
same game type, state and turn, then asks ``bestmove depth N`` or ``bestmove time hh:mm:ss``
and checks the answer is a legal move of our game.

Every read has a timeout (a reader thread feeds a queue), so a dead or stuck engine raises
:class:`UhpEngineError` instead of hanging the caller.
"""

from __future__ import annotations

import math
import queue
import shlex
import subprocess
import threading
from collections import deque
from collections.abc import Sequence

from hive_env import Game, HiveError

from .base import Budget, resolve_budget

_CAPABILITY_BITS = {"Mosquito": 1, "Ladybug": 2, "Pillbug": 4}


class UhpEngineError(RuntimeError):
    """The external engine failed: it died, timed out, refused a command or gave a bad move."""


def format_time(seconds: float) -> str:
    """``hh:mm:ss`` for UHP ``bestmove time``, rounded up to whole seconds (at least 1)."""
    total = max(1, math.ceil(seconds))
    return f"{total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d}"


class UhpPlayer:
    """A UHP engine subprocess as a :class:`~players.base.Player`.

    Args:
        cmd: the engine's command line (a string split like a shell would, or an argv list).
        default_budget: used when ``choose`` gets none; depth wins over time.
        timeout_s: how long to wait for start-up and for replies beyond the move's own time.
        name: the player's name (defaults to the command).
        cwd: working directory for the engine.

    Raises:
        UhpEngineError: the engine cannot be started or does not answer ``info``.
    """

    def __init__(self, cmd: str | Sequence[str], default_budget: Budget | None = None,
                 timeout_s: float = 30.0, name: str | None = None, cwd: str | None = None):
        argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
        if not argv:
            raise UhpEngineError("empty engine command")
        self.name = name or f"uhp:cmd={' '.join(argv)}"
        self.default_budget = default_budget or Budget(time_s=1.0)
        self.timeout_s = timeout_s
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=20)
        try:
            self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True, bufsize=1, cwd=cwd)
        except OSError as e:
            raise UhpEngineError(f"cannot start engine {argv[0]!r}: {e}") from None
        self._pumps = [threading.Thread(target=self._pump_stdout, daemon=True),
                       threading.Thread(target=self._pump_stderr, daemon=True)]
        for pump in self._pumps:
            pump.start()
        try:
            info = self._read_reply(self.timeout_s, "start-up")
        except UhpEngineError:
            self.close()
            raise
        self.engine_id = next((ln[3:] for ln in info if ln.startswith("id ")), "unknown")
        caps = info[1].split(";") if len(info) > 1 else []
        self.expansions = sum(_CAPABILITY_BITS.get(c.strip(), 0) for c in caps)

    # ----- process plumbing --------------------------------------------------------------------
    def _pump_stdout(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line.rstrip("\r\n"))
        self._lines.put(None)

    def _pump_stderr(self) -> None:
        assert self._proc.stderr is not None
        for line in self._proc.stderr:
            self._stderr.append(line.rstrip())

    def _died(self, what: str) -> UhpEngineError:
        tail = " | ".join(self._stderr)
        return UhpEngineError(f"engine {self.name!r} {what}" + (f" (stderr: {tail})" if tail else ""))

    def _read_reply(self, timeout: float, what: str) -> list[str]:
        """Lines up to (not including) ``ok``."""
        reply: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise self._died(f"gave no reply to {what} within {timeout:.0f} s") from None
            if line is None:
                raise self._died(f"exited while answering {what}")
            if line == "ok":
                return reply
            reply.append(line)

    def _command(self, line: str, timeout: float) -> list[str]:
        """Send one command; its reply lines, or raise on ``err``/``invalidmove``."""
        if self._proc.poll() is not None:
            raise self._died("is not running")
        try:
            assert self._proc.stdin is not None
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
        except OSError:
            raise self._died(f"closed its input before {line!r}") from None
        reply = self._read_reply(timeout, repr(line))
        bad = [r for r in reply if r.startswith(("err", "invalidmove"))]
        if bad:
            raise UhpEngineError(f"engine {self.name!r} refused {line!r}: {bad[0]}")
        return reply

    # ----- the Player interface ------------------------------------------------------------------
    def choose(self, game: Game, budget: Budget | None = None) -> int:
        """The engine's move for ``game``; the game itself is not changed.

        Raises:
            ValueError: the game is over, or has no GameString (a set-up position).
            UhpEngineError: the engine failed, lost sync, or answered an illegal move.
        """
        if game.is_over:
            raise ValueError(f"the game is over ({game.state}): there is no move to choose")
        if game.expansions & ~self.expansions:
            raise UhpEngineError(f"engine {self.name!r} does not support game type {game.game_type}")
        try:
            game_string = game.game_string()
        except HiveError as e:
            raise ValueError(f"a UHP engine needs a GameString: {e}") from None
        reply = self._command(f"newgame {game_string}", self.timeout_s)
        head = ";".join(game_string.split(";")[:3])
        if not reply or ";".join(reply[-1].split(";")[:3]) != head:
            raise UhpEngineError(f"engine {self.name!r} lost sync: sent {head!r}, it has {reply!r}")
        b = resolve_budget(budget, self.default_budget)
        if b.depth is not None:
            command, wait = f"bestmove depth {b.depth}", self.timeout_s
        else:
            seconds = b.time_s if b.time_s is not None else 1.0
            command, wait = f"bestmove time {format_time(seconds)}", math.ceil(seconds) + self.timeout_s
        reply = [r for r in self._command(command, wait) if r.strip()]
        if len(reply) != 1:
            raise UhpEngineError(f"engine {self.name!r} answered {command!r} with {reply!r}, not one move")
        try:
            return game.parse_move(reply[0])
        except HiveError as e:
            raise UhpEngineError(f"engine {self.name!r} played {reply[0]!r}, illegal here: {e}") from None

    def close(self) -> None:
        """End the engine: close its input (UHP engines exit at end of input), then kill it."""
        proc = self._proc
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for pump in self._pumps:
            pump.join(timeout=2)  # they end at the engine's end of output
        for stream in (proc.stdout, proc.stderr):
            if stream is not None and not any(p.is_alive() for p in self._pumps):
                stream.close()

    def __enter__(self) -> UhpPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_player(seed: int, name: str, cmd: str, depth: int | None = None, time: float | None = None,
                timeout: float = 30.0) -> UhpPlayer:
    """The ``uhp`` spec kind (``players.registry``)."""
    from .registry import spec_budget

    return UhpPlayer(cmd, default_budget=spec_budget(time, depth, Budget(time_s=1.0)), timeout_s=timeout,
                     name=name)
