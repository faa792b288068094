"""The build form: rules checked as fields change, Run enabled only when the command may run,
and a run through the builds job's runner ending in a summary and a failure explorer.

The tool run here is a TEST DOUBLE (a shell script printing a few trtexec-style lines), not
TensorRT; it only exercises the form's wiring to the real runner and run directory code.
"""

from __future__ import annotations

import html
from pathlib import Path

import pytest

pytest.importorskip("ipywidgets")

from notebook_support import install_trtexec_double

from trtsafe_lab.widgets import BuildForm
from trtsafe_lab.widgets.build_form import form_argv


def test_form_argv() -> None:
    argv = form_argv({"onnx": "m.onnx", "save_engine": " m.engine ", "max_aux_streams": "0",
                      "safe": True, "skip_inference": False, "extra": "--verbose 'x=1'"})
    assert argv == ["--onnx=m.onnx", "--saveEngine=m.engine", "--maxAuxStreams=0", "--safe",
                    "--verbose", "x=1"]


def test_rules_show_inline_and_gate_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no trtexec here
    form = BuildForm(tmp_path / "runs", tools=["trtexec"], replay=False)
    assert "passes the TensorRT 11.4.0 rules" in form.preview.value
    assert "model.engine.so" in form.preview.value  # the companion .so it will write
    assert "Cannot run here" in form.preview.value and form.run_button.disabled
    assert "tool path field" in form.preview.value and "--tool" not in form.preview.value
    double = install_trtexec_double(tmp_path / "bin") / "trtexec"
    form.tool_path.value = str(double)  # a path typed into the form's own field
    assert form.can_run and "Cannot run here" not in form.preview.value
    assert form.command is not None and form.command.tool == str(double)
    form.tool_path.value = str(tmp_path / "no-such-tool")
    assert not form.can_run and "no-such-tool" in form.preview.value
    form.tool_path.value = str(double)

    form.extra.value = "--fp16"
    assert "trtsafe-refusal" in form.preview.value and "fp16" in form.preview.value
    form.version.value = "10.16"  # --fp16 is fine on 10.x
    assert "precision-flags-removed" not in form.preview.value
    form.extra.value = "fp16"  # not a flag
    assert "is not of the form --name" in form.preview.value and form.command is None
    form.extra.value = ""
    form.version.value = "11.4"
    form.max_aux_streams.value = "-1"
    assert "maxAuxStreams" in form.preview.value and "trtsafe-refusal" in form.preview.value
    form.max_aux_streams.value = "0"
    form.safe.value = False
    form.save_engine_so.value = "x.so"
    assert "trtsafe-refusal" in form.preview.value  # --saveEngineSo needs --safe


def test_run_shows_live_panel_summary_and_failures(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bin_dir = install_trtexec_double(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.onnx").write_bytes(b"not a real model: the double never reads it")
    double = str(bin_dir / "trtexec")
    form = BuildForm(tmp_path / "runs", tools=["trtexec_safe", ("the double", double)])
    assert form.tool.value == double  # the tool that is installed is the default
    assert form.tool_path.value == double
    form.tool.value = "trtexec_safe"
    assert not form.can_run  # no trtexec_safe here
    form.tool.value = double
    assert form.can_run and not form.run_button.disabled
    form.start()
    result = form.wait(timeout_s=60)
    assert result is not None and result.complete and not result.ok
    assert result.process.returncode == 1
    assert "NOT OK" in form.summary.value and str(result.run_dir) in form.summary.value
    assert form.panel is not None and "Error Code 10" in form.panel.log_text
    assert form.explorer is not None
    assert "/backbone/conv1/Conv" in set(form.explorer.failures["layer"])
    assert len(form.live.children) == 2  # the live panel, then the failure explorer
    assert not form.run_button.disabled  # ready for another run


def test_cancel_button_ends_the_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import time

    from notebook_support import install_slow_trtexec_double

    bin_dir = install_slow_trtexec_double(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.onnx").write_bytes(b"placeholder")
    form = BuildForm(tmp_path / "runs")
    form.start()
    assert form.panel is not None
    def started() -> bool:  # the tool's second line is in the (partial) run's log
        logs = list((tmp_path / "runs").glob("*/build.log"))
        return bool(logs) and "Start parsing" in logs[0].read_text()

    deadline = time.monotonic() + 30
    while not started() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started() and form.run_button.disabled  # one build at a time
    form.panel.cancel_button.click()
    result = form.wait(timeout_s=60)
    assert result is not None and not result.complete
    assert result.process.status == "cancelled"
    assert "cancelled (incomplete run" in form.summary.value
    assert result.run_dir.name.endswith(".partial")
    assert form.explorer is None  # no failure table for a run that did not finish


def test_replay_is_the_default_without_trtexec_follows_the_log_and_leaves_no_temp_folders(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No trtexec on PATH: the form chooses the labelled REPLAY tool (a recorded log, NOT
    TensorRT) and runs it with no hint; the log view ends at the newest line; every file it
    needs lives under the runs folder, none in the temp folder."""
    import tempfile

    from trtsafe_lab.replay import default_log
    from trtsafe_lab.widgets.build_form import REPLAY_LABEL

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))  # the replay subprocess's temp folder too
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no trtexec here
    monkeypatch.chdir(tmp_path)
    form = BuildForm(tmp_path / "runs")
    assert form.is_replay and form.tool.options == ((REPLAY_LABEL, "replay"),)
    assert form.can_run and "Cannot run here" not in form.preview.value
    assert Path(form.tool_path.value).is_relative_to(tmp_path / "runs")
    form.start()
    result = form.wait(timeout_s=120)
    assert result is not None and result.complete and result.process.returncode == 1
    assert "NOT OK" in form.summary.value and form.explorer is not None
    last = [x for x in default_log().read_text(encoding="utf-8").splitlines() if x.strip()][-1]
    assert form.panel.log_text.splitlines()[-1] == last
    # the view is the tail, bottom-anchored (newest line last, shown without scrolling)
    assert form.panel.log.value.endswith(f"{html.escape(last)}</pre></div>")
    assert "column-reverse" in form.panel.log.value
    phases = form.panel.phases.value  # each phase seen, in order, with its time
    assert "elapsed" in phases and phases.index("parse") < phases.index("build")
    assert list(temp.iterdir()) == []  # nothing left in the temp folder
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()
                  if not p.name.startswith(".")) == [result.run_dir.name]


def test_log_view_pauses_and_resumes(tmp_path: Path) -> None:
    from trtsafe_lab.trtexec.build import TrtexecBuild
    from trtsafe_lab.trtexec.options import TrtexecCommand
    from trtsafe_lab.trtexec.panel import BuildPanel
    from trtsafe_lab.trtexec.version import TrtVersion

    panel = BuildPanel(TrtexecBuild(TrtexecCommand("trtexec", (), TrtVersion(11, 4)),
                                    tmp_path / "runs"), refresh_s=0.0)
    panel._on_line("one")
    assert "one" in panel.log.value
    panel.follow.value = False  # pause: the view stays put while lines arrive
    panel._on_line("two <b>not markup</b>")
    assert "two" not in panel.log.value and panel.follow.description == "paused"
    panel.follow.value = True  # resume: the view catches up at once
    assert "two &lt;b&gt;not markup&lt;/b&gt;</pre>" in panel.log.value
