"""maxAuxStreams sweeps sharing a timing cache: trtexec TEST DOUBLE and tensorrt TEST DOUBLE."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import cast

import pytest
from builds_support import build_shared_object, double_environment
from tensorrt_double import make_double

from trtsafe_lab.engine.builder import PythonBuildOptions
from trtsafe_lab.sweep import SWEEP_COLUMNS, sweep_aux_streams, sweep_aux_streams_python
from trtsafe_lab.trtexec.options import TrtexecCommand, parse_flags
from trtsafe_lab.trtexec.rules import RuleViolation
from trtsafe_lab.trtexec.version import TrtVersion


def command(*extra: str) -> TrtexecCommand:
    args = ["--onnx=model.onnx", "--safe", "--saveEngine=net.engine", "--maxAuxStreams=7", *extra]
    return TrtexecCommand("trtexec", tuple(parse_flags(args)), TrtVersion(11, 4))


def test_trtexec_sweep_shares_timing_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, corpus_dir: Path
) -> None:
    so = build_shared_object(tmp_path / "c.so")
    for k, v in double_environment(tmp_path, so, corpus_dir / "build-logs/cases/068.log").items():
        monkeypatch.setenv(k, v)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.onnx").write_bytes(b"x")
    table = sweep_aux_streams(command(), tmp_path / "runs", values=(0, 1, 2))
    assert list(table.columns) == list(SWEEP_COLUMNS)
    assert table["max_aux_streams"].tolist() == [0, 1, 2]
    assert table["status"].tolist() == ["passed"] * 3
    assert [Path(p).name for p in table["engine_path"]] == [
        "net-aux0.engine", "net-aux1.engine", "net-aux2.engine"]
    assert [Path(p).name for p in table["companion_so_path"]] == [
        "net-aux0.engine.so", "net-aux1.engine.so", "net-aux2.engine.so"]
    cache = tmp_path / "runs" / "sweep.timing.cache"
    assert cache.read_bytes().count(b"double-timing-cache-entry") == 3  # one shared file


def test_sweep_checks_every_command_before_running(tmp_path: Path) -> None:
    with pytest.raises(RuleViolation, match="fp16"):
        sweep_aux_streams(command("--fp16"), tmp_path / "runs")
    assert not (tmp_path / "runs").exists()


def test_python_sweep_feeds_each_build_the_previous_cache(
    tmp_path: Path, corpus_dir: Path
) -> None:
    onnx = tmp_path / "m.onnx"
    onnx.write_bytes(b"x")
    lines = (corpus_dir / "build-logs/cases/068.log").read_text(errors="replace").splitlines()[:5]
    trt = make_double(lines, succeed=True)
    seen_in: list[bytes] = []
    real_build = trt.Builder.build_serialized_network

    def recording_build(self, network, config):  # type: ignore[no-untyped-def]
        seen_in.append(config.settings["timing_cache_bytes_in"])
        assert config.settings["max_aux_streams"] == len(seen_in) - 1
        return real_build(self, network, config)

    trt.Builder.build_serialized_network = recording_build
    table = sweep_aux_streams_python(PythonBuildOptions(onnx, engine_name="n.engine"),
                                     tmp_path / "runs", values=(0, 1, 2),
                                     trt=cast(ModuleType, trt))
    assert table["status"].tolist() == ["passed"] * 3
    assert seen_in == [b"", b"+entry", b"+entry+entry"]
