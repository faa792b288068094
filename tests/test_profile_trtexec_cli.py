"""`trtsafe-lab profile trtexec ENGINE --tool trtexec_safe`: a run directory from the trtexec_safe
TEST DOUBLE (tests/doubles/trtexec_safe_double.py, which follows trtSafeExec.cpp's parser and
print statements), read back by `profile compare`. Not TensorRT: plumbing and formats only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from trtsafe_lab.cli import main
from trtsafe_lab.profile.loaders import load_profile_run

SAFE_DOUBLE = Path(__file__).parent / "doubles" / "trtexec_safe_double.py"


@pytest.fixture
def safe_tool(tmp_path: Path) -> Path:
    folder = tmp_path / "TEST DOUBLE bin"
    folder.mkdir()
    tool = folder / "trtexec_safe"
    tool.write_text(f"#!{sys.executable}\n" + SAFE_DOUBLE.read_text(encoding="utf-8"))
    tool.chmod(0o755)
    return tool


@pytest.fixture
def engine(tmp_path: Path) -> Path:
    path = tmp_path / "net.engine"
    path.write_bytes(b"TEST DOUBLE ENGINE")
    return path


def profile(tool: Path, engine: Path, out: Path, *extra: str) -> int:
    return main(["profile", "trtexec", str(engine), "--tool", str(tool), "--out", str(out),
                 *extra])


def test_safe_run_directory_per_iteration(safe_tool: Path, engine: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs"
    assert profile(safe_tool, engine, out, "--repeat", "2") == 0  # version from the banner
    run = load_profile_run(out / "net-trtexec_safe")
    assert run.info["statistics"].startswith("per-iteration (trtexec_safe log lines, avgRuns=1")
    assert len(run.times) == 20  # 10 iterations (trtSafeExec default) x 2 repeats
    assert run.info["trt_version"] == "11.1.0"
    argv = run.info["command"]
    assert "--avgRuns=1" in argv and not any(a.startswith("--export") for a in argv)
    assert not any(a.startswith("--loadEngineSo") for a in argv)  # 11.1: no companion .so
    summary = {r["metric"]: r for r in run.info["performance_summary"]["table"]}
    assert summary["gpu_compute_time"]["min_ms"] == pytest.approx(
        run.times[run.times.index >= 10]["compute_ms"].min(), rel=1e-5)


def test_summary_only_run_and_compare_say_so(safe_tool: Path, engine: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs"
    assert profile(safe_tool, engine, out, "--trt-version", "11.1", "--name", "full") == 0
    monkeypatch.setenv("TRTEXEC_SAFE_DOUBLE_MODE", "summary-only")
    assert profile(safe_tool, engine, out, "--trt-version", "11.1", "--name", "summary",
                   "--repeat", "3") == 0
    run = load_profile_run(out / "summary")
    assert run.info["statistics"].startswith("summary-only")
    assert len(run.times) == 3  # one median per repeat
    capsys.readouterr()
    assert main(["profile", "compare", str(out / "full"), str(out / "summary"),
                 "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert "note: summary: summary-only" in captured.err
    rows = json.loads(captured.out)
    assert [r["n"] for r in rows] == [10, 3]


def test_failed_banner_fails_the_run_although_exit_code_is_0(
        safe_tool: Path, engine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TRTEXEC_SAFE_DOUBLE_MODE", "fail")
    assert profile(safe_tool, engine, tmp_path / "runs", "--trt-version", "11.1") == 1
    assert "banner FAILED" in capsys.readouterr().out


def test_companion_so_from_11_3(safe_tool: Path, engine: Path, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRTEXEC_DOUBLE_VERSION", "110400")
    out = tmp_path / "runs"
    assert profile(safe_tool, engine, out) == 0
    argv = load_profile_run(out / "net-trtexec_safe").info["command"]
    assert f"--loadEngineSo={engine.resolve()}.so" in argv


@pytest.mark.parametrize(("args", "code", "message"), [
    (["--loadEngine=a.engine", "--exportTimes=t.json"], 1,
     "[E] Invalid Argument: --exportTimes=t.json"),
    (["--iterations=5"], 1, "[E] Engine file is required."),
    (["--loadEngine=a.engine", "--noCudaGraph=1"], 1, "[E] Invalid Argument: --noCudaGraph=1"),
    (["--loadEngine=a.engine", "--iterations=abc"], -6, "what():  stoi"),
    # safeCommon.h parseSafetyPluginArgument, then trtSafeExec.cpp parseSafetyPluginLibrary.
    (["--loadEngine=a.engine", "--safetyPlugins=libp.so"], 1,
     "Invalid safety plugin argument: libp.so\n"),
    (["--loadEngine=a.engine", "--safetyPlugins=[ns::P]"], 1,
     "[E] Unable to parse safety plugin library argument: --safetyPlugins=[ns::P]\n"),
    (["--loadEngine=a.engine", "--safetyPlugins=libp.so]ns::P["], 1,
     "[E] Invalid Argument: --safetyPlugins=libp.so]ns::P["),
])
def test_double_rejects_what_trtSafeExec_rejects(safe_tool: Path, args: list[str], code: int,
                                                 message: str) -> None:
    done = subprocess.run([str(safe_tool), *args], capture_output=True, text=True, check=False)
    assert done.returncode == code
    assert message in done.stderr
    assert "&&&& RUNNING TensorRT.trtexec_safe [TensorRT v110100]" in done.stderr


def test_path_arguments_are_checked_before_the_tool_runs(
        safe_tool: Path, engine: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs"
    missing_so = tmp_path / "missing.so"
    assert profile(safe_tool, engine, out, "--companion-so", str(missing_so)) == 2
    assert "--companion-so" in capsys.readouterr().err and not out.exists()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert profile(safe_tool, engine, blocker) == 2
    assert "--out" in capsys.readouterr().err
