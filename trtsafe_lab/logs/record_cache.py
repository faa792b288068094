"""What reading a record (or a run of lines) gave, for logs that repeat them.

Error-dense logs (a sweep of failing builds, a log pasted many times) repeat the same records
thousands of times. :class:`RecordCache` keeps a reading's result keyed on its text and on the
values of exactly the :class:`~trtsafe_lab.logs.parse_state.ParseState` fields the rules *read*
while reading it (recorded by :class:`TrackedState` on the first reading), so a repeat costs a
lookup and gives the same result: the reading is a function of its text and of those values.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from trtsafe_lab.logs import columns as C
from trtsafe_lab.logs.parse_state import ParseState
from trtsafe_lab.logs.records import Record

Row = dict[str, Any]

LINE_FIELDS = (C.LINE, C.END_LINE)  # row and event keys that hold line numbers
CACHE_CHARS = 8 << 20  # characters of record text stored (then the cache starts again)


def _is_line_field(name: str) -> bool:
    """ParseState fields holding a line number are named ``*_line``: kept relative to the
    record's first line in keys and results, so a repeat further on in the log matches."""
    return name.endswith("_line")


# Mutable field values (changed in place) are kept as hashable snapshots, made again on restore.
_FREEZE: dict[type, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    list: (tuple, list),
    set: (frozenset, set),
    dict: (lambda value: tuple(value.items()), dict),
}


def _frozen(value: Any) -> Any:
    """A field's value as a hashable snapshot."""
    freeze = _FREEZE.get(type(value))
    return freeze[0](value) if freeze is not None else value


class TrackedState:
    """Stands for the parser's :class:`ParseState` while the rules read a record for the first
    time: records the value of every field read before it is written (the record's result
    depends on those only) and which fields were written. The per-text caches the state holds
    (callables) are pure functions and not recorded."""

    __slots__ = ("reads", "state", "writes")

    def __init__(self, state: ParseState) -> None:
        object.__setattr__(self, "state", state)
        object.__setattr__(self, "reads", {})
        object.__setattr__(self, "writes", set())

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.state, name)
        if name not in self.reads and name not in self.writes and not callable(value):
            self.reads[name] = (_frozen(value), type(value) in _FREEZE)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        self.writes.add(name)
        setattr(self.state, name, value)


class _ReadSet:
    """The state fields one reading of a record depended on, and the results per their values."""

    def __init__(self, names: tuple[str, ...], lists: tuple[int, ...], lines: tuple[int, ...]):
        self.names = names
        getter = operator.attrgetter(*names) if names else None
        if getter is None:
            self.read: Callable[[Any], tuple[Any, ...]] = lambda state: ()
        elif len(names) == 1:
            self.read = lambda state: (getter(state),)
        else:
            self.read = getter
        self.lists = lists  # positions of mutable fields (compared as snapshots)
        self.lines = lines  # positions of line-number fields (compared relative to the record)
        self.results: dict[tuple[Any, ...], tuple[Any, ...]] = {}

    def values(self, state: ParseState, line: int) -> tuple[Any, ...]:
        current = self.read(state)
        if self.lists or self.lines:
            shifted = list(current)
            for position in self.lists:
                shifted[position] = _frozen(shifted[position])
            for position in self.lines:
                shifted[position] -= line
            current = tuple(shifted)
        return current


class RecordCache:
    """Results of reading records, for records the log repeats (see the module docstring).

    Key: the record's lines (line numbers relative to its first line), prefix and trigger flag.
    Under it, per set of state fields a reading depended on (usually one set), a table from
    those fields' values to the result: the rows, the event and the fields the reading changed.
    Line numbers in rows, events and ``*_line`` state fields are stored relative to the record.
    Bounded: at most :data:`CACHE_CHARS` characters of record text stored, then it starts again.
    """

    def __init__(self) -> None:
        self._items: dict[Any, list[_ReadSet]] = {}
        self._chars = 0

    @staticmethod
    def key(record: Record) -> tuple[Any, ...]:
        lines = record.lines
        if len(lines) == 1:
            relative: tuple[tuple[int, str], ...] = ((0, lines[0][1]),)
        else:
            first = record.line
            relative = tuple((number - first, text) for number, text in lines)
        return (relative, tuple(vars(record.prefix).values()), record.hit)

    def lookup(self, key: Any, state: ParseState, line: int) -> Any:
        """The stored payload for ``key`` when the state has the values its reading read (the
        fields it changed are set as it left them); None when there is none."""
        for read_set in self._items.get(key, ()):
            try:
                result = read_set.results.get(read_set.values(state, line))
            except TypeError:  # a field holds a value with no snapshot (not cached: read it)
                return None
            if result is None:
                continue
            after, payload = result
            for name, value, kind in after:
                if kind == "line":
                    value += line
                elif kind:
                    value = _FREEZE[kind][1](value)
                setattr(state, name, value)
            return payload
        return None

    def store(self, key: Any, tracked: TrackedState, payload: Any, line: int, size: int) -> None:
        """Keep ``payload`` (line numbers relative to ``line``) for ``key`` and the fields the
        reading read (``tracked``); ``size``: characters it holds, for the bound."""
        state = tracked.state
        names = tuple(tracked.reads)
        values = [tracked.reads[name][0] for name in names]
        lists = tuple(i for i, name in enumerate(names) if tracked.reads[name][1])
        lines = tuple(
            i
            for i, name in enumerate(names)
            if _is_line_field(name) and isinstance(values[i], int) and i not in lists
        )
        for position in lines:
            values[position] -= line
        after: list[tuple[str, Any, Any]] = []
        for name in sorted(set(names) | tracked.writes):
            value = getattr(state, name)
            if callable(value) or (
                name in tracked.reads and _frozen(value) == tracked.reads[name][0]
            ):
                continue  # unchanged
            if type(value) in _FREEZE:
                after.append((name, _frozen(value), type(value)))
            elif _is_line_field(name) and isinstance(value, int):
                after.append((name, value - line, "line"))
            else:
                after.append((name, value, ""))
        try:
            hash((tuple(values), tuple(after)))
        except TypeError:  # a field holds a value with no snapshot: this reading is not kept
            return
        if self._chars + size + 1 > CACHE_CHARS:
            self._items.clear()
            self._chars = 0
        self._chars += size + 1
        read_sets = self._items.setdefault(key, [])
        read_set = next((r for r in read_sets if r.names == names), None)
        if read_set is None:
            read_set = _ReadSet(names, lists, lines)
            read_sets.append(read_set)
        read_set.results[tuple(values)] = (tuple(after), payload)


def relative_record(record: Record, offset: int) -> Record:
    """A copy of ``record`` with its line numbers moved by ``offset``."""
    return Record(
        line=record.line + offset,
        prefix=record.prefix,
        lines=[(number + offset, text) for number, text in record.lines],
        hit=record.hit,
    )


def shift(row: Row, offset: int) -> Row:
    """A copy of ``row`` with its line numbers moved by ``offset``."""
    copy = dict(row)
    for name in LINE_FIELDS:
        if name in copy:
            copy[name] += offset
    return copy
