"""Run a tool as a child process: no shell, its own process group, lines streamed to callbacks.

:class:`ProcessRunner` starts ``argv`` in a new session (so the child and everything it spawns
share one process group), reads stdout and stderr on two threads and hands each decoded line to
``on_line(stream, line)`` on the calling thread, in arrival order. A timeout or :meth:`cancel`
(from another thread, a notebook button or Ctrl-C/interrupt) sends SIGTERM to the whole group,
then SIGKILL after ``grace_s``; when the run ends the group is checked and any member left
behind is killed, so no orphan survives.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

LineCallback = Callable[[str, str], None]  # (stream: "stdout" | "stderr", line without newline)

STATUS_EXITED = "exited"  # the process ended by itself (any exit code)
STATUS_SIGNALLED = "signalled"  # killed by a signal nobody here sent (a crash)
STATUS_TIMEOUT = "timeout"
STATUS_CANCELLED = "cancelled"
STATUS_ABORTED = "aborted"  # a line callback raised (e.g. the log disk is full); tool was stopped


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
        )
        pgid = proc.pid  # start_new_session: the child leads its own group
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
