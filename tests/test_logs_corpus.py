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
