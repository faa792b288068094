"""A second process that reads the back part of a large log while the scan reads the front.

:class:`ScanWorker` forks a child that runs the scan itself (the ``work`` function the scan
passes in) from a line start near the middle of the file to its end, with a parser of its own
that starts from the initial parser state: a guess, as the real state there depends on the front
part. The child cuts its part into :class:`Stretch` es, each beginning at a window that starts
after a gap (a record start whose line before was not fed), and sends, for each, its rows and
the parser state fields its records read before writing them, with the values they read
(:meth:`~trtsafe_lab.logs.parser.LogParser.track_state`), and the fields it changed.

The parent scans from the start. At a window that begins after a gap where a stretch begins, it
compares those fields with its own state: when they hold the same values, the stretch's reading
is the one it would make itself (what records give depends on their text and on those fields
only, as for the record cache; the window at a gap does not depend on the lines before it), so
it takes the rows and the changes instead of reading the stretch, and goes on with the next
stretch; at the first one whose fields differ it reads on itself from there, and tries again at
the next stretch's start. So the rows never depend on the child (tests compare with and without
it on the corpus, tiny stretches, any bytes); only the time does: a stretch read from a wrong
guess is read twice.

Only on Linux (``fork``; the child uses no threads), only when the calling process runs one
thread and may use two CPUs, and (the scan's default) only when a CPU is idle at the start
(:func:`spare_cpu`). The child reads the file with ``os.preadv`` (the parent's file position is
not moved) and stops at a line longer than the scan keeps whole (the parent reads on from its
last stretch); its stretches cross the pipe as pickles, each distinct row once.
"""

from __future__ import annotations

import io
import os
import pickle
import signal
import struct
import sys
import threading
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_BOUNDARY_LINE = 1 << 16  # the child's start moves at most this far to the next line start
_LENGTH = struct.Struct("<q")

Row = dict[str, Any]


def can_fork_worker() -> bool:
    """True where a worker may be forked: Linux, one thread in this process, two usable CPUs."""
    if not sys.platform.startswith("linux") or threading.active_count() != 1:
        return False
    return len(os.sched_getaffinity(0)) >= 2


def spare_cpu() -> bool:
    """True when, at this moment, fewer processes are runnable than this process may use CPUs
    (``/proc/loadavg``'s running count includes this one): a worker would get a CPU of its own.
    On a busy machine it would only share one with the parent and add the fork's cost."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        with open("/proc/loadavg", encoding="ascii") as loadavg:
            running = int(loadavg.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return False  # no such file or an unknown format: one process
    return running < len(os.sched_getaffinity(0))


@dataclass
class Stretch:
    """What the child read from one window that begins after a gap to the next such window.

    Offsets are the file's; line numbers the child's own (its first line is 1): the parent
    moves them by the difference at ``start``. ``fed``/``end_fed``: the last line the child
    had fed before ``start``/``end``. ``reads``/``changes``: see
    :meth:`~trtsafe_lab.logs.parser.LogParser.stop_tracking`. ``rows``: the failure rows.
    """

    start: int
    line: int
    fed: int
    reads: dict[str, tuple[Any, bool]] = field(default_factory=dict)
    changes: list[Any] = field(default_factory=list)
    rows: Any = field(default_factory=list)  # on the pipe: packed, see _pack_rows
    end: int = -1
    end_line: int = 0
    end_fed: int = 0
    last: bool = False  # it ends at the end of the file


def _pack_rows(rows: list[Row], line_key: str) -> tuple[list[Row], array, array]:
    """Rows as distinct templates (line 0), each row's template and its line: error-dense logs
    repeat the same rows, so the pipe carries each once."""
    templates: list[Row] = []
    index: dict[tuple[Any, ...], int] = {}
    numbers = array("q")
    lines = array("q")
    for row in rows:
        template = dict(row)
        template[line_key] = 0
        key = tuple(template.items())
        number = index.get(key)
        if number is None:
            number = index[key] = len(templates)
            templates.append(template)
        numbers.append(number)
        lines.append(row[line_key])
    return templates, numbers, lines


def _unpack_rows(packed: tuple[list[Row], array, array], line_key: str, offset: int) -> list[Row]:
    templates, numbers, lines = packed
    rows = [templates[number].copy() for number in numbers]
    for row, line in zip(rows, lines, strict=True):
        row[line_key] = line + offset
    return rows


class PreadReader(io.RawIOBase):
    """Reads the open file ``fd`` from ``offset`` on with ``os.preadv`` (``fd``'s own position,
    shared with the parent, is not moved)."""

    def __init__(self, fd: int, offset: int) -> None:
        super().__init__()
        self._fd = fd
        self._offset = offset

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = os.preadv(self._fd, [buffer], self._offset)
        self._offset += count
        return count


# The child's part of the scan: reads the file ``fd`` from ``start`` (a line start) to its end
# and calls ``send`` for each stretch, in order.
Work = Callable[[int, int, Callable[[Stretch], None]], None]


class ScanWorker:
    """The parent's handle on the child: the stretches received, by their start offset."""

    def __init__(self, pid: int, read_fd: int, start: int, line_key: str) -> None:
        self._pid: int | None = pid
        self._fd: int | None = read_fd
        self.start = start  # the child reads from here
        self.reached = start  # the child has sent its stretches up to here
        self._line_key = line_key
        self._stretches: dict[int, Stretch] = {}
        self._pending = bytearray()

    @classmethod
    def start_at(
        cls, fd: int, nominal: int, work: Work, line_key: str
    ) -> ScanWorker | None:
        """Fork a child for the regular file open as ``fd``, from the first line start at or
        after ``nominal`` to its end. None when there is no such line start nearby, or the
        system refuses a pipe or a process (the scan then reads the whole file itself)."""
        head = os.pread(fd, MAX_BOUNDARY_LINE, nominal - 1)
        newline = head.find(b"\n")
        if newline == -1 or nominal + newline >= os.fstat(fd).st_size:
            return None
        start = nominal + newline
        try:
            read_fd, write_fd = os.pipe()
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:
            for descriptor in (read_fd, write_fd):
                os.close(descriptor)
            return None
        if pid == 0:  # the child: never returns
            code = 1
            try:
                os.close(read_fd)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                work(fd, start, lambda stretch: _send(write_fd, stretch, line_key))
                code = 0
            except BrokenPipeError:
                pass  # the parent is gone
            except BaseException:
                # A bug here must not pass unseen (the parent reads the rest itself).
                import traceback

                traceback.print_exc()
                sys.stderr.flush()
            finally:
                os._exit(code)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        return cls(pid, read_fd, start, line_key)

    @property
    def finished(self) -> bool:
        """The child has sent all it will send."""
        return self._fd is None

    def stretch_at(self, offset: int) -> Stretch | None:
        """The stretch that starts at ``offset``, waiting for the child while it has not got
        that far; None when there is none (the parent reads on itself)."""
        if offset < self.start:
            return None
        self._drain(wait=False)
        while offset >= self.reached and self._fd is not None:
            self._drain(wait=True)
        return self._stretches.pop(offset, None)

    def rows(self, stretch: Stretch, offset: int) -> list[Row]:
        """The stretch's rows with line numbers moved by ``offset``."""
        return _unpack_rows(stretch.rows, self._line_key, offset)

    def wait(self) -> None:
        """Block until the child has sent everything (tests: a fixed split of the work)."""
        while self._fd is not None:
            self._drain(wait=True)

    def _drain(self, wait: bool) -> None:
        """Read what the child has sent so far; with ``wait``, at least one more piece (or the
        end of the pipe)."""
        if self._fd is None:
            return
        os.set_blocking(self._fd, wait)
        while True:
            try:
                data = os.read(self._fd, 1 << 20)
            except BlockingIOError:
                break
            if not data:
                os.close(self._fd)
                self._fd = None
                break
            self._pending += data
            if wait:
                os.set_blocking(self._fd, False)
                wait = False
        pending = self._pending
        used = 0
        while len(pending) - used >= _LENGTH.size:
            (size,) = _LENGTH.unpack_from(pending, used)
            if len(pending) - used - _LENGTH.size < size:
                break
            body = pending[used + _LENGTH.size : used + _LENGTH.size + size]
            stretch: Stretch = pickle.loads(body)
            if stretch.start < self.reached:
                raise RuntimeError(
                    f"scan worker sent a stretch at {stretch.start} after one up to "
                    f"{self.reached}: an internal error of the scan, please report it"
                )
            self._stretches[stretch.start] = stretch
            self.reached = stretch.end
            used += _LENGTH.size + size
        del pending[:used]

    def close(self) -> None:
        """Stop the child if it still runs and reap it (its CPU time counts as this process's
        children's)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._pid is not None:
            os.kill(self._pid, signal.SIGKILL)  # not reaped yet: the pid is still the child's
            os.waitpid(self._pid, 0)
            self._pid = None


def _send(out: int, stretch: Stretch, line_key: str) -> None:
    stretch.rows = _pack_rows(stretch.rows, line_key)
    body = pickle.dumps(stretch, protocol=pickle.HIGHEST_PROTOCOL)
    message = _LENGTH.pack(len(body)) + body
    with memoryview(message) as view:
        sent = 0
        while sent < len(message):
            sent += os.write(out, view[sent:])
