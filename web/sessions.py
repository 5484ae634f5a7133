"""Games in memory, one :class:`Session` per id, isolated from each other.

A session holds a :class:`hive_env.Game`, who sits on each side (a person or an engine from
the allow-list, ``web.players``) and the engines it has built. Every change of the game
happens on the event loop; an engine thinks on a *copy* of the game in a worker thread,
under the session's lock, so a slow engine never blocks the page or another game, and two
requests for one game never interleave. The store keeps at most ``max_sessions`` games and
drops those idle for ``idle_s`` seconds (and, when full, the least recently used).
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

from hive_env import Game, HiveError

from .players import Catalogue, Entry
from .view import COLOURS, describe, position_at


class SessionError(Exception):
    """A request a session refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status = status
        self.detail = detail


class Session:
    """One game and its two seats.

    Args:
        game: the game (already loaded).
        seats: the entries sitting on White and Black.
        catalogue: builds the engines.
        seed: seeds the engines' random choices.
    """

    def __init__(self, sid: str, game: Game, seats: tuple[Entry, Entry], catalogue: Catalogue, seed: int = 0):
        self.id = sid
        self.game = game
        self.seats = seats
        self.catalogue = catalogue
        self.seed = seed
        self.engines: list = [None, None]
        self.lock = asyncio.Lock()
        self._engine_lock = threading.Lock()  # a timed-out search still holds its engine
        self.last_used = time.monotonic()

    # ----- reading ----------------------------------------------------------------------------
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
        seat = self.seats[view.side_to_move]
        out.update({
            "id": self.id,
            "live": live,
            "live_ply": game.ply,
            "players": {c: e.public() for c, e in zip(COLOURS, self.seats, strict=True)},
            "to_move_kind": "human" if seat.kind == "human" else "engine",
            "moves": game.move_strings,
            "game_string": game.game_string(),
        })
        return out

    # ----- changes ----------------------------------------------------------------------------
    def play(self, text: str) -> None:
        """Play a MoveString for the side to move (a person's move)."""
        try:
            self.game.play(text)
        except HiveError as e:
            raise SessionError(400, f"illegal move: {e}") from None

    def undo(self, plies: int | None = None) -> None:
        """Take back ``plies`` plies; by default back to the last position where a person was
        to move before their latest move (one ply when both or neither side is a person)."""
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

    def _engine(self, colour: int):
        if self.engines[colour] is None:
            self.engines[colour] = self.catalogue.build(self.seats[colour], seed=self.seed + colour)
        return self.engines[colour]

    async def engine_move(self, pool: ThreadPoolExecutor, timeout_s: float) -> None:
        """The engine on the side to move chooses and plays a move.

        Raises:
            SessionError: the game is over, a person is to move, or the engine ran past
                ``timeout_s`` (the game is then unchanged).
        """
        game = self.game
        if game.is_over:
            raise SessionError(409, f"the game is over ({game.state})")
        colour = game.side_to_move
        if self.seats[colour].kind == "human":
            raise SessionError(409, f"{COLOURS[colour].capitalize()} is played by a person, not an engine")
        position = game.copy()

        def think() -> int:
            with self._engine_lock:
                return int(self._engine(colour).choose(position))

        loop = asyncio.get_running_loop()
        try:
            move = await asyncio.wait_for(loop.run_in_executor(pool, think), timeout_s)
        except TimeoutError:
            raise SessionError(504, f"the engine took over {timeout_s:g} s; no move was played") from None
        game.play(move)

    def close(self) -> None:
        for engine in self.engines:
            if engine is not None:
                engine.close()
        self.engines = [None, None]


class SessionStore:
    """The sessions of one server, by id.

    Args:
        catalogue: the allow-list of players.
        max_sessions: most games kept at once.
        idle_s: a game untouched this long is dropped.
    """

    def __init__(self, catalogue: Catalogue, max_sessions: int = 64, idle_s: float = 3600.0):
        self.catalogue = catalogue
        self.max_sessions = max_sessions
        self.idle_s = idle_s
        self._sessions: OrderedDict[str, Session] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def create(self, game: Game, seats: tuple[Entry, Entry], seed: int = 0) -> Session:
        self.expire()
        while len(self._sessions) >= self.max_sessions:
            _, oldest = self._sessions.popitem(last=False)
            oldest.close()
        session = Session(secrets.token_urlsafe(12), game, seats, self.catalogue, seed)
        self._sessions[session.id] = session
        return session

    def get(self, sid: str) -> Session:
        """The session of an id, marked as used.

        Raises:
            SessionError: 404 for an unknown or expired id.
        """
        self.expire()
        session = self._sessions.get(sid)
        if session is None:
            shown = sid if len(sid) <= 40 else sid[:37] + "..."
            raise SessionError(404, f"no game {shown!r} (unknown, or expired after {self.idle_s:g} s idle)")
        session.last_used = time.monotonic()
        self._sessions.move_to_end(sid)
        return session

    def drop(self, sid: str) -> None:
        """Forget a game (nothing happens for an unknown id)."""
        session = self._sessions.pop(sid, None)
        if session is not None:
            session.close()

    def expire(self) -> None:
        """Drop the sessions idle for longer than ``idle_s``."""
        now = time.monotonic()
        for sid in [s for s, v in self._sessions.items() if now - v.last_used > self.idle_s]:
            self._sessions.pop(sid).close()
