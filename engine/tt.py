"""The transposition table: what the search remembers of the positions it has searched.

A fixed-size list indexed by ``key & mask`` (its size a power of two, from the Hash option),
one :data:`Entry` per slot, its fields read by name (``entry[DEPTH]``); a new entry always
replaces the one in its slot. An entry's move may come from another position of the same slot
and key bits (a collision): the search checks it legal before playing it. Scores of won and
lost positions are stored relative to the node (the search converts them), so an entry serves
the same position at any distance from the root.
"""

from __future__ import annotations

from typing import Final

#: A table entry: an exact tuple, which the garbage collector stops tracking once it holds only
#: ints, where an object with named attributes stays tracked: with the table full, a full
#: collection took 3.7 ms instead of 1.0 at Hash 16 and 100 ms instead of 15 at Hash 256.
Entry = tuple[int, int, int, int, "int | None"]
#: The fields of an :data:`Entry`: the position's full key, the depth it was searched to, the
#: bound type of the score (:data:`EXACT`, :data:`LOWER`, :data:`UPPER`), the score (mates
#: relative to the node) and the best move found (None when the search found none).
KEY: Final = 0
DEPTH: Final = 1
BOUND: Final = 2
SCORE: Final = 3
MOVE: Final = 4

#: Bound types of an entry: the stored score is exact, a lower or an upper bound.
EXACT: Final = 0
LOWER: Final = 1
UPPER: Final = 2
#: Estimated bytes per entry, which sizes the table from the Hash option, measured with
#: sys.getsizeof: 80 for the tuple, ~36 for the 64-bit key, 28-32 each for score and move, an
#: 8-byte slot.
ENTRY_BYTES = 192
#: The smallest table, whatever the Hash option says.
MIN_ENTRIES = 1024
#: Table slots sampled for :meth:`Table.hashfull` (per mille of them in use).
HASHFULL_SAMPLE = 1000


class Table:
    """The table itself: ``entries[key & mask]`` is a position's slot (None while empty)."""

    __slots__ = ("entries", "mask", "megabytes")

    def __init__(self, megabytes: int) -> None:
        self.entries: list[Entry | None] = []
        self.mask = 0
        self.megabytes = 0
        self.resize(megabytes)

    def resize(self, megabytes: int) -> None:
        """Make the table (empty) about ``megabytes`` large."""
        self.megabytes = megabytes
        wanted = max(MIN_ENTRIES, megabytes * (1 << 20) // ENTRY_BYTES)
        size = 1 << (wanted.bit_length() - 1)  # a power of two, so key & mask indexes it
        self.entries = [None] * size
        self.mask = size - 1

    def clear(self) -> None:
        """Empty every slot, in place (a search under way keeps the same list)."""
        entries = self.entries
        entries[:] = [None] * len(entries)

    def probe(self, key: int) -> Entry | None:
        """The entry of the position ``key``, or None (an empty slot or another key's)."""
        entry = self.entries[key & self.mask]
        if entry is None or entry[KEY] != key:
            return None
        return entry

    def store(self, key: int, depth: int, bound: int, score: int, move: int | None) -> None:
        """Remember a searched position in its slot, over whatever was there."""
        self.entries[key & self.mask] = (key, depth, bound, score, move)

    def hashfull(self) -> int:
        """Per mille of the first slots in use (the UCI convention)."""
        sample = self.entries[:HASHFULL_SAMPLE]
        used = sum(1 for entry in sample if entry is not None)
        return used * 1000 // max(1, len(sample))
