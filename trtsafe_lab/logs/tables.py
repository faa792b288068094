"""The pandas tables: events, failures and the failure summary.

``events`` — one row per log record:
    line / end_line (1-based first and last line), timestamp (as printed, "" when none),
    severity (internal_error, critical, error, warning, info, verbose, "" untagged), source
    (trtexec, tensorrt, onnx-parser, polygraphy, deepstream-style tensorrt, tf-trt, trtorch,
    python-logging, onnxruntime, app, ""), error_code (TensorRT ErrorCode number, <NA>),
    error_name ("Internal Error", "OutOfMemory", ...), error_enum (nvinfer1::ErrorCode name of
    the number, kUNSUPPORTED_STATE for 10), location / function (source position and
    function or API as printed), phase (parse, build, tactic, runtime), message (prefixes
    stripped, lines joined with "\\n"), names (tuple of the layer names the record blames).

``failures`` — one row per layer-level finding (a record that blames no layer but is an error,
or a known kind of warning, gives one row with an empty layer):
    layer (exactly as printed), members (tuple: names inside a fused layer / ForeignNode range),
    tensors (tuple: tensor names the message mentions, ``tensor X`` / ``Tensor 'X'``; a tensor
    is not a layer, so these never appear in ``layer``),
    severity, fatal (bool: stops the parse, build or run), category, error_code, error_name,
    error_enum,
    phase, line (where the finding is printed), source, location, function, message,
    explanation_id (the curated explanation of the row, :mod:`trtsafe_lab.logs.explanations`;
    "" when none applies).

``summary`` — failure rows counted by category, phase and layer: count, fatal_count.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from trtsafe_lab.logs import columns as C


def _frame(rows: Iterable[Mapping[str, Any]], names: tuple[str, ...]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=list(names))
    if C.ERROR_CODE in frame:
        frame[C.ERROR_CODE] = frame[C.ERROR_CODE].astype("Int64")
    for column in (C.LINE, C.END_LINE):
        if column in frame:
            frame[column] = frame[column].astype("int64")
    if C.FATAL in frame:
        frame[C.FATAL] = frame[C.FATAL].astype(bool)
    return frame


def events_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The events table (columns in :data:`~trtsafe_lab.logs.columns.EVENT_COLUMNS`)."""
    return _frame(rows, C.EVENT_COLUMNS)


def failures_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The failures table (columns in :data:`~trtsafe_lab.logs.columns.FAILURE_COLUMNS`).

    ``explanation_id`` is filled here from :mod:`trtsafe_lab.logs.explanations`.
    """
    from trtsafe_lab.logs.explanations import explanation_ids

    rows = list(rows)
    extra = tuple(c for c in C.ONNX_COLUMNS if rows and c in rows[0])
    frame = _frame(rows, C.FAILURE_COLUMNS + extra)
    frame[C.EXPLANATION_ID] = explanation_ids(frame) if len(frame) else pd.Series(dtype=object)
    return frame


def summarize_failures(failures: pd.DataFrame) -> pd.DataFrame:
    """Failure rows counted by category, phase and layer, most frequent first.

    Columns: category, phase, layer ("" for rows that name no layer), count, fatal_count.
    """
    if failures.empty:
        return pd.DataFrame(
            {c: pd.Series(dtype="int64" if c in (C.COUNT, C.FATAL_COUNT) else object)
             for c in C.SUMMARY_COLUMNS}
        )
    grouped = (
        failures.groupby([C.CATEGORY, C.PHASE, C.LAYER], sort=False, dropna=False)[C.FATAL]
        .agg(["size", "sum"])
        .reset_index()
        .rename(columns={"size": C.COUNT, "sum": C.FATAL_COUNT})
    )
    grouped[C.FATAL_COUNT] = grouped[C.FATAL_COUNT].astype("int64")
    return grouped.sort_values(
        [C.FATAL_COUNT, C.COUNT], ascending=False, kind="stable"
    ).reset_index(drop=True)[list(C.SUMMARY_COLUMNS)]


def to_records(failures: pd.DataFrame) -> list[dict[str, Any]]:
    """Failure rows as plain JSON-ready dicts (tuples become lists, <NA> becomes None)."""
    out = []
    for row in failures.to_dict(orient="records"):
        clean: dict[str, Any] = {}
        for key, value in row.items():
            if isinstance(value, tuple):
                value = list(value)
            elif value is pd.NA or (isinstance(value, float) and value != value):
                value = None
            elif hasattr(value, "item"):
                value = value.item()
            clean[key] = value
        out.append(clean)
    return out


def flatten_for_csv(failures: pd.DataFrame) -> pd.DataFrame:
    """Copy with tuple columns joined by `` | `` so the table fits a CSV cell per value."""
    flat = failures.copy()
    for column in flat.columns:
        if flat[column].map(lambda v: isinstance(v, tuple)).any():
            flat[column] = flat[column].map(
                lambda v: " | ".join(v) if isinstance(v, tuple) else v
            )
    return flat
