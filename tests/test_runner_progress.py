"""The process runner (no shell, both streams, leftover processes) and progress tracking."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path

from import_check import loaded_after

from trtsafe_lab.trtexec.progress import (
    PHASE_NAMES,
    ProgressTracker,
    TerminalProgressBar,
    phase_of_line,
)
from trtsafe_lab.trtexec.runner import STATUS_EXITED, ProcessRunner


def test_runner_streams_both_pipes_without_a_shell(tmp_path: Path) -> None:
    script = "import sys; print('out 1'); print('err 1', file=sys.stderr); print('$HOME *')"
    got: list[tuple[str, str]] = []
    result = ProcessRunner([sys.executable, "-c", script], lambda s, ln: got.append((s, ln)),
                           cwd=tmp_path).run()
    assert result.status == STATUS_EXITED and result.returncode == 0
    assert sorted(got) == [("stderr", "err 1"), ("stdout", "$HOME *"), ("stdout", "out 1")]


def test_runner_reports_exit_code(tmp_path: Path) -> None:
    result = ProcessRunner([sys.executable, "-c", "raise SystemExit(3)"], lambda s, ln: None).run()
    assert result.returncode == 3 and result.finished


def test_runner_ends_a_leftover_that_holds_the_pipes(tmp_path: Path) -> None:
    """The tool exits but leaves a child holding stdout open: the group is ended, no hang."""
    pidfile = tmp_path / "child"
    script = (
        "import subprocess, sys\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
        "print('parent done')\n"
    )
    result = ProcessRunner([sys.executable, "-c", script], lambda s, ln: None, grace_s=0.3).run()
    assert result.returncode == 0
    child = int(pidfile.read_text())
    # SIGKILL to the group is delivered asynchronously: on a loaded machine the child can still
    # be listed for a moment after run() returns. It must be gone well before its 600 s sleep.
    deadline = time.monotonic() + 20
    while True:
        state = subprocess.run(["ps", "-o", "stat=", "-p", str(child)], capture_output=True,
                               text=True).stdout.strip()
        if state in ("", "Z") or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert state in ("", "Z"), f"leftover child {child} still running ({state})"


def test_phases_from_a_real_trtexec_log(corpus_dir: Path) -> None:
    lines = (corpus_dir / "build-logs/verbose/trt-8.5.2-resnet-verbose-build-and-profile.log"
             ).read_text(errors="replace").splitlines()
    tracker = ProgressTracker()
    tops: list[str] = []
    tracker.listeners.append(lambda state: tops.extend(state.path[:1]))
    for line in lines:
        tracker.feed_line(line)
    seen = [p for i, p in enumerate(tops) if i == 0 or tops[i - 1] != p]  # phase changes
    assert seen[0] == "setup" and seen[-1] == "done"
    order = [PHASE_NAMES.index(p) for p in seen]
    assert order == sorted(order)  # phases only move forward
    assert {"parse", "build", "tactics", "serialize", "load", "inference"} <= set(seen)
    assert tracker.state().outcome == "passed" and tracker.state().overall == 1.0


def test_phase_of_line_examples() -> None:
    assert phase_of_line("[I] Start parsing network model") == "parse"
    assert phase_of_line("[I] Engine built in 9.5 sec.") == "serialize"
    assert phase_of_line("&&&& FAILED TensorRT.trtexec [TensorRT v8205] # x") == "done"
    assert phase_of_line("[V] [TRT] nothing to see") is None


def test_nested_monitor_phases_and_terminal_bar() -> None:
    stream = io.StringIO()
    bar = TerminalProgressBar(stream=stream, width=10)
    tracker = ProgressTracker(listeners=[bar])
    tracker.phase_start("Building", None, 2)
    tracker.phase_start("Tactics", "Building", 4)
    tracker.step("Tactics", 1)
    assert tracker.state().path == ("Building", "Tactics") and tracker.state().fraction == 0.5
    tracker.phase_finish("Tactics")
    tracker.step("Building", 1)
    assert tracker.state().fraction == 1.0
    tracker.finish("passed")
    bar.close()
    frames = stream.getvalue().split("\r")
    assert "[#####.....]  50.0% Building/Tactics" in frames[3]
    assert frames[-1].rstrip().endswith("[passed]")
    assert json.dumps(tracker.state().path) == '["Building"]'


def test_build_modules_do_not_import_heavy_packages() -> None:
    code = ("import trtsafe_lab.trtexec, trtsafe_lab.trtexec.cli, trtsafe_lab.sweep\n"
            "import trtsafe_lab.engine, trtsafe_lab.artifacts, trtsafe_lab.artifacts_cli\n"
            "import trtsafe_lab.rundir, trtsafe_lab.trtexec.panel")
    assert loaded_after(code, ("tensorrt", "cuda", "matplotlib", "ipywidgets")) == []
