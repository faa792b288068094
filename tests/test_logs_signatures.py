"""Failure signatures group the same failure across real logs (trtsafe_lab.logs.signatures)."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from trtsafe_lab.logs.signatures import failure_signatures, signature

PROJECT = Path(__file__).parent / "data" / "logs"
FOLLOW_UPS = ("build-failed",)  # "Engine could not be created": every failed build says it


def _train_groups() -> dict[str, list[Path]]:
    """Train cases the corpus tags ``group:<name>`` (set-aside cases are never read here)."""
    groups: dict[str, list[Path]] = defaultdict(list)
    with open(PROJECT / "INDEX.tsv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["split"] != "train":
                continue
            for tag in row["tags"].split(";"):
                if tag.startswith("group:"):
                    groups[tag].append(PROJECT / "cases" / row["file"])
    return {name: logs for name, logs in groups.items() if len(logs) >= 2}


def test_there_are_train_groups_to_check() -> None:
    assert len(_train_groups()) >= 3


@pytest.mark.parametrize("group", sorted(_train_groups()))
def test_logs_of_one_group_share_a_signature_or_explanation(group: str) -> None:
    """The corpus tags logs that share one failure (often across TensorRT versions whose wording
    differs): their rows share a signature, or at least the explanation of that failure."""
    logs = _train_groups()[group]
    table = failure_signatures(logs)
    table = table[~table["category"].isin(FOLLOW_UPS)]
    if (table["log_count"] == len(logs)).any():
        return
    logs_per_explanation = {
        explanation: {log for logs_seen in rows["logs"] for log in logs_seen}
        for explanation, rows in table[table["explanation_id"] != ""].groupby("explanation_id")
    }
    everywhere = [e for e, seen in logs_per_explanation.items() if len(seen) == len(logs)]
    assert everywhere, (group, table[["signature", "explanation_id", "log_count"]].to_string())


def test_shared_corpus_repeats_group_and_different_failures_do_not(corpus_dir: Path) -> None:
    cases = corpus_dir / "build-logs" / "cases"
    # 024 and 025: the same IShuffleLayer shape-tensor error on different layers and TRT 5/6
    table = failure_signatures([cases / "024.log", cases / "025.log", cases / "043.log"])
    shuffle = table[table["signature"].str.contains("IShuffleLayer applied to shape tensor")]
    assert len(shuffle) == 1 and shuffle.iloc[0]["log_count"] == 2
    assert len(shuffle.iloc[0]["layers"]) == 2  # two different layer names, one signature
    dla = table[table["category"] == "dla-fallback"]
    assert set(dla["logs"].map(len)) == {1}


def test_signature_placeholders() -> None:
    message = (
        "[03/25/2023-07:13:22] Skipping tactic 0x00000000000003e8 due to insufficient memory on "
        "requested size of 8589934592 detected for tactic 0x0000000000000001 in "
        "/opt/models/yolo/model.onnx [1,3,640,640] 17.5 MiB "
        "[optimizer.cpp::computeCosts::2011] Error Code 10: node 'conv1'"
    )
    assert signature(message) == (
        "Skipping tactic <tactic> due to insufficient memory on requested size of <n> "
        "detected for tactic <tactic> in <path> <dims> <size> "
        "[optimizer.cpp::computeCosts::<n>] Error Code 10: node <name>"
    )


def test_cli_group(capsys: pytest.CaptureFixture[str]) -> None:
    from trtsafe_lab.cli import main

    logs = [str(p) for p in _train_groups()["group:err10-foreignnode"]]
    assert main(["failures", *logs, "--group"]) == 0
    out = capsys.readouterr().out
    assert "Could not find any implementation for node <name>" in out
    assert "no-implementation-foreignnode" in out
