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
