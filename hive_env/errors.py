"""The engine's exception types: one base class, one subclass per kind of bad input."""

from __future__ import annotations


class HiveError(ValueError):
    """Base class of every error the engine raises for bad input."""


class NotationError(HiveError):
    """A MoveString, tile name or game type that cannot be parsed."""


class IllegalMoveError(HiveError):
    """A well-formed move that is not legal in the current position."""


class GameStringError(HiveError):
    """A GameString whose header disagrees with its moves, or that cannot be parsed."""


QUOTE_CHARS = 40
"""How much of a bad input a message quotes: enough to recognise it, never a whole megabyte."""


def quoted(text: str, limit: int = QUOTE_CHARS) -> str:
    """``repr`` of ``text`` for a message; past ``limit`` characters its prefix and its length.

    ``quoted("wZ9")`` is ``'wZ9'``; a 5,000-character input is ``'1111...'... (5000 characters)``
    with its first ``limit`` characters, so a reply never echoes a huge line back.
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"
