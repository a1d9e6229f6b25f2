"""The one allocator of the engine's fixed layouts: the game state (state.py), the
observation (constants.py, O_*), and the records the batch kernels fill (records.py: G_*,
T_*, C_*, X_*).

Each layout hands out consecutive offsets by name; the offsets are plain module-level
ints, so numba freezes them into the kernels as compile-time constants (no lookup at run
time), and ``size`` is the layout's width.
"""


class Layout:
    """Consecutive named fields of one int64 vector: ``field(name, n)`` returns the offset
    of a field of ``n`` slots; ``fields`` maps each name to (offset, n); ``size`` is the
    width so far."""

    def __init__(self, what: str):
        self.what = what
        self.fields: dict[str, tuple[int, int]] = {}
        self.size = 0

    def field(self, name: str, n: int = 1) -> int:
        if name in self.fields:
            raise ValueError(f"{self.what}: the field {name!r} is laid out twice")
        off = self.size
        self.fields[name] = (off, n)
        self.size += n
        return off
