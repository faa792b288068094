"""Build summary (aux streams, memory, engine size, times) from real lines and from the lines
trtexec's source prints (``samples/common/sampleEngines.cpp`` and ``sampleInference.cpp`` of
TensorRT 11.1 in ../shared/reference/tensorrt-oss)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pandas as pd
import pytest

from trtsafe_lab.cli import main
from trtsafe_lab.logs import analyze_log, columns

PROJECT = Path(__file__).parent / "data" / "logs"
REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "tensorrt-oss"
# (the corpus fixture checks ../shared is there)
# Published lines: https://github.com/lyuwenyu/RT-DETR/issues/47 (trtexec, TensorRT 8.6)
RT_DETR = """\
[08/31/2023-15:00:27] [I] [TRT] [MS] Running engine with multi stream info
[08/31/2023-15:00:27] [I] [TRT] [MS] Number of aux streams is 2
[08/31/2023-15:00:27] [I] [TRT] [MS] Number of total worker streams is 3
[08/31/2023-15:00:27] [I] [TRT] [MS] The main stream provided by execute/enqueue calls is the \
first worker stream
"""


def _row(source: str | Path, *, text: bool = False) -> pd.Series:
    summary = analyze_log(source, text=text).build_summary()
    assert list(summary.columns) == list(columns.BUILD_SUMMARY_COLUMNS) and len(summary) == 1
    return summary.iloc[0]


def test_aux_streams_from_published_lines() -> None:
    row = _row(RT_DETR, text=True)
    assert (row["aux_streams"], row["worker_streams"]) == (2, 3)
    assert not row["multi_stream_disabled"]


def test_shared_corpus_verbose_build(corpus_dir: Path) -> None:
    log = corpus_dir / "build-logs" / "verbose" / "trt-8.5.2-resnet-verbose-build-and-profile.log"
    row = _row(log)
    # TensorRT 8.5 prints "Total Activation Memory" twice; the last (final engine) is kept
    assert row["activation_memory_bytes"] == 756727296
    assert row["scratch_memory_bytes"] == 89769472  # "Total Scratch Memory: 89769472"
    assert (row["host_persistent_memory_bytes"], row["device_persistent_memory_bytes"]) == (
        123840, 13626368)
    assert (row["peak_cpu_allocator_mib"], row["peak_gpu_allocator_mib"]) == (79.0, 1047.0)
    assert row["engine_generation_s"] == pytest.approx(314.751)
    assert row["build_time_s"] == pytest.approx(320.636)
    assert row["loaded_engine_size_mib"] == 18.0
    assert pd.isna(row["aux_streams"])


def test_multi_stream_disabled_and_10x_units(corpus_dir: Path) -> None:
    row = _row(corpus_dir / "build-logs" / "cases" / "068.log")  # TensorRT 10.16 trtexec
    assert row["multi_stream_disabled"]
    assert row["multi_stream_disabled_reason"] == "the stream assignment failed"
    assert (row["scratch_memory_bytes"], row["activation_memory_bytes"]) == (133120, 2007552)
    assert row["engine_size_mib"] == pytest.approx(6.42511)
    row = _row(corpus_dir / "build-logs" / "cases" / "037.log")
    assert row["weights_memory_bytes"] == 34082304 and row["engine_size_mib"] == 34.271


def test_corpus_cases_tagged_build_summary() -> None:
    with open(PROJECT / "INDEX.tsv", newline="", encoding="utf-8") as handle:
        tagged = [r["file"] for r in csv.DictReader(handle, delimiter="\t")
                  if r["split"] == "train" and "build-summary" in r["tags"].split(";")]
    assert tagged
    for name in tagged:
        text = (PROJECT / "cases" / name).read_text(errors="replace")
        row = _row(PROJECT / "cases" / name)
        for column, label in (("activation_memory_bytes", "Total Activation Memory: "),
                              ("scratch_memory_bytes", "Total Scratch Memory: "),
                              ("host_persistent_memory_bytes", "Total Host Persistent Memory: ")):
            printed = re.findall(re.escape(label) + r"(\d+)", text)
            if printed:
                assert row[column] == int(printed[-1]), (name, column)


# (column, literal before the value) for the values trtexec itself prints; the value and the
# literal after it come from the same output statement in the source.
TRTEXEC_FIELDS = (
    ("engine_size_mib", "Created engine with size: "),
    ("build_time_s", "Engine built in "),
    ("deserialize_time_s", "Engine deserialized in "),
    ("loaded_engine_size_mib", "Loaded engine with size: "),
    ("context_device_memory_mib", "Created execution context with device memory size: "),
    ("max_device_memory_mib", "Maximum device memory size across all profiles: "),
)


def _statement_suffix(source: str, literal: str) -> str:
    """The string literal printed right after the value in ``<< "literal" << value << "..."``."""
    match = re.search(re.escape('"' + literal + '"') + r'\s*<<[^;]*?<<\s*"([^"]*)"', source)
    assert match is not None, f"{literal!r} is no longer printed the same way: update the parser"
    return match.group(1)


@pytest.mark.parametrize("version", ["11.1"])  # 10.16: only sampleOptions.cpp is here
def test_lines_generated_from_trtexec_source(version: str) -> None:
    common = REFERENCE / version / "samples" / "common"
    source = (common / "sampleEngines.cpp").read_text() + (
        common / "sampleInference.cpp").read_text()
    lines = []
    for index, (_, literal) in enumerate(TRTEXEC_FIELDS):
        lines.append(f"[12/01/2026-10:00:0{index}] [I] {literal}{index + 1.25}"
                     f"{_statement_suffix(source, literal)}")
    row = _row("\n".join(lines), text=True)
    for index, (column, _) in enumerate(TRTEXEC_FIELDS):
        assert row[column] == pytest.approx(index + 1.25), (column, lines[index])


def test_cli_summary_table_and_json(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    log = str(corpus_dir / "build-logs" / "cases" / "068.log")
    assert main(["failures", log, "--summary"]) == 0
    out = capsys.readouterr().out
    assert "multi_stream_disabled_reason" in out and "the stream assignment failed" in out
    assert main(["failures", log, "--summary", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["build_summary"]
    assert rows[0]["scratch_memory_bytes"] == 133120 and rows[0]["aux_streams"] is None
