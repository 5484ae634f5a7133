"""How an arena's games ended and under what conditions, as their records tell.

Every pairing counts its games' terminations (``arena.terminations``: queen surrounded,
repetition, ply cap, time forfeit, engine crash...), and every player its search threads as the
records show them, so a reader sees that each side searched on one core (``?`` where a player
cannot say, e.g. an engine without ``NumThreads``); the budget of the moves and whether the
games' processes were pinned to a core each complete the conditions.
"""

from __future__ import annotations

from collections.abc import Sequence

from hive_env.records.arena_record import ArenaRecord

from .config import ArenaConfig
from .terminations import TERMINATIONS, termination_of


def termination_counts(config: ArenaConfig, records: Sequence[ArenaRecord]
                       ) -> dict[tuple[int, int], dict[str, int]]:
    """Per pairing (``config.pairings()``, both colours), its games by termination, in the
    vocabulary's order (older records' words translated: ``arena.terminations``)."""
    counts: dict[tuple[int, int], dict[str, int]] = {pair: {} for pair in config.pairings()}
    for record in records:
        w, b = record.white_index, record.black_index
        pair = (w, b) if (w, b) in counts else (b, w)
        if pair in counts:
            word = termination_of(record) or "unknown"
            counts[pair][word] = counts[pair].get(word, 0) + 1
    order = {w: k for k, w in enumerate(TERMINATIONS)}
    return {pair: dict(sorted(c.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
            for pair, c in counts.items()}


def player_threads(n: int, records: Sequence[ArenaRecord]) -> list[str]:
    """Each player's search threads over its games: ``"1"``, a range ``"1-2"``, ``"?"`` when a
    game did not know, ``""`` when no record says (older records)."""
    seen: list[set[int | None]] = [set() for _ in range(n)]
    for record in records:
        threads = record.threads
        if isinstance(threads, list) and len(threads) == 2:
            seen[record.white_index].add(threads[0])
            seen[record.black_index].add(threads[1])
    out = []
    for values in seen:
        known = sorted(v for v in values if isinstance(v, int))
        text = "" if not known else (str(known[0]) if known[0] == known[-1] else f"{known[0]}-{known[-1]}")
        out.append(text + ("?" if None in values else "") if values else "")
    return out


def pinning(records: Sequence[ArenaRecord]) -> str:
    """``"pinned"`` when every recorded game ran on one core, ``"not pinned"`` when none did,
    ``"mixed"``, or ``""`` when no record says (records from before ``cpus``)."""
    kinds = {len(r.cpus) == 1 for r in records if isinstance(r.cpus, list) and r.cpus}
    if not kinds:
        return ""
    return "mixed" if len(kinds) == 2 else ("pinned" if kinds == {True} else "not pinned")


def budget_text(config: ArenaConfig, names: Sequence[str]) -> str:
    """The budget of the arena's moves in words: ``1 s a move``, ``clock 60+1``, with each
    spec's own ``time=`` (time odds) named (``names``: the players' short names)."""
    c = config
    if c.clock:
        return f"clock {c.clock} (base+increment seconds, shared out by the time manager)"
    parts = []
    if c.time_s is not None:
        parts.append(f"{c.time_s:g} s a move")
    if c.depth is not None:
        parts.append(f"depth {c.depth}")
    if c.sims is not None:
        parts.append(f"{c.sims} simulations")
    own = [f"{name} {b.time_s:g} s" for name, spec in zip(names, c.players, strict=True)
           if (b := c.side_budget(spec)) is not None and b.time_s is not None and b.time_s != c.time_s]
    text = ", ".join(parts) or "each player's own budget"
    return text + (f"; own time: {', '.join(own)}" if own else "")
