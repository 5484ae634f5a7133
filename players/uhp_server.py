"""The UHP engine behind ``hive-uhp``: one line of the Universal Hive Protocol in, reply lines out.

``UhpEngine.handle(line)`` never raises for anything a user can type: every reply ends with
``ok``, a refused move is ``invalidmove <reason>``, any other failure ``err <message>`` (at most
:data:`MAX_REPLY` characters). Its options (``Player``, ``MaxDepth``, ``MaxTime``, ``Seed``,
``Leaves``, ``Level``) are listed in Mzinga's format. The stdin/stdout loop is
``scripts/uhp_engine.py``; :func:`read_lines` never keeps a line longer than :data:`MAX_LINE`.

See docs/players.md (``hive-uhp``) and docs/rules.md (the protocol).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TextIO

from hive_env import Game, HiveError
from hive_env.errors import quoted
from hive_zero import DISTRIBUTION, __version__

from .base import Budget, Player, PlayerSpecError, prepare_for
from .levels import MAX_LEVEL
from .registry import accepts_option, kinds_without_required_params, make_player, with_level, with_option

ENGINE_ID = f"id {DISTRIBUTION} v{__version__}"
"""The ``info`` reply's ``id`` line: the one version (``hive_zero.__version__``)."""
CAPABILITIES = "Mosquito;Ladybug;Pillbug"
DEFAULT_PLAYER = "alphazero"
"""The strongest player: the shipped network at its top level (``players.levels``), 1 s a move."""
DEFAULT_MAX_TIME = 60.0
MIN_MAX_TIME = 0.01
"""The smallest MaxTime: 0 (once "no cap") is refused, so every search ends."""
MAX_SECONDS = 86400.0
"""The longest time budget a command may ask for: a day."""
MAX_LINE = 64 * 1024
"""The longest command line kept, in characters; a longer one is read in chunks and discarded."""
MAX_REPLY = 300
"""The longest ``err`` or ``invalidmove`` line; a longer message is cut (a backstop: messages
quote their input with ``quoted``)."""
_TIME_RE = re.compile(r"^([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(?:\.[0-9]{1,9})?)$")
_NUMBER_RE = re.compile(r"^[0-9]{1,9}$")
"""A whole number ``int`` reads cheaply (ASCII digits, at most 9: Python refuses over 4,300)."""


class CommandError(Exception):
    """A command that cannot be carried out: answered ``err <message>``."""


@dataclass
class Option:
    name: str
    kind: str  # "enum", "int" or "double"
    value: object
    default: object
    low: float = 0
    high: float = 0
    choices: tuple[str, ...] = ()
    hint: str = ""  # appended to an out-of-range refusal

    def line(self) -> str:
        if self.kind == "enum":
            return ";".join([self.name, "enum", str(self.value), str(self.default), *self.choices])
        return f"{self.name};{self.kind};{self.value};{self.default};{self.low};{self.high}"

    def parse(self, text: str) -> object:
        if self.kind == "enum":
            for c in self.choices:
                if c.lower() == text.lower():
                    return c
            raise CommandError(f"{self.name} must be one of {', '.join(self.choices)}, not {quoted(text)}")
        what = "a whole number" if self.kind == "int" else "a number"
        if len(text) > 40:  # no number in range is this long; int() refuses over 4,300 digits
            raise CommandError(f"{self.name} must be {what} between {self.low} and {self.high}, "
                               f"not {quoted(text)}")
        try:
            value = int(text) if self.kind == "int" else float(text)
        except ValueError:
            raise CommandError(f"{self.name} must be {what}, not {quoted(text)}") from None
        if not self.low <= value <= self.high:
            raise CommandError(f"{self.name} must be between {self.low} and {self.high}, "
                               f"not {text}{self.hint}")
        return value


class UhpEngine:
    """The protocol state machine: one game, the options, and the player they choose.

    Args:
        player_spec: spec of the player answering ``bestmove`` (its kind becomes the Player option).
    """

    def __init__(self, player_spec: str = DEFAULT_PLAYER):
        kind = player_spec.partition(":")[0].strip()
        choices = tuple(sorted(set(kinds_without_required_params()) | {kind}))
        self.options = {o.name: o for o in (
            Option("Player", "enum", kind, DEFAULT_PLAYER, choices=choices),
            Option("MaxDepth", "int", 0, 0, 0, 60),
            Option("MaxTime", "double", DEFAULT_MAX_TIME, DEFAULT_MAX_TIME, MIN_MAX_TIME, MAX_SECONDS,
                   hint=" (every search has a time cap; 86400 = a day)"),
            Option("Seed", "int", 0, 0, 0, 2**31 - 1),
            Option("Leaves", "int", 0, 0, 0, 256),
            Option("Level", "int", 0, 0, 0, MAX_LEVEL),
        )}
        self.game: Game | None = None
        self._initial_spec = player_spec
        self._spec = player_spec
        self._player: Player | None = make_player(player_spec, 0)
        self._commands = {"info": self.info, "newgame": self.newgame, "play": self.play, "pass": self.pass_,
                          "validmoves": self.validmoves, "bestmove": self.bestmove, "undo": self.undo,
                          "options": self.options_}

    def warm_up(self) -> None:
        """Load the player's compiled kernels now, so the first timed ``bestmove`` is not late
        (one ply or one simulation: the ``alphazero`` player's own default is a second)."""
        assert self._player is not None
        self._player.choose(Game(), Budget(depth=1, sims=1))

    def close(self) -> None:
        if self._player is not None:
            self._player.close()
            self._player = None

    # ----- dispatch ----------------------------------------------------------------------------
    def handle(self, line: str) -> list[str]:
        """Reply lines (ending with ``ok``) to one input line; [] for an empty line."""
        words = line.split()
        if not words:
            return []
        command = self._commands.get(words[0].lower())
        try:
            if command is None:
                raise CommandError(f"unknown command {quoted(words[0])} (try info, newgame, play, pass, "
                                   "validmoves, bestmove, undo, options)")
            reply = command(line.strip()[len(words[0]):].strip())
        except CommandError as e:
            reply = [f"err {e}"]
        except HiveError as e:
            reply = [f"err {e}"]
        except Exception as e:  # noqa: BLE001 - nothing a user types may crash the engine
            reply = [f"err internal error: {type(e).__name__}: {e}"]
        return [*(_one_line(r) for r in reply), "ok"]

    def too_long(self, length: int) -> list[str]:
        """The reply to a command line of ``length`` characters, past :data:`MAX_LINE` (not kept)."""
        return [f"err line too long: {length} characters (at most {MAX_LINE}); ignored", "ok"]

    def _game(self) -> Game:
        if self.game is None:
            raise CommandError("no game in progress (send newgame first)")
        return self.game

    # ----- commands ----------------------------------------------------------------------------
    def info(self, args: str) -> list[str]:
        return [ENGINE_ID, CAPABILITIES]

    def newgame(self, args: str) -> list[str]:
        self.game = Game.from_string(args or "Base")
        return [self.game.game_string()]

    def play(self, args: str) -> list[str]:
        game = self._game()
        if not args:
            raise CommandError("play needs a MoveString, e.g. play wS1")
        try:
            game.play(args)
        except HiveError as e:
            return [f"invalidmove {e}"]
        return [game.game_string()]

    def pass_(self, args: str) -> list[str]:
        if args:
            raise CommandError(f"pass takes no argument, not {quoted(args)}")
        return self.play("pass")

    def validmoves(self, args: str) -> list[str]:
        game = self._game()
        if game.is_over:
            raise CommandError(f"the game is over ({game.state})")
        return [";".join(game.legal_move_strings())]

    def bestmove(self, args: str) -> list[str]:
        budget = self._parse_budget(args)
        game = self._game()
        if game.is_over:
            raise CommandError(f"the game is over ({game.state})")
        player = self._current_player()
        try:
            prepare_for(player, game.game_type)
        except PlayerSpecError as e:
            raise CommandError(str(e)) from None
        cap = float(self.options["MaxTime"].value)  # type: ignore[arg-type]
        if budget is None:
            budget = getattr(player, "default_budget", None) or Budget()
        if cap > 0 and budget.time_s is None:
            budget = replace(budget, time_s=cap)  # with depth or sims: whichever comes first
        return [game.move_string(player.choose(game, budget))]

    def _parse_budget(self, args: str) -> Budget | None:
        """The budget a bestmove asks for; None = the player's default."""
        words = args.split()
        if not words:
            depth = int(self.options["MaxDepth"].value)  # type: ignore[call-overload]
            return Budget(depth=depth) if depth else None
        if len(words) == 2 and words[0].lower() == "time":
            m = _TIME_RE.match(words[1])
            if m and int(m.group(2)) < 60 and float(m.group(3)) < 60:
                seconds = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
                if seconds <= MAX_SECONDS:
                    return Budget(time_s=seconds)
            raise CommandError(f"bestmove time needs hh:mm:ss up to 24:00:00, not {quoted(words[1])}")
        if len(words) == 2 and words[0].lower() == "seconds":
            try:
                seconds = float(words[1]) if len(words[1]) <= 40 else -1.0
            except ValueError:
                seconds = -1.0
            if 0 < seconds <= MAX_SECONDS:
                return Budget(time_s=seconds)
            raise CommandError("bestmove seconds needs a number of seconds in (0, 86400], "
                               f"not {quoted(words[1])}")
        if len(words) == 2 and words[0].lower() == "depth":
            if _NUMBER_RE.match(words[1]) and 1 <= int(words[1]) <= 60:
                return Budget(depth=int(words[1]))
            raise CommandError(f"bestmove depth needs a whole number 1..60, not {quoted(words[1])}")
        raise CommandError("expected bestmove, bestmove time hh:mm:ss, bestmove seconds S or "
                           f"bestmove depth N, not {quoted(args)}")

    def _current_player(self) -> Player:
        if self._player is None:
            spec = self._spec
            leaves = int(self.options["Leaves"].value)  # type: ignore[call-overload]
            level = int(self.options["Level"].value)  # type: ignore[call-overload]
            try:
                if leaves and accepts_option(spec, "leaves"):
                    spec = with_option(spec, "leaves", leaves)
                if level and accepts_option(spec, "level"):
                    spec = with_level(spec, level)
                self._player = make_player(spec, int(self.options["Seed"].value))  # type: ignore[arg-type]
            except PlayerSpecError as e:
                raise CommandError(str(e)) from None
        return self._player

    def undo(self, args: str) -> list[str]:
        game = self._game()
        if args and not re.fullmatch("[0-9]+", args):
            raise CommandError(f"undo needs a whole number of moves, not {quoted(args)}")
        if args and not _NUMBER_RE.match(args):
            raise CommandError(f"cannot undo {quoted(args)} plies: only {len(game.moves)} played")
        n = int(args) if args else 1
        if n < 1:
            raise CommandError("undo needs at least 1 move")
        game.undo(n)
        return [game.game_string()]

    def options_(self, args: str) -> list[str]:
        words = args.split()
        if not words:
            return [o.line() for o in self.options.values()]
        verb = words[0].lower()
        if verb in ("get", "set") and len(words) >= 2:
            option = next((o for o in self.options.values() if o.name.lower() == words[1].lower()), None)
            if option is None:
                raise CommandError(f"unknown option {quoted(words[1])} (options: {', '.join(self.options)})")
            if verb == "get" and len(words) == 2:
                return [option.line()]
            if verb == "set" and len(words) == 3:
                value = option.parse(words[2])
                if value != option.value:
                    option.value = value
                    if option.name == "Player":
                        same = value == self._initial_spec.partition(":")[0].strip()
                        self._spec = self._initial_spec if same else str(value)
                    if option.name in ("Player", "Seed", "Leaves", "Level"):
                        self.close()  # rebuilt on the next bestmove
                return [option.line()]
        raise CommandError("expected options, options get Name or options set Name Value, "
                           f"not {quoted(args)}")


def _one_line(reply: str) -> str:
    """A reply as one line; an ``err``/``invalidmove`` line at most :data:`MAX_REPLY` characters."""
    line = " ".join(reply.splitlines())
    if line.startswith(("err ", "invalidmove ")) and len(line) > MAX_REPLY:
        line = line[:MAX_REPLY - 3] + "..."
    return line


@dataclass(frozen=True)
class LineTooLong:
    """A command line longer than the limit, read and discarded: only its length is kept."""

    length: int


def read_lines(stream: TextIO, limit: int = MAX_LINE) -> Iterator[str | LineTooLong]:
    """The lines of ``stream`` (newline kept, as iteration gives them), until end of input.

    A line of more than ``limit`` characters (its newline not counted) is read on in chunks of
    ``limit`` and dropped: it comes as a :class:`LineTooLong`, so memory stays bounded however
    long a line a client sends.
    """
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if line.endswith("\n") or len(line) <= limit:
            yield line
            continue
        length = len(line)
        while line and not line.endswith("\n"):
            line = stream.readline(limit + 1)
            length += len(line)
        yield LineTooLong(length - line.endswith("\n"))
