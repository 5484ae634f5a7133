"""Games in memory, one :class:`Session` per id, each owned by the client that made it.

A session holds a :class:`hive_env.Game`, who sits on each side (a person or an engine from
the allow-list, ``web.players``), the engines it has built and its owner's token
(``web.owners``). Every change of the game happens on the event loop, under the session's lock,
so two requests for one game never interleave; an engine thinks on a *copy* of the game in a
worker thread, and its move is played only if the session is still there and unchanged when it
comes back. Reading a position works on a :class:`Snapshot` (a copy taken on the loop), drawn in
a worker thread.

The store is shared by every client, so its limits never let one client push out another: a
client keeps at most ``per_client`` games (a new one replaces its own least recently used idle
game), the store at most ``max_sessions`` (when full, a client with no idle game of its own to
replace is refused 429), and only a game nobody has touched for ``idle_s`` seconds, with no
engine thinking, expires.

A game may have a clock (``players.clock``, ``BASE+INC`` seconds), kept here: the server is
the only authority on time. A person's clock runs from the moment their turn began here (the
game made, or the previous move played) until their move is applied; an engine's from the
moment its move request is taken until its move comes back, searched with the time manager's
share of what it has left. The increment is added after each move. A person whose time runs
out loses on time the first time anyone asks after it did (every answer counts the running
clock down to now), an engine when its late move comes back (the move is then not played).
Undo is refused in a clock game: the time a move took cannot be given back fairly.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from hive_env import Game, HiveError
from players import Budget
from players.clock import ClockControl, GameClock, move_share

from .players import Catalogue, Entry
from .settings import WebSettings
from .view import COLOURS, describe, forfeit_result, position_at

MAX_PLIES = 1000
"""Longest game the server keeps, in plies: a longer GameString is refused at load and a game
that reaches it takes no more moves. Far above real games (tournament games end well before 300
plies, the self-play cap ``hive_env.outcome.DEFAULT_PLY_CAP``), it bounds the work of loading a
GameString and of drawing a position (every answer replays the game's moves)."""


class SessionError(Exception):
    """A request a session refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass(frozen=True)
class Snapshot:
    """A session's game at one moment (a copy: drawing it off the loop races nothing).

    Attributes:
        id: the session's id.
        game: a copy of its game.
        seats: the entries sitting on White and Black.
        clock: the game's clock as of that moment (:meth:`Session.clock_state`), None without one.
        flagged: the side that lost on time (0 White, 1 Black), or None.
        hints: the hints given in the game so far (``POST .../hint``).
    """

    id: str
    game: Game
    seats: tuple[Entry, Entry]
    clock: dict | None = None
    flagged: int | None = None
    hints: int = 0

    def state(self, ply: int | None = None) -> dict:
        """The live position, or the position after ``ply`` plies (read-only browsing)."""
        game = self.game
        live = ply is None or ply == game.ply
        if not live:
            if not 0 <= ply <= game.ply:
                raise SessionError(400, f"ply {ply} is outside the game (0..{game.ply})")
            view = position_at(game, ply)
        else:
            view = game
        out = describe(view, live=live)
        if live and self.flagged is not None:  # lost on time: over, though the board is not
            out.update(result=forfeit_result(self.flagged), legal_moves=[])
            out["state"] = out["result"]["state"]
        seat = self.seats[view.side_to_move]
        moves = game.move_strings  # replays the game once, for both fields
        out.update({
            "id": self.id,
            "live": live,
            "live_ply": game.ply,
            "players": {c: e.public() for c, e in zip(COLOURS, self.seats, strict=True)},
            "to_move_kind": "human" if seat.kind == "human" else "engine",
            "moves": moves,
            "game_string": ";".join([f"{game.game_type};{game.state};{game.turn_string}", *moves]),
            "clock": self.clock,
            "hints": self.hints,
        })
        return out

    def legal_moves(self) -> list[dict]:
        """The live position's legal moves (none once a side has lost on time)."""
        return [] if self.flagged is not None else describe(self.game)["legal_moves"]


class Session:
    """One game, its two seats and its owner.

    Args:
        sid: the game's id.
        owner: the token of the client that made it.
        game: the game (already loaded).
        seats: the entries sitting on White and Black.
        catalogue: builds the engines.
        seed: seeds the engines' random choices.
        control: the game's clock control, None for a game without a clock.
        timer: the monotonic clock the game's clocks read (seconds; a fake one in tests).
    """

    def __init__(self, sid: str, owner: str, game: Game, seats: tuple[Entry, Entry], catalogue: Catalogue,
                 seed: int = 0, control: ClockControl | None = None,
                 timer: Callable[[], float] = time.monotonic):
        self.id = sid
        self.owner = owner
        self.game = game
        self.seats = seats
        self.catalogue = catalogue
        self.seed = seed
        self.engines: list = [None, None]
        self.lock = asyncio.Lock()
        self.version = 0
        """Changes of the game so far; an engine's move is played only on the version it saw."""
        self.closed = False
        self.last_used = time.monotonic()
        self.created = time.time()
        """When the game was made (wall-clock seconds, for the client's list of games)."""
        self.touched = self.created
        """When the game was last asked about (wall-clock seconds)."""
        self.hints = 0
        """Hints given in this game (``POST .../hint``); an undo keeps them counted."""
        self._engine_lock = threading.Lock()  # a timed-out search still holds its engine
        self._flag_lock = threading.Lock()  # guards _thinking and closed between loop and worker
        self._thinking = False
        self.clock = GameClock(control) if control is not None else None
        self.timer = timer
        self.turn_started = timer()
        """When the side to move's turn began (a person's clock runs from then)."""
        self.search_started: float | None = None
        """When the engine to move's request was taken, while it is being searched."""

    @property
    def busy(self) -> bool:
        """A request holds the game, or an engine is thinking on it (it must not expire)."""
        return self.lock.locked() or self._thinking

    @property
    def flagged(self) -> int | None:
        """The side that lost on time, or None (no clock, or no flag has fallen)."""
        return self.clock.flagged if self.clock is not None else None

    @property
    def over(self) -> bool:
        """The game has ended: on the board, or on time."""
        return self.game.is_over or self.flagged is not None

    # ----- the clock ----------------------------------------------------------------------------
    def _running(self) -> tuple[int, float] | None:
        """The side whose clock runs and when it started running, or None: no clock, the game
        is over, or an engine is to move and not being searched (its clock waits for its request)."""
        if self.clock is None or self.over:
            return None
        side = self.game.side_to_move
        if self.seats[side].kind == "human":
            return side, self.turn_started
        return (side, self.search_started) if self.search_started is not None else None

    def tick(self, now: float | None = None) -> None:
        """Let a person's flag fall when their time has run out by ``now`` (default: the
        timer's now; an engine's flag falls when its move comes back, :meth:`engine_move`)."""
        running = self._running()
        if running is not None and self.seats[running[0]].kind == "human":
            side, since = running
            elapsed = (self.timer() if now is None else now) - since
            if self.clock.remaining[side] - elapsed < 0:
                self.clock.charge(side, elapsed)
                self.version += 1

    def clock_state(self) -> dict | None:
        """The clock as the API shows it: the control, both sides' seconds left as of now (the
        running side's counted down), the side to move while the game goes on, and who flagged."""
        if self.clock is None:
            return None
        remaining = list(self.clock.remaining)
        running = self._running()
        if running is not None:
            remaining[running[0]] -= self.timer() - running[1]
        return {"control": str(self.clock.control), "remaining": [round(max(t, 0.0), 3) for t in remaining],
                "running": None if self.over else self.game.side_to_move, "flagged": self.flagged}

    def _charge(self, side: int, since: float, now: float | None = None) -> bool:
        """Charge ``side`` the time from ``since`` to ``now`` (plus the increment); True when its
        flag fell. The next turn starts ``now`` (default: the timer's now)."""
        now = self.timer() if now is None else now
        self.turn_started = now
        return self.clock is not None and self.clock.charge(side, now - since)

    def _check_flag(self, now: float | None = None) -> None:
        self.tick(now)
        if self.flagged is not None:
            raise SessionError(409, f"the game is over: {COLOURS[self.flagged].capitalize()} lost on time")

    # ----- reading ----------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """A copy of the game as it is now (cheap: arrays and move lists), its clock counted
        down to now (a flag that fell meanwhile falls first)."""
        self.tick()
        return Snapshot(self.id, self.game.copy(), self.seats, self.clock_state(), self.flagged, self.hints)

    def summary(self) -> dict:
        """One line of the client's list of games (``GET /api/games``): id, type, players,
        plies, state and result, hints, and when it was made and last touched (epoch seconds)."""
        result = forfeit_result(self.flagged) if self.flagged is not None else None
        if result is None and self.game.is_over:
            result = {"state": self.game.state}
        return {"id": self.id, "game_type": self.game.game_type,
                "players": {c: e.public() for c, e in zip(COLOURS, self.seats, strict=True)},
                "ply": self.game.ply, "state": result["state"] if result else self.game.state,
                "over": self.over, "hints": self.hints, "clock": self.clock is not None,
                "created": round(self.created, 3), "touched": round(self.touched, 3)}

    def state(self, ply: int | None = None) -> dict:
        """The live position, or the position after ``ply`` plies (see :meth:`Snapshot.state`)."""
        return self.snapshot().state(ply)

    # ----- changes ----------------------------------------------------------------------------
    def _check_room(self) -> None:
        if self.game.ply >= MAX_PLIES and not self.game.is_over:
            raise SessionError(409, f"the game has reached this server's limit of {MAX_PLIES} plies; "
                                    "start a new game")

    def play(self, text: str) -> None:
        """Play a MoveString for the side to move (a person's move), and charge its time."""
        now = self.timer()  # one reading: a move that passes the flag check is charged no later
        self._check_flag(now)
        self._check_room()
        side = self.game.side_to_move
        try:
            self.game.play(text)
        except HiveError as e:
            raise SessionError(400, f"illegal move: {e}") from None
        self._charge(side, self.turn_started, now)
        self.version += 1

    def undo(self, plies: int | None = None) -> None:
        """Take back ``plies`` plies; by default back to the last position where a person was
        to move before their latest move (one ply when both or neither side is a person).
        Refused in a clock game (the module docstring)."""
        if self.clock is not None:
            raise SessionError(409, "undo is off in a game with a clock (the time moves took cannot be "
                                    "given back); start a new game")
        game = self.game
        if plies is None:
            plies = 1
            humans = [e.kind == "human" for e in self.seats]
            if any(humans) and not all(humans):
                human = humans.index(True)
                while plies < len(game.moves) and (game.ply - plies) % 2 != human:
                    plies += 1
        if plies < 1 or plies > len(game.moves):
            raise SessionError(400, f"cannot undo {plies} plies: {len(game.moves)} played")
        game.undo(plies)
        self.version += 1

    def _engine(self, colour: int):
        if self.engines[colour] is None:
            self.engines[colour] = self.catalogue.build(self.seats[colour], seed=self.seed + colour)
        return self.engines[colour]

    async def engine_move(self, run: Callable[[Entry, Callable[[], int]], Awaitable[int]],
                          timeout_s: float, max_share_s: float | None = None) -> None:
        """The engine on the side to move chooses a move, which is played if the game is still
        here and unchanged when it comes back. In a clock game it searches the time manager's
        share of its time left (``players.clock.move_share``, counted when its search starts,
        the wait for a search slot taken off) and is charged the time from now until its move
        is back; a move back after its time ran out is not played: the engine lost on time.

        Args:
            run: awaits ``think()`` (the engine's choice, blocking) in a worker thread for the
                seat's entry, within the request's deadline (``web.app`` picks the pool).
            timeout_s: the request's time limit, for the message of a timeout.
            max_share_s: the most seconds a clock game's share may be (the request must end
                within ``timeout_s``); None: no cap.

        Raises:
            SessionError: the game is over, a person is to move, the engine ran out of time
                (504), or the game was deleted (404) or changed (409) while the engine thought;
                the game is then unchanged.
        """
        game = self.game
        self._check_flag()
        if game.is_over:
            raise SessionError(409, f"the game is over ({game.state})")
        self._check_room()
        colour = game.side_to_move
        if self.seats[colour].kind == "human":
            raise SessionError(409, f"{COLOURS[colour].capitalize()} is played by a person, not an engine")
        position, version = game.copy(), self.version
        started = self.timer()

        def budget() -> Budget | None:
            """The clock game's budget for this move, as of the start of its search."""
            if self.clock is None:
                return None
            share = move_share(self.clock.remaining[colour] - (self.timer() - started),
                               self.clock.control.increment_s)
            if max_share_s is not None:
                share = min(share, max_share_s)
            return self.catalogue.clock_budget(self.seats[colour], share)

        def think() -> int:
            with self._engine_lock:
                with self._flag_lock:
                    if self.closed:
                        raise SessionError(404, "the game was deleted while the engine waited; "
                                                "no move was played")
                    self._thinking = True
                try:
                    return int(self._engine(colour).choose(position, budget()))
                finally:
                    with self._flag_lock:
                        self._thinking, closed = False, self.closed
                    if closed:  # deleted while thinking: close() left the engines to us
                        self._close_engines()

        self.search_started = started if self.clock is not None else None
        try:
            move = await run(self.seats[colour], think)
        except TimeoutError:
            if self.clock is not None:  # the time is spent all the same (no increment: no move)
                self.clock.charge(colour, self.timer() - started, increment=False)
                self.version += 1
            raise SessionError(504, f"the engine found no move within {timeout_s:g} s (waiting for a "
                                    "search slot included); no move was played") from None
        finally:
            self.search_started = None
        if self.closed:
            raise SessionError(404, "the game was deleted or expired while the engine thought; "
                                    "no move was played")
        if self.version != version or game is not self.game:
            raise SessionError(409, "the game changed while the engine thought; no move was played")
        if not self._charge(colour, started):
            game.play(move)
        self.version += 1
        self.last_used = time.monotonic()

    def close(self) -> None:
        """Forget the game: its engines are closed now, or by the thread thinking with them."""
        with self._flag_lock:
            self.closed = True
            thinking = self._thinking
        if not thinking:
            self._close_engines()

    def _close_engines(self) -> None:
        engines, self.engines = self.engines, [None, None]
        for engine in engines:
            if engine is not None:
                engine.close()


class SessionStore:
    """The sessions of one server, by id, each visible to its owner only.

    Args:
        catalogue: the allow-list of players.
        settings: the caps ``max_sessions``, ``per_client`` and ``idle_s`` (``web.WebSettings``,
            which checks their ranges; None: its defaults).
        clock: the monotonic clock games' clocks read, in seconds (a fake one in tests; expiry
            keeps ``time.monotonic``).
    """

    def __init__(self, catalogue: Catalogue, settings: WebSettings | None = None,
                 clock: Callable[[], float] = time.monotonic):
        settings = settings or WebSettings()
        self.catalogue = catalogue
        self.max_sessions = settings.max_sessions
        self.per_client = settings.per_client
        self.idle_s = settings.idle_s
        self.clock = clock
        self._sessions: OrderedDict[str, Session] = OrderedDict()  # least recently used first

    def __len__(self) -> int:
        return len(self._sessions)

    def owned_by(self, owner: str) -> list[Session]:
        """The games of one client, least recently used first."""
        return [s for s in self._sessions.values() if secrets.compare_digest(s.owner, owner)]

    def create(self, owner: str, game: Game, seats: tuple[Entry, Entry], seed: int = 0,
               control: ClockControl | None = None) -> Session:
        """A new game of ``owner``'s (with a clock of ``control``, or none); at a cap, the
        client's own least recently used idle game makes room (never another client's).

        Raises:
            SessionError: 429 when the client is at its cap with every game busy, or the store
                is full and the client has no idle game of its own to replace.
        """
        self.expire()
        mine = self.owned_by(owner)
        while len(mine) >= self.per_client or len(self._sessions) >= self.max_sessions:
            idle = next((s for s in mine if not s.busy), None)
            if idle is None:
                if len(mine) >= self.per_client:
                    raise SessionError(429, f"you have {len(mine)} games open, each busy (at most "
                                            f"{self.per_client}); wait for one or delete one")
                raise SessionError(429, f"the server holds its maximum of {self.max_sessions} games; "
                                        "try again later")
            self.drop(idle.id)
            mine.remove(idle)
        session = Session(secrets.token_urlsafe(12), owner, game, seats, self.catalogue, seed, control,
                          self.clock)
        self._sessions[session.id] = session
        return session

    def get(self, sid: str, owner: str) -> Session:
        """The session of an id, if ``owner``'s, marked as used.

        Raises:
            SessionError: 404 for an unknown or expired id, or another client's game.
        """
        self.expire()
        session = self._sessions.get(sid)
        if session is None or not secrets.compare_digest(session.owner, owner):
            shown = sid if len(sid) <= 40 else sid[:37] + "..."
            raise SessionError(404, f"no game {shown!r} (unknown, or expired after {self.idle_s:g} s idle)")
        session.last_used = time.monotonic()
        session.touched = time.time()
        self._sessions.move_to_end(sid)
        return session

    def has(self, sid: str) -> bool:
        """Whether a game of that id is kept (not dropped, not expired; not marked as used)."""
        return sid in self._sessions

    def drop(self, sid: str) -> None:
        """Forget a game (nothing happens for an unknown id)."""
        session = self._sessions.pop(sid, None)
        if session is not None:
            session.close()

    def expire(self) -> None:
        """Drop the sessions idle for longer than ``idle_s`` (never one that is busy)."""
        now = time.monotonic()
        for sid in [s for s, v in self._sessions.items() if now - v.last_used > self.idle_s and not v.busy]:
            self._sessions.pop(sid).close()
