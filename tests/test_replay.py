"""The trtexec REPLAY stand-in (NOT TensorRT) that the bring-up notebook uses without trtexec."""

from __future__ import annotations

import subprocess
from pathlib import Path

from trtsafe_lab.replay import exit_code, install_replay_tool


def test_exit_code_from_banner_or_errors() -> None:
    assert exit_code(["[I] x", "&&&& PASSED TensorRT.trtexec"]) == 0
    assert exit_code(["&&&& PASSED a", "[E] late", "&&&& FAILED TensorRT.trtexec"]) == 1
    assert exit_code(["[I] fine"]) == 0
    assert exit_code(["[E] Error[10]: boom"]) == 1


def test_installed_tool_replays_lines_and_ignores_flags(tmp_path: Path) -> None:
    log = tmp_path / "recorded build.log"
    log.write_text("[I] start\n[E] Error[4]: bad\n&&&& FAILED TensorRT.trtexec\n")
    tool = install_replay_tool(log, tmp_path / "trtexec-REPLAY-not-TensorRT", delay_s=0)
    done = subprocess.run([str(tool), "--onnx=m.onnx", "--safe", "--saveEngine=m.engine"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert done.stdout.splitlines() == ["[I] start", "&&&& FAILED TensorRT.trtexec"]
    assert done.stderr.splitlines() == ["[E] Error[4]: bad"]
    assert not (tmp_path / "m.engine").exists()  # a replay builds nothing
    assert "NOT TensorRT" in tool.read_text()


def test_replay_rejects_what_the_real_trtexec_parser_rejects(tmp_path: Path) -> None:
    log = tmp_path / "recorded.log"
    log.write_text("&&&& RUNNING TensorRT.trtexec [TensorRT v110100] # trtexec\n[I] start\n"
                   "&&&& PASSED TensorRT.trtexec\n")
    tool = install_replay_tool(log, tmp_path / "trtexec-REPLAY-not-TensorRT", delay_s=0)
    done = subprocess.run([str(tool), "--onnx=m.onnx", "--frobnicate", "--fp16"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert "[I] start" not in done.stdout and "REPLAY (NOT TensorRT)" in done.stdout
    assert "[E] Unknown option: --frobnicate " in done.stderr
    assert "[E] Unknown option: --fp16 " in done.stderr  # removed in 11.x (log says 11.1)


def test_replay_rejects_a_bad_safety_plugin_value_like_trtexec(tmp_path: Path) -> None:
    log = tmp_path / "recorded.log"
    log.write_text("&&&& RUNNING TensorRT.trtexec [TensorRT v110100] # trtexec\n[I] start\n")
    tool = install_replay_tool(log, tmp_path / "trtexec-REPLAY-not-TensorRT", delay_s=0)
    done = subprocess.run([str(tool), "--onnx=m.onnx", "--safe", "--safetyPlugins=libp.so"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1 and "[I] start" not in done.stdout
    lines = done.stderr.splitlines()
    assert lines[0] == "Invalid safety plugin argument: libp.so"  # safeCommon.h SAFE_LOG
    assert lines[1].endswith("[E] Invalid Safety plugin library option: libp.so")
