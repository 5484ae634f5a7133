"""Who a request comes from: an owner token in a cookie, so a game belongs to the client that made it.

On its first request a client gets ``hive_owner``, an unguessable token
(``secrets.token_urlsafe``, 192 bits) in an ``HttpOnly``, ``SameSite=Strict`` cookie (``Secure``
too when the request came over https), which the browser sends back on its own with every
same-origin ``fetch``; the page's script never sees it. Games are found by id *and* owner
(``web.sessions``), so a client that learns another's game id still gets 404, and one client's
games, caps and searches never touch another's. A request without a well-formed token gets a
fresh one; the token is not a login (there are no accounts), only a name for one browser.
"""

from __future__ import annotations

import re
import secrets

from starlette.requests import cookie_parser

COOKIE = "hive_owner"
TOKEN_BYTES = 24
"""Random bytes of a token (32 URL-safe characters)."""
_WELL_FORMED = re.compile(r"[A-Za-z0-9_-]{32}")


def new_token() -> str:
    """A fresh owner token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_of(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The well-formed owner token of a request's ``cookie`` headers, or None."""
    for name, value in headers:
        if name == b"cookie":
            token = cookie_parser(value.decode("latin-1")).get(COOKIE)
            if token is not None and _WELL_FORMED.fullmatch(token):
                return token
    return None


class OwnerCookie:
    """ASGI middleware: puts the client's token in ``request.state.owner``, issuing one (and its
    ``Set-Cookie``) to a client that has none."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        token = token_of(scope.get("headers", []))
        fresh = token is None
        if fresh:
            token = new_token()
        scope.setdefault("state", {})["owner"] = token
        if not fresh:
            return await self.app(scope, receive, send)
        secure = "; Secure" if scope.get("scheme") == "https" else ""
        cookie = f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict{secure}".encode("latin-1")

        async def send_with_cookie(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        return await self.app(scope, receive, send_with_cookie)
