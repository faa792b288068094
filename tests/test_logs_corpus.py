"""The failure table against every real log in the corpus (hand-read ground truth in INDEX.tsv)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from trtsafe_lab.logs import analyze_log

ACCURACY_FLOOR = 0.95
NO_FATAL_BUILD_OUTCOMES = ("build_succeeded", "inference_succeeded", "runtime_failed")


def _cases(corpus: Path) -> list[dict[str, str]]:
    with open(corpus / "build-logs" / "cases" / "INDEX.tsv", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _truth(row: dict[str, str]) -> set[str]:
    return {name.strip() for name in row["attributed_names"].split(" | ") if name.strip()}


def test_accuracy_against_every_case(corpus_dir: Path) -> None:
    cases = _cases(corpus_dir)
    assert len(cases) >= 60
    misses = []
    for row in cases:
        failures = analyze_log(corpus_dir / "build-logs" / "cases" / row["file"]).failures
        found = {name for name in failures["layer"] if name}
        if found != _truth(row):
            misses.append(f"{row['file']}: expected {sorted(_truth(row))}, got {sorted(found)}")
    accuracy = 1 - len(misses) / len(cases)
    assert accuracy >= ACCURACY_FLOOR, "\n".join(misses)


@pytest.mark.parametrize("outcome", NO_FATAL_BUILD_OUTCOMES)
def test_successful_and_runtime_only_logs_have_no_fatal_build_rows(
    corpus_dir: Path, outcome: str
) -> None:
    rows = [row for row in _cases(corpus_dir) if row["outcome"] == outcome]
    assert rows
    for row in rows:
        failures = analyze_log(corpus_dir / "build-logs" / "cases" / row["file"]).failures
        fatal_build = failures[failures["fatal"] & (failures["phase"] != "runtime")]
        assert fatal_build.empty, (row["file"], fatal_build[["line", "category", "message"]])


def test_large_successful_verbose_build_has_no_failure_rows(corpus_dir: Path) -> None:
    log = corpus_dir / "build-logs" / "verbose" / "trt-8.5.2-resnet-verbose-build-and-profile.log"
    analysis = analyze_log(log)
    assert analysis.failures.empty
    events = analysis.events
    assert len(events) > 10_000
    assert set(events["severity"]) <= {"info", "verbose", ""}
    assert events["line"].is_monotonic_increasing


def _all_logs(corpus: Path) -> list[Path]:
    cases = sorted((corpus / "build-logs" / "cases").glob("*.log"))
    return [*cases, *sorted((corpus / "build-logs" / "verbose").glob("*.log"))]


@pytest.mark.parametrize("chunk_bytes", [4 << 20, 4096, 97])
def test_streaming_scan_equals_full_parse(corpus_dir: Path, chunk_bytes: int) -> None:
    """The scan skips lines between triggers; it must not change a single failure row."""
    from trtsafe_lab.logs.parser import LogParser
    from trtsafe_lab.logs.scan import scan_failures
    from trtsafe_lab.logs.source import iter_lines

    logs = _all_logs(corpus_dir)
    if chunk_bytes < 1000:  # tiny chunks are slow on the 2 MB verbose log: cases only
        logs = logs[:-1]
    for log in logs:
        parser = LogParser(keep_events=False)
        parser.feed_lines(iter_lines(log))
        parser.finish()
        assert scan_failures(log, chunk_bytes=chunk_bytes) == parser.failures, log.name
