"""The run record's failure table comes from the logs job's scan
(:func:`trtsafe_lab.rundir.log_failure_table`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from trtsafe_lab.trtexec import build
from trtsafe_lab.trtexec.build import record_failure_table


def test_failure_table_written_through_logs_api(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in table reader (TEST DOUBLE of the API shape) checks the wiring."""
    (tmp_path / "build.log").write_text("[E] Error[10]: ... node X.\n")
    seen: list[Path] = []

    def log_failure_table(path: Path) -> pd.DataFrame:
        seen.append(Path(path))
        return pd.DataFrame({"layer_name": ["X"]})

    monkeypatch.setattr(build, "log_failure_table", log_failure_table)
    assert record_failure_table(tmp_path) == {"failure_table": "failures.csv", "n_failures": 1}
    assert seen == [tmp_path / "build.log"]
    assert pd.read_csv(tmp_path / "failures.csv")["layer_name"].tolist() == ["X"]


def test_parser_error_is_recorded_not_swallowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def log_failure_table(path: Path) -> None:
        raise ValueError("unreadable line 3")

    monkeypatch.setattr(build, "log_failure_table", log_failure_table)
    fields = record_failure_table(tmp_path)
    assert fields["failure_table"] is None
    assert "ValueError: unreadable line 3" in fields["failure_table_note"]


def test_real_failure_table_of_a_corpus_build(tmp_path: Path, corpus_dir: Path) -> None:
    """The blamed ForeignNode of case 001 (ground truth, INDEX.tsv), via the logs job's API."""
    log = (corpus_dir / "build-logs/cases/001.log").read_bytes()
    (tmp_path / "build.log").write_bytes(log)
    fields = record_failure_table(tmp_path)
    assert fields["failure_table"] == "failures.csv" and fields["n_failures"] >= 1
    text = (tmp_path / "failures.csv").read_text()
    assert "{ForeignNode[onnx::Gather_72...ScatterND_170]}" in text
