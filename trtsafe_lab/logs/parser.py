"""Incremental parser: feed a log line by line (a live build) and read the tables at any time.

Error-dense logs (a sweep of failing builds, a log pasted many times) repeat the same records
thousands of times. :class:`RecordCache` keeps what reading a record gave (its rows, its event,
the state it left) keyed on the record's text and on the values of exactly the
:class:`~trtsafe_lab.logs.classify.ParseState` fields the rules *read* while reading it
(recorded on the first reading), so a repeat costs a lookup and gives the same result.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any

from trtsafe_lab.logs import columns as C
from trtsafe_lab.logs.classify import BlockFinding, ParseState, examine, is_reported, open_block
from trtsafe_lab.logs.names import members
from trtsafe_lab.logs.records import Record, RecordSplitter, is_record_start

Row = dict[str, Any]
# Parsers use the record cache unless told otherwise (``cache=False``). A hit runs no rule, so
# the cache only ever removes work: the linear-work tests switch it off here to count the work
# of reading every record afresh, the worst case.
RECORD_CACHE = True


class LogParser:
    """Parse a TensorRT build / parse / runtime log incrementally.

    ``feed(line)`` takes one physical line (``str`` or ``bytes``, with or without its newline)
    and returns the failure rows completed by it (a record completes when the next one starts);
    ``finish()`` closes the last record and returns its rows. ``failures`` and ``events`` hold
    every row so far (``events`` only when ``keep_events`` is true, the default), and
    :meth:`failures_frame` / :meth:`events_frame` return them as DataFrames (see
    :mod:`trtsafe_lab.logs.tables` for the columns).
    """

    def __init__(self, *, keep_events: bool = True, cache: bool | None = None) -> None:
        self.keep_events = keep_events
        use_cache = RECORD_CACHE if cache is None else cache
        self._cache = RecordCache() if use_cache else None
        self._segments = RecordCache() if use_cache else None
        self.failures: list[Row] = []
        self.events: list[Row] = []
        self._splitter = RecordSplitter()
        self._state = ParseState()
        self._line_no = 0

    @property
    def lines_read(self) -> int:
        return self._line_no

    @property
    def phase(self) -> str:
        """The phase the log is in after the records read so far (parse, build, runtime)."""
        return self._state.phase

    def skip_marker(self, phase: str) -> bool:
        """Apply a phase marker without feeding its record, when that is equivalent.

        For the streaming scan: an INFO/VERBOSE marker record changes only the phase, unless an
        ONNX NodeProto dump is open (its lines would count as dump lines). Returns False when
        the record must be fed instead. The open record is closed first either way.
        """
        self.break_record()
        if self._state.in_dump:
            return False
        self._state.phase = phase
        return True

    def feed(self, line: str | bytes | bytearray, line_no: int | None = None) -> list[Row]:
        """Add one physical line (numbered ``line_no``, default: the next one).

        ``bytes`` are read as UTF-8 (invalid bytes replaced). A UTF-16/UTF-32 file cannot be
        split into lines byte-wise: read it with :func:`~trtsafe_lab.logs.source.iter_lines`
        or :func:`~trtsafe_lab.logs.analyze_log`, which decode it first.
        """
        if isinstance(line, bytes | bytearray):
            line = line.decode("utf-8", errors="replace")
        if line.endswith("\n"):
            line = line[:-1]
        self._line_no = line_no if line_no is not None else self._line_no + 1
        return self._take(self._splitter.feed(self._line_no, line))

    def feed_lines(self, lines: Iterable[str | bytes]) -> list[Row]:
        """Feed many lines; return the failure rows they completed."""
        rows: list[Row] = []
        for line in lines:
            rows.extend(self.feed(line))
        return rows

    def break_record(self) -> list[Row]:
        """Close the open record (the next line starts a new one); return its rows."""
        return self._take(self._splitter.flush())

    def finish(self) -> list[Row]:
        """End of input: close the last record and return its rows."""
        rows = self.break_record()
        block = open_block(self._state)
        if block is not None:
            block_rows = self._block_rows(block)
            self.failures.extend(block_rows)
            rows.extend(block_rows)
        return rows

    def _take(self, records: list[Record]) -> list[Row]:
        rows: list[Row] = []
        for record in records:
            rows.extend(self._record(record))
        return rows

    def _record(self, record: Record) -> list[Row]:
        if self._cache is None:
            return self._read_record(record, self._state)
        key = RecordCache.key(record)
        line = record.line
        hit = self._cache.lookup(key, self._state, line)
        if hit is not None:
            rows = [_shift(row, line) for row in hit[0]]
            if hit[1] is not None:
                self.events.append(_shift(hit[1], line))
            self.failures.extend(rows)
            return rows
        events_before = len(self.events)
        tracked = _TrackedState(self._state)
        rows = self._read_record(record, tracked)  # type: ignore[arg-type]
        event = self.events[events_before] if len(self.events) > events_before else None
        payload = ([_shift(row, -line) for row in rows], _shift(event, -line) if event else None)
        self._cache.store(key, tracked, payload, line, sum(len(t) for _, t in record.lines))
        return rows

    def feed_run(self, segment: bytes, line_no: int) -> None:
        """Feed the physical lines of ``segment`` (split on ``\\n``; a last line may lack its
        newline), numbered from ``line_no``.

        The same as feeding them one by one. The streaming scan's windows of an error-dense
        log repeat: lines fed while no record is open are served from a cache keyed on them
        and on the state fields reading them read (as the record cache is)."""
        lines = segment.split(b"\n")
        if segment.endswith(b"\n"):
            lines.pop()
        open_record = self._splitter.open_record
        first = lines[0].decode("utf-8", "replace") if open_record is not None else ""
        if first and is_record_start(first):
            self.break_record()  # the first line would close it: the same
            open_record = None
        if self._segments is None or self.keep_events or open_record is not None:
            for number, raw in enumerate(lines, line_no):
                self.feed(raw, number)
            return
        key = segment
        hit = self._segments.lookup(key, self._state, line_no)
        if hit is None:
            before = len(self.failures)
            state, tracked = self._state, _TrackedState(self._state)
            self._state = tracked  # type: ignore[assignment]
            try:
                for number, raw in enumerate(lines, line_no):
                    self.feed(raw, number)
            finally:
                self._state = state
            left = self._splitter.open_record
            payload = (
                [_shift(row, -line_no) for row in self.failures[before:]],
                _relative_record(left, -line_no) if left is not None else None,
            )
            self._segments.store(key, tracked, payload, line_no, len(segment))
            return
        rows, left = hit
        self.failures.extend(_shift(row, line_no) for row in rows)
        if left is not None:
            self._splitter.reopen(_relative_record(left, line_no))
        self._line_no = line_no + len(lines) - 1

    def _read_record(self, record: Record, state: ParseState) -> list[Row]:
        facts = examine(record, state)
        message = record.message
        if self.keep_events:
            self.events.append(
                {
                    C.LINE: record.line,
                    C.END_LINE: record.end_line,
                    C.TIMESTAMP: record.prefix.timestamp,
                    C.SEVERITY: facts.severity,
                    C.SOURCE: facts.source,
                    C.ERROR_CODE: facts.error_code,
                    C.ERROR_NAME: facts.error_name,
                    C.ERROR_ENUM_NAME: C.error_enum(facts.error_code),
                    C.LOCATION: facts.location,
                    C.FUNCTION: facts.function,
                    C.PHASE: facts.phase,
                    C.MESSAGE: message,
                    C.NAMES: tuple(f.layer for f in facts.findings),
                }
            )
        early = self._block_rows(facts.abandoned_block) if facts.abandoned_block else []
        self.failures.extend(early)
        if not record.hit or not is_reported(facts):
            return early
        base = {
            C.SEVERITY: facts.severity,
            C.FATAL: facts.fatal,
            C.ERROR_CODE: facts.error_code,
            C.ERROR_NAME: facts.error_name,
            C.ERROR_ENUM_NAME: C.error_enum(facts.error_code),
            C.PHASE: facts.phase,
            C.SOURCE: facts.source,
            C.LOCATION: facts.location,
            C.FUNCTION: facts.function,
            C.MESSAGE: message,
            C.TENSORS: tuple(facts.tensors),
        }
        rows: list[Row] = []
        if facts.findings:
            for finding in facts.findings:
                rows.append(
                    {
                        **base,
                        C.LAYER: finding.layer,
                        C.MEMBERS: members(finding.layer),
                        C.CATEGORY: finding.category or facts.category,
                        C.LINE: finding.line,
                    }
                )
        else:
            rows.append(
                {
                    **base,
                    C.LAYER: "",
                    C.MEMBERS: (),
                    C.CATEGORY: facts.category or "other",
                    C.LINE: record.line,
                }
            )
        self.failures.extend(rows)
        return early + rows

    def _block_rows(self, block: BlockFinding) -> list[Row]:
        """The row of an ONNX-parser node block whose error line is missing."""
        row = {
            C.LAYER: block.layer,
            C.MEMBERS: members(block.layer),
            C.SEVERITY: "error",
            C.FATAL: True,
            C.CATEGORY: block.category,
            C.ERROR_CODE: None,
            C.ERROR_NAME: "",
            C.ERROR_ENUM_NAME: "",
            C.PHASE: "parse",
            C.LINE: block.line,
            C.SOURCE: "onnx-parser",
            C.LOCATION: "",
            C.FUNCTION: "",
            C.MESSAGE: block.message,
            C.TENSORS: (),
        }
        return [row]

    def failures_frame(self) -> Any:
        from trtsafe_lab.logs.tables import failures_frame

        return failures_frame(self.failures)

    def events_frame(self) -> Any:
        from trtsafe_lab.logs.tables import events_frame

        return events_frame(self.events)



# --- the record cache ------------------------------------------------------------------------
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


class _TrackedState:
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
            result = read_set.results.get(read_set.values(state, line))
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

    def store(self, key: Any, tracked: _TrackedState, payload: Any, line: int, size: int) -> None:
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


def _relative_record(record: Record, offset: int) -> Record:
    """A copy of ``record`` with its line numbers moved by ``offset``."""
    return Record(
        line=record.line + offset,
        prefix=record.prefix,
        lines=[(number + offset, text) for number, text in record.lines],
        hit=record.hit,
    )


def _shift(row: Row, offset: int) -> Row:
    """A copy of ``row`` with its line numbers moved by ``offset``."""
    copy = dict(row)
    for name in LINE_FIELDS:
        if name in copy:
            copy[name] += offset
    return copy
