"""``trtsafe-lab failures``: formats and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trtsafe_lab.cli import main
from trtsafe_lab.demo.logs import EXAMPLES
from trtsafe_lab.logs import columns

LOG = EXAMPLES / "trt11-safe-build-no-tactic.log"


def test_json_envelope_holds_the_failure_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["failures", str(LOG), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["failures"]
    assert isinstance(rows, list) and rows
    assert set(columns.FAILURE_COLUMNS) <= set(rows[0])
    foreign = [row for row in rows if row["layer"].startswith("{ForeignNode")]
    assert foreign[0]["members"] == ["/head/attn/MatMul", "/head/attn/MatMul_1"]
    assert foreign[0]["error_code"] == 10 and foreign[0]["fatal"] is True


def test_csv_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["failures", str(LOG), "--format", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.split(",")[:3] == ["layer", "members", "severity"]
    assert main(["failures", str(LOG), str(EXAMPLES / "trt11-safe-build-passed.log")]) == 0
    out = capsys.readouterr().out
    assert "trt11-safe-build-passed.log" in out and "/head/attn/Softmax" in out


def test_log_without_findings_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    quiet = tmp_path / "quiet.log"
    quiet.write_text("[I] all good\n")
    assert main(["failures", str(quiet)]) == 0
    assert "no failures found" in capsys.readouterr().out


def test_unreadable_log_exits_2_naming_the_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "gone.log"
    assert main(["failures", str(LOG), str(missing)]) == 2
    err = capsys.readouterr().err
    assert str(missing) in err and "no such file or folder" in err


def test_unreadable_onnx_model_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a protobuf")
    assert main(["failures", str(LOG), "--onnx", str(broken)]) == 2
    assert f"cannot load ONNX model '{broken}'" in capsys.readouterr().err
    missing = tmp_path / "missing.onnx"  # refused up front by the CLI's path check
    assert main(["failures", str(LOG), "--onnx", str(missing)]) == 2
    assert f"--onnx {missing}: no such file or folder" in capsys.readouterr().err


def test_onnx_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnx")
    from trtsafe_lab.demo.logs import demo_model

    model = demo_model(tmp_path / "m.onnx")
    assert main(["failures", str(LOG), "--onnx", str(model), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["failures"]
    softmax = next(row for row in rows if row["layer"] == "/head/attn/Softmax")
    assert (softmax["onnx_op"], softmax["onnx_index"]) == ("Softmax", 9)


def test_table_shows_onnx_columns_and_whole_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("onnx")
    from trtsafe_lab.demo.logs import demo_model

    model = demo_model(tmp_path / "m.onnx")
    assert main(["failures", str(LOG), "--onnx", str(model)]) == 0
    out = capsys.readouterr().out
    assert "op Softmax, node index 9" in out
    assert "/head/attn/Softmax" in out
    long_name = "x/" * 120 + "Conv_1"  # longer than any terminal line: printed whole
    log = tmp_path / "long.log"
    log.write_text(
        f"[E] Error[10]: Could not find any implementation for node {long_name}.\n"
    )
    assert main(["failures", str(log)]) == 0
    assert long_name in capsys.readouterr().out


def test_blas_threads_limited_only_when_the_user_did_not_choose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The failures command does no linear algebra: OpenBLAS's thread per CPU is not started
    (OPENBLAS_NUM_THREADS=1 before numpy's import), unless the user set a number."""
    import os

    log = tmp_path / "x.log"
    log.write_text("[E] [TRT] 4: [network.cpp::validate::1] Error Code 4: Internal Error (x)\n")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert main(["failures", str(log)]) == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "8")
    assert main(["failures", str(log)]) == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == "8"
    capsys.readouterr()


def test_logs_are_opened_one_at_a_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a shell glob of thousands of logs must not hold them all open (file descriptors run out)
    from trtsafe_lab.logs import scan, scan_chunks

    opened: list[object] = []
    open_log = scan.open_log

    def tracked(path: object) -> object:
        assert all(handle.closed for handle in opened)  # type: ignore[attr-defined]
        opened.append(open_log(path))  # type: ignore[arg-type]
        return opened[-1]

    monkeypatch.setattr(scan, "open_log", tracked)
    monkeypatch.setattr(scan_chunks, "open_log", tracked)  # the first log (its worker forked early)
    logs = []
    for index in range(3):
        logs.append(tmp_path / f"build{index}.log")
        logs[-1].write_text(f"[12/01/2026-10:00:00] [E] [TRT] Error Code 4: failed {index}\n")
    for fmt in ("table", "json"):
        opened.clear()
        assert main(["failures", "--format", fmt, *map(str, logs)]) == 0
        assert len(opened) == 3 and "failed 2" in capsys.readouterr().out
