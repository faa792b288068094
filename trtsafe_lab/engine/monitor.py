"""TensorRT callbacks that feed this toolkit's records: an ``ILogger`` that records every
message as a trtexec-style log line, and an ``IProgressMonitor`` that drives a
:class:`~trtsafe_lab.trtexec.progress.ProgressTracker` and can cancel the build.

The subclasses of ``tensorrt.ILogger`` / ``tensorrt.IProgressMonitor`` are created inside
:func:`make_logger` / :func:`make_progress_monitor` from a ``trt`` module passed in, so this
module never imports tensorrt. The behaviour lives in plain classes that tests drive directly.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from trtsafe_lab.trtexec.progress import ProgressTracker

# ILogger.Severity values (INTERNAL_ERROR=0 ... VERBOSE=4) -> the letter TensorRT's own Python
# logger prints: "[06/07/2022-19:05:53] [TRT] [E] ...".
SEVERITY_LETTERS = ("F", "E", "W", "I", "V")


@dataclass
class LogRecorder:
    """Collects builder messages as log lines in the Python-logger format the log parser reads.

    ``records`` holds ``(severity_letter, message)``; each formatted line also goes to
    ``sink`` (e.g. a run directory's log writer) and to the progress tracker.
    """

    sink: Callable[[str], None] | None = None
    tracker: ProgressTracker | None = None
    records: list[tuple[str, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, severity: int, message: str) -> str:
        letter = SEVERITY_LETTERS[severity] if 0 <= severity < len(SEVERITY_LETTERS) else "?"
        stamp = time.strftime("%m/%d/%Y-%H:%M:%S")
        line = f"[{stamp}] [TRT] [{letter}] {message}"
        with self._lock:  # TensorRT may log from several threads
            self.records.append((letter, message))
            if self.sink is not None:
                self.sink(line)
            if self.tracker is not None:
                self.tracker.feed_line(line)
        return line

    def lines(self) -> list[str]:
        return [f"[TRT] [{letter}] {message}" for letter, message in self.records]


@dataclass
class MonitorAdapter:
    """What an ``IProgressMonitor`` does here: report to ``tracker``; ``step_complete``
    returns False (TensorRT then cancels the build) once ``cancel_event`` is set."""

    tracker: ProgressTracker
    cancel_event: threading.Event = field(default_factory=threading.Event)

    def phase_start(self, phase_name: str, parent_phase: str | None, num_steps: int) -> None:
        self.tracker.phase_start(phase_name, parent_phase, num_steps)

    def step_complete(self, phase_name: str, step: int) -> bool:
        self.tracker.step(phase_name, step)
        return not self.cancel_event.is_set()

    def phase_finish(self, phase_name: str) -> None:
        self.tracker.phase_finish(phase_name)


def make_logger(trt: ModuleType, recorder: LogRecorder) -> Any:
    """A ``trt.ILogger`` instance whose ``log`` goes to ``recorder``."""

    class RecordingLogger(trt.ILogger):  # type: ignore[name-defined]
        def __init__(self) -> None:
            trt.ILogger.__init__(self)

        def log(self, severity: Any, msg: str) -> None:
            recorder.record(int(severity), msg)

    return RecordingLogger()


def make_progress_monitor(trt: ModuleType, adapter: MonitorAdapter) -> Any:
    """A ``trt.IProgressMonitor`` instance delegating to ``adapter``."""

    class TrackerMonitor(trt.IProgressMonitor):  # type: ignore[name-defined]
        def __init__(self) -> None:
            trt.IProgressMonitor.__init__(self)

        def phase_start(self, phase_name: str, parent_phase: str | None, num_steps: int) -> None:
            adapter.phase_start(phase_name, parent_phase, num_steps)

        def step_complete(self, phase_name: str, step: int) -> bool:
            return adapter.step_complete(phase_name, step)

        def phase_finish(self, phase_name: str) -> None:
            adapter.phase_finish(phase_name)

    return TrackerMonitor()
