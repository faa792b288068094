"""Kernel-level timeline per CUDA stream, recorded with CUPTI (cupti-python, the ``cupti`` extra).

:func:`kernel_trace` enables CUPTI's concurrent-kernel activity for the body of a ``with`` block
and fills a list of kernel records; :func:`kernel_table` turns them into a table (columns in
:mod:`trtsafe_lab.profile.timeline`). Only executors that run in this process can be traced.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pandas as pd

from trtsafe_lab._optional import require
from trtsafe_lab.profile.timeline import KERNEL_COLUMNS


@contextlib.contextmanager
def kernel_trace() -> Iterator[list[dict[str, Any]]]:
    """Record every kernel launched inside the block: yields a list filled on exit."""
    cupti = require("cupti.cupti", feature="CUPTI kernel timelines")
    records: list[dict[str, Any]] = []

    def requested() -> tuple[int, int]:
        return 8 * 1024 * 1024, 0

    def completed(activities: list[Any]) -> None:
        for act in activities:
            if act.kind != cupti.ActivityKind.CONCURRENT_KERNEL:
                continue
            records.append({
                "kernel_name": str(act.name), "stream_id": int(act.stream_id),
                "start_ns": int(act.start), "end_ns": int(act.end),
                "correlation_id": int(act.correlation_id),
                "graph_id": int(getattr(act, "graph_id", 0)),
                "graph_node_id": int(getattr(act, "graph_node_id", 0)),
            })

    cupti.activity_register_callbacks(requested, completed)
    cupti.activity_enable(cupti.ActivityKind.CONCURRENT_KERNEL)
    try:
        yield records
    finally:
        cupti.activity_flush_all(1)
        cupti.activity_disable(cupti.ActivityKind.CONCURRENT_KERNEL)


def kernel_table(records: list[dict[str, Any]]) -> pd.DataFrame:
    """Kernel records as a table (see :data:`~trtsafe_lab.profile.timeline.KERNEL_COLUMNS`)."""
    table = pd.DataFrame(records, columns=list(KERNEL_COLUMNS[:-1]))
    table["graph_node_id"] = table["graph_node_id"].fillna(0).astype("int64")
    if table.empty:
        return pd.DataFrame(columns=list(KERNEL_COLUMNS))
    table = table.sort_values("start_ns").reset_index(drop=True)
    table["duration_us"] = (table["end_ns"] - table["start_ns"]) / 1e3
    return table
