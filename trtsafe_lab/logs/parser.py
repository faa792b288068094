"""Incremental parser: feed a log line by line (a live build) and read the tables at any time.

Error-dense logs (a sweep of failing builds, a log pasted many times) repeat the same records
thousands of times: reading a record, and a run of lines, goes through a
:class:`~trtsafe_lab.logs.record_cache.RecordCache` (same results, one lookup per repeat).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from trtsafe_lab.logs import columns as C
from trtsafe_lab.logs.classify import examine, is_reported
from trtsafe_lab.logs.names import members
from trtsafe_lab.logs.node_blocks import BlockFinding, open_block
from trtsafe_lab.logs.parse_state import ParseState
from trtsafe_lab.logs.record_cache import RecordCache, Row, TrackedState, relative_record, shift
from trtsafe_lab.logs.records import Record, RecordSplitter, is_record_start

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
            rows = [shift(row, line) for row in hit[0]]
            if hit[1] is not None:
                self.events.append(shift(hit[1], line))
            self.failures.extend(rows)
            return rows
        events_before = len(self.events)
        tracked = TrackedState(self._state)
        rows = self._read_record(record, tracked)  # type: ignore[arg-type]
        event = self.events[events_before] if len(self.events) > events_before else None
        payload = ([shift(row, -line) for row in rows], shift(event, -line) if event else None)
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
            state, tracked = self._state, TrackedState(self._state)
            self._state = tracked  # type: ignore[assignment]
            try:
                for number, raw in enumerate(lines, line_no):
                    self.feed(raw, number)
            finally:
                self._state = state
            left = self._splitter.open_record
            payload = (
                [shift(row, -line_no) for row in self.failures[before:]],
                relative_record(left, -line_no) if left is not None else None,
            )
            self._segments.store(key, tracked, payload, line_no, len(segment))
            return
        rows, left = hit
        self.failures.extend(shift(row, line_no) for row in rows)
        if left is not None:
            self._splitter.reopen(relative_record(left, line_no))
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
