"""A notebook panel for one trtexec build: live log tail, phase and progress bar, Cancel button.

View module: imports ipywidgets lazily (``trtsafe-lab[notebook]``). The panel is built from
:class:`~trtsafe_lab.trtexec.build.TrtexecBuild` and returned, not displayed; ``start()`` runs
the build on a background thread so the notebook stays responsive, and the Cancel button calls
``build.cancel()`` (the whole process group is ended).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any

from trtsafe_lab._optional import require
from trtsafe_lab.logs import columns as C
from trtsafe_lab.trtexec.build import BuildResult, TrtexecBuild
from trtsafe_lab.trtexec.progress import ProgressState


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
        self.phase = widgets.Label(value="not started")
        self.bar = widgets.FloatProgress(value=0.0, min=0.0, max=1.0, description="progress")
        self.log = widgets.Textarea(value="", layout=widgets.Layout(width="100%", height="300px"))
        self.failures = widgets.Label(value="failures so far: 0")
        self.cancel_button = widgets.Button(description="Cancel", button_style="danger")
        self.cancel_button.on_click(lambda _b: self.build.cancel())
        self.widget: Any = widgets.VBox(
            [widgets.HBox([self.bar, self.phase, self.cancel_button]), self.failures, self.log])
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
        self.failures.value = (f"failures so far: {self._n_failures}; last: {where} "
                               f"({row.get(C.CATEGORY)}, {row.get(C.PHASE)})")

    def _on_state(self, state: ProgressState) -> None:
        self.bar.value = state.fraction if state.fraction is not None else state.overall
        label = "/".join(state.path) or "starting"
        self.phase.value = f"{label} [{state.outcome}]" if state.outcome else label

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
        self.log.value = "\n".join(self._tail)

    def _redraw_trailing(self) -> None:
        with self._lock:
            self._trailing = None
            self._redraw_locked(time.monotonic())

    def _run(self) -> None:
        try:
            self.result = self.build.run()
        except BaseException as err:  # shown in the panel and kept in .error, never swallowed
            self.error = err
            self.phase.value = f"error: {err}"
        finally:
            with self._lock:
                if self._trailing is not None:
                    self._trailing.cancel()
                    self._trailing = None
                self.log.value = "\n".join(self._tail)
            self.cancel_button.disabled = True
            if self.result is not None:
                self.phase.value = f"{self.phase.value} -> {self.result.run_dir}"

    def start(self) -> BuildPanel:
        """Run the build on a background thread; returns self (display ``.widget``)."""
        if self.thread is not None:
            raise RuntimeError("this panel's build was already started; make a new TrtexecBuild")
        self.thread = threading.Thread(target=self._run, name="trtsafe-lab-build", daemon=True)
        self.thread.start()
        return self
