"""The incremental parser: a live build log fed line by line."""

from __future__ import annotations

from import_check import loaded_after

from trtsafe_lab.demo.logs import EXAMPLES
from trtsafe_lab.logs import LogParser, analyze_log


def test_rows_arrive_as_records_complete() -> None:
    parser = LogParser()
    assert parser.feed("[I] [TRT] Local timing cache in use.") == []
    error = "[E] Error[10]: Error Code 10: Internal Error (Could not find any implementation for "
    assert parser.feed(error + "node conv1.)\n") == []  # still open: a continuation may follow
    rows = parser.feed(b"[E] Engine could not be created from network\n")
    assert [row["layer"] for row in rows] == ["conv1"]
    assert [row["category"] for row in parser.finish()] == ["build-failed"]
    assert parser.lines_read == 3
    assert len(parser.events_frame()) == 3


def test_feeding_a_log_line_by_line_equals_analyze_log() -> None:
    log = EXAMPLES / "trt11-safe-build-no-tactic.log"
    parser = LogParser()
    rows = []
    with open(log, "rb") as handle:
        for line in handle:
            rows.extend(parser.feed(line))
    rows.extend(parser.finish())
    assert parser.failures_frame().equals(analyze_log(log).failures)
    assert len(rows) == len(parser.failures)


def test_importing_the_logs_package_stays_light() -> None:
    heavy = ("matplotlib", "onnx", "tensorrt", "cuda", "ipywidgets")
    assert loaded_after("import trtsafe_lab.logs, trtsafe_lab.logs.cli", heavy) == []
