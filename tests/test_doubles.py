"""The trtexec TEST DOUBLE rejects what the real trtexec's parser rejects (flag tables derived
from sampleOptions.cpp), with the real message and exit status, and replays nothing then."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from builds_support import install_double


@pytest.mark.parametrize(("version", "args", "message"), [
    ("110400", ["--onnx=m.onnx", "--frobnicate"], "[E] Unknown option: --frobnicate "),
    ("110400", ["--onnx=m.onnx", "--saveEngin=a.engine"], "[E] Unknown option: --saveEngin "),
    ("110400", ["--onnx=m.onnx", "--maxAuxStreams=abc"], "[E] stoi"),
    ("110100", ["--onnx=m.onnx", "--fp16"], "[E] Unknown option: --fp16 "),
    ("110400", ["--onnx=m.onnx", "--saveEngine=a", "--saveEngine=b"],
     "[E] Unknown option: --saveEngine "),
    ("101600", ["--saveEngine=a.engine"], "[E] Model missing or format not recognized"),
])
def test_trtexec_double_fails_like_trtexec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           corpus_dir: Path, version: str, args: list[str],
                                           message: str) -> None:
    tool = install_double(tmp_path / "TEST DOUBLE bin")
    monkeypatch.setenv("TRTEXEC_DOUBLE_VERSION", version)
    monkeypatch.setenv("TRTEXEC_DOUBLE_CASE", str(corpus_dir / "build-logs/cases/068.log"))
    done = subprocess.run([str(tool), *args], capture_output=True, text=True, check=False,
                          cwd=tmp_path)
    assert done.returncode == 1
    assert any(message in line for line in done.stderr.splitlines()), done.stderr
    assert done.stdout.startswith(f"&&&& RUNNING TensorRT.trtexec [TensorRT v{version}]")
    assert "TEST DOUBLE" in done.stdout
    assert len(done.stdout.splitlines()) == 2  # banner + help: nothing replayed
    assert not (tmp_path / "a.engine").exists()


def test_trtexec_double_accepts_10x_precision_flags(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    corpus_dir: Path) -> None:
    tool = install_double(tmp_path / "TEST DOUBLE bin")
    monkeypatch.setenv("TRTEXEC_DOUBLE_VERSION", "101600")
    monkeypatch.setenv("TRTEXEC_DOUBLE_CASE", str(corpus_dir / "build-logs/cases/068.log"))
    done = subprocess.run([str(tool), "--onnx=m.onnx", "--fp16"], capture_output=True,
                          text=True, check=False, cwd=tmp_path)
    assert done.returncode == 0 and len(done.stdout.splitlines()) > 10
