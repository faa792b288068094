"""Failure signatures: the same failure across many logs, whatever its names and numbers.

Each failure row's message becomes a signature (:func:`~trtsafe_lab.logs.signature_text.signature`
says what it drops and replaces). :func:`failure_signatures` groups the failure rows of many
logs by (signature, category):
    signature, category, count (failure rows), log_count, logs (tuple of log names, in order of
    first appearance), layers (tuple of distinct named layers), first_example (the first row's
    message as printed), explanation_id (see :mod:`trtsafe_lab.logs.explanations`).
Sorted by log_count, then count, most widespread first.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pandas as pd

from trtsafe_lab.logs import columns as C
from trtsafe_lab.logs.signature_text import signature

__all__ = ["add_signatures", "failure_signatures", "signature"]

if TYPE_CHECKING:
    from trtsafe_lab.logs.analysis import LogAnalysis


def _row_names(row: Any) -> list[str]:
    names = [row[C.LAYER], *row[C.MEMBERS]] if C.MEMBERS in row else [row[C.LAYER]]
    if C.TENSORS in row and isinstance(row[C.TENSORS], tuple):
        names.extend(row[C.TENSORS])
    return [name for name in names if isinstance(name, str) and name]


def add_signatures(failures: pd.DataFrame) -> pd.DataFrame:
    """Copy of a failures table with a ``signature`` column."""
    out = failures.copy()
    cache: dict[tuple[str, tuple[str, ...], str], str] = {}
    values = []
    for _, row in failures.iterrows():
        names = tuple(_row_names(row))
        key = (row[C.MESSAGE], names, row[C.CATEGORY])
        if key not in cache:
            cache[key] = signature(*key)
        values.append(cache[key])
    out[C.SIGNATURE] = pd.Series(values, index=failures.index, dtype=object)
    return out


def _frames(logs: Iterable[str | os.PathLike[str] | LogAnalysis]) -> pd.DataFrame:
    from trtsafe_lab.logs.analysis import LogAnalysis, analyze_log

    frames = []
    for log in logs:
        analysis = log if isinstance(log, LogAnalysis) else analyze_log(log)
        frame = analysis.failures.copy()
        frame.insert(0, C.LOG, analysis.name)
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=[C.LOG, *C.FAILURE_COLUMNS])
    return pd.concat(frames, ignore_index=True)


def failure_signatures(
    logs: Iterable[str | os.PathLike[str] | LogAnalysis] | pd.DataFrame,
) -> pd.DataFrame:
    """Group the failure rows of many logs by signature (columns in the module docstring).

    ``logs`` is paths, :class:`~trtsafe_lab.logs.analysis.LogAnalysis` objects, or one failures
    table with a ``log`` column (e.g. the CLI's concatenated table).
    """
    failures = logs if isinstance(logs, pd.DataFrame) else _frames(logs)
    if failures.empty:
        return pd.DataFrame(
            {c: pd.Series(dtype="int64" if c in (C.COUNT, C.LOG_COUNT) else object)
             for c in C.SIGNATURE_COLUMNS}
        )
    signed = add_signatures(failures)
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for _, row in signed.iterrows():
        key = (row[C.SIGNATURE], row[C.CATEGORY])
        group = groups.get(key)
        if group is None:
            group = groups[key] = {
                C.SIGNATURE: key[0],
                C.CATEGORY: key[1],
                C.COUNT: 0,
                C.LOGS: {},
                C.LAYERS: {},
                C.FIRST_EXAMPLE: row[C.MESSAGE],
                C.EXPLANATION_ID: row.get(C.EXPLANATION_ID, ""),
            }
        group[C.COUNT] += 1
        group[C.LOGS][row.get(C.LOG, "")] = None
        if row[C.LAYER]:
            group[C.LAYERS][row[C.LAYER]] = None
    rows = []
    for group in groups.values():
        logs_seen = tuple(group[C.LOGS])
        rows.append({**group, C.LOGS: logs_seen, C.LOG_COUNT: len(logs_seen),
                     C.LAYERS: tuple(group[C.LAYERS])})
    frame = pd.DataFrame(rows, columns=list(C.SIGNATURE_COLUMNS))
    frame[C.COUNT] = frame[C.COUNT].astype("int64")
    frame[C.LOG_COUNT] = frame[C.LOG_COUNT].astype("int64")
    return frame.sort_values(
        [C.LOG_COUNT, C.COUNT], ascending=False, kind="stable"
    ).reset_index(drop=True)
