"""Score failure tables against hand-read ground truth (a corpus ``INDEX.tsv``).

A corpus is a folder of logs plus an ``INDEX.tsv`` with one row per log: ``file`` and
``attributed_names`` (the layer / node names the log blames, `` | ``-separated, read by hand),
optionally ``categories`` and ``fatal`` aligned with the names, ``split`` (train / setaside) and
``batch`` (the collection batch: set-aside and train figures are also given per batch,
``setaside-bN`` and ``train-bN``).
Both the shared corpus (``../shared/corpus/build-logs/cases``) and the project's
``tests/data/logs`` have this shape.

Figures (:func:`score`), per group of cases:
    cases, exact (cases whose set of named layers equals the ground truth), exact_rate,
    name_precision / name_recall (over all names of all cases), category_accuracy and
    fatal_accuracy (over names both found and in the ground truth, when the ground truth gives a
    category / fatal; None when no name has one). A found layer's category is the category of
    the first fatal row that names it (else of the first row); it is fatal when any row that
    names it is fatal.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from trtsafe_lab.logs import columns as C

SEPARATOR = " | "


@dataclass(frozen=True)
class CaseTruth:
    """One corpus row: the log and what it blames."""

    file: str
    names: tuple[str, ...]
    categories: tuple[str, ...]  # aligned with names; () when the index has no categories
    fatal: tuple[bool | None, ...]  # aligned with names; () when the index has no fatal column
    split: str
    batch: str = ""  # the collection batch ("1", "2", ...); "" when the index has no batch column


def _split_field(value: str | None) -> list[str]:
    if not value or not value.strip():
        return []
    return [part.strip() for part in value.split(SEPARATOR)]


def _fatal(value: str) -> bool | None:
    return {"true": True, "false": False}.get(value.strip().lower())


def read_index(index: Path) -> list[CaseTruth]:
    """The cases of an ``INDEX.tsv`` (a ``names``/``categories`` length mismatch raises)."""
    with open(index, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    cases = []
    for row in rows:
        names = [n for n in _split_field(row.get("attributed_names")) if n]
        categories = _split_field(row.get("categories")) if names else []
        fatal = [_fatal(v) for v in _split_field(row.get("fatal"))] if names else []
        for label, column in (("categories", categories), ("fatal", fatal)):
            if column and len(column) != len(names):
                raise ValueError(
                    f"{index}: row {row['file']}: {len(column)} {label} for {len(names)} "
                    "attributed_names; align them with ' | '"
                )
        cases.append(
            CaseTruth(
                file=row["file"],
                names=tuple(names),
                categories=tuple(categories),
                fatal=tuple(fatal),
                split=(row.get("split") or "").strip(),
                batch=(row.get("batch") or "").strip(),
            )
        )
    return cases


@dataclass
class CaseResult:
    """What the failure table of one case got right."""

    file: str
    exact: bool
    true_names: int
    found_names: int
    matched_names: int
    category_checked: int
    category_right: int
    fatal_checked: int
    fatal_right: int


def score_case(truth: CaseTruth, failures: pd.DataFrame) -> CaseResult:
    """Compare one log's failure table with its ground truth."""
    named = failures[failures[C.LAYER] != ""]
    category: dict[str, str] = {}
    fatal: dict[str, bool] = {}
    for layer, row_category, row_fatal in zip(
        named[C.LAYER], named[C.CATEGORY], named[C.FATAL], strict=True
    ):
        if layer not in category or (row_fatal and not fatal[layer]):
            category[layer] = row_category  # the first fatal row says what stopped it
        fatal[layer] = fatal.get(layer, False) or bool(row_fatal)
    expected = set(truth.names)
    found = set(category)
    matched = expected & found
    result = CaseResult(truth.file, found == expected, len(expected), len(found), len(matched),
                        0, 0, 0, 0)
    for index, name in enumerate(truth.names):
        if name not in matched:
            continue
        if truth.categories and truth.categories[index]:
            result.category_checked += 1
            result.category_right += category[name] == truth.categories[index]
        if truth.fatal and truth.fatal[index] is not None:
            result.fatal_checked += 1
            result.fatal_right += fatal[name] == truth.fatal[index]
    return result


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def aggregate(results: Iterable[CaseResult]) -> dict[str, Any]:
    """Sum case results into the figures described in the module docstring."""
    results = list(results)
    total = {
        key: sum(getattr(r, key) for r in results)
        for key in ("true_names", "found_names", "matched_names", "category_checked",
                    "category_right", "fatal_checked", "fatal_right")
    }
    exact = sum(r.exact for r in results)
    return {
        "cases": len(results),
        "exact": exact,
        "exact_rate": _ratio(exact, len(results)),
        "name_precision": _ratio(total["matched_names"], total["found_names"]),
        "name_recall": _ratio(total["matched_names"], total["true_names"]),
        "category_accuracy": _ratio(total["category_right"], total["category_checked"]),
        "fatal_accuracy": _ratio(total["fatal_right"], total["fatal_checked"]),
        "names_true": total["true_names"],
        "names_found": total["found_names"],
        "cases_with_names": sum(1 for r in results if r.true_names),
    }


def score_corpus(
    cases_dir: Path,
    cases: Iterable[CaseTruth],
    analyze: Callable[[Path], pd.DataFrame],
) -> list[CaseResult]:
    """Run ``analyze(log path) -> failures`` on every case and score it."""
    return [score_case(truth, analyze(cases_dir / truth.file)) for truth in cases]


SPLIT_ORDER = (
    "setaside", "setaside-b1", "setaside-b2", "setaside-b3", "setaside-b4", "setaside-b5", "shared",
    "train", "train-b1", "train-b2", "train-b3", "train-b4", "train-b5",
)
_SHOWN = ("cases", "exact", "exact_rate", "name_precision", "name_recall", "category_accuracy",
          "fatal_accuracy")


def figures_table(figures: dict[str, dict[str, Any]]) -> str:
    """The per-split figures as a fixed-width text table (set-aside first)."""
    order = [s for s in SPLIT_ORDER if s in figures] + [s for s in figures if s not in SPLIT_ORDER]
    frame = pd.DataFrame([{"split": split, **{k: figures[split][k] for k in _SHOWN}}
                          for split in order])
    frame = frame.astype(object).where(frame.notna(), "-")
    return str(frame.to_string(index=False))


def corpus_figures(
    project_cases: Path, shared_cases: Path, analyze: Callable[[Path], pd.DataFrame]
) -> tuple[dict[str, dict[str, Any]], list[CaseResult]]:
    """Figures for the project corpus's splits and the shared corpus, and the train results.

    Only aggregate figures leave this function for the set-aside split; per-case results are
    returned for the train split alone (rules are written against it).
    """
    project = read_index(project_cases / "INDEX.tsv")
    figures: dict[str, dict[str, Any]] = {}
    train: list[CaseResult] = []
    for split in sorted({case.split for case in project}):
        cases = [c for c in project if c.split == split]
        results = score_corpus(project_cases / "cases", cases, analyze)
        figures[split] = aggregate(results)
        if split == "train":
            train = results
        for batch in sorted({c.batch for c in cases if c.batch}):  # also per collection batch
            figures[f"{split}-b{batch}"] = aggregate(
                r for r, c in zip(results, cases, strict=True) if c.batch == batch
            )
    shared = score_corpus(shared_cases, read_index(shared_cases / "INDEX.tsv"), analyze)
    figures["shared"] = aggregate(shared)
    return figures, train
