"""Boards for people: ``text`` (terminal, with colours) and ``plot`` (matplotlib hexes)."""
