"""The real logs a metamorphic test may change: train cases of ``tests/data/logs`` (never a
set-aside one) and the shared corpus, with the failure table read as layer -> category/fatal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from trtsafe_lab.logs import analyze_log
from trtsafe_lab.logs.scoring import CaseTruth, read_index

PROJECT = Path(__file__).parent / "data" / "logs"


def named_cases(corpus_dir: Path) -> Iterator[tuple[str, Path, CaseTruth]]:
    """(id, log path, truth) of every train and shared case whose truth names layers."""
    for case in read_index(PROJECT / "INDEX.tsv"):
        if case.split == "train" and case.names:  # set-aside cases are never read here
            yield f"data/{case.file}", PROJECT / "cases" / case.file, case
    shared = corpus_dir / "build-logs" / "cases"
    for case in read_index(shared / "INDEX.tsv"):
        if case.names:
            yield f"shared/{case.file}", shared / case.file, case


def read_layers(text: str) -> dict[str, tuple[str, bool]]:
    """layer -> (category of its first fatal row, else first row; any row fatal)."""
    failures: pd.DataFrame = analyze_log(text.encode("utf-8", "surrogateescape")).failures
    found: dict[str, tuple[str, bool]] = {}
    for layer, category, fatal in zip(
        failures["layer"], failures["category"], failures["fatal"], strict=True
    ):
        if not layer:
            continue
        if layer not in found or (fatal and not found[layer][1]):
            found[layer] = (category, bool(fatal) or found.get(layer, ("", False))[1])
    return found
