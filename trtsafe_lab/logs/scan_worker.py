"""A second process that does the scan's bytes-level pass while the scan parses.

:class:`TriggerWorker` forks a child that reads the file in the same chunks as the scan (the chunk
loop is deterministic: the same bytes give the same chunks) and sends, for each chunk, what the
scan would otherwise compute (Hyperscan, numpy) before parsing it: the offsets of the lines
holding a trigger, their line numbers, and where the context kept for the next chunk starts
(with its line number). The scan (the parent) parses and prints; the child, forked before
either imports numpy and Hyperscan, claims the first chunk before it imports them (the parent
waits for it, up to :data:`FIRST_WAIT_SECONDS`, instead of importing them too) and stays a
chunk or more ahead. When the parent reaches a chunk the child
has not begun (at the start, or when it falls behind), the parent finds its triggers itself and the
child skips it (a shared position says which chunk each is at; a race costs duplicate work, never a
missing chunk: the child sends a message for every chunk, "skipped" included, and the parent waits
only for a chunk the child has begun). The offsets are a function of the chunk's bytes alone, so
the rows do not depend on who found them (tests compare with and without the worker, either side
slowed down, on the corpus, tiny chunks and any bytes); each message names its chunk (number, where
its new lines start and end), and from a chunk sent for other bytes on, the parent does the work
itself.

Only on Linux (``fork``; the child uses no threads), only when the calling process runs one
thread and may use two CPUs, and (the scan's default) only when a CPU is idle at the start
(:func:`spare_cpu`): the split saves wall time, not CPU time. The child reads the file with
``os.preadv`` (the parent's file position is not moved); 16 bytes cross the pipe per trigger
line.
"""

from __future__ import annotations

import io
import mmap
import os
import select
import signal
import struct
import sys
import threading
import time
from array import array
from collections.abc import Callable
from typing import Any

# chunk number, new lines start, end, offsets (-1: skipped), tail, tail line
_HEADER = struct.Struct("<qqqqqq")
# Shared between the two: the chunk the child is at (it sets it before reading the chunk), the
# last chunk the parent took over (the child skips chunks up to it that it has not begun).
_POSITION = struct.Struct("<q")
_AT, _TAKEN = 0, _POSITION.size
_SKIPPED: list[int] = []  # the offsets of a chunk the child skipped
MAX_WAIT_SECONDS = 0.01  # the parent finds a chunk's triggers itself rather than wait longer
MAX_LATE = 3  # ... and stops using a child that was that late this many times
FIRST_WAIT_SECONDS = 0.05  # the first chunk: the child loads Hyperscan first (~25 ms)
CHILD_NICENESS = 10


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


class ChunkTriggers:
    """What the child found in chunk ``number`` of the scan's buffer (offsets into it): the
    chunk's new lines are ``[begin, end)``; ``offsets``: the first trigger of each line holding
    one, ``lines`` their line numbers counted from the buffer's first line (0); the context kept
    for the next chunk starts at ``tail`` (line ``tail_line`` of the buffer; both 0 for the last
    chunk). A plain class, not a dataclass or named tuple: this module loads before the worker
    is forked, and ``dataclasses`` (with ``inspect``, ~7 ms) loads with the parser after it."""

    __slots__ = ("begin", "end", "lines", "number", "offsets", "tail", "tail_line")

    def __init__(
        self,
        number: int,
        begin: int,
        end: int,
        offsets: list[int],
        lines: list[int],
        tail: int,
        tail_line: int,
    ) -> None:
        self.number = number
        self.begin = begin
        self.end = end
        self.offsets = offsets
        self.lines = lines
        self.tail = tail
        self.tail_line = tail_line


class PreadReader(io.RawIOBase):
    """Reads the open file ``fd`` from ``offset`` on with ``os.preadv`` (``fd``'s own position,
    shared with the parent, is not moved)."""

    def __init__(self, fd: int, offset: int) -> None:
        super().__init__()
        self.fd = fd
        self.offset = offset  # where the next read starts

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = os.preadv(self.fd, [buffer], self.offset)
        self.offset += count
        return count


# The child's work: reads the file ``fd`` from ``start`` and calls ``send`` for each chunk
# (``skipped(...)`` for those ``progress.begin`` says the parent took over).
Work = Callable[[int, int, Callable[[ChunkTriggers], None], "Progress"], None]


def skipped(number: int, begin: int, end: int) -> ChunkTriggers:
    """The message for a chunk the child skipped."""
    return ChunkTriggers(number, begin, end, _SKIPPED, [], 0, 0)


class TriggerWorker:
    """The parent's handle on the child: :meth:`chunk` answers from what the child sent."""

    def __init__(self, pid: int, read_fd: int, shared: mmap.mmap) -> None:
        self._pid: int | None = pid
        self._fd: int | None = read_fd
        self._shared = shared  # the last chunk the parent took over
        self._pending = bytearray()
        self._chunks: dict[int, ChunkTriggers] = {}
        self._late = 0  # chunks the child took longer than MAX_WAIT_SECONDS to send
        self._first = True  # no chunk asked for yet

    @classmethod
    def start(cls, fd: int, start: int, work: Work) -> TriggerWorker | None:
        """Fork a child that runs ``work`` on the regular file open as ``fd`` from offset
        ``start``. None when the system refuses a pipe or a process (the scan then does the
        work itself)."""
        shared = mmap.mmap(-1, 2 * _POSITION.size)
        for field in (_AT, _TAKEN):
            _POSITION.pack_into(shared, field, -1)
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
                os.nice(CHILD_NICENESS)  # on a busy machine the parent, not the child, runs
                work(fd, start, lambda found: _send(write_fd, found), Progress(shared))
                code = 0
            except BrokenPipeError:
                pass  # the parent is gone
            except BaseException:
                # A bug here must not pass unseen (the parent does the work itself).
                import traceback

                traceback.print_exc()
                sys.stderr.flush()
            finally:
                os._exit(code)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        return cls(pid, read_fd, shared)

    def triggers(
        self, number: int, begin: int, end: int, meanwhile: Callable[[], None] | None = None
    ) -> ChunkTriggers | None:
        """What the child found in chunk ``number``, a chunk whose new lines are ``[begin,
        end)``: waits while the child is reading that chunk; None when the caller is to find the
        triggers itself: the child had not begun the chunk (it is taken over: the child skips
        it), skipped it, stopped, or read other bytes (then nothing more is taken from it).

        ``meanwhile``: called once, before waiting, when the child is reading the chunk; the
        caller has the next chunk (taken over: the child skips it) and can find its triggers
        then, instead of waiting idle (the parent parses faster than the child finds triggers:
        it catches up with the child every few chunks)."""
        while True:
            self._receive(wait=False)
            for old in [key for key in self._chunks if key < number]:
                del self._chunks[old]  # chunks taken over, sent after all
            found = self._chunks.pop(number, None)
            if found is not None:
                if found.offsets is _SKIPPED:
                    return None
                if (found.begin, found.end) != (begin, end):
                    self.close()  # it read other bytes (the file changed): no more from it
                    return None
                return found
            if self._fd is None:
                return None
            at = _POSITION.unpack_from(self._shared, _AT)[0]
            if at < number:
                _POSITION.pack_into(self._shared, _TAKEN, number)
                return None
            if self._first:
                # The child claimed its first chunk before loading its modules: the wait is
                # shorter than this process loading them too to find the chunk's triggers.
                self._first = False
                deadline = time.monotonic() + FIRST_WAIT_SECONDS
                while self._fd is not None and number not in self._chunks:
                    left = deadline - time.monotonic()
                    if left <= 0 or not select.select([self._fd], [], [], left)[0]:
                        break
                    self._receive(wait=True)  # a piece of the message, or the pipe's end
                continue
            # The child is reading this chunk: the parent waits for it, and takes the next one
            # over (the child skips it): the parent waits only where it is the faster. Not for
            # long: a child that gets no CPU (a busy machine) is not waited for.
            if _POSITION.unpack_from(self._shared, _TAKEN)[0] <= number:
                _POSITION.pack_into(self._shared, _TAKEN, number + 1)
            if meanwhile is not None and at == number:
                meanwhile()
                meanwhile = None
                continue  # the child may have sent it meanwhile: look again before waiting
            if not select.select([self._fd], [], [], MAX_WAIT_SECONDS)[0]:
                self._late += 1
                if self._late >= MAX_LATE:
                    self.close()  # it gets too little CPU to help: the parent reads on alone
                return None  # the parent finds this one itself (the child's answer is dropped)
            self._receive(wait=True)

    def wait(self) -> None:
        """Block until the child has sent everything (tests: the parent takes over none)."""
        while self._fd is not None:
            self._receive(wait=True)

    def _receive(self, wait: bool) -> None:
        """Keep the complete messages the child has sent (with ``wait``: at least one more
        piece, or the pipe's end)."""
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
                break
        pending = self._pending
        used = 0
        while len(pending) - used >= _HEADER.size:
            number, begin, end, count, tail, tail_line = _HEADER.unpack_from(pending, used)
            size = _HEADER.size + 16 * max(count, 0)
            if len(pending) - used < size:
                break
            values = array("q")
            values.frombytes(pending[used + _HEADER.size : used + size])
            found = values.tolist()
            offsets = found[:count] if count >= 0 else _SKIPPED
            self._chunks[number] = ChunkTriggers(
                number, begin, end, offsets, found[count:], tail, tail_line
            )
            used += size
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
            self._shared.close()


class Progress:
    """The child's side of the shared positions."""

    def __init__(self, shared: mmap.mmap) -> None:
        self._shared = shared

    def begin(self, number: int) -> bool:
        """The child begins chunk ``number``: False when the parent took it over."""
        _POSITION.pack_into(self._shared, _AT, number)
        return _POSITION.unpack_from(self._shared, _TAKEN)[0] < number


def _send(out: int, found: ChunkTriggers) -> None:
    values = array("q", found.offsets)
    values.extend(found.lines)
    count = len(found.offsets) if found.offsets is not _SKIPPED else -1
    header = (found.number, found.begin, found.end, count, found.tail, found.tail_line)
    message = _HEADER.pack(*header) + values.tobytes()
    with memoryview(message) as view:
        sent = 0
        while sent < len(message):
            sent += os.write(out, view[sent:])
