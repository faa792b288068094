"""Builds into run directories, driven by the trtexec TEST DOUBLE (replays real corpus logs;
NOT TensorRT): success, failure, cancel, timeout, crash, paths with spaces, a full disk."""

from __future__ import annotations

import errno
import json
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from builds_support import (
    build_shared_object,
    double_environment,
    group_members_running,
    process_running,
)

from trtsafe_lab.artifacts import SafeEnginePair
from trtsafe_lab.rundir import RunDirError, RunWriter, load_run
from trtsafe_lab.runs_table import list_runs
from trtsafe_lab.trtexec.build import BuildAbortedError, ToolNotFoundError, TrtexecBuild
from trtsafe_lab.trtexec.options import TrtexecCommand, parse_flags
from trtsafe_lab.trtexec.progress import ProgressTracker
from trtsafe_lab.trtexec.rules import RuleViolation
from trtsafe_lab.trtexec.runner import STATUS_EXITED
from trtsafe_lab.trtexec.version import TrtVersion, detect_version

SUCCESS_CASE = "068.log"  # trtexec 10.16 verbose build tail, &&&& PASSED
FAILURE_CASE = "001.log"  # trtexec 8.2 build failure, &&&& FAILED


@pytest.fixture(scope="module")
def companion_so(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_shared_object(tmp_path_factory.mktemp("elf") / "companion.so")


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder whose path has spaces, holding an (empty) model.onnx."""
    work = tmp_path / "my work dir"
    work.mkdir()
    (work / "model.onnx").write_bytes(b"not a real onnx model")
    monkeypatch.chdir(work)
    return work


@pytest.fixture
def replay(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, companion_so: Path,
           corpus_dir: Path) -> Callable[..., None]:
    """``replay(case, **env)``: put the TEST DOUBLE on PATH replaying corpus case ``case``."""

    def start(case: str = SUCCESS_CASE, **env: str) -> None:
        use_double(monkeypatch, tmp_path, companion_so, corpus_dir / "build-logs/cases" / case,
                   **env)

    return start


def use_double(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, so: Path, case: Path,
               **extra: str) -> None:
    for name, value in {**double_environment(tmp_path, so, case), **extra}.items():
        monkeypatch.setenv(name, value)


def use_pid_double(replay: Callable[..., None], tmp_path: Path, mode: str) -> Path:
    """The double in a mode that never ends by itself; returns the file it writes its pids to."""
    pidfile = tmp_path / "pids"
    replay(SUCCESS_CASE, TRTEXEC_DOUBLE_MODE=mode, TRTEXEC_DOUBLE_PIDFILE=str(pidfile))
    return pidfile


def wait_for_pids(pidfile: Path) -> tuple[int, int]:
    """Wait until the double wrote "<own pid> <child pid>"; return them."""
    while not pidfile.exists() or len(pidfile.read_text().split()) < 2:
        time.sleep(0.05)
    leader, child = (int(p) for p in pidfile.read_text().split())
    return leader, child


def safe_command(extra: str = "") -> TrtexecCommand:
    args = f"--onnx=model.onnx --safe --saveEngine=net.engine --maxAuxStreams=1 {extra}".split()
    return TrtexecCommand("trtexec", tuple(parse_flags(args)), TrtVersion(11, 4))


def partial_dirs(runs: Path) -> list[Path]:
    return [p for p in runs.iterdir() if p.name.endswith(".partial")]


def assert_nothing_finished(runs: Path) -> Path:
    """Exactly one run, left under its .partial name, without a manifest, log kept."""
    (partial,) = partial_dirs(runs)
    assert [p for p in runs.iterdir() if not p.name.startswith(".")] == []
    assert not (partial / "manifest.json").exists()
    assert (partial / "build.log").is_file()
    assert list_runs(runs).empty
    with pytest.raises(RunDirError, match="incomplete run"):
        load_run(partial)
    return partial


def test_version_detected_from_double_banner(replay: Callable[..., None]) -> None:
    replay()
    assert detect_version("trtexec") == TrtVersion(11, 4)


def test_safe_build_writes_finished_run_with_pair(
    workdir: Path, corpus_dir: Path, replay: Callable[..., None]
) -> None:
    case = corpus_dir / "build-logs/cases" / SUCCESS_CASE
    replay(SUCCESS_CASE)
    seen: list[str] = []
    tracker = ProgressTracker()
    states: list[str | None] = []
    tracker.listeners.append(lambda s: states.append(s.outcome))
    runs = workdir / "runs dir"
    result = TrtexecBuild(safe_command(), runs, on_line=lambda _s, ln: seen.append(ln),
                          progress=tracker).run()
    assert result.ok and result.complete and result.process.status == STATUS_EXITED
    assert result.run_dir.parent == runs and not result.run_dir.name.startswith(".")
    record = load_run(result.run_dir)
    # the full log, every replayed line (stdout/stderr interleaving may differ from the original)
    original = case.read_text(encoding="utf-8", errors="replace").splitlines()
    assert sorted(record.log_path.read_text(encoding="utf-8").splitlines()) == sorted(original)
    assert sorted(seen) == sorted(original)
    assert states[-1] == "passed"
    assert record.result["exit_code"] == 0 and record.result["duration_s"] > 0
    assert record.command["argv"][0].endswith("TEST DOUBLE bin/trtexec")
    assert record.environment["trt_version"] == "11.4.0" and "gpu" in record.environment
    assert record.verify() == []
    engine = result.run_dir / "artifacts" / "net.engine"
    pair = SafeEnginePair.of(engine)
    assert pair.validate(manifest=Path(f"{engine}.pair.json")) == []
    hashed = {e["path"] for e in record.manifest["files"]}
    assert {"artifacts/net.engine", "artifacts/net.engine.so", "build.log"} <= hashed
    runs_table = list_runs(runs)
    assert runs_table["status"].tolist() == ["passed"]
    # tampering is caught by the manifest
    engine.write_bytes(b"rebuilt")
    assert any("changed since the run" in p for p in record.verify())


def test_failed_build_is_a_finished_record_with_exit_1(
    workdir: Path, replay: Callable[..., None]
) -> None:
    replay(FAILURE_CASE)
    live: list[str] = []
    result = TrtexecBuild(safe_command(), workdir / "runs",
                          on_failure=lambda row: live.append(row["layer"])).run()
    assert result.complete and not result.ok
    assert result.process.returncode == 1
    assert [m.split()[0] for m in result.missing] == ["engine", "companion_so"]
    record = load_run(result.run_dir)
    assert record.result["status"] == "failed" and record.result["exit_code"] == 1
    assert "Could not find any implementation" in record.log_path.read_text()
    # the failure table (logs job's analyze_log) is part of the result and of the run record
    blamed = "{ForeignNode[onnx::Gather_72...ScatterND_170]}"  # ground truth, INDEX.tsv
    assert blamed in result.failures()["layer"].tolist()
    assert blamed in record.failures()["layer"].tolist()
    assert blamed in live  # seen while the build ran, through the incremental LogParser
    assert record.result["failure_table"] == "failures.csv" and record.result["n_failures"] >= 1
    assert "failures.csv" in {e["path"] for e in record.manifest["files"]}


def test_cancel_ends_process_group_without_orphans(
    tmp_path: Path, workdir: Path, replay: Callable[..., None]
) -> None:
    pidfile = use_pid_double(replay, tmp_path, "hang")
    build = TrtexecBuild(safe_command(), workdir / "runs")
    box: dict[str, object] = {}
    thread = threading.Thread(target=lambda: box.update(result=build.run()))
    thread.start()
    leader, child = wait_for_pids(pidfile)
    time.sleep(0.3)  # let some log lines through
    assert process_running(leader) and process_running(child)
    build.cancel()
    thread.join(timeout=30)
    assert not thread.is_alive()
    result = box["result"]
    assert result.process.status == "cancelled" and not result.complete  # type: ignore[attr-defined]
    assert not process_running(leader)
    assert not process_running(child), "the double's child outlived the cancel (orphan)"
    assert group_members_running(leader) == []  # killed members may linger as zombies only
    partial = assert_nothing_finished(workdir / "runs")
    assert json.loads((partial / "INCOMPLETE.json").read_text())["status"] == "cancelled"
    assert (partial / "build.log").read_text().strip()  # the partial log was kept


def test_timeout_escalates_to_sigkill_when_sigterm_is_ignored(
    tmp_path: Path, workdir: Path, replay: Callable[..., None]
) -> None:
    pidfile = use_pid_double(replay, tmp_path, "ignore_term")
    build = TrtexecBuild(safe_command(), workdir / "runs", timeout_s=1.0, grace_s=0.5)
    build_result = build.run()
    assert build_result.process.status == "timeout"
    leader, child = (int(p) for p in pidfile.read_text().split())
    assert not process_running(leader) and not process_running(child)
    assert group_members_running(leader) == []
    partial = assert_nothing_finished(workdir / "runs")
    assert json.loads((partial / "INCOMPLETE.json").read_text())["status"] == "timeout"


def test_crash_mid_build_leaves_partial_run(
    workdir: Path, corpus_dir: Path, replay: Callable[..., None]
) -> None:
    case = corpus_dir / "build-logs/cases" / SUCCESS_CASE
    replay(SUCCESS_CASE, TRTEXEC_DOUBLE_MODE="crash")
    result = TrtexecBuild(safe_command(), workdir / "runs").run()
    assert result.process.status == "signalled" and result.process.returncode == -11
    partial = assert_nothing_finished(workdir / "runs")
    note = json.loads((partial / "INCOMPLETE.json").read_text())
    assert note["status"] == "signalled" and "signal 11" in note["detail"]
    kept = (partial / "build.log").read_text().splitlines()
    assert 0 < len(kept) < len(case.read_text(errors="replace").splitlines())


def test_full_disk_stops_tool_and_keeps_partial_log(
    monkeypatch: pytest.MonkeyPatch, workdir: Path, replay: Callable[..., None]
) -> None:
    """ENOSPC injected at the file layer: the 20th log line cannot be written."""
    replay(TRTEXEC_DOUBLE_DELAY="0.001")
    real_write_line = RunWriter.write_line
    written = {"n": 0}

    def write_line_then_disk_full(self: RunWriter, line: str) -> None:
        if written["n"] >= 19:
            raise OSError(errno.ENOSPC, "No space left on device", str(self.log_path))
        written["n"] += 1
        real_write_line(self, line)

    monkeypatch.setattr(RunWriter, "write_line", write_line_then_disk_full)
    with pytest.raises(BuildAbortedError, match="No space left on device") as info:
        TrtexecBuild(safe_command(), workdir / "runs").run()
    assert "partial log is kept" in str(info.value)
    partial = assert_nothing_finished(workdir / "runs")
    assert info.value.run_dir == partial
    assert len((partial / "build.log").read_text().splitlines()) == 19
    assert json.loads((partial / "INCOMPLETE.json").read_text())["status"] == "write_error"


def test_rules_refuse_before_anything_runs(workdir: Path) -> None:
    bad = TrtexecCommand("trtexec", tuple(parse_flags(["--onnx=m.onnx", "--fp16"])),
                         TrtVersion(11, 4))
    with pytest.raises(RuleViolation):
        TrtexecBuild(bad, workdir / "runs").run()
    assert not (workdir / "runs").exists()


def test_missing_tool_says_what_to_install(monkeypatch: pytest.MonkeyPatch, workdir: Path) -> None:
    monkeypatch.setenv("PATH", str(workdir))
    with pytest.raises(ToolNotFoundError, match="DriveOS SDK"):
        TrtexecBuild(safe_command(), workdir / "runs").run()
    assert not (workdir / "runs").exists()


def test_interrupt_like_a_notebook_stop_button(
    tmp_path: Path, workdir: Path, replay: Callable[..., None]
) -> None:
    """A real SIGINT (what Jupyter's interrupt sends) during the build: group ended, partial."""
    pidfile = use_pid_double(replay, tmp_path, "hang")

    def interrupt_when_started() -> None:
        wait_for_pids(pidfile)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt_when_started, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        TrtexecBuild(safe_command(), workdir / "runs").run()
    leader, child = (int(p) for p in pidfile.read_text().split())
    assert group_members_running(leader) == []
    assert not process_running(child)
    partial = assert_nothing_finished(workdir / "runs")
    assert json.loads((partial / "INCOMPLETE.json").read_text())["status"] == "cancelled"


def test_notebook_panel_shows_log_progress_and_cancels(
    tmp_path: Path, workdir: Path, replay: Callable[..., None]
) -> None:
    pytest.importorskip("ipywidgets")
    from trtsafe_lab.trtexec.panel import BuildPanel

    replay()
    panel = BuildPanel(TrtexecBuild(safe_command(), workdir / "runs")).start()
    assert panel.thread is not None
    panel.thread.join(timeout=30)
    assert panel.result is not None and panel.result.ok and panel.error is None
    assert "&&&& PASSED" in panel.log_text and panel.bar.value == 1.0
    assert "[passed]" in panel.phase.value and panel.cancel_button.disabled

    pidfile = use_pid_double(replay, tmp_path, "hang")
    hanging = BuildPanel(TrtexecBuild(safe_command(), workdir / "runs2")).start()
    leader, child = wait_for_pids(pidfile)
    hanging.cancel_button.click()
    assert hanging.thread is not None
    hanging.thread.join(timeout=30)
    assert hanging.result is not None and hanging.result.process.status == "cancelled"
    assert "[cancelled]" in hanging.phase.value
    assert not process_running(child) and group_members_running(leader) == []


def test_stale_outside_so_is_not_taken_for_this_runs_output(
    workdir: Path, replay: Callable[..., None]
) -> None:
    """Absolute output paths: a .so left from an earlier build is not counted as written."""
    replay(TRTEXEC_DOUBLE_NO_SO="1")
    engine = workdir / "out dir" / "net.engine"
    engine.parent.mkdir()
    Path(f"{engine}.so").write_bytes(b"old .so from an earlier build")
    cmd = TrtexecCommand("trtexec", tuple(parse_flags(
        ["--onnx=model.onnx", "--safe", f"--saveEngine={engine}"])), TrtVersion(11, 4))
    result = TrtexecBuild(cmd, workdir / "runs").run()
    assert result.complete and result.process.returncode == 0 and not result.ok
    assert result.missing == [f"companion_so {engine}.so"]
    assert not Path(f"{engine}.pair.json").exists()  # no pair manifest for a broken pair
    assert load_run(result.run_dir).result["status"] == "failed"


def test_full_disk_while_writing_the_manifest(
    monkeypatch: pytest.MonkeyPatch, workdir: Path, replay: Callable[..., None]
) -> None:
    replay()
    import trtsafe_lab.files as files

    real = files.write_bytes_atomic  # the writer every atomic text/JSON write ends in

    def no_space_for_manifest(path: Path, data: bytes | memoryview) -> None:
        if Path(path).name == "manifest.json":
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real(path, data)

    monkeypatch.setattr(files, "write_bytes_atomic", no_space_for_manifest)
    with pytest.raises(BuildAbortedError, match="No space left"):
        TrtexecBuild(safe_command(), workdir / "runs").run()
    partial = assert_nothing_finished(workdir / "runs")
    assert "&&&& PASSED" in (partial / "build.log").read_text()


def test_missing_input_refused_before_a_run_dir_exists(
    workdir: Path, replay: Callable[..., None]
) -> None:
    replay()
    (workdir / "net.engine").write_bytes(b"engine without its .so")
    cmd = TrtexecCommand("trtexec", tuple(parse_flags(["--safe", "--loadEngine=net.engine"])),
                         TrtVersion(11, 4))
    with pytest.raises(FileNotFoundError, match=r"net\.engine\.so does not exist"):
        TrtexecBuild(cmd, workdir / "runs").run()
    assert not (workdir / "runs").exists()


def test_panel_shows_failures_live(workdir: Path, replay: Callable[..., None]) -> None:
    pytest.importorskip("ipywidgets")
    from trtsafe_lab.trtexec.panel import BuildPanel

    replay(FAILURE_CASE)
    panel = BuildPanel(TrtexecBuild(safe_command(), workdir / "runs")).start()
    assert panel.thread is not None
    panel.thread.join(timeout=30)
    assert panel.result is not None and panel.result.process.returncode == 1
    assert "failures so far: 7" in panel.failures.value
    assert "[failed]" in panel.phase.value


def test_panel_shows_the_last_lines_before_a_quiet_spell(workdir: Path) -> None:
    """A throttled line is drawn when the refresh window ends, not only at the next line."""
    pytest.importorskip("ipywidgets")
    from trtsafe_lab.trtexec.panel import BuildPanel

    panel = BuildPanel(TrtexecBuild(safe_command(), workdir / "runs"), refresh_s=0.05)
    panel._on_line("first")
    panel._on_line("last before a long tactic search")
    assert "first" in panel.log.value  # drawn (the log view is HTML: escaped text)
    assert "last before" not in panel.log.value  # inside the window: not drawn yet
    done = threading.Event()
    panel.log.observe(lambda _change: done.set(), names="value")
    assert done.wait(timeout=10), "the throttled line was never drawn"
    assert panel.log.value.endswith("last before a long tactic search</pre></div>")
