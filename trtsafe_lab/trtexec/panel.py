"""A notebook panel for one trtexec build: live log tail that follows the newest line (with a
pause toggle), the phases seen with their elapsed times, a progress bar and a Cancel button.

View module: imports ipywidgets lazily (``trtsafe-lab[notebook]``). The panel is built from
:class:`~trtsafe_lab.trtexec.build.TrtexecBuild` and returned, not displayed; ``start()`` runs
the build on a background thread so the notebook stays responsive, and the Cancel button calls
``build.cancel()`` (the whole process group is ended). Log lines are shown as text (escaped,
terminal colour codes removed: :func:`trtsafe_lab.text.for_html`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any

from trtsafe_lab._optional import require
from trtsafe_lab.logs import columns as C
from trtsafe_lab.text import for_html
from trtsafe_lab.trtexec.build import BuildResult, TrtexecBuild
from trtsafe_lab.trtexec.progress import ProgressState

# The log box keeps its scroll position at the bottom (the newest line) by laying its content
# out bottom-up (column-reverse): each redraw shows the end of the log without any script.
# Inline styles: they apply wherever the widget's HTML is rendered.
LOG_BOX_STYLE = ("display:flex;flex-direction:column-reverse;height:300px;overflow-y:auto;"
                 "overflow-x:hidden;border:1px solid #ccc;background:#fafafa")
LOG_PRE_STYLE = ("flex:none;margin:0;padding:4px 6px;font-size:11.5px;line-height:1.3;"
                 "white-space:pre-wrap;overflow-wrap:anywhere")


class BuildPanel:
    """``panel.widget`` is the ipywidgets box to display; ``panel.result`` is set when done."""

    def __init__(self, build: TrtexecBuild, tail_lines: int = 200, refresh_s: float = 0.2):
        widgets = require("ipywidgets", feature="The build panel")
        self.build = build
        self.refresh_s = refresh_s
        self.result: BuildResult | None = None
        self.error: BaseException | None = None
        self._tail: deque[str] = deque(maxlen=tail_lines)
        self._last_refresh = 0.0
        self._trailing: threading.Timer | None = None
        self._lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.phase = widgets.HTML(value="not started")  # HTML wraps; a Label would cut it
        self.bar = widgets.FloatProgress(value=0.0, min=0.0, max=1.0, description="progress")
        self.phases = widgets.HTML(value="")  # each phase seen, with its elapsed time
        self.phases.add_class("trtsafe-build-phases")
        self.log = widgets.HTML(value="")  # the tail, following the newest line
        self.log.add_class("trtsafe-build-log")
        self.follow = widgets.ToggleButton(value=True, description="follow log", icon="pause",
                                           tooltip="pause to read: the log view stops moving")
        self.follow.observe(self._on_follow, names="value")
        self.failures = widgets.HTML(value="failures so far: 0")
        self.cancel_button = widgets.Button(description="Cancel", button_style="danger")
        self.cancel_button.on_click(lambda _b: self.build.cancel())
        self.widget: Any = widgets.VBox([
            widgets.HBox([self.bar, self.cancel_button, self.follow]), self.phase,
            self.phases, self.failures, self.log])
        self.widget.add_class("trtsafe-build-panel")
        self._started_at: float | None = None
        self._ended_at: float | None = None
        self._phase_starts: list[tuple[str, float]] = []
        self._outcome: str | None = None
        user_on_line = build.on_line
        build.progress.listeners.append(self._on_state)

        def on_line(stream: str, line: str) -> None:
            self._on_line(line)
            if user_on_line is not None:
                user_on_line(stream, line)

        build.on_line = on_line
        self._n_failures = 0
        build.on_failure = self._on_failure

    def _on_failure(self, row: dict[str, Any]) -> None:
        self._n_failures += 1
        where = row.get(C.LAYER) or "no layer named"
        self.failures.value = for_html(f"failures so far: {self._n_failures}; last: {where} "
                                       f"({row.get(C.CATEGORY)}, {row.get(C.PHASE)})")

    def _on_state(self, state: ProgressState) -> None:
        self.bar.value = state.fraction if state.fraction is not None else state.overall
        label = "/".join(state.path) or "starting"
        self.phase.value = for_html(f"{label} [{state.outcome}]" if state.outcome else label)
        now = time.monotonic()
        top = state.path[0] if state.path else None
        if top is not None and (not self._phase_starts or self._phase_starts[-1][0] != top):
            self._phase_starts.append((top, now))
        self._outcome = state.outcome
        self._draw_phases(now)

    @property
    def log_text(self) -> str:
        """The lines now in the log tail (plain text, newest last)."""
        with self._lock:
            return "\n".join(self._tail)

    def phase_times(self, now: float | None = None) -> list[tuple[str, float]]:
        """``(phase, seconds)`` for each top-level phase seen, in order; the current phase's
        time runs until now (or until the build ended)."""
        end = self._ended_at if self._ended_at is not None else (
            time.monotonic() if now is None else now)
        starts = self._phase_starts
        return [(name, (starts[i + 1][1] if i + 1 < len(starts) else end) - begun)
                for i, (name, begun) in enumerate(starts)]

    def _draw_phases(self, now: float | None = None) -> None:
        if self._started_at is None:
            return
        end = self._ended_at if self._ended_at is not None else (
            time.monotonic() if now is None else now)
        times = self.phase_times(now)
        running = len(times) - 1 if self._ended_at is None else -1
        parts = [f"<b>{for_html(name)} {took:.1f} s</b>" if i == running
                 else f"{for_html(name)} {took:.1f} s" for i, (name, took) in enumerate(times)]
        state = for_html(self._outcome) if self._outcome else (
            "running" if self._ended_at is None else "ended")
        self.phases.value = (f"<span class='trtsafe-phase-list'>{' › '.join(parts) or 'starting'}"
                             f"</span> — {state}, elapsed {end - self._started_at:.1f} s")

    def _tick(self) -> None:
        """Redraw the elapsed times twice a second while the build runs (long quiet phases)."""
        while self._ended_at is None and self.thread is not None and self.thread.is_alive():
            self._draw_phases()
            time.sleep(0.5)

    def _on_follow(self, change: dict[str, Any]) -> None:
        self.follow.icon = "pause" if change["new"] else "play"
        self.follow.description = "follow log" if change["new"] else "paused"
        if change["new"]:
            with self._lock:
                self._redraw_locked(time.monotonic())

    def _on_line(self, line: str) -> None:
        with self._lock:
            self._tail.append(line)
            now = time.monotonic()
            wait = self.refresh_s - (now - self._last_refresh)
            if wait <= 0:
                self._redraw_locked(now)
            elif self._trailing is None:
                # Throttled: redraw once the window ends, so the last lines before a quiet spell
                # (a long tactic search) show up then instead of at the next line.
                self._trailing = threading.Timer(wait, self._redraw_trailing)
                self._trailing.daemon = True
                self._trailing.start()

    def _redraw_locked(self, now: float) -> None:
        self._last_refresh = now
        if self.follow.value:  # paused: the view stays as it is so it can be read
            text = for_html("\n".join(self._tail))
            self.log.value = (f"<div class='trtsafe-log-box' style='{LOG_BOX_STYLE}'>"
                              f"<pre style='{LOG_PRE_STYLE}'>{text}</pre></div>")

    def _redraw_trailing(self) -> None:
        with self._lock:
            self._trailing = None
            self._redraw_locked(time.monotonic())

    def _run(self) -> None:
        try:
            self.result = self.build.run()
        except BaseException as err:  # shown in the panel and kept in .error, never swallowed
            self.error = err
            self.phase.value = for_html(f"error: {err}")
        finally:
            with self._lock:
                if self._trailing is not None:
                    self._trailing.cancel()
                    self._trailing = None
                self._redraw_locked(time.monotonic())
            self._ended_at = time.monotonic()
            self._draw_phases()
            self.cancel_button.disabled = True
            if self.result is not None:
                self.phase.value = f"{self.phase.value} → {for_html(self.result.run_dir)}"

    def start(self) -> BuildPanel:
        """Run the build on a background thread; returns self (display ``.widget``)."""
        if self.thread is not None:
            raise RuntimeError("this panel's build was already started; make a new TrtexecBuild")
        self._started_at = time.monotonic()
        self.thread = threading.Thread(target=self._run, name="trtsafe-lab-build", daemon=True)
        self.thread.start()
        threading.Thread(target=self._tick, name="trtsafe-lab-build-clock", daemon=True).start()
        return self
