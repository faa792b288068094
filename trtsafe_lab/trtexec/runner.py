"""Run a tool as a child process: no shell, its own process group, lines streamed to callbacks.

:class:`ProcessRunner` starts ``argv`` in a new session (so the child and everything it spawns
share one process group), reads stdout and stderr on two threads and hands each decoded line to
``on_line(stream, line)`` on the calling thread, in arrival order. A timeout or :meth:`cancel`
(from another thread, a notebook button or Ctrl-C/interrupt) sends SIGTERM to the whole group,
then SIGKILL after ``grace_s``; when the run ends the group is checked and any member left
behind is killed, so no orphan survives.

If this process itself dies without cleaning up (SIGKILL, a crash), the tool still goes: on
Linux the child asks the kernel for SIGKILL when its parent dies (``prctl(PR_SET_PDEATHSIG)``,
set between fork and exec), and a small watchdog process (:data:`WATCHDOG`) that holds a pipe
from this process kills the whole process group when the pipe closes without a "done" (so the
tool's own children go too). :func:`signals_as_interrupt` turns SIGTERM/SIGHUP into the same
path as Ctrl-C (:class:`SignalInterrupt`, a ``KeyboardInterrupt``).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO

LineCallback = Callable[[str, str], None]  # (stream: "stdout" | "stderr", line without newline)

STATUS_EXITED = "exited"  # the process ended by itself (any exit code)
STATUS_SIGNALLED = "signalled"  # killed by a signal nobody here sent (a crash)
STATUS_TIMEOUT = "timeout"
STATUS_CANCELLED = "cancelled"
STATUS_ABORTED = "aborted"  # a line callback raised (e.g. the log disk is full); tool was stopped


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
# Runs as ``python -S -c WATCHDOG PGID``: waits for EOF on stdin (its parent gone, however it
# died); without a "done" line first, SIGKILLs process group PGID. Ignores SIGINT/SIGTERM/SIGHUP
# so that a signal to the terminal's process group does not end it before its parent.
WATCHDOG = (
    "import os, signal, sys\n"
    "for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):\n"
    "    signal.signal(s, signal.SIG_IGN)\n"
    "data = sys.stdin.buffer.read()\n"
    "if b'done' not in data:\n"
    "    try:\n"
    "        os.killpg(int(sys.argv[1]), signal.SIGKILL)\n"
    "    except ProcessLookupError:\n"
    "        pass\n"
)


class SignalInterrupt(KeyboardInterrupt):
    """SIGTERM / SIGHUP received: handled like Ctrl-C; ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def signals_as_interrupt(
    signums: Sequence[int] = (signal.SIGTERM, signal.SIGHUP),
) -> Iterator[None]:
    """While active (main thread only), SIGTERM and SIGHUP raise :class:`SignalInterrupt`, so
    a running tool's process group is ended and the run record kept as for Ctrl-C. The previous
    handlers are restored on exit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, _frame: FrameType | None) -> None:
        raise SignalInterrupt(signum)

    previous = {signum: signal.signal(signum, handler) for signum in signums}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def _die_with_parent() -> None:
    """In the child between fork and exec: SIGKILL me when my parent dies (Linux)."""
    libc_name = ctypes.util.find_library("c")
    if not sys.platform.startswith("linux") or libc_name is None:
        return
    libc = ctypes.CDLL(libc_name, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _start_watchdog(pgid: int) -> subprocess.Popen[bytes] | None:
    """The watchdog for group ``pgid`` (see :data:`WATCHDOG`), or None where it cannot start."""
    try:
        return subprocess.Popen([sys.executable, "-S", "-c", WATCHDOG, str(pgid)],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        return None


def _stop_watchdog(watchdog: subprocess.Popen[bytes] | None) -> None:
    if watchdog is None or watchdog.stdin is None:
        return
    with contextlib.suppress(BrokenPipeError):
        watchdog.stdin.write(b"done\n")
        watchdog.stdin.close()
    watchdog.wait()


@dataclass(frozen=True)
class ProcessResult:
    """How the run ended.

    ``returncode`` is the exit code, or ``-N`` when killed by signal N; ``duration_s`` is wall
    time from start to exit; ``status`` is one of the ``STATUS_*`` values; ``pid``/``pgid``
    identify the (now gone) process and its group.
    """

    returncode: int
    duration_s: float
    status: str
    pid: int
    pgid: int

    @property
    def finished(self) -> bool:
        """True when the tool ran to its own end (exit code 0 or not): the record is complete."""
        return self.status == STATUS_EXITED


def _live_members_from_proc(pgid: int) -> bool | None:
    """Linux: True if a non-zombie process is in group ``pgid``; None when /proc is unusable.

    Zombies are skipped: a killed grandchild stays a zombie until init reaps it, but it no
    longer runs anything.
    """
    proc = Path("/proc")
    if not (proc / "self" / "stat").is_file():
        return None
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended while we looked
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def _group_alive(pgid: int) -> bool:
    """True while any process of group ``pgid`` is still running (zombies do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member exists but belongs to someone else
        return True
    live = _live_members_from_proc(pgid)
    return True if live is None else live


class ProcessRunner:
    """One run of ``argv``; call :meth:`run` once (blocking), :meth:`cancel` from anywhere."""

    def __init__(
        self,
        argv: Sequence[str],
        on_line: LineCallback,
        *,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        timeout_s: float | None = None,
        grace_s: float = 3.0,
        poll_s: float = 0.05,
    ) -> None:
        if not argv:
            raise ValueError("argv is empty: nothing to run")
        self.argv = [str(a) for a in argv]
        self.on_line = on_line
        self.cwd = cwd
        self.env = env
        self.timeout_s = timeout_s
        self.grace_s = grace_s
        self.poll_s = poll_s
        self._cancel = threading.Event()
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def cancel(self) -> None:
        """Ask the run to stop; :meth:`run` then ends the whole process group and returns."""
        self._cancel.set()

    def _reader(
        self, name: str, pipe: IO[bytes], lines: queue.Queue[tuple[str, str] | None]
    ) -> None:
        try:
            for raw in iter(pipe.readline, b""):
                lines.put((name, raw.decode("utf-8", errors="replace").rstrip("\r\n")))
        finally:
            pipe.close()
            lines.put(None)

    def _kill_group(self, pgid: int) -> None:
        """SIGTERM the group, wait up to ``grace_s`` for it to go, then SIGKILL what is left."""
        assert self._proc is not None
        try:
            os.killpg(pgid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + self.grace_s
        while time.monotonic() < deadline:
            self._proc.poll()
            if not _group_alive(pgid):
                return
            time.sleep(0.02)
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            return

    def run(self) -> ProcessResult:
        """Start, stream lines to ``on_line``, and return how the run ended."""
        started = time.monotonic()
        self._proc = proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.cwd,
            env=self.env,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        pgid = proc.pid  # start_new_session: the child leads its own group
        watchdog = _start_watchdog(pgid)
        assert proc.stdout is not None and proc.stderr is not None
        lines: queue.Queue[tuple[str, str] | None] = queue.Queue()
        readers = [
            threading.Thread(target=self._reader, args=(n, p, lines), daemon=True)
            for n, p in (("stdout", proc.stdout), ("stderr", proc.stderr))
        ]
        for reader in readers:
            reader.start()
        status = ""
        open_streams = 2
        leader_gone_at: float | None = None
        try:
            while open_streams:
                if self._cancel.is_set():
                    status = STATUS_CANCELLED
                elif self.timeout_s is not None and time.monotonic() - started > self.timeout_s:
                    status = STATUS_TIMEOUT
                if status:
                    break
                try:
                    item = lines.get(timeout=self.poll_s)
                except queue.Empty:
                    # The tool exited but a process it left behind holds the pipes open.
                    if leader_gone_at is None and proc.poll() is not None:
                        leader_gone_at = time.monotonic()
                    elif leader_gone_at and time.monotonic() - leader_gone_at > self.grace_s:
                        self._kill_group(pgid)
                        leader_gone_at = float("inf")
                    continue
                if item is None:
                    open_streams -= 1
                else:
                    self.on_line(*item)
        except KeyboardInterrupt:
            self._kill_group(pgid)
            proc.wait()
            raise
        except BaseException:
            status = STATUS_ABORTED
            self._kill_group(pgid)
            proc.wait()
            raise
        finally:
            if status:
                self._kill_group(pgid)
            returncode = proc.wait()
            duration = time.monotonic() - started
            if _group_alive(pgid):  # members outliving the leader: end them too
                self._kill_group(pgid)
            for reader in readers:  # the group is gone, so the pipes reach EOF promptly
                reader.join(timeout=self.grace_s)
            _stop_watchdog(watchdog)
            while not lines.empty():  # deliver what was read before the stop
                item = lines.get_nowait()
                if item is not None and status != STATUS_ABORTED:
                    self.on_line(*item)
        if not status:
            status = STATUS_SIGNALLED if returncode < 0 else STATUS_EXITED
        return ProcessResult(returncode, duration, status, proc.pid, pgid)


def run_process(
    argv: Sequence[str],
    on_line: LineCallback,
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout_s: float | None = None,
) -> ProcessResult:
    """Run ``argv`` to the end (see :class:`ProcessRunner`); Ctrl-C ends the process group."""
    return ProcessRunner(argv, on_line, cwd=cwd, env=env, timeout_s=timeout_s).run()
