"""The trtexec REPLAY stand-in (NOT TensorRT) that the bring-up notebook uses without trtexec."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from trtsafe_lab.cli import main
from trtsafe_lab.replay import exit_code, install_replay_tool
from trtsafe_lab.replay import main as replay_main
from trtsafe_lab.trtexec.version import TrtVersion, detect_version


def _tool(tmp_path: Path, recorded: str, name: str = "recorded.log") -> Path:
    """The REPLAY tool for a log holding ``recorded``."""
    log = tmp_path / name
    log.write_text(recorded)
    return install_replay_tool(log, tmp_path / "trtexec-REPLAY-not-TensorRT", delay_s=0)


def _run(tool: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(tool), *args], capture_output=True, text=True, timeout=60,
                          check=False)


def test_exit_code_from_banner_or_errors() -> None:
    assert exit_code(["[I] x", "&&&& PASSED TensorRT.trtexec"]) == 0
    assert exit_code(["&&&& PASSED a", "[E] late", "&&&& FAILED TensorRT.trtexec"]) == 1
    assert exit_code(["[I] fine"]) == 0
    assert exit_code(["[E] Error[10]: boom"]) == 1


def test_installed_tool_replays_lines_and_ignores_flags(tmp_path: Path) -> None:
    tool = _tool(tmp_path, "[I] start\n[E] Error[4]: bad\n&&&& FAILED TensorRT.trtexec\n",
                 "recorded build.log")
    done = _run(tool, "--onnx=m.onnx", "--safe", "--saveEngine=m.engine")
    assert done.returncode == 1
    assert done.stdout.splitlines() == ["[I] start", "&&&& FAILED TensorRT.trtexec"]
    assert done.stderr.splitlines() == ["[E] Error[4]: bad"]
    assert not (tmp_path / "m.engine").exists()  # a replay builds nothing
    assert "NOT TensorRT" in tool.read_text()


def test_replay_rejects_what_the_real_trtexec_parser_rejects(tmp_path: Path) -> None:
    tool = _tool(tmp_path, "&&&& RUNNING TensorRT.trtexec [TensorRT v110100] # trtexec\n"
                 "[I] start\n&&&& PASSED TensorRT.trtexec\n")
    done = _run(tool, "--onnx=m.onnx", "--frobnicate", "--fp16")
    assert done.returncode == 1
    assert "[I] start" not in done.stdout and "REPLAY (NOT TensorRT)" in done.stdout
    assert "[E] Unknown option: --frobnicate " in done.stderr
    assert "[E] Unknown option: --fp16 " in done.stderr  # removed in 11.x (log says 11.1)


def test_replay_rejects_a_bad_safety_plugin_value_like_trtexec(tmp_path: Path) -> None:
    tool = _tool(tmp_path, "&&&& RUNNING TensorRT.trtexec [TensorRT v110100] # trtexec\n"
                 "[I] start\n")
    done = _run(tool, "--onnx=m.onnx", "--safe", "--safetyPlugins=libp.so")
    assert done.returncode == 1 and "[I] start" not in done.stdout
    lines = done.stderr.splitlines()
    assert lines[0] == "Invalid safety plugin argument: libp.so"  # safeCommon.h SAFE_LOG
    assert lines[1].endswith("[E] Invalid Safety plugin library option: libp.so")


def test_a_bad_trt_version_is_a_usage_error(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "recorded.log"
    log.write_text("[I] start\n")
    with pytest.raises(SystemExit) as exited:
        replay_main(["--trt-version", "eleven", str(log), "--onnx=m.onnx"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "argument --trt-version: not a TensorRT version: 'eleven'" in err, err


def test_help_prints_the_banner_of_the_replayed_version(tmp_path: Path) -> None:
    # trtexec.cpp trtexecMain: reportTestStart (the banner), then parseArgs prints the help for
    # --help / -h / no arguments and returns EXIT_SUCCESS; nothing is replayed.
    tool = _tool(tmp_path, "&&&& RUNNING TensorRT.trtexec [TensorRT v110100] [b7] # trtexec "
                 "--onnx=a\n[I] start\n&&&& PASSED TensorRT.trtexec\n")
    for args in (["--help"], ["-h"], ["--onnx=m.onnx", "--help"], []):
        done = _run(tool, *args)
        assert done.returncode == 0, done.stderr
        first = done.stdout.splitlines()[0]
        assert first == (f"&&&& RUNNING TensorRT.trtexec [TensorRT v110100] [b7] # {tool} "
                         + " ".join(args)).rstrip(), first
        assert "[I] start" not in done.stdout and "REPLAY (NOT TensorRT)" in done.stdout
        assert "--maxAuxStreams" in done.stdout and "--fp16 " not in done.stdout  # 11.1 help
    assert detect_version(tool) == TrtVersion(11, 1, 0)


def test_build_reads_the_replay_version_without_trt_version(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tool = _tool(tmp_path, "[I] no banner in this log\n")
    assert main(["build", "--dry-run", "--tool", str(tool), "--", "--onnx=m.onnx"]) == 0
    assert "TensorRT 11.4.0 (detected from" in capsys.readouterr().out  # the default version
    banner = f"&&&& RUNNING TensorRT.trtexec [TensorRT v110400] # {tool}"
    assert _run(tool, "--help").stdout.startswith(banner)
