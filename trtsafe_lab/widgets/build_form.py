"""The build panel: a form → the argv with the 11.x rule findings inline → Run → the builds job's
live panel (log tail, phase/progress, Cancel) → a result summary with the failure explorer.

Built over :mod:`trtsafe_lab.trtexec` (command model and rules, :class:`TrtexecBuild`) and its
:class:`~trtsafe_lab.trtexec.panel.BuildPanel`. Returned, never displayed at construction.
"""

from __future__ import annotations

import html
import shlex
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from trtsafe_lab._optional import require
from trtsafe_lab.rundir import LOG_NAME
from trtsafe_lab.trtexec.build import BuildResult, TrtexecBuild, resolve_tool
from trtsafe_lab.trtexec.options import TrtexecCommand, parse_flags
from trtsafe_lab.trtexec.rules import check_command, expected_artifacts, refusals
from trtsafe_lab.trtexec.version import TrtVersion

VERSIONS: tuple[str, ...] = ("11.4", "11.3", "11.0", "10.16", "10.8")


def form_argv(fields: dict[str, Any]) -> list[str]:
    """trtexec arguments (without the tool) from the form's field values.

    Keys: ``onnx``, ``save_engine``, ``save_engine_so``, ``timing_cache``, ``max_aux_streams``
    (text; empty = builder heuristics), ``safe``, ``skip_inference`` (bools), ``extra`` (more
    flags, shell-quoted). Empty text fields are left out. Bad ``extra`` quoting raises ValueError.
    """
    args = []
    for key, flag in (("onnx", "onnx"), ("save_engine", "saveEngine"),
                      ("save_engine_so", "saveEngineSo"), ("timing_cache", "timingCacheFile"),
                      ("max_aux_streams", "maxAuxStreams")):
        value = str(fields.get(key) or "").strip()
        if value:
            args.append(f"--{flag}={value}")
    for key, flag in (("safe", "safe"), ("skip_inference", "skipInference")):
        if fields.get(key):
            args.append(f"--{flag}")
    return args + shlex.split(str(fields.get("extra") or ""))


def preview_html(cmd: TrtexecCommand, tool_problem: str | None) -> str:
    """The argv, each rule finding (refusals red, warnings amber) and the expected artifacts."""
    parts = [f"<pre class='trtsafe-argv'>{html.escape(shlex.join(cmd.argv()))}</pre>"]
    findings = check_command(cmd)
    if not findings:
        parts.append(f"<div style='color:#1a7f37'>✔ passes the TensorRT {cmd.version} rules</div>")
    for f in findings:
        colour = "#c62828" if f.severity == "refusal" else "#b26a00"
        parts.append(
            f"<div class='trtsafe-finding trtsafe-{f.severity}' style='color:{colour}'>"
            f"<b>{f.severity}</b> [{html.escape(f.rule)}] --{html.escape(f.flag)}: "
            f"{html.escape(f.message)}<br><i>fix:</i> {html.escape(f.fix)}</div>")
    arts = expected_artifacts(cmd)
    if arts:
        items = "".join(f"<li>{a.kind} ({a.role}): <code>{html.escape(str(a.path))}</code>"
                        f"{' — ' + html.escape(a.note) if a.note else ''}</li>" for a in arts)
        parts.append(f"<div>expected artifacts:<ul>{items}</ul></div>")
    if tool_problem:
        parts.append(f"<div class='trtsafe-tool-missing'><b>Cannot run here:</b> "
                     f"{html.escape(tool_problem)}</div>")
    return "".join(parts)


def result_html(result: BuildResult) -> str:
    """The summary of a finished (or cancelled) build: status, run directory, artifacts."""
    proc = result.process
    status = (f"exit code {proc.returncode}" if result.complete
              else f"{proc.status} (incomplete run, kept as {result.run_dir.name})")
    rows = "".join(
        f"<tr><td>{html.escape(a['kind'])}</td><td>{'present' if a['present'] else 'MISSING'}"
        f"</td><td><code>{html.escape(str(a['path']))}</code></td></tr>" for a in result.artifacts)
    return (f"<b>{'OK' if result.ok else 'NOT OK'}</b>: {html.escape(status)}, "
            f"{proc.duration_s:.1f} s<br>run directory: <code>{html.escape(str(result.run_dir))}"
            f"</code>" + (f"<table>{rows}</table>" if rows else ""))


class BuildForm:
    """Compose a trtexec / trtexec_safe command with the 11.x rules checked as you type, run it
    into ``runs_dir`` and watch it live.

    ``tools`` are the choices for the tool: names looked up on PATH or paths, optionally as
    ``(label, name_or_path)``. ``command`` is the command the form describes now; ``can_run``
    says whether Run is enabled (no refusal and the tool found). After a run, ``result`` is the
    :class:`BuildResult` and ``explorer`` the failure explorer over its failure table.
    """

    def __init__(self, runs_dir: str | Path = "runs", *, version: str = "11.4",
                 onnx: str = "model.onnx", save_engine: str = "model.engine",
                 tools: Sequence[str | tuple[str, str]] = ("trtexec", "trtexec_safe")) -> None:
        w = require("ipywidgets", feature="The build panel")
        self._w = w
        self.runs_dir = Path(runs_dir)
        label = {"description_width": "110px"}
        choices = [t if isinstance(t, tuple) else (t, t) for t in tools]  # (label, tool) pairs
        self.tool = w.ToggleButtons(options=choices, description="tool")
        self.version = w.Dropdown(options=VERSIONS, value=version, description="TensorRT")
        def text(value: str, description: str, placeholder: str = "", width: str = "400px"
                 ) -> Any:
            return w.Text(value=value, description=description, placeholder=placeholder,
                          style=label, layout=w.Layout(width=width))

        self.onnx = text(onnx, "onnx")
        self.save_engine = text(save_engine, "saveEngine")
        self.save_engine_so = text("", "saveEngineSo", "default: <saveEngine>.so")
        self.timing_cache = text("", "timing cache")
        self.max_aux_streams = text("", "maxAuxStreams", "empty: builder heuristics; 0: one stream")
        self.safe = w.Checkbox(value=True, description="--safe", indent=False)
        self.skip_inference = w.Checkbox(value=True, description="--skipInference", indent=False)
        self.extra = text("", "more flags", "e.g. --verbose --profilingVerbosity=detailed",
                          width="810px")
        self.preview = w.HTML()
        self.preview.add_class("trtsafe-build-preview")
        self.run_button = w.Button(description="Run", button_style="primary", icon="play")
        self.run_button.on_click(lambda _b: self.start())
        self.live = w.VBox()
        self.summary = w.HTML()
        self.summary.add_class("trtsafe-build-summary")
        self.result: BuildResult | None = None
        self.panel: Any = None
        self.explorer: Any = None
        self._done = threading.Event()
        self._fields = (self.tool, self.version, self.onnx, self.save_engine, self.save_engine_so,
                        self.timing_cache, self.max_aux_streams, self.safe, self.skip_inference,
                        self.extra)
        for control in self._fields:
            control.observe(lambda _c: self._refresh(), names="value")
        self.ui = w.VBox([
            w.HBox([self.tool, self.version]),
            w.HBox([w.VBox([self.onnx, self.save_engine, self.save_engine_so]),
                    w.VBox([self.timing_cache, self.max_aux_streams,
                            w.HBox([self.safe, self.skip_inference])])]),
            self.extra, self.preview, self.run_button, self.summary, self.live,
        ])
        self.ui.add_class("trtsafe-build-form")
        self.command: TrtexecCommand | None = None
        self.tool_problem: str | None = None
        self._refresh()

    @property
    def can_run(self) -> bool:
        return (self.command is not None and not refusals(check_command(self.command))
                and self.tool_problem is None)

    def _refresh(self) -> None:
        fields = {name: getattr(self, name).value for name in (
            "onnx", "save_engine", "save_engine_so", "timing_cache", "max_aux_streams", "safe",
            "skip_inference", "extra")}
        try:
            flags = parse_flags(form_argv(fields))
        except ValueError as err:
            self.command = None
            self.preview.value = (f"<div class='trtsafe-finding trtsafe-refusal' "
                                  f"style='color:#c62828'>{html.escape(str(err))}</div>")
            self.run_button.disabled = True
            return
        self.command = TrtexecCommand(self.tool.value, tuple(flags),
                                      TrtVersion.parse(self.version.value))
        try:
            resolve_tool(self.tool.value)
            self.tool_problem = None
        except FileNotFoundError as err:
            self.tool_problem = str(err)
        self.preview.value = preview_html(self.command, self.tool_problem)
        self.run_button.disabled = not self.can_run

    def start(self) -> None:
        """Run the command now shown (on a background thread; the live panel appears)."""
        from trtsafe_lab.trtexec.panel import BuildPanel

        if not self.can_run or self.command is None:
            raise RuntimeError("this command cannot run: see the findings in the preview")
        self.run_button.disabled = True
        self.summary.value = ""
        self._done.clear()
        self.panel = BuildPanel(TrtexecBuild(self.command, self.runs_dir))
        self.live.children = (self.panel.widget,)
        self.panel.start()
        threading.Thread(target=self._await_result, name="trtsafe-lab-build-summary",
                         daemon=True).start()

    def wait(self, timeout_s: float | None = None) -> BuildResult | None:
        """Block until the started build has finished and the summary is shown."""
        self._done.wait(timeout_s)
        return self.result

    def _await_result(self) -> None:
        from trtsafe_lab.widgets.failure_explorer import FailureExplorer

        try:
            assert self.panel is not None and self.panel.thread is not None
            self.panel.thread.join()
            self.result = self.panel.result
            if self.result is None:
                self.summary.value = f"<b>The build did not finish:</b> {self.panel.error}"
                return
            self.summary.value = result_html(self.result)
            if self.result.complete:
                failures: pd.DataFrame = self.result.failures()
                log = (self.result.run_dir / LOG_NAME).read_text(errors="replace")
                self.explorer = FailureExplorer(failures, log.splitlines())
                self.live.children = (*self.live.children, self.explorer.ui)
        finally:
            self.run_button.disabled = not self.can_run
            self._done.set()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.ui._repr_mimebundle_(**kwargs)
