"""Serving ``hive-web`` with uvicorn under connection caps, for clients that may be hostile.

Uvicorn's own settings bound the header size, the idle time between requests and the requests in
flight, but leave a connection that never finishes its request head open for ever, and accept
any number of them. :func:`make_server` uses uvicorn's h11 protocol with three additions
(:func:`guarded_protocol`, :class:`ServerLimits`): a cap on open connections, a time limit on a
request head, and an answer to a client that half-closes after its request.

See docs/web.md (sharing a server).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from hive_zero.checks import bounded, check_ranges

MAX_HEADER_BYTES = 16 * 1024
"""Largest request head (request line and headers) accepted, in bytes (h11's default)."""


@dataclass(frozen=True)
class ServerLimits:
    """Caps on connections (flags of ``hive-web``).

    Attributes:
        max_connections: connections open at once (also uvicorn's ``limit_concurrency``); reference
            100, nginx's ``worker_connections`` default is 512 for a whole proxy.
        header_timeout: seconds to send a request head; reference 10 (nginx's
            ``client_header_timeout`` default is 60).
        keep_alive: seconds an idle connection stays open between requests (uvicorn's 5).
        max_header_bytes: largest request head.
    """

    max_connections: int = bounded(100, ge=1)
    header_timeout: float = bounded(10.0, gt=0.0)
    keep_alive: float = bounded(5.0, gt=0.0)
    max_header_bytes: int = bounded(MAX_HEADER_BYTES, ge=1)

    def __post_init__(self) -> None:
        check_ranges(self)


def _reply(status: int, reason: str, detail: str) -> bytes:
    """A whole HTTP/1.1 response that closes the connection (written outside h11's state)."""
    body = json.dumps({"detail": detail}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\nconnection: close\r\n"
            f"content-length: {len(body)}\r\n\r\n")
    return head.encode() + body


def guarded_protocol(limits: ServerLimits) -> type[H11Protocol]:
    """Uvicorn's h11 protocol with the connection cap, the request-head timeout and half-close
    handling of ``limits``:

    - at most ``max_connections`` connections are open at once; one more is answered 503 and
      closed at once;
    - a connection has ``header_timeout`` seconds to send a whole request head, from its first
      byte or from the end of its previous response (trickling bytes does not reset it), else it
      is answered 408 and closed;
    - a client that sends its request and then half-closes its side (``shutdown(SHUT_WR)``, as
      ``nc -N`` does) still gets its answer; the connection closes after it. Half-closing in the
      middle of a request is taking it back.

    The request body has its own time limit (``web.app``'s ``body_timeout``)."""
    busy = _reply(503, "Service Unavailable", f"too many connections (at most {limits.max_connections}); "
                                              "try again shortly")
    slow = _reply(408, "Request Timeout", f"request head not received within {limits.header_timeout:g} s")

    class GuardedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None
        _half_closed = False

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            if len(self.connections) > limits.max_connections:
                transport.write(busy)
                transport.close()
                return
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._head_timer is None and self._between_requests():
                self._arm()
            super().data_received(data)

        def handle_events(self) -> None:
            before = self.cycle
            super().handle_events()
            if self.cycle is not before:  # a request head arrived
                self._disarm()

        def eof_received(self) -> bool | None:
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete and not cycle.more_body:
                self._half_closed = True  # the request is whole: answer it, then close
                return True
            return None  # nothing (or half a request) sent: the transport closes

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._half_closed and not self.transport.is_closing():
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _between_requests(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(limits.header_timeout, self._head_timeout)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timeout(self) -> None:
            self._head_timer = None
            if self._between_requests() and not self.transport.is_closing():
                self.transport.write(slow)
                self.transport.close()

    return GuardedH11Protocol


def make_server(app, host: str, port: int, limits: ServerLimits = ServerLimits(),
                log_level: str = "warning") -> uvicorn.Server:
    """A uvicorn server for ``app`` under ``limits`` (call ``.run()``; stop with ``should_exit``)."""
    config = uvicorn.Config(
        app, host=host, port=port, log_level=log_level,
        http=guarded_protocol(limits),
        limit_concurrency=limits.max_connections + 1,  # it counts the asking connection too
        timeout_keep_alive=limits.keep_alive,
        h11_max_incomplete_event_size=limits.max_header_bytes,
    )
    return uvicorn.Server(config)
