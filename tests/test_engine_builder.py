"""The TensorRT Python builder path, wired to a recording tensorrt TEST DOUBLE (NOT TensorRT)."""

from __future__ import annotations

import json
import shlex
import threading
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import pytest
from tensorrt_double import make_double

from trtsafe_lab._optional import MissingDependencyError
from trtsafe_lab.engine import builder as builder_mod
from trtsafe_lab.engine.builder import (
    PythonBuildOptions,
    PythonSafeBuildUnsupported,
    build_with_python_api,
)
from trtsafe_lab.engine.monitor import LogRecorder
from trtsafe_lab.rundir import load_run
from trtsafe_lab.trtexec.progress import ProgressTracker


@pytest.fixture
def onnx(tmp_path: Path) -> Path:
    path = tmp_path / "model dir" / "model.onnx"
    path.parent.mkdir()
    path.write_bytes(b"onnx bytes (test data)")
    return path


def corpus_lines(corpus_dir: Path, name: str) -> list[str]:
    return (corpus_dir / "build-logs/cases" / name).read_text(errors="replace").splitlines()


def test_safe_build_refused_before_importing_tensorrt(
    onnx: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_import(*_a: object, **_k: object) -> None:
        raise AssertionError("tensorrt must not be imported for a refused safe build")

    monkeypatch.setattr(builder_mod, "import_tensorrt", no_import)
    with pytest.raises(PythonSafeBuildUnsupported) as info:
        build_with_python_api(PythonBuildOptions(onnx, safe=True, max_aux_streams=1), tmp_path)
    text = str(info.value)
    assert "build_serialized_safe_network" in text
    suggested = shlex.split(text.split("trtsafe-lab build -- ", 1)[1])  # a path with a space
    assert f"--onnx={onnx}" in suggested
    assert "--safe" in suggested and "--maxAuxStreams=1" in suggested
    assert not any(tmp_path.glob("runs*"))


def test_without_tensorrt_one_clear_message(onnx: Path, tmp_path: Path) -> None:
    try:
        import tensorrt  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("tensorrt is installed here")
    with pytest.raises(MissingDependencyError, match=r"trtsafe-lab\[trt\]"):
        build_with_python_api(PythonBuildOptions(onnx), tmp_path / "runs")
    assert not (tmp_path / "runs").exists()


def test_config_progress_logger_and_timing_cache(
    onnx: Path, tmp_path: Path, corpus_dir: Path
) -> None:
    lines = corpus_lines(corpus_dir, "067.log")[:30]
    trt = make_double(lines, succeed=True)
    cache = tmp_path / "shared.cache"
    cache.write_bytes(b"previous")
    tracker = ProgressTracker()
    fractions: list[float | None] = []
    tracker.listeners.append(lambda s: fractions.append(s.fraction))
    result = build_with_python_api(
        PythonBuildOptions(onnx, engine_name="net.engine", max_aux_streams=2, timing_cache=cache),
        tmp_path / "runs", tracker=tracker, trt=cast(ModuleType, trt),
    )
    assert result.ok and result.engine is not None
    assert result.engine.read_bytes() == b"double engine bytes"
    settings: dict[str, Any] = trt.state["config"].settings
    assert settings["engine_capability"] == trt.EngineCapability.STANDARD
    assert settings["max_aux_streams"] == 2
    assert settings["profiling_verbosity"] == trt.ProfilingVerbosity.DETAILED
    assert settings["timing_cache_bytes_in"] == b"previous"
    assert "remote_auto_tuning_config" not in settings
    assert cache.read_bytes() == b"previous+entry"  # written back for the next build
    assert [f for f in fractions if f is not None][-1] == 1.0
    record = load_run(result.run_dir)
    logged = record.log_path.read_text().splitlines()
    assert len(logged) == len(lines) and all("] [TRT] [" in ln for ln in logged)
    assert record.result["status"] == "passed"
    assert json.loads((result.run_dir / "command.json").read_text())["max_aux_streams"] == 2


def test_failed_build_is_finished_record(onnx: Path, tmp_path: Path, corpus_dir: Path) -> None:
    lines = corpus_lines(corpus_dir, "061.log")
    trt = make_double(lines, succeed=False)
    result = build_with_python_api(PythonBuildOptions(onnx), tmp_path / "runs",
                                   trt=cast(ModuleType, trt))
    assert not result.ok and result.engine is None
    record = load_run(result.run_dir)
    assert record.result["status"] == "failed"
    assert any(letter == "E" and "Error Code 10" in msg for letter, msg in result.messages)


def test_cancel_through_progress_monitor_leaves_partial(
    onnx: Path, tmp_path: Path, corpus_dir: Path
) -> None:
    cancel = threading.Event()
    cancel.set()
    trt = make_double(corpus_lines(corpus_dir, "067.log"), succeed=True)
    result = build_with_python_api(PythonBuildOptions(onnx), tmp_path / "runs",
                                   cancel_event=cancel, trt=cast(ModuleType, trt))
    assert not result.ok and result.run_dir.name.endswith(".partial")
    assert json.loads((result.run_dir / "INCOMPLETE.json").read_text())["status"] == "cancelled"


def test_python_path_option_checks(onnx: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="only to safe builds"):
        build_with_python_api(PythonBuildOptions(onnx, remote_auto_tuning_config="x"), tmp_path)
    with pytest.raises(ValueError, match=">= 0"):
        build_with_python_api(PythonBuildOptions(onnx, max_aux_streams=-1), tmp_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        build_with_python_api(PythonBuildOptions(tmp_path / "none.onnx"), tmp_path)


def test_log_recorder_format_and_severities() -> None:
    lines: list[str] = []
    recorder = LogRecorder(sink=lines.append)
    recorder.record(1, "IBuilder::buildSerializedNetwork: Error Code 10: Internal Error")
    recorder.record(4, "verbose")
    assert recorder.records == [("E", "IBuilder::buildSerializedNetwork: Error Code 10: "
                                 "Internal Error"), ("V", "verbose")]
    assert lines[0].split("] ", 1)[1].startswith("[TRT] [E] IBuilder::")
