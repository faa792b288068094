"""Failure-table accuracy per split of the real-log corpora (issue 11).

Splits: ``train`` (tests/data/logs, rules are written against it), ``setaside`` (tests/data/logs,
held back before any rule was written: only aggregate figures are printed for it) and ``shared``
(../shared/corpus/build-logs/cases). Run with ``pytest -s`` to see the per-split table;
``benchmarks/failure_accuracy.py`` writes the same figures to benchmarks/results/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from trtsafe_lab.logs import analyze_log
from trtsafe_lab.logs.scoring import (
    CaseResult,
    corpus_figures,
    figures_table,
    read_index,
)

PROJECT = Path(__file__).parent / "data" / "logs"
SETASIDE_EXACT_FLOOR = 0.95  # issue 11
# Measured by the lead once the rules were frozen (benchmarks/results/failure_accuracy_*.json),
# per collection batch: (cases, exact). Batch 1 was 50/58 with the rules of the first round and
# 53/58 with the second's; batch 2 44/52 with the second's; batch 3 was scored once, after this
# round's rules were frozen (failure_accuracy_20261201T220159Z.json, 54/60); batch 4 once, after
# the fourth round's rules were frozen (failure_accuracy_20261202T003619Z.json: 37/46, the same
# count the third round's rules read on it:
# failure_accuracy_session4_rules_on_batch4_20261201.json; 38/46 with the fifth round's);
# batch 5 once, after the fifth round's rules were frozen (failure_accuracy_20261202T023853Z.json:
# 26/30, the same count the fourth round's rules read on it:
# failure_accuracy_session5_rules_on_batch5_20261202.json). Session 7 decided the open
# ground-truth questions (tests/data/logs/README.md, D1-D14) and blind readers applied them to
# both splits: the session-6 rules read batches 3 and 4 53/60 and 37/46 on the decided truths
# (failure_accuracy_session6_rules_on_session7_truths_reviewed_20261202T043522Z.json; 55 and 38 on
# the old truths), and batch 6 (collected this round) 9/10 before any batch-6 rule
# (failure_accuracy_session6_rules_on_batch6_20261202T045809Z.json); the sixth round's frozen
# rules: failure_accuracy_20261202T055259Z.json.
SETASIDE_FROZEN = {
    "setaside-b1": (58, 55),
    "setaside-b2": (52, 48),
    "setaside-b3": (60, 54),
    "setaside-b4": (46, 37),
    "setaside-b5": (30, 26),
    "setaside-b6": (10, 10),
}


def _failures(path: Path) -> pd.DataFrame:
    return analyze_log(path).failures


@pytest.fixture(scope="module")
def scored(corpus_dir: Path) -> tuple[dict[str, dict[str, Any]], list[CaseResult]]:
    figures, train = corpus_figures(PROJECT, corpus_dir / "build-logs" / "cases", _failures)
    print("\nfailure-table accuracy per split\n" + figures_table(figures))
    return figures, train


def test_index_has_both_splits_and_aligned_columns() -> None:
    cases = read_index(PROJECT / "INDEX.tsv")  # raises when categories/fatal are misaligned
    splits = {case.split for case in cases}
    assert splits == {"train", "setaside"}, splits
    assert all((PROJECT / "cases" / case.file).is_file() for case in cases)


# Train truths that contradict each other, so no general rule gets both right (the layer sets are
# exact; only the flag differs). Reported to the corpus owners, never edited here.
FATAL_DISAGREEMENTS = {
    # ONNX Runtime's warning-level wrapper around a TensorRT ERROR: n204 (shape tensor) reads it
    # fatal, n215 (Int32 elementwise) non-fatal; the log lines have the same form
    "n215.log": "same wrapper and severity as n204, opposite fatal",
    # decision D11 (fatal read from the excerpt) made these read from the lines after the error,
    # which a reading of the error record cannot see: n533's ERROR "X: at least 4 dimensions are
    # required for input." is non-fatal (the app goes on creating layers), n045's same message
    # at ERROR fatal (its excerpt is cut after the errors); n514's "ITensor::getDimensions:
    # Error Code 4: API Usage Error (Output shape can not be computed for node X)" non-fatal
    # (the excerpt ends on it), n174's getDimensions API Usage Error fatal
    "n533.log": "ERROR rank check non-fatal (app goes on); n045's same ERROR fatal",
    "n514.log": "getDimensions API Usage Error non-fatal; n174's fatal",
}


# Train truths whose category contradicts other train truths of the same message form (since the
# written decisions D1-D14, n372/n986 read shape by D2 and n928 parser-error by D3).
CATEGORY_DISAGREEMENTS: dict[str, str] = {
    # D1: a message printed without its code is api-usage when another log shows it with code 3;
    # n1042 prints "3: X:bias weights has count 7 but 32 was expected"
    "n1093.log": "'X: bias weights has count N but M was expected' read shape; D1 with n1042's "
    "'3: ...bias weights has count' says api-usage",
}


def test_train_split_is_exact(scored: tuple[dict[str, dict[str, Any]], list[CaseResult]]) -> None:
    """100% of train: every case's layer set, and the category and fatal flag of every name
    (except the listed category / fatal-flag disagreements between train truths)."""
    figures, train = scored
    misses = {r.file for r in train if not r.exact}
    assert not misses, f"train cases whose layer set differs from the truth: {misses}"
    wrong_category = {r.file for r in train if r.category_right != r.category_checked}
    assert wrong_category == set(CATEGORY_DISAGREEMENTS), wrong_category
    wrong_fatal = {r.file for r in train if r.fatal_right != r.fatal_checked}
    assert wrong_fatal == set(FATAL_DISAGREEMENTS), wrong_fatal
    assert figures["train"]["exact"] == figures["train"]["cases"]


def test_shared_corpus_stays_exact(
    scored: tuple[dict[str, dict[str, Any]], list[CaseResult]],
) -> None:
    shared = scored[0]["shared"]
    assert shared["cases"] >= 61
    assert shared["exact"] == shared["cases"], shared


@pytest.mark.xfail(strict=True, reason=(
    "issue 11's floor is not met: set-aside exact match was 230/256 (89.8%, 95% interval "
    "85.5-93.3%; batch 1 55/58, batch 2 48/52, batch 3 54/60, batch 4 37/46, batch 5 26/30, "
    "batch 6 10/10) on the decided truths (D1-D14) when the rules of the sixth round were "
    "frozen on 2026-12-02; the rules are not tuned on set-aside cases. strict: when the floor "
    "is met this xfail fails, and the marker must go."))
def test_setaside_split_meets_the_floor(
    scored: tuple[dict[str, dict[str, Any]], list[CaseResult]],
) -> None:
    """Aggregate only: the set-aside cases are never shown one by one."""
    figures = scored[0]["setaside"]
    assert figures["cases"] > 0
    assert figures["exact_rate"] >= SETASIDE_EXACT_FLOOR, (
        f"set-aside exact match {figures['exact']}/{figures['cases']} is below "
        f"{SETASIDE_EXACT_FLOOR:.0%} (aggregate figures: {figures})"
    )


def test_setaside_does_not_fall_below_its_frozen_figure(
    scored: tuple[dict[str, dict[str, Any]], list[CaseResult]],
) -> None:
    """A regression guard, not a target: each batch's set-aside figure measured when the rules
    were frozen must not drop; issue 11's 95% floor is the xfail above."""
    for split, (cases, exact) in SETASIDE_FROZEN.items():
        figures = scored[0][split]
        assert figures["cases"] == cases, (split, figures)
        assert figures["exact"] >= exact, (split, figures)


def test_scoring_counts_categories_and_fatal_on_matched_names() -> None:
    from trtsafe_lab.logs.scoring import CaseTruth, aggregate, score_case

    truth = CaseTruth("x.log", ("a", "b"), ("shape", "no-tactic"), (True, False), "train")
    failures = pd.DataFrame(
        {"layer": ["a", "a", "c", ""], "category": ["shape", "other", "shape", "other"],
         "fatal": [False, True, True, True]}
    )
    result = score_case(truth, failures)
    assert (result.exact, result.matched_names, result.found_names) == (False, 1, 2)
    # "a": its first fatal row says "other", so the category is wrong; any fatal row -> fatal
    assert (result.category_right, result.category_checked) == (0, 1)
    assert (result.fatal_right, result.fatal_checked) == (1, 1)
    figures = aggregate([result])
    assert figures["name_precision"] == 0.5 and figures["name_recall"] == 0.5
