"""Timelines: which kernels ran on which stream, and how much they overlapped across streams.

A kernel table (from CUPTI, :mod:`trtsafe_lab.profile.cupti_trace`) has the columns in
:data:`KERNEL_COLUMNS`: ``kernel_name``, ``stream_id`` (CUPTI's stream id), ``start_ns``,
``end_ns`` (device timestamps, ns), ``correlation_id``, ``graph_id`` (0 outside CUDA graphs) and
``duration_us``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

KERNEL_COLUMNS = ("kernel_name", "stream_id", "start_ns", "end_ns", "correlation_id", "graph_id",
                  "duration_us")


def overlap_summary(kernels: pd.DataFrame) -> dict[str, Any]:
    """How much kernels on different streams ran at the same time.

    Returns ``kernels``, ``streams`` (distinct stream ids), ``busy_ns`` (time at least one kernel
    ran), ``cross_stream_overlap_ns`` (time kernels of two or more different streams ran at
    once), ``overlap_fraction`` (of busy time) and ``max_concurrent_streams``.
    """
    events: list[tuple[int, int, int]] = []
    for row in kernels.itertuples(index=False):
        events.append((int(row.start_ns), 1, int(row.stream_id)))
        events.append((int(row.end_ns), -1, int(row.stream_id)))
    events.sort(key=lambda e: (e[0], e[1]))  # ends before starts at the same instant
    active: dict[int, int] = {}
    busy = overlap = 0
    max_streams = 0
    last = None
    for t, delta, stream in events:
        if last is not None:
            running = sum(1 for v in active.values() if v > 0)
            if running >= 1:
                busy += t - last
            if running >= 2:
                overlap += t - last
        active[stream] = active.get(stream, 0) + delta
        max_streams = max(max_streams, sum(1 for v in active.values() if v > 0))
        last = t
    return {
        "kernels": len(kernels),
        "streams": int(kernels["stream_id"].nunique()) if len(kernels) else 0,
        "busy_ns": busy,
        "cross_stream_overlap_ns": overlap,
        "overlap_fraction": overlap / busy if busy else 0.0,
        "max_concurrent_streams": max_streams,
    }
