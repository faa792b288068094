"""``trtsafe-lab build``: dry-run, rule refusals (exit 2), real runs of the trtexec TEST DOUBLE."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builds_support import build_shared_object, double_environment

from trtsafe_lab.cli import main
from trtsafe_lab.runs_table import list_runs

SAFE_FLAGS = ["--onnx=model.onnx", "--safe", "--saveEngine=net.engine", "--maxAuxStreams=2"]


@pytest.fixture
def double(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, corpus_dir: Path) -> Path:
    """The trtexec TEST DOUBLE on PATH replaying a real successful build log; cwd has spaces."""
    so = build_shared_object(tmp_path / "companion.so")
    env = double_environment(tmp_path, so, corpus_dir / "build-logs/cases/068.log")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    work = tmp_path / "work dir"
    work.mkdir()
    (work / "model.onnx").write_bytes(b"x")
    monkeypatch.chdir(work)
    return work


def test_dry_run_prints_argv_and_expected_artifacts(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["build", "--dry-run", "--trt-version", "11.4", "--", *SAFE_FLAGS])
    out = capsys.readouterr().out
    assert code == 0
    assert "argv: trtexec --onnx=model.onnx --safe --saveEngine=net.engine --maxAuxStreams=2" in out
    assert "rule checks: all passed" in out
    assert "companion_so  output net.engine.so" in out and "default: <saveEngine>.so" in out


def test_dry_run_rule_violation_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["build", "--dry-run", "--trt-version", "11.4", "--", "--onnx=m.onnx", "--fp16",
                 "--saveEngineSo=a.so"])
    out = capsys.readouterr().out
    assert code == 2
    assert "[precision-flags-removed-11x] --fp16" in out
    assert "[companion-so-needs-safe] --saveEngineSo" in out


def test_dry_run_10x_accepts_fp16(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "--dry-run", "--trt-version", "10.16", "--", "--onnx=m", "--fp16"]) == 0


def test_unknown_version_without_tool_exits_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["build", "--dry-run", "--", "--onnx=m.onnx"]) == 2
    assert "--trt-version" in capsys.readouterr().err


def test_bad_flag_syntax_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["build", "--dry-run", "--trt-version", "11.4", "--", "model.onnx"]) == 2
    assert "--name=value" in capsys.readouterr().err


def test_build_runs_double_and_detects_version(
    double: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["build", "--runs", "my runs", "--", *SAFE_FLAGS]) == 0
    out = capsys.readouterr().out
    assert "&&&& PASSED" in out  # the log streamed live
    assert "companion_so  present" in out
    runs = list_runs(double / "my runs")
    assert runs["status"].tolist() == ["passed"] and runs["trt_version"].tolist() == ["11.4.0"]


def test_build_failure_exits_1(
    double: Path, monkeypatch: pytest.MonkeyPatch, corpus_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TRTEXEC_DOUBLE_CASE", str(corpus_dir / "build-logs/cases/004.log"))
    assert main(["build", "--runs", "runs", "--", *SAFE_FLAGS]) == 1
    out = capsys.readouterr().out
    assert "engine        MISSING" in out
    # the blamed layer, as read by hand in the corpus INDEX.tsv
    assert "{ForeignNode[177...Reshape_81 + (Unnamed Layer* 146) [Shuffle]]}" in out
    assert list_runs(double / "runs")["exit_code"].tolist() == [1]


def test_build_rule_violation_exits_2_and_runs_nothing(
    double: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["build", "--runs", "runs", "--", "--onnx=model.onnx", "--restricted"]) == 2
    assert "restricted-removed-11x" in capsys.readouterr().err
    assert not (double / "runs").exists()


def test_demo_step_writes_dry_runs(tmp_path: Path) -> None:
    from trtsafe_lab.demo.trtexec import run_demo

    files = run_demo(tmp_path)
    assert len(files) == 6 and all(f.stat().st_size > 0 for f in files)
    safe = (tmp_path / "safe-build-11.4.dry-run.txt").read_text()
    assert "rule checks: all passed" in safe and "model.engine.so" in safe
    old = json.loads((tmp_path / "10x-style-on-11.4.findings.json").read_text())
    assert {f["rule"] for f in old if f["severity"] == "refusal"} == {
        "max-aux-streams-integer", "restricted-removed-11x", "precision-flags-removed-11x",
        "companion-so-needs-safe"}


def test_build_without_trtexec_says_what_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert main(["build", "--trt-version", "11.4", "--runs", str(tmp_path / "r"), "--",
                 "--onnx=m.onnx"]) == 2
    err = capsys.readouterr().err
    assert "'trtexec' was not found" in err and "existing run directories" in err


def test_runs_lists_finished_and_partial_runs(
    double: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["build", "--runs", "runs", "--", *SAFE_FLAGS]) == 0
    monkeypatch.setenv("TRTEXEC_DOUBLE_MODE", "crash")
    assert main(["build", "--runs", "runs", "--", *SAFE_FLAGS]) == 1
    capsys.readouterr()
    monkeypatch.setenv("PATH", "/nonexistent")  # listing needs no trtexec
    assert main(["runs", "--runs", "runs"]) == 0
    listed = capsys.readouterr().out
    assert "passed" in listed and "signalled" not in listed
    assert main(["runs", "--runs", "runs", "--all"]) == 0
    assert "signalled" in capsys.readouterr().out


def test_build_cli_reports_a_full_disk(
    double: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from trtsafe_lab.rundir import RunWriter

    def disk_full(self: RunWriter, line: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(RunWriter, "write_line", disk_full)
    assert main(["build", "--runs", "runs", "--", *SAFE_FLAGS]) == 1
    err = capsys.readouterr().err
    assert "No space left on device" in err and "partial log is kept" in err


def test_a_tool_without_a_banner_asks_for_the_version_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """qa: the message said 'pass the version explicitly, e.g. --trt-version 11.4 Give it with
    --trt-version X.Y (e.g. --trt-version 11.4).'"""
    tool = tmp_path / "trtexec"  # a script that prints no TensorRT banner (not trtexec)
    tool.write_text("#!/bin/sh\necho 'usage: trtexec [options]'\n")
    tool.chmod(0o755)
    assert main(["build", "--dry-run", "--tool", str(tool), "--", "--onnx=m.onnx"]) == 2
    err = capsys.readouterr().err
    assert "no '&&&& RUNNING" in err and err.count("--trt-version") == 1, err


@pytest.mark.parametrize("command", [["build", "--dry-run"],
                                     ["profile", "sweep", "engines"]])
def test_a_bad_trt_version_names_the_option(command: list[str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """build and profile sweep engines share one --trt-version (trtexec.tool_cli); its error
    says which option was wrong."""
    assert main([*command, "--trt-version", "eleven", "--", "--onnx=m.onnx"]) == 2
    err = capsys.readouterr().err
    assert "--trt-version: not a TensorRT version: 'eleven'" in err, err


@pytest.mark.parametrize("value", ["0", "-5", "nan"])
def test_a_timeout_that_is_not_positive_is_refused(
        value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """qa: `build --timeout 0` (or -5) started the build and stopped it at once as a timeout."""
    assert main(["build", "--trt-version", "11.4", "--timeout", value, "--runs",
                 str(tmp_path / "runs"), "--", "--onnx=m.onnx"]) == 2
    assert "--timeout" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
