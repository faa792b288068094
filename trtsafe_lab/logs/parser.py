"""Incremental parser: feed a log line by line (a live build) and read the tables at any time."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from trtsafe_lab.logs import columns as C
from trtsafe_lab.logs.classify import BlockFinding, ParseState, examine, is_reported, open_block
from trtsafe_lab.logs.names import members
from trtsafe_lab.logs.records import Record, RecordSplitter

Row = dict[str, Any]


class LogParser:
    """Parse a TensorRT build / parse / runtime log incrementally.

    ``feed(line)`` takes one physical line (``str`` or ``bytes``, with or without its newline)
    and returns the failure rows completed by it (a record completes when the next one starts);
    ``finish()`` closes the last record and returns its rows. ``failures`` and ``events`` hold
    every row so far (``events`` only when ``keep_events`` is true, the default), and
    :meth:`failures_frame` / :meth:`events_frame` return them as DataFrames (see
    :mod:`trtsafe_lab.logs.tables` for the columns).
    """

    def __init__(self, *, keep_events: bool = True) -> None:
        self.keep_events = keep_events
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
            rows.extend(self._block_rows(block))
        return rows

    def _take(self, records: list[Record]) -> list[Row]:
        rows: list[Row] = []
        for record in records:
            rows.extend(self._record(record))
        return rows

    def _record(self, record: Record) -> list[Row]:
        facts = examine(record, self._state)
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
        self.failures.append(row)
        return [row]

    def failures_frame(self) -> Any:
        from trtsafe_lab.logs.tables import failures_frame

        return failures_frame(self.failures)

    def events_frame(self) -> Any:
        from trtsafe_lab.logs.tables import events_frame

        return events_frame(self.events)

