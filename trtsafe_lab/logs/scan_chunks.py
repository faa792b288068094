"""The streaming scan's chunks: the file read in pieces into one reused buffer (the lines kept
from one chunk for the next one's windows, then the new lines), the same for the scan and its
worker (:mod:`trtsafe_lab.logs.scan_worker`: the chunk loop it runs, without parsing), and the
bytes-level pass this process does itself (Hyperscan's, or one regular expression on a small file).
"""

from __future__ import annotations

import copy
import io
import os
import re
import stat
from collections.abc import Callable
from typing import Any

from trtsafe_lab.logs.scan_worker import (
    ChunkTriggers,
    PreadReader,
    Progress,
    TriggerWorker,
    Work,
    can_fork_worker,
    skipped,
    spare_cpu,
)
from trtsafe_lab.logs.source import MAX_LINE_BYTES, LogReadError, open_log
from trtsafe_lab.logs.triggers import TRIGGER_GROUPS

CHUNK_BYTES = 4 << 20
# Lines kept from one chunk for the next one's windows: a trigger's record and the
# classify.CONTEXT_RECORDS records before it, each of at most records.MAX_CONTINUATION lines,
# and 2 more: (3 + 1) * 400 + 2. Written out, not imported: this module imports neither (their
# regular expressions take ~20 ms to compile), so the worker is forked before they load;
# tests/test_logs_scan_chunks.py checks the figure against both.
CONTEXT_LINES = 1602
WORKER_MIN_BYTES = 64 << 20  # smaller files are scanned by one process (a fork costs more)
WAIT_FOR_WORKER = False  # tests: let the worker finish first


class Chunks:
    """The scan's buffer: [context lines kept from the previous chunk | unread lines ...], read
    from ``handle`` in pieces of ``chunk_bytes``. Which chunks a file gives depends on its bytes
    only: the worker, reading the same file, gets the same ones."""

    def __init__(self, handle: Any, chunk_bytes: int, path: str | os.PathLike[str]) -> None:
        self.handle = handle
        self.chunk_bytes = chunk_bytes
        self.path = path
        self.buf = bytearray()
        self.filled = 0  # bytes of buf in use
        self.first_line = 1  # line number of the first line in buf
        self.context_end = 0  # where the context lines end (and the unread part starts) in buf
        self.end = 0  # buf[:end] holds complete lines (all of the file's rest at its end)
        self.eof = False
        self.cutting = False  # inside a line longer than MAX_LINE_BYTES: drop bytes to its end
        self.number = -1  # chunks read so far, less one

    def read(self) -> None:
        """Read until ``buf[context_end:end]`` holds new complete lines, or the file ended."""
        buf = self.buf
        while True:
            filled, chunk_bytes = self.filled, self.chunk_bytes
            if len(buf) < filled + chunk_bytes:
                buf.extend(bytes(filled + chunk_bytes - len(buf)))
            try:
                with memoryview(buf) as view:
                    count = self.handle.readinto(view[filled : filled + chunk_bytes])
            except OSError as err:
                raise LogReadError(f"reading log file '{self.path}' failed: {err}") from err
            self.eof = not count
            if self.cutting and count:
                newline = buf.find(b"\n", filled, filled + count)
                if newline == -1:
                    continue
                del buf[filled:newline]
                count -= newline - filled
                self.cutting = False
            self.filled = filled = filled + count
            context_end = self.context_end
            self.end = filled if self.eof else buf.rfind(b"\n", context_end, filled) + 1
            if self.end <= context_end and not self.eof:  # no complete new line yet
                if filled - context_end > MAX_LINE_BYTES:
                    self.filled, self.cutting = context_end + MAX_LINE_BYTES, True
                continue
            self.number += 1
            return

    def advance(self, tail: int, tail_line: int) -> None:
        """Keep the lines from ``tail`` (numbered from ``tail_line``) as the next context."""
        buf, filled = self.buf, self.filled
        keep = filled - tail
        buf[0:keep] = buf[tail:filled]
        self._kept(keep, tail, tail_line)

    def _kept(self, keep: int, tail: int, tail_line: int) -> None:
        """The state once ``buf[:keep]`` holds the lines kept from ``tail``."""
        self.filled = keep
        self.first_line = tail_line
        self.context_end = self.end - tail
        if keep - self.context_end > MAX_LINE_BYTES:
            self.filled, self.cutting = self.context_end + MAX_LINE_BYTES, True

    def successor(self, tail: int, spare: bytearray | None = None) -> Chunks:
        """The next chunk's buffer as :meth:`advance` (from ``tail``) and :meth:`read` would
        leave this one, made and read now, without changing this one (it reads with its own
        :class:`PreadReader` from where this one stopped; this one must read with one too).
        Its ``first_line`` is unknown (0) until the caller sets it. ``spare``: a buffer no
        longer used (an earlier chunk's) to read into: a fresh one per chunk cost its page
        faults again."""
        following = copy.copy(self)
        keep = self.filled - tail
        buf = spare if spare is not None and spare is not self.buf else bytearray()
        if len(buf) < keep:
            buf.extend(bytes(keep - len(buf)))
        with memoryview(self.buf) as view:
            buf[0:keep] = view[tail : self.filled]
        following.buf = buf
        reader = self.handle
        following.handle = PreadReader(reader.fd, reader.offset)
        following._kept(keep, tail, 0)
        following.read()
        return following


def worker_part(chunk_bytes: int, path: str | os.PathLike[str]) -> Work:
    """What the worker runs (in the child): the chunk loop without parsing, sending each
    chunk's trigger lines, their line numbers and the next context's start. Line numbers are
    counted from the chunk's buffer (its first line is 0; the parent adds that line's number):
    a chunk the parent took over is skipped without counting its newlines."""

    def work(
        fd: int, start: int, send: Callable[[ChunkTriggers], None], progress: Progress
    ) -> None:
        # The first chunk is claimed before Hyperscan loads (~25 ms with its database; numpy
        # loads after that chunk is sent): the parent, loading the parser's modules meanwhile,
        # waits for it instead of loading them too.
        wanted = progress.begin(0)
        from trtsafe_lab.logs import scan_bytes

        chunks = Chunks(PreadReader(fd, start), chunk_bytes, path)
        scratch = scan_bytes.Scratch()
        while True:
            # the first chunk counted without numpy (loaded once it is sent, before the second
            # is claimed: the parent is still parsing the first then)
            plain = chunks.number < 0
            if not plain:
                wanted = progress.begin(chunks.number + 1)  # the parent waits for it from here
            chunks.read()
            buf, end, number, begin = chunks.buf, chunks.end, chunks.number, chunks.context_end
            tail = 0 if chunks.eof else scan_bytes.tail_start(buf, end, CONTEXT_LINES, plain)
            if wanted:
                offsets = scan_bytes.trigger_offsets(buf, end, scratch, begin)
                lines, tail_line = scan_bytes.lines_of(buf, offsets, 0, tail, plain)
                send(ChunkTriggers(number, begin, end, offsets, lines, tail, tail_line))
            else:
                send(skipped(number, begin, end))
            if chunks.eof:
                return
            if plain:  # numpy loaded before the next chunk is claimed (the parent waits then)
                import numpy  # noqa: F401
            chunks.advance(tail, 0)  # line numbers relative to each chunk's buffer

    return work


SMALL_FILE_BYTES = 8 << 20  # smaller files: triggers found by one regex (no numpy, Hyperscan)


class OwnTriggers:
    """The bytes-level pass done by this process: Hyperscan's and numpy's (imported on first
    use), or, for a small file, the triggers' combined regular expression and ``bytes`` methods
    (importing them would take longer than the whole pass; :func:`small_trigger_offsets`)."""

    def __init__(self, small: bool) -> None:
        self.small = small
        if small:
            return
        from trtsafe_lab.logs import scan_bytes

        self._bytes = scan_bytes
        self._scratch = scan_bytes.Scratch()

    def find(
        self, data: bytes | bytearray, size: int, begin: int
    ) -> tuple[list[int], list[int] | None]:
        if self.small:
            return small_trigger_offsets(data, size, begin), None
        return self._bytes.trigger_offsets(data, size, self._scratch, begin), None

    def tail(self, data: bytes | bytearray, end: int) -> int:
        """Where the last CONTEXT_LINES complete lines of ``data[:end]`` start."""
        if not self.small:
            return self._bytes.tail_start(data, end, CONTEXT_LINES)
        pos = end - 1  # as tail_start(plain=True), without importing scan_bytes
        for _ in range(CONTEXT_LINES):
            pos = data.rfind(b"\n", 0, pos)
            if pos == -1:
                return 0
        return pos + 1


# every trigger group at once: a small file's bytes-level pass
_TRIGGER_BYTES = re.compile(b"|".join(pattern for _, pattern in TRIGGER_GROUPS))


def small_trigger_offsets(data: bytes | bytearray, size: int, begin: int = 0) -> list[int]:
    """:func:`~trtsafe_lab.logs.scan_bytes.trigger_offsets` with one regular expression (all
    the trigger groups) and no numpy: the first trigger of each line of ``data[begin:size]``
    holding one (no trigger match crosses a line end; ``tests/test_logs_robust.py`` compares
    the two on generated bytes)."""
    found: list[int] = []
    line_end = -1
    for match in _TRIGGER_BYTES.finditer(data, begin, size):
        pos = match.start()
        if pos < line_end:
            continue
        found.append(pos)
        line_end = data.find(b"\n", pos, size)
        if line_end == -1:
            line_end = size
    return found


class Started:
    """A log file opened for the scan, with its worker when one was forked: ``reader`` is what
    the chunks are read from (at offsets when the worker runs: the next chunk can be read
    ahead), ``own`` this process's bytes pass (made when first needed). A
    plain class: ``dataclasses`` loads after the fork (see :class:`ChunkTriggers`)."""

    def __init__(
        self,
        handle: Any,
        path: str | os.PathLike[str],
        chunk_bytes: int,
        small: bool,
        reader: Any,
        helper: TriggerWorker | None = None,
        own: OwnTriggers | None = None,
    ) -> None:
        self.handle = handle
        self.path = path
        self.chunk_bytes = chunk_bytes
        self.small = small
        self.reader = reader
        self.helper = helper
        self.own = own


def start_scan(
    handle: Any, path: str | os.PathLike[str], chunk_bytes: int, worker: bool | None
) -> Started:
    """Fork the worker for the log open as ``handle`` when ``worker`` asks for it (see
    :func:`trtsafe_lab.logs.scan.scan_failures`)."""
    raw = getattr(handle, "raw", None)  # a plain file, not a UTF-16/32 one decoded
    info = os.fstat(raw.fileno()) if isinstance(raw, io.FileIO) else None
    size = info.st_size if info is not None and stat.S_ISREG(info.st_mode) else None
    small = size is not None and size < SMALL_FILE_BYTES  # not a pipe either
    started = Started(handle, path, chunk_bytes, small, handle)
    if worker is False or size is None:
        return started
    if not (worker or (size >= WORKER_MIN_BYTES and spare_cpu())) or not can_fork_worker():
        return started
    assert raw is not None
    # Forked before numpy and Hyperscan load: the child loads them while this process loads
    # the parser's modules; this one loads them only if it finds a chunk's triggers itself.
    start = handle.tell()  # the worker and the reader begin here: after a UTF-8 byte-order mark
    helper = TriggerWorker.start(raw.fileno(), start, worker_part(chunk_bytes, path))
    if helper is not None:
        if WAIT_FOR_WORKER:
            helper.wait()
        started.helper = helper
        started.reader = PreadReader(raw.fileno(), start)
    return started


def open_scan(
    path: str | os.PathLike[str], *, chunk_bytes: int = CHUNK_BYTES, worker: bool | None = None
) -> Started:
    """``path`` opened (:class:`LogReadError` when it cannot be) and its worker forked now, for
    :func:`trtsafe_lab.logs.scan.iter_failures`: a caller that has not imported the parser's
    modules yet imports them while the worker already reads (it needs none of them)."""
    handle = open_log(path)
    try:
        return start_scan(handle, path, chunk_bytes, worker)
    except BaseException:
        handle.close()
        raise
