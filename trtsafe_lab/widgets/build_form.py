"""The build panel: a form → the argv with the 11.x rule findings inline → Run → the builds job's
live panel (log following the newest line, phases with elapsed times, Cancel) → a result
summary with the failure explorer.

The tool defaults to what is installed: ``trtexec`` / ``trtexec_safe`` when found on PATH,
else the REPLAY tool (:mod:`trtsafe_lab.replay`: a recorded log, NOT TensorRT, clearly
labelled), installed inside the runs folder so nothing is left in /tmp. A path field names any
other tool. Built over :mod:`trtsafe_lab.trtexec` (command model and rules,
:class:`TrtexecBuild`) and its :class:`~trtsafe_lab.trtexec.panel.BuildPanel`. Returned, never
displayed at construction. Every data string reaches the HTML through
:func:`trtsafe_lab.text.for_html`.
"""

from __future__ import annotations

import shlex
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from trtsafe_lab._optional import require
from trtsafe_lab.replay import replay_setup
from trtsafe_lab.rundir import LOG_NAME
from trtsafe_lab.text import for_html
from trtsafe_lab.trtexec.build import BuildResult, TrtexecBuild
from trtsafe_lab.trtexec.options import TrtexecCommand, parse_flags
from trtsafe_lab.trtexec.rules import check_command, expected_artifacts, refusals
from trtsafe_lab.trtexec.version import TrtVersion

VERSIONS: tuple[str, ...] = ("11.4", "11.3", "11.0", "10.16", "10.8")
#: The tools looked up on PATH, in order of preference.
REAL_TOOLS: tuple[str, ...] = ("trtexec", "trtexec_safe")
#: The label of the REPLAY choice (it is not TensorRT and must never look like it).
REPLAY_LABEL = "REPLAY (not TensorRT)"
REPLAY = "replay"  # the REPLAY choice's value


def installed_tools() -> list[tuple[str, str]]:
    """``(name, absolute path)`` of each of :data:`REAL_TOOLS` found on PATH."""
    found = [(name, shutil.which(name)) for name in REAL_TOOLS]
    return [(name, path) for name, path in found if path]


def tool_problem_of(path_text: str) -> str | None:
    """Why the tool in the path field cannot run, or None (it is an executable file, or a name
    found on PATH)."""
    text = path_text.strip()
    if not text:
        return "no tool: choose one above or type the path of trtexec / trtexec_safe"
    if shutil.which(text) is None:
        return (f"'{text}' is not an executable file and not a command on PATH: type the full "
                "path of trtexec / trtexec_safe in the tool path field, or choose "
                f"{REPLAY_LABEL} to see the whole build path without TensorRT")
    return None


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


# Long argv / paths wrap inside the output area instead of widening it.
_WRAP = ("<style>.trtsafe-argv,.trtsafe-build-summary code,.trtsafe-build-preview code"
         "{white-space:pre-wrap;overflow-wrap:anywhere}</style>")


def preview_html(cmd: TrtexecCommand, tool_problem: str | None) -> str:
    """The argv, each rule finding (refusals red, warnings amber) and the expected artifacts."""
    parts = [_WRAP, f"<pre class='trtsafe-argv'>{for_html(shlex.join(cmd.argv()))}</pre>"]
    findings = check_command(cmd)
    if not findings:
        parts.append(f"<div style='color:#1a7f37'>✔ passes the TensorRT {cmd.version} rules</div>")
    for f in findings:
        colour = "#c62828" if f.severity == "refusal" else "#b26a00"
        parts.append(
            f"<div class='trtsafe-finding trtsafe-{for_html(f.severity)}' style='color:{colour}'>"
            f"<b>{for_html(f.severity)}</b> [{for_html(f.rule)}] --{for_html(f.flag)}: "
            f"{for_html(f.message)}<br><i>fix:</i> {for_html(f.fix)}</div>")
    arts = expected_artifacts(cmd)
    if arts:
        items = "".join(f"<li>{for_html(a.kind)} ({for_html(a.role)}): "
                        f"<code>{for_html(a.path)}</code>"
                        f"{' — ' + for_html(a.note) if a.note else ''}</li>" for a in arts)
        parts.append(f"<div>expected artifacts:<ul>{items}</ul></div>")
    if tool_problem:
        parts.append(f"<div class='trtsafe-tool-missing'><b>Cannot run here:</b> "
                     f"{for_html(tool_problem)}</div>")
    return "".join(parts)


def result_html(result: BuildResult) -> str:
    """The summary of a finished (or cancelled) build: status, run directory, artifacts."""
    proc = result.process
    status = (f"exit code {proc.returncode}" if result.complete
              else f"{proc.status} (incomplete run, kept as {result.run_dir.name})")
    rows = "".join(
        f"<tr><td>{for_html(a['kind'])}</td><td>{'present' if a['present'] else 'MISSING'}"
        f"</td><td><code>{for_html(a['path'])}</code></td></tr>" for a in result.artifacts)
    return (f"{_WRAP}<b>{'OK' if result.ok else 'NOT OK'}</b>: {for_html(status)}, "
            f"{proc.duration_s:.1f} s<br>run directory: <code>{for_html(result.run_dir)}"
            f"</code>" + (f"<table>{rows}</table>" if rows else ""))


def unfinished_html(error: BaseException | None) -> str:
    """The summary of a build that did not finish (it raised before a run record was made)."""
    return f"{_WRAP}<b>The build did not finish:</b> <code>{for_html(error)}</code>"


class BuildForm:
    """Compose a trtexec / trtexec_safe command with the 11.x rules checked as you type, run it
    into ``runs_dir`` and watch it live.

    ``tools``: the tool choices, names looked up on PATH or paths, optionally as
    ``(label, name_or_path)``; by default the tools of :data:`REAL_TOOLS` found on PATH. The
    REPLAY tool (``replay=True``, a recorded log, NOT TensorRT) is offered last and chosen when
    no real tool is found. The ``tool_path`` field shows the chosen tool's path and takes any
    other. ``command`` is the command the form describes now; ``can_run`` says whether Run is
    enabled (no refusal and the tool found). After a run, ``result`` is the
    :class:`BuildResult` and ``explorer`` the failure explorer over its failure table.
    """

    def __init__(self, runs_dir: str | Path = "runs", *, version: str = "11.4",
                 onnx: str = "model.onnx", save_engine: str = "model.engine",
                 tools: Sequence[str | tuple[str, str]] | None = None,
                 replay: bool = True) -> None:
        w = require("ipywidgets", feature="The build panel")
        self._w = w
        self.runs_dir = Path(runs_dir)
        label = {"description_width": "110px"}
        if tools is None:
            tools = installed_tools()
        choices = [t if isinstance(t, tuple) else (t, t) for t in tools]  # (label, tool) pairs
        self._replay_workdir: Path | None = None
        if replay:
            choices.append((REPLAY_LABEL, REPLAY))
        if not choices:
            raise ValueError("the build form needs at least one tool (or replay=True)")
        found = [value for _label, value in choices
                 if value != REPLAY and shutil.which(value) is not None]
        default = found[0] if found else (REPLAY if replay else choices[0][1])
        self.tool = w.ToggleButtons(options=choices, value=default, description="tool")
        self.tool.style.button_width = "auto"  # labels are never cut
        self.tool.add_class("trtsafe-tool-choice")
        self.version = w.Dropdown(options=VERSIONS, value=version, description="TensorRT")

        def text(value: str, description: str, placeholder: str = "", width: str = "400px"
                 ) -> Any:
            return w.Text(value=value, description=description, placeholder=placeholder,
                          style=label, layout=w.Layout(width=width))

        self.tool_path = text("", "tool path", "path of trtexec / trtexec_safe", width="810px")
        self.tool_path.add_class("trtsafe-tool-path")
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
        self._fields = (self.tool_path, self.version, self.onnx, self.save_engine,
                        self.save_engine_so, self.timing_cache, self.max_aux_streams, self.safe,
                        self.skip_inference, self.extra)
        self.command: TrtexecCommand | None = None
        self.tool_problem: str | None = None
        self.tool.observe(lambda _c: self._on_tool(), names="value")
        for control in self._fields:
            control.observe(lambda _c: self._refresh(), names="value")
        self.ui = w.VBox([
            w.HBox([self.tool, self.version], layout=w.Layout(flex_flow="row wrap")),
            self.tool_path,
            w.HBox([w.VBox([self.onnx, self.save_engine, self.save_engine_so]),
                    w.VBox([self.timing_cache, self.max_aux_streams,
                            w.HBox([self.safe, self.skip_inference])])],
                   layout=w.Layout(flex_flow="row wrap")),
            self.extra, self.preview, self.run_button, self.summary, self.live,
        ])
        self.ui.add_class("trtsafe-build-form")
        self._on_tool()

    @property
    def is_replay(self) -> bool:
        """True when the REPLAY tool (a recorded log, NOT TensorRT) is the chosen tool."""
        return self.tool.value == REPLAY

    @property
    def workdir(self) -> Path:
        """The folder relative input paths are read from (the REPLAY's own folder, which holds
        its placeholder model, when REPLAY is chosen; else the current folder)."""
        return self._replay_workdir if self.is_replay and self._replay_workdir else Path.cwd()

    def _on_tool(self) -> None:
        """A tool was chosen: show its path (installing the REPLAY tool on first choice)."""
        if self.is_replay:
            tool, self._replay_workdir = replay_setup(self.runs_dir)
            path = str(tool)
        else:
            path = shutil.which(self.tool.value) or self.tool.value
        if self.tool_path.value == path:
            self._refresh()
        else:
            self.tool_path.value = path  # observed: refreshes

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
            self.run_button.disabled = True
            self.preview.value = (f"<div class='trtsafe-finding trtsafe-refusal' "
                                  f"style='color:#c62828'>{for_html(err)}</div>")
            return
        tool = self.tool_path.value.strip() or str(self.tool.value)
        self.command = TrtexecCommand(tool, tuple(flags), TrtVersion.parse(self.version.value))
        self.tool_problem = tool_problem_of(self.tool_path.value)
        self.run_button.disabled = not self.can_run  # before the preview shows why
        self.preview.value = preview_html(self.command, self.tool_problem)

    def start(self) -> None:
        """Run the command now shown (on a background thread; the live panel appears)."""
        from trtsafe_lab.trtexec.panel import BuildPanel

        if not self.can_run or self.command is None:
            raise RuntimeError("this command cannot run: see the findings in the preview")
        self.run_button.disabled = True
        self.summary.value = ""
        self._done.clear()
        self.panel = BuildPanel(TrtexecBuild(self.command, self.runs_dir, cwd=self.workdir))
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
                self.summary.value = unfinished_html(self.panel.error)
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
