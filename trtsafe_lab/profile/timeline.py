"""Timelines: which kernels ran on which stream, and how much they overlapped across streams.

A kernel table (from CUPTI, :mod:`trtsafe_lab.profile.cupti_trace`) has the columns in
:data:`KERNEL_COLUMNS`: ``kernel_name``, ``stream_id`` (CUPTI's stream id), ``start_ns``,
``end_ns`` (device timestamps, ns), ``correlation_id``, ``graph_id`` (0 outside CUDA graphs),
``graph_node_id`` and ``duration_us``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

KERNEL_COLUMNS = ("kernel_name", "stream_id", "start_ns", "end_ns", "correlation_id", "graph_id",
                  "graph_node_id", "duration_us")


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


LAYER_TIMELINE_COLUMNS = ("layer_name", "stream_id", "start_ms", "duration_ms", "is_sync")


def layer_timeline(graph: pd.DataFrame, profile: pd.DataFrame | None = None) -> pd.DataFrame:
    """Lay the engine's layers out per stream, in engine order, for a per-stream picture.

    ``graph`` comes from :func:`~trtsafe_lab.profile.layers.load_graph`; ``profile`` (optional)
    gives each layer's ``median_ms`` as its width, else every layer is 1 unit wide. Layer info
    holds no start times: each stream's layers are placed back to back, and a ``wait`` layer
    starts no earlier than the latest ``signal`` before it. It is an ordering picture, not a
    measured timeline (use a CUPTI kernel trace for that). Columns: :data:`LAYER_TIMELINE_COLUMNS`.
    """
    durations: dict[str, float] = {}
    if profile is not None and len(profile):
        durations = dict(zip(profile["layer_name"], profile["median_ms"], strict=True))
    clock: dict[int, float] = {}
    last_signal = 0.0
    rows = []
    for layer in graph.itertuples(index=False):
        stream = 0 if pd.isna(layer.stream_id) else int(layer.stream_id)
        kind = str(layer.layer_type or "").lower()
        start = clock.get(stream, 0.0)
        if layer.is_sync and "wait" in kind:
            start = max(start, last_signal)
        width = float(durations.get(layer.layer_name, np.nan))
        if not np.isfinite(width):
            width = 0.0 if layer.is_sync else 1.0
        rows.append({"layer_name": layer.layer_name, "stream_id": stream, "start_ms": start,
                     "duration_ms": width, "is_sync": bool(layer.is_sync)})
        clock[stream] = start + width
        if layer.is_sync and "signal" in kind:
            last_signal = max(last_signal, clock[stream])
    return pd.DataFrame(rows, columns=list(LAYER_TIMELINE_COLUMNS))


def kernel_iterations(kernels: pd.DataFrame, per_iteration: int) -> pd.DataFrame:
    """Number each kernel of a trace of whole forward passes: adds ``iteration`` and ``index``
    (its position in the pass, i.e. the layer it belongs to, in launch/capture order).

    Eager launches: each kernel has its own ``correlation_id``, in launch order. CUDA graph
    replays: all kernels of one replay share the launch's ``correlation_id``, and
    ``graph_node_id`` follows capture order; a trace holding both keeps only the graph replays.
    A trailing partial pass is dropped.
    """
    if per_iteration < 1:
        raise ValueError("per_iteration must be >= 1")
    table = kernels.copy()
    graph = "graph_node_id" in table and (table["graph_id"] != 0).any()
    if graph:  # graph replays only: eager kernels (e.g. a priming pass) are dropped
        table = table[table["graph_id"] != 0]
        table = table.sort_values(["correlation_id", "graph_node_id"]).reset_index(drop=True)
        table["iteration"] = table.groupby("correlation_id", sort=True).ngroup()
        table["index"] = table.groupby("correlation_id").cumcount()
    else:
        table = table.sort_values("correlation_id").reset_index(drop=True)
        table["iteration"] = table.index // per_iteration
        table["index"] = table.index % per_iteration
    full = table.groupby("iteration")["index"].transform("size") == per_iteration
    return table[full].reset_index(drop=True)


def kernel_layer_profile(kernels: pd.DataFrame, layer_names: list[str]) -> pd.DataFrame:
    """A per-layer profile measured by CUPTI, for workloads with one kernel per layer.

    Columns as :data:`~trtsafe_lab.profile.layers.PROFILE_COLUMNS` plus ``stream_id`` (the
    CUPTI stream the layer's kernels ran on; several joined by ``,`` if it changed).
    """
    numbered = kernel_iterations(kernels, len(layer_names))
    numbered["duration_ms"] = (numbered["end_ns"] - numbered["start_ns"]) / 1e6
    grouped = numbered.groupby("index")
    table = pd.DataFrame({
        "layer_name": [layer_names[i] for i in grouped.groups],
        "total_ms": grouped["duration_ms"].sum().to_numpy(),
        "average_ms": grouped["duration_ms"].mean().to_numpy(),
        "median_ms": grouped["duration_ms"].median().to_numpy(),
        "count": grouped.size().to_numpy(),
        "stream_id": grouped["stream_id"].agg(
            lambda s: ",".join(str(v) for v in sorted(set(s)))).to_numpy(),
    })
    table["percentage"] = 100 * table["total_ms"] / table["total_ms"].sum()
    return table[["layer_name", "total_ms", "average_ms", "median_ms", "percentage", "count",
                  "stream_id"]]


def last_iteration(kernels: pd.DataFrame, per_iteration: int) -> pd.DataFrame:
    """The kernels of the last whole forward pass in a trace."""
    numbered = kernel_iterations(kernels, per_iteration)
    return numbered[numbered["iteration"] == numbered["iteration"].max()]
