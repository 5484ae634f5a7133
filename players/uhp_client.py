"""An external Universal Hive Protocol engine (Mzinga, nokamute, our ``hive-uhp``) as a player.

The engine runs as a subprocess speaking UHP on its stdin/stdout and keeps its game between
moves, as under a GUI (:meth:`UhpPlayer.sync`: ``newgame`` once, then ``play``/``undo``, one
resync when out of step), so it keeps its search state. Every reply is checked, and the engine is
untrusted: a dead, stuck or babbling engine raises :class:`UhpEngineError` instead of hanging the
caller, and is killed. Sub-second times go as ``bestmove seconds`` where the engine takes it.

See docs/players.md (players: ``uhp:cmd=``).
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from time import monotonic

from hive_env import Game, HiveError

from .base import Budget, check_in_progress, resolve_budget

_CAPABILITY_BITS = {"Mosquito": 1, "Ladybug": 2, "Pillbug": 4}
MAX_LINE_BYTES = 1 << 16
"""The longest line an engine may send (a GameString of a 5000-ply game fits)."""
MAX_REPLY_LINES = 200
"""The most lines of one reply before ``ok`` (UHP replies here are one or two lines)."""
QUOTE_CHARS = 200
"""Engine output quoted in an error message: at most this many characters of a line..."""
STDERR_LINES = 3
"""... and this many of the last lines of its stderr."""
_PR_SET_PDEATHSIG = 1  # linux/prctl.h
_TOO_LONG = object()  # the reader's mark for a line over MAX_LINE_BYTES


class UhpEngineError(RuntimeError):
    """The external engine failed: it died, timed out, refused a command or lost sync."""


class UhpTimeoutError(UhpEngineError):
    """The engine gave no whole reply before the deadline (it was killed)."""


class UhpIllegalMoveError(UhpEngineError):
    """The engine answered ``bestmove`` with something that is not one legal move of the game."""


class UhpRefusedError(UhpEngineError):
    """The engine answered a command with ``err`` or ``invalidmove`` (its reply was whole: it is
    still in step)."""


def format_time(seconds: float) -> str:
    """``hh:mm:ss`` for UHP ``bestmove time``, rounded up to whole seconds (at least 1)."""
    total = max(1, math.ceil(seconds))
    return f"{total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d}"


def format_seconds(seconds: float) -> str:
    """Seconds to the millisecond (at least 1 ms) for ``bestmove seconds``, nokamute's extension."""
    return f"{max(seconds, 0.001):.3f}"


def clip(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} chars)"


def _quote_lines(lines: Sequence[str], most: int = 3) -> str:
    shown = ", ".join(repr(clip(ln)) for ln in lines[:most])
    return f"[{shown}{f', ... ({len(lines)} lines)' if len(lines) > most else ''}]"


def _die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the kernel SIGKILL the engine when its parent ends (Linux).

    ``PR_SET_PDEATHSIG`` fires when the *thread* that started the child ends, so it is set only
    from the main thread (whose end is the process's end); ``None`` elsewhere or off Linux.
    """
    if not sys.platform.startswith("linux") or threading.current_thread() is not threading.main_thread():
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # resolved before fork: the child only calls it
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl: nobody is left to signal us
            os._exit(1)

    return preexec


class UhpPlayer:
    """A UHP engine subprocess as a :class:`~players.base.Player`.

    ``options`` is asked once at start-up (an engine that refuses it has none); :meth:`set_option`
    sets one the engine lists and refuses in one line one it does not. A reader thread feeds the
    engine's output (bytes, decoded as UTF-8 with replacement characters) to a bounded queue; a
    whole reply must arrive before a deadline and within :data:`MAX_REPLY_LINES` lines of at most
    :data:`MAX_LINE_BYTES` bytes. After such a failure the engine is killed (its output can no
    longer be trusted to be in step). On Linux an engine started from the main thread gets
    ``PR_SET_PDEATHSIG`` = SIGKILL, so it dies with the process that started it.

    Args:
        cmd: the engine's command line, or an argv list. A string is split by
            :func:`shlex.split` (POSIX rules: quotes group, backslash escapes) and run *without
            a shell*: no globbing, pipes, redirections or ``$VARIABLES``.
        default_budget: used when ``choose`` gets none; depth wins over time.
        timeout_s: the deadline for start-up and for each whole reply, beyond the move's own time.
        name: the player's name (defaults to the command).
        cwd: working directory for the engine.
        threads, table_mib: set the engine's ``NumThreads`` / ``TableSizeMiB`` (None: its own).

    Raises:
        UhpEngineError: a bad command, the engine cannot be started or does not answer ``info``,
            or it does not list an option asked for.
    """

    def __init__(self, cmd: str | Sequence[str], default_budget: Budget | None = None,
                 timeout_s: float = 30.0, name: str | None = None, cwd: str | None = None,
                 threads: int | None = None, table_mib: int | None = None):
        try:
            argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
        except ValueError as e:
            raise UhpEngineError(f"bad engine command {clip(str(cmd))!r}: {e}") from None
        if not argv:
            raise UhpEngineError("empty engine command")
        self.name = name or f"uhp:cmd={' '.join(argv)}"
        self.default_budget = default_budget or Budget(time_s=1.0)
        self.timeout_s = timeout_s
        self._lines: queue.Queue[str | object | None] = queue.Queue(maxsize=MAX_REPLY_LINES + 8)
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._broken = False
        self.subsecond: bool | None = None
        """Whether the engine takes ``bestmove seconds`` (sub-second times); None: not asked yet."""
        self.options: dict[str, list[str]] = {}
        """The engine's options by name: the fields of its ``options`` line (type, value, default...)."""
        self.resyncs = 0
        """How many times the engine's game was out of step and was sent the whole game again."""
        self.commands = 0
        """Commands sent to the engine (``info`` included)."""
        self._engine_game: tuple[str, list[str]] | None = None  # (game type, moves) the engine has
        try:
            self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, cwd=cwd, preexec_fn=_die_with_parent())
        except (OSError, subprocess.SubprocessError) as e:
            raise UhpEngineError(f"cannot start engine {clip(argv[0])!r}: {e}") from None
        self._pumps = [threading.Thread(target=self._pump_stdout, daemon=True),
                       threading.Thread(target=self._pump_stderr, daemon=True)]
        for pump in self._pumps:
            pump.start()
        try:
            info = self._read_reply(self.timeout_s, "start-up")
        except UhpEngineError:
            self.close()
            raise
        self.engine_id = clip(next((ln[3:] for ln in info if ln.startswith("id ")), "unknown"))
        caps = info[1].split(";") if len(info) > 1 else []
        self.expansions = sum(_CAPABILITY_BITS.get(c.strip(), 0) for c in caps)
        try:
            self._read_options()
            for option, value in (("NumThreads", threads), ("TableSizeMiB", table_mib)):
                if value is not None:
                    self.set_option(option, value)
        except UhpEngineError:
            self.close()
            raise

    # ----- options -------------------------------------------------------------------------------
    def _read_options(self) -> None:
        """Ask ``options`` once; an engine that refuses it lists none."""
        try:
            lines = self._command("options", self.timeout_s)
        except UhpRefusedError:
            lines = []
        self.options = {}
        for line in lines:
            fields = line.split(";")
            if len(fields) >= 3 and fields[0].strip():
                self.options[fields[0].strip()] = [f.strip() for f in fields[1:]]

    @property
    def threads(self) -> int | None:
        """The engine's ``NumThreads`` as it last reported it (None: it lists no such option)."""
        fields = self.options.get("NumThreads")
        try:
            return int(fields[1]) if fields else None
        except ValueError:
            return None

    def set_option(self, name: str, value: object) -> None:
        """``options set NAME VALUE``; the engine's reply must show the new value.

        Raises:
            UhpEngineError: the engine does not list ``name`` (one line naming what it lists), or
                refused or ignored the value.
        """
        if name not in self.options:
            listed = ", ".join(self.options) or "none"
            raise UhpEngineError(f"engine {self.name!r} has no option {name} (its options: {listed})")
        text = str(value)
        reply = self._command(f"options set {name} {text}", self.timeout_s)
        fields = next((ln.split(";") for ln in reply if ln.split(";")[0].strip() == name), None)
        if fields is None or len(fields) < 3 or fields[2].strip().lower() != text.lower():
            raise UhpEngineError(f"engine {self.name!r} did not take {name}={text}: it answered "
                                 f"{_quote_lines(reply)}")
        self.options[name] = [f.strip() for f in fields[1:]]

    def limit_threads(self, threads: int) -> bool:
        """Ask the engine for ``threads`` search threads when it lists ``NumThreads`` (the arena's
        one core a side); False when it lists no such option."""
        if "NumThreads" not in self.options:
            return False
        if self.threads != threads:
            self.set_option("NumThreads", threads)
        return True

    # ----- process plumbing --------------------------------------------------------------------
    def _pump_stdout(self) -> None:
        """Engine lines into the queue (blocking while it is full); ``None`` at end of output."""
        stream = self._proc.stdout
        assert stream is not None
        while raw := stream.readline(MAX_LINE_BYTES):
            if len(raw) == MAX_LINE_BYTES and not raw.endswith(b"\n"):
                self._lines.put(_TOO_LONG)
                while (raw := stream.readline(MAX_LINE_BYTES)) and not raw.endswith(b"\n"):
                    pass  # skip the rest of the line without holding it
                continue
            self._lines.put(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        self._lines.put(None)

    def _pump_stderr(self) -> None:
        """Keep the last few stderr lines, clipped (an engine must never block on a full pipe)."""
        stream = self._proc.stderr
        assert stream is not None
        while raw := stream.readline(MAX_LINE_BYTES):
            text = raw.decode("utf-8", errors="replace").rstrip()
            if text:
                self._stderr.append(clip(text))

    def _died(self, what: str, kind: type[UhpEngineError] = UhpEngineError) -> UhpEngineError:
        """The error for a failed stream; the engine is killed (its output is out of step now)."""
        self._broken = True
        if self._proc.poll() is None:
            self._proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=5)
        self._pumps[1].join(timeout=1.0)  # its last words
        tail = " | ".join(self._stderr)
        return kind(f"engine {self.name!r} {what}" + (f" (stderr: {tail})" if tail else ""))

    def _read_reply(self, timeout: float, what: str) -> list[str]:
        """Lines up to (not including) ``ok``; the whole reply must come within ``timeout`` s."""
        deadline = monotonic() + timeout
        reply: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - monotonic()))
            except queue.Empty:
                raise self._died(f"gave no reply to {clip(what)} within {timeout:g} s",
                                 UhpTimeoutError) from None
            if line is None:
                raise self._died(f"exited while answering {clip(what)}")
            if line is _TOO_LONG:
                raise self._died(f"sent a line over {MAX_LINE_BYTES} bytes answering {clip(what)}")
            assert isinstance(line, str)
            if line == "ok":
                return reply
            reply.append(line)
            if len(reply) > MAX_REPLY_LINES:
                raise self._died(f"sent over {MAX_REPLY_LINES} lines without ok answering {clip(what)}: "
                                 f"{_quote_lines(reply)}")

    def _command(self, line: str, timeout: float) -> list[str]:
        """Send one command; its reply lines, or raise on ``err``/``invalidmove``."""
        if self._broken or self._proc.poll() is not None:
            raise self._died("is not running")
        try:
            assert self._proc.stdin is not None
            self.commands += 1
            self._proc.stdin.write(line.encode() + b"\n")
            self._proc.stdin.flush()
        except OSError:
            raise self._died(f"closed its input before {clip(line)!r}") from None
        reply = self._read_reply(timeout, repr(line))
        bad = [r for r in reply if r.startswith(("err", "invalidmove"))]
        if bad:
            raise UhpRefusedError(f"engine {self.name!r} refused {clip(line)!r}: {clip(bad[0])}")
        return reply

    def _bestmove_time(self, seconds: float) -> tuple[str, list[str]]:
        """Ask for a move within ``seconds``: the command sent and the reply.

        Whole seconds: ``bestmove time hh:mm:ss``. A fraction: ``bestmove seconds S.sss`` while
        the engine takes it (the first refusal switches to ``bestmove time``, rounded up).
        """
        wait = math.ceil(seconds) + self.timeout_s
        if self.subsecond is not False and seconds != math.ceil(seconds):
            command = f"bestmove seconds {format_seconds(seconds)}"
            try:
                reply = self._command(command, wait)
            except UhpRefusedError:
                self.subsecond = False
            else:
                self.subsecond = True
                return command, reply
        command = f"bestmove time {format_time(seconds)}"
        return command, self._command(command, wait)

    # ----- the Player interface ------------------------------------------------------------------
    def sync(self, game: Game) -> None:
        """Bring the engine's game in step with ``game``: the new moves as ``play``, ``undo``
        first where ``game`` went back, ``newgame <GameString>`` at a game's start or to resync.
        Every reply must name the game type, state and turn the game has after that command; a
        reply out of step, or a ``play``/``undo`` the engine refuses, is answered with one resync
        (``newgame`` with the whole GameString, counted in :attr:`resyncs`), and an engine still
        out of step then has lost sync (:class:`UhpEngineError`).

        Raises:
            ValueError: ``game`` has no GameString (a set-up position).
            UhpEngineError: the engine failed, or is out of step even after a resync.
        """
        try:
            game_string = game.game_string()
        except HiveError as e:
            raise ValueError(f"a UHP engine needs a GameString: {e}") from None
        fields = game_string.split(";")
        game_type, moves = fields[0], fields[3:]
        have = self._engine_game
        if have is not None and have[0] == game_type:
            common = 0
            for ours, theirs in zip(moves, have[1], strict=False):
                if ours != theirs:
                    break
                common += 1
            if common or not have[1]:
                try:
                    self._extend(game_type, have[1], moves, common)
                    return
                except _OutOfStepError:
                    self.resyncs += 1
        self._engine_game = None
        reply = self._command(f"newgame {game_string}", self.timeout_s)
        self._check_head(reply, ";".join(fields[:3]), f"newgame {game_string}", resync=False)
        self._engine_game = (game_type, moves)

    def _extend(self, game_type: str, have: list[str], moves: list[str], common: int) -> None:
        """``undo`` back to the ``common`` moves, then ``play`` the rest (raise _OutOfStepError when a
        reply does not match or the engine refuses)."""
        self._engine_game = None  # unknown until every reply matched
        try:
            if len(have) > common:
                reply = self._command(f"undo {len(have) - common}", self.timeout_s)
                self._check_head(reply, _head(game_type, moves[:common]), "undo")
            for k in range(common, len(moves)):
                reply = self._command(f"play {moves[k]}", self.timeout_s)
                self._check_head(reply, _head(game_type, moves[:k + 1]), f"play {moves[k]}")
        except UhpRefusedError as e:
            raise _OutOfStepError(str(e)) from None
        self._engine_game = (game_type, list(moves))

    def _check_head(self, reply: list[str], head: str, command: str, resync: bool = True) -> None:
        """The reply's last line must be a GameString starting with ``head`` (type;state;turn)."""
        got = ";".join(reply[-1].split(";")[:3]) if reply else ""
        if got == head:
            return
        if resync:
            raise _OutOfStepError(command)
        raise UhpEngineError(f"engine {self.name!r} lost sync: sent {head!r} (after {clip(command, 60)!r}), "
                             f"it has {_quote_lines(reply)}")

    def choose(self, game: Game, budget: Budget | None = None) -> int:
        """The engine's move for ``game``; the game itself is not changed.

        Raises:
            ValueError: the game is over, or has no GameString (a set-up position).
            UhpIllegalMoveError: the engine's answer is not one legal move.
            UhpEngineError: the engine failed (died, timed out, refused) or lost sync.
        """
        check_in_progress(game)
        if game.expansions & ~self.expansions:
            raise UhpEngineError(f"engine {self.name!r} does not support game type {game.game_type}")
        self.sync(game)
        b = resolve_budget(budget, self.default_budget)
        if b.depth is not None:
            command = f"bestmove depth {b.depth}"
            reply = self._command(command, self.timeout_s)
        else:
            command, reply = self._bestmove_time(b.time_s if b.time_s is not None else 1.0)
        reply = [r for r in reply if r.strip()]
        if len(reply) != 1:
            raise UhpIllegalMoveError(f"engine {self.name!r} answered {command!r} with "
                                      f"{_quote_lines(reply)}, not one move")
        try:
            return game.parse_move(reply[0])
        except HiveError as e:
            raise UhpIllegalMoveError(f"engine {self.name!r} played {clip(reply[0])!r}, illegal here: "
                                      f"{clip(str(e))}") from None

    def close(self) -> None:
        """End the engine: close its input (UHP engines exit at end of input), then kill it.

        A broken engine (a failed read) is killed at once. Safe to call twice.
        """
        proc = self._proc
        if proc.poll() is None and not self._broken:
            with contextlib.suppress(OSError):
                assert proc.stdin is not None
                proc.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=2)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        self._broken = True
        for pump in self._pumps:  # they end at the engine's end of output; drain so none waits on put
            for _ in range(100):
                while not self._lines.empty():
                    self._lines.get_nowait()
                pump.join(timeout=0.02)
                if not pump.is_alive():
                    break
        if not any(p.is_alive() for p in self._pumps):
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()

    def __enter__(self) -> UhpPlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _OutOfStepError(Exception):
    """The engine's game did not follow a ``play``/``undo`` (a resync is due)."""


def _head(game_type: str, moves: Sequence[str]) -> str:
    """``type;state;turn`` of a game in progress after ``moves`` (UHP's GameString head)."""
    n = len(moves)
    state = "InProgress" if n else "NotStarted"
    return f"{game_type};{state};{'White' if n % 2 == 0 else 'Black'}[{n // 2 + 1}]"


def make_player(seed: int, name: str, cmd: str, depth: int | None = None, time: float | None = None,
                timeout: float = 30.0, threads: int | None = None, table_mib: int | None = None) -> UhpPlayer:
    """The ``uhp`` spec kind (``players.registry``):
    ``uhp:cmd=COMMAND[,depth=N|time=S][,timeout=S][,threads=N][,table_mib=M]``.

    ``COMMAND`` runs *without a shell*: it is split by :func:`shlex.split` (POSIX rules: quotes
    group words, a backslash escapes) into a program and its arguments, so there is no globbing,
    no pipes or redirections and no ``$VARIABLES``; write ``sh -c '...'`` to get a shell.
    """
    from .registry import spec_budget

    return UhpPlayer(cmd, default_budget=spec_budget(time, depth, Budget(time_s=1.0)), timeout_s=timeout,
                     name=name, threads=threads, table_mib=table_mib)
