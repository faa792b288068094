"""Streaming failure scan of a log file: memory bounded, skips what cannot matter.

The file is read in chunks of :data:`CHUNK_BYTES` into one reused buffer. In each chunk the
positions where a trigger of :mod:`trtsafe_lab.logs.triggers` can start are found with a few
vectorised numpy operations (first byte, then the first two or three bytes against the known
trigger prefixes), the survivors are checked with the triggers' regular expressions, and only
*windows* around the lines that hold a trigger are decoded and fed to :class:`LogParser`: the whole record
holding the trigger, the record before it (context such as the verbose ``ModelImporter ... inputs:``
line naming the node an ONNX parser error is about) and the record's continuation lines. A record
yields failure rows only when it holds a trigger (in the full parse too), so the skipped lines
cannot change the failure table; ``tests/test_logs_scan.py`` checks that the scan and the full
parse agree on every corpus log. Memory: one chunk, plus one line when a line is longer.
"""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np

from trtsafe_lab.logs.classify import marker_phase
from trtsafe_lab.logs.parser import LogParser
from trtsafe_lab.logs.records import MAX_CONTINUATION, is_record_start, parse_prefix, split_line
from trtsafe_lab.logs.source import MAX_LINE_BYTES, LogReadError, open_log
from trtsafe_lab.logs.triggers import (
    PREFIXES2,
    PREFIXES3,
    TRIGGER_GROUPS,
    has_error_trigger,
)

CHUNK_BYTES = 4 << 20
CONTEXT_LINES = 2 * MAX_CONTINUATION + 2  # lines kept from one chunk for the next one's windows

_PATTERNS = {first[0]: re.compile(pattern) for first, pattern in TRIGGER_GROUPS}
_FIRST_BYTES = tuple(_PATTERNS)
# 0: no trigger starts with these two bytes; 1: a trigger may; 2: look at the third byte too.
_LUT2 = np.zeros(1 << 16, dtype=np.uint8)
for _prefix in PREFIXES3:
    _LUT2[_prefix[0] << 8 | _prefix[1]] = 2
for _prefix in PREFIXES2:
    _LUT2[_prefix[0] << 8 | _prefix[1]] = 1
_SET3 = np.array(sorted(p[0] << 16 | p[1] << 8 | p[2] for p in PREFIXES3), dtype=np.uint32)


class _Scratch:
    """Boolean work arrays reused from chunk to chunk (fresh 4 MB arrays per chunk would cost
    page faults that take longer than the comparisons themselves)."""

    def __init__(self) -> None:
        self.mask = np.empty(0, dtype=bool)
        self.other = np.empty(0, dtype=bool)

    def arrays(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        if self.mask.size < size:
            self.mask = np.empty(size, dtype=bool)
            self.other = np.empty(size, dtype=bool)
        return self.mask[:size], self.other[:size]


def _candidates(data: bytes | bytearray, size: int, scratch: _Scratch | None = None) -> list[int]:
    """Positions in ``data[:size]`` whose first two or three bytes can start a trigger."""
    body = size - 2  # positions with two bytes after them; the last two are checked apart
    found: list[int] = []
    if body > 0:
        window = np.frombuffer(data, dtype=np.uint8, count=size)
        head = window[:body]
        mask, other = (scratch or _Scratch()).arrays(body)
        np.equal(head, _FIRST_BYTES[0], out=mask)
        for first in _FIRST_BYTES[1:]:
            np.equal(head, first, out=other)
            mask |= other
        index = np.flatnonzero(mask)
        pairs = window[index].astype(np.uint32) << 8 | window[index + 1]
        flags = _LUT2[pairs]
        keep = flags == 1
        third = np.flatnonzero(flags == 2)
        if third.size:
            triples = pairs[third] << 8 | window[index[third] + 2]
            keep[third] = np.isin(triples, _SET3)
        found = index[keep].tolist()
        del window, head
    found.extend(pos for pos in range(max(body, 0), size) if data[pos] in _PATTERNS)
    return found


def trigger_offsets(
    data: bytes | bytearray, end: int | None = None, scratch: _Scratch | None = None
) -> list[int]:
    """Offsets in ``data[:end]`` of lines holding a trigger (one per line, in order)."""
    size = len(data) if end is None else end
    found: list[int] = []
    line_end = -1
    for pos in _candidates(data, size, scratch):
        if pos < line_end:
            continue
        if _PATTERNS[data[pos]].match(data, pos, size):
            found.append(pos)
            newline = data.find(b"\n", pos, size)
            line_end = newline if newline != -1 else size
    return found


def _newlines(data: bytes | bytearray, start: int, end: int) -> int:
    """Number of newlines in ``data[start:end]`` (numpy counts long ranges ~3x faster)."""
    if end - start < 4096:
        return data.count(b"\n", start, end)
    view = np.frombuffer(data, dtype=np.uint8, count=end - start, offset=start)
    return int(np.count_nonzero(view == 10))


class _Window:
    """Feeds windows of one chunk of complete lines to the parser."""

    def __init__(
        self,
        parser: LogParser,
        data: bytes | bytearray,
        end: int,
        first_line: int,
        fed: int,
        scratch: _Scratch,
    ) -> None:
        self.parser = parser
        self.scratch = scratch
        self.data = data
        self.size = end  # data[:end] holds complete lines; the rest waits for the next chunk
        self.first_line = first_line
        self.fed = fed  # last line number already given to the parser
        self._cursor = 0
        self._cursor_line = first_line

    def line_at(self, offset: int) -> int:
        """Line number of the line holding ``offset`` (cheap when offsets go forwards)."""
        if offset >= self._cursor:
            self._cursor_line += _newlines(self.data, self._cursor, offset)
        else:
            self._cursor_line -= _newlines(self.data, offset, self._cursor)
        self._cursor = offset
        return self._cursor_line

    def line_start(self, offset: int) -> int:
        return self.data.rfind(b"\n", 0, offset) + 1

    def _text(self, start: int) -> bytes | bytearray:
        end = self.data.find(b"\n", start, self.size)
        return self.data[start : end if end != -1 else self.size]

    def back_to_head(self, start: int, line: int) -> tuple[int, int]:
        """Walk back from the line at ``start`` to the first line of its record."""
        for _ in range(MAX_CONTINUATION):
            if start == 0 or line <= self.fed + 1:
                break
            if is_record_start(self._text(start).decode("utf-8", "replace")):
                break
            start = self.line_start(start - 1)
            line -= 1
        return start, line

    def forward_to_next_head(self, start: int) -> tuple[int, bool]:
        """Offset of the next record's first line after the line at ``start``.

        Returns (offset, open): ``open`` is true when the chunk ended first.
        """
        size = self.size
        pos = self.data.find(b"\n", start, size)
        for _ in range(MAX_CONTINUATION + 1):
            if pos == -1 or pos + 1 >= size:
                return size, True
            pos += 1
            if is_record_start(self._text(pos).decode("utf-8", "replace")):
                return pos, False
            pos = self.data.find(b"\n", pos, size)
        return (pos + 1 if pos != -1 else size), pos == -1

    def feed(self, start: int, end: int, line: int) -> None:
        """Give lines ``data[start:end]`` (starting at line number ``line``) to the parser."""
        if line > self.fed + 1:
            self.parser.break_record()
        segment = self.data[start:end]
        lines = segment.split(b"\n")
        if segment.endswith(b"\n"):
            lines.pop()
        for raw in lines:
            if line > self.fed:
                self.parser.feed(raw, line)
                self.fed = line
            line += 1

    def run(self, extending: bool, new_lines_at: int) -> bool:
        """Feed every window of this chunk; return True when the last one is still open.

        ``extending``: the previous chunk ended inside a window, which goes on with the
        continuation lines at offset ``new_lines_at`` (the first line not yet fed).
        """
        data = self.data
        limit = 0  # offset up to which lines were fed
        if extending and new_lines_at < self.size and not self._starts_record(new_lines_at):
            end, still_open = self.forward_to_next_head(new_lines_at)
            self.feed(new_lines_at, end, self.fed + 1)
            if still_open:
                return True
            limit = end
        still_open = False
        for offset in trigger_offsets(data, self.size, self.scratch):
            if offset < limit:
                continue
            start = self.line_start(offset)
            text = self._text(start)
            if not has_error_trigger(text):
                # A phase marker only. The parser's open record is complete (windows end where
                # a record starts): close it, then skip the marker when it does not change the
                # phase, apply it directly when its record is an INFO/VERBOSE line that cannot
                # yield rows, else feed its record (no earlier context is needed for a marker).
                decoded = text.decode("utf-8", "replace")
                parts = split_line(decoded)
                prefix, _ = parse_prefix(parts[0])
                if is_record_start(decoded):
                    self.parser.break_record()
                    phase = marker_phase(decoded)
                    quiet = len(parts) == 1 and prefix.severity in ("info", "verbose")
                    if phase in ("", self.parser.phase) or (
                        quiet and self.parser.skip_marker(phase)
                    ):
                        limit = start + len(text)
                        continue
                    end, still_open = self.forward_to_next_head(start)
                    self.feed(start, end, self.line_at(start))
                    limit = end
                    if still_open:
                        break
                    continue
            line = self.line_at(start)
            head, head_line = self.back_to_head(start, line)
            if head > 0 and head_line > self.fed + 1:
                head, head_line = self.back_to_head(self.line_start(head - 1), head_line - 1)
            end, still_open = self.forward_to_next_head(start)
            self.feed(head, end, head_line)
            limit = end
            if still_open:
                break
        return still_open

    def _starts_record(self, offset: int) -> bool:
        return is_record_start(self._text(offset).decode("utf-8", "replace"))


def scan_failures(path: str | os.PathLike[str], *, chunk_bytes: int = CHUNK_BYTES) -> list[Any]:
    """Failure rows (dicts, see :mod:`trtsafe_lab.logs.tables`) of the log file at ``path``."""
    parser = LogParser(keep_events=False)
    handle = open_log(path)
    # One reused buffer: [context lines kept from the previous chunk | unread lines ...].
    buf = bytearray()
    filled = 0  # bytes of buf in use
    first_line = 1  # line number of the first line in buf
    context_end = 0  # where the context lines end (and the unread part starts) in buf
    cutting = False  # inside a line longer than MAX_LINE_BYTES: drop bytes until its newline
    fed = 0
    extending = False
    scratch = _Scratch()
    with handle:
        while True:
            if len(buf) < filled + chunk_bytes:
                buf.extend(bytes(filled + chunk_bytes - len(buf)))
            try:
                with memoryview(buf) as view:
                    count = handle.readinto(view[filled : filled + chunk_bytes])
            except OSError as err:
                raise LogReadError(f"reading log file '{path}' failed: {err}") from err
            eof = not count
            if cutting and count:
                newline = buf.find(b"\n", filled, filled + count)
                if newline == -1:
                    continue
                del buf[filled:newline]
                count -= newline - filled
                cutting = False
            filled += count
            end = filled if eof else buf.rfind(b"\n", context_end, filled) + 1
            if end <= context_end and not eof:  # no complete new line yet
                if filled - context_end > MAX_LINE_BYTES:
                    filled, cutting = context_end + MAX_LINE_BYTES, True
                continue
            window = _Window(parser, buf, end, first_line, fed, scratch)
            extending = window.run(extending, context_end)
            fed = window.fed
            if eof:
                break
            tail = _tail_start(buf, end)
            first_line = window.line_at(tail)
            keep = filled - tail
            buf[0:keep] = buf[tail:filled]
            filled = keep
            context_end = end - tail
            if filled - context_end > MAX_LINE_BYTES:
                filled, cutting = context_end + MAX_LINE_BYTES, True
    parser.finish()
    return parser.failures


def _tail_start(chunk: bytes | bytearray, end: int) -> int:
    """Offset of the last CONTEXT_LINES complete lines of ``chunk[:end]``."""
    pos = end - 1
    for _ in range(CONTEXT_LINES):
        previous = chunk.rfind(b"\n", 0, pos)
        if previous == -1:
            return 0
        pos = previous
    return pos + 1
