"""A second process that finds trigger lines in the back of a large log while the scan reads
the front (the scan's bytes-level candidate pass is most of its time on a big file).

:class:`TriggerWorker` forks a child that walks the file from its end towards its start, one
*region* of about :data:`REGION_BYTES` at a time (regions begin at line starts), and sends back
for each region the offsets that ``find`` (the scan's own per-chunk function: the first trigger
match of each line) gives on it. The parent scans forwards; for a chunk whose lines all lie in
regions the child has finished it takes the child's offsets instead of computing them, and it
publishes how far it has got so the child stops where they meet. ``find`` is a function of each
line's bytes alone (no trigger match crosses a line end), so the offsets are the same whichever
process found them: the rows do not depend on who did the work or on timing (tests compare both
ways on the corpus with tiny regions). Nothing but offsets crosses the pipe (8 bytes each).

Only on Linux (``fork``; the child uses no threads), only when the calling process runs one
thread and may use two CPUs, and (the scan's default) only when a CPU is idle at the start
(:func:`spare_cpu`): the split saves wall time, not CPU time (it costs a little more). The
child reads the file with ``os.preadv`` into one reused buffer (memory: one region) and gives
up, leaving the rest to the parent, at a line longer than :data:`MAX_BOUNDARY_LINE` across a
region boundary or when the file is shorter than it was.
"""

from __future__ import annotations

import bisect
import mmap
import os
import signal
import struct
import sys
import threading
from array import array
from collections.abc import Callable

REGION_BYTES = 8 << 20
MAX_BOUNDARY_LINE = 1 << 16  # a region boundary moves at most this far to the next line start
_HEADER = struct.Struct("<qqq")  # region start, region end, number of offsets
_POSITION = struct.Struct("<q")

FindOffsets = Callable[[bytearray, int], list[int]]


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


class TriggerWorker:
    """The parent's handle on the child: :meth:`offsets` answers from the regions received."""

    def __init__(self, pid: int, read_fd: int, shared: mmap.mmap, end: int) -> None:
        self._pid: int | None = pid
        self._fd: int | None = read_fd
        self._shared = shared
        self._end = end  # the file's size when the child started: it covers [covered_from, end)
        self.covered_from = end
        self._starts: list[int] = []  # region starts, ascending
        self._regions: dict[int, array] = {}  # region start -> absolute offsets, ascending
        self._pending = bytearray()

    @classmethod
    def start(cls, fd: int, start: int, find: FindOffsets, region: int) -> TriggerWorker | None:
        """Fork a child for the regular file open as ``fd`` from offset ``start`` (a line
        start) to its end (the child reads with ``pread``: ``fd``'s position is not moved).
        None when the file is at most one region past ``start`` (nothing to share) or the
        system refuses a pipe or a process (the scan then finds every offset itself)."""
        end = os.fstat(fd).st_size
        if end - start <= region:
            return None
        shared = mmap.mmap(-1, _POSITION.size)  # the parent's position, seen by the child
        _POSITION.pack_into(shared, 0, start)
        try:
            read_fd, write_fd = os.pipe()
        except OSError:
            shared.close()
            return None
        try:
            pid = os.fork()
        except OSError:
            for descriptor in (read_fd, write_fd):
                os.close(descriptor)
            shared.close()
            return None
        if pid == 0:  # the child: never returns
            code = 1
            try:
                os.close(read_fd)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                _work(fd, start, end, region, find, write_fd, shared)
                code = 0
            except BrokenPipeError:
                pass  # the parent is gone
            except BaseException:
                # A bug here must not pass unseen (the parent finds the offsets itself).
                import traceback

                traceback.print_exc()
                sys.stderr.flush()
            finally:
                os._exit(code)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        return cls(pid, read_fd, shared, end)

    def reached(self, position: int) -> None:
        """The parent finds the offsets below ``position`` itself: the child may stop there."""
        _POSITION.pack_into(self._shared, 0, position)

    def offsets(self, low: int, high: int) -> list[int] | None:
        """Absolute offsets in ``[low, high)`` when the child has covered it, else None."""
        self._drain()
        if low < self.covered_from or high > self._end:
            return None
        found: list[int] = []
        index = max(bisect.bisect_right(self._starts, low) - 1, 0)
        while index < len(self._starts) and self._starts[index] < high:
            values = self._regions[self._starts[index]]
            first = bisect.bisect_left(values, low)
            last = bisect.bisect_left(values, high)
            found.extend(values[first:last])
            index += 1
        return found

    def _drain(self) -> None:
        """Read what the child has sent so far (never waits)."""
        if self._fd is None:
            return
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
        pending = self._pending
        used = 0
        while len(pending) - used >= _HEADER.size:
            low, high, count = _HEADER.unpack_from(pending, used)
            size = _HEADER.size + 8 * count
            if len(pending) - used < size:
                break
            if high != self.covered_from or low >= high:
                raise RuntimeError(
                    f"trigger worker sent region [{low}, {high}) but had covered from "
                    f"{self.covered_from}: an internal error of the scan, please report it"
                )
            values = array("q")
            values.frombytes(pending[used + _HEADER.size : used + size])
            self._regions[low] = values
            self._starts.insert(0, low)
            self.covered_from = low
            used += size
        del pending[:used]

    def wait(self) -> None:
        """Block until the child has finished (tests: a fixed split of the work)."""
        if self._fd is not None:
            os.set_blocking(self._fd, True)
            while self._fd is not None:
                self._drain()

    def close(self) -> None:
        """Stop the child if it still runs and reap it (its CPU time counts as this process's
        children's)."""
        self.reached(self._end)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._pid is not None:
            os.kill(self._pid, signal.SIGKILL)  # not reaped yet: the pid is still the child's
            os.waitpid(self._pid, 0)
            self._pid = None
        self._shared.close()


def _work(
    fd: int, start: int, end: int, region: int, find: FindOffsets, out: int, shared: mmap.mmap
) -> None:
    """The child: regions from the end of the file backwards until the parent's position."""
    buf = bytearray(region + MAX_BOUNDARY_LINE)
    high = end
    nominal = (end - 1) // region * region
    while nominal > start:
        (parent_at,) = _POSITION.unpack_from(shared, 0)
        head = os.pread(fd, MAX_BOUNDARY_LINE, nominal - 1)
        newline = head.find(b"\n")
        if newline == -1:
            return  # a long line across the boundary: the parent reads it
        low = nominal + newline  # the first line start at or after nominal
        nominal -= region
        if low >= high:
            continue  # no line starts in this region: it joins the one before
        if low < parent_at:
            return
        size = high - low
        if size > len(buf):
            return
        with memoryview(buf) as view:
            if os.preadv(fd, [view[:size]], low) != size:
                return  # the file is shorter than it was
        offsets = array("q", [low + offset for offset in find(buf, size)])
        message = _HEADER.pack(low, high, len(offsets)) + offsets.tobytes()
        with memoryview(message) as view:
            sent = 0
            while sent < len(message):
                sent += os.write(out, view[sent:])
        high = low
