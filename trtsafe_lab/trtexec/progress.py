"""Build phase and progress, from trtexec log lines or TensorRT's IProgressMonitor callbacks.

:class:`ProgressTracker` keeps a stack of phases. trtexec logs give coarse top-level phases
(:data:`LOG_PHASES`, recognised by :func:`phase_of_line`); the TensorRT Python builder's
``IProgressMonitor`` gives nested phases with step counts (``phase_start`` / ``step_complete``
/ ``phase_finish``, see :mod:`trtsafe_lab.engine.monitor`). Listeners get a
:class:`ProgressState` after every change; :class:`TerminalProgressBar` is one listener, a
notebook widget can be another.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

# Top-level phases of a trtexec run, in order, and the log lines that start them.
# ("Load engine: <path>" is only the options echo, so it does not mark the load phase.)
LOG_PHASES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("setup", re.compile(r"&&&& RUNNING TensorRT\.|=== Model Options ===")),
    ("parse", re.compile(r"Start parsing network model|Parsing model|Input filename:")),
    ("build", re.compile(r"Finish parsing network model|timing cache in use|Starting to build")),
    ("tactics", re.compile(r"Computing costs for|Autotuning|Formats and tactics selection")),
    ("serialize", re.compile(
        r"Engine generation completed|Engine built in|Total Activation Memory")),
    ("load", re.compile(r"Loaded engine size|Engine loaded in|Engine deserialized in")),
    ("inference", re.compile(r"Starting inference|Skipped inference phase")),
    ("done", re.compile(r"&&&& (PASSED|FAILED) TensorRT\.")),
)
PHASE_NAMES = tuple(name for name, _ in LOG_PHASES)


def phase_of_line(line: str) -> str | None:
    """The top-level phase a trtexec log line starts, or None."""
    for name, pattern in LOG_PHASES:
        if pattern.search(line):
            return name
    return None


@dataclass
class BuildPhase:
    name: str
    parent: str | None = None
    num_steps: int | None = None
    step: int = 0


@dataclass(frozen=True)
class ProgressState:
    """A snapshot: the phase path (outermost first), the innermost phase's fraction done
    (0..1, or None when it has no step count), the overall fraction (0..1) over the known
    top-level phases, and the last log line seen."""

    path: tuple[str, ...]
    fraction: float | None
    overall: float
    last_line: str
    outcome: str | None = None  # "passed" / "failed" once the tool says so


Listener = Callable[[ProgressState], None]


@dataclass
class ProgressTracker:
    """Tracks phases; ``feed_line`` for trtexec logs, ``phase_*``/``step`` for the builder API."""

    listeners: list[Listener] = field(default_factory=list)
    stack: list[BuildPhase] = field(default_factory=list)
    top_index: int = -1
    last_line: str = ""
    outcome: str | None = None

    def state(self) -> ProgressState:
        inner = self.stack[-1] if self.stack else None
        fraction = None
        if inner is not None and inner.num_steps:
            fraction = min(1.0, inner.step / inner.num_steps)
        overall = 1.0 if self.outcome else max(0, self.top_index) / len(PHASE_NAMES)
        return ProgressState(
            tuple(p.name for p in self.stack), fraction, overall, self.last_line, self.outcome
        )

    def _notify(self) -> None:
        snapshot = self.state()
        for listener in self.listeners:
            listener(snapshot)

    def feed_line(self, line: str) -> None:
        """Advance the top-level phase when a trtexec log line marks a new one."""
        self.last_line = line
        name = phase_of_line(line)
        if name is not None and PHASE_NAMES.index(name) >= self.top_index:
            self.top_index = PHASE_NAMES.index(name)
            if name == "done":
                self.outcome = "passed" if "PASSED" in line else "failed"
            if not self.stack or self.stack[0].name != name:
                self.stack = [BuildPhase(name)]
        self._notify()

    def phase_start(self, name: str, parent: str | None, num_steps: int | None) -> None:
        """A (possibly nested) phase starts; ``parent`` None makes it top-level."""
        if parent is None:
            self.stack = []
        else:
            while self.stack and self.stack[-1].name != parent:
                self.stack.pop()
        self.stack.append(BuildPhase(name, parent, num_steps))
        self._notify()

    def step(self, name: str, step: int) -> None:
        """Step ``step`` (0-based) of phase ``name`` completed."""
        for phase in reversed(self.stack):
            if phase.name == name:
                phase.step = step + 1
                break
        self._notify()

    def phase_finish(self, name: str) -> None:
        names = [p.name for p in self.stack]
        if name in names:
            del self.stack[names.index(name):]
        self._notify()

    def finish(self, outcome: str) -> None:
        """Mark the run over (``passed``, ``failed``, ``cancelled``, ...)."""
        self.outcome = outcome
        self._notify()


@dataclass
class TerminalProgressBar:
    """A one-line text progress bar redrawn in place with carriage returns."""

    stream: TextIO = field(default_factory=lambda: sys.stderr)
    width: int = 30
    _drawn: bool = False

    def __call__(self, state: ProgressState) -> None:
        fraction = state.fraction if state.fraction is not None else state.overall
        filled = round(fraction * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        label = "/".join(state.path) or "starting"
        if state.outcome:
            label = f"{label} [{state.outcome}]"
        self.stream.write(f"\r[{bar}] {fraction * 100:5.1f}% {label[:60]:<60}")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
