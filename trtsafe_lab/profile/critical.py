"""Critical path and concurrency of a multi-stream engine: why is it not faster?

Input: layer info (:func:`~trtsafe_lab.profile.layers.load_graph`: engine order, ``StreamId``,
signal/wait sync layers) and per-layer times (a ``*.profile.json`` table, or the CUPTI per-layer
profile of the reference workload). Layers on one stream run in engine order; a ``wait`` layer
starts no earlier than the signals it waits for. Layer info names no event, so each wait on
stream S is paired with the latest signal of every other stream that came after S's previous
wait in engine order (TensorRT's fork/join pattern: a fork signal on the main stream is waited
for by each aux stream, each aux stream's join signal by the main stream).

:func:`stream_schedule` lays the layers out as early as these dependencies allow (every stream
runs as soon as it may, unlimited GPU) and returns one row per layer, in engine order, with the
columns in :data:`SCHEDULE_COLUMNS`: ``layer_index``, ``layer_name``, ``layer_type``,
``stream_id`` (0 = main), ``is_sync``, ``duration_ms`` (the layer's median time; sync layers and
layers without a time count 0), ``has_time`` (False where the profile had no time for a
non-sync layer), ``start_ms``, ``end_ms`` (predicted, from the pass start), ``waits_for`` (row
indices of the signals a wait layer waits for) and ``on_critical_path``.

:func:`critical_path_summary` gives per-stream busy time, the single-stream sum, the critical path
length, the bound on speedup (single-stream sum / critical path) and the predicted cross-stream
overlap. :func:`compare_with_trace` sets those predictions against a CUPTI kernel trace.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from trtsafe_lab.profile.timeline import kernel_iterations, overlap_summary

SCHEDULE_COLUMNS = ("layer_index", "layer_name", "layer_type", "stream_id", "is_sync",
                    "duration_ms", "has_time", "start_ms", "end_ms", "waits_for",
                    "on_critical_path")
COMPARISON_COLUMNS = ("metric", "predicted", "measured", "error")


def _kind(layer_type: Any) -> str:
    return str(layer_type or "").strip().lower().replace(" ", "_")


def sync_edges(graph: pd.DataFrame) -> dict[int, list[int]]:
    """For each wait layer (row position), the signal layers (row positions) it waits for."""
    signals_since: dict[int, int] = {}  # signalling stream -> its latest signal row
    last_wait: dict[int, int] = {}
    edges: dict[int, list[int]] = {}
    streams = [0 if pd.isna(s) else int(s) for s in graph["stream_id"]]
    for row, (kind, sync, stream) in enumerate(zip(
            map(_kind, graph["layer_type"]), graph["is_sync"], streams, strict=True)):
        if not sync:
            continue
        if "wait" in kind:
            since = last_wait.get(stream, -1)
            edges[row] = sorted(r for s, r in signals_since.items() if s != stream and r > since)
            last_wait[stream] = row
        if "signal" in kind:
            signals_since[stream] = row
    return edges


def _durations(graph: pd.DataFrame, profile: pd.DataFrame | Mapping[str, float] | None
               ) -> tuple[np.ndarray, np.ndarray]:
    if profile is None:
        times: Mapping[str, float] = {}
    elif isinstance(profile, pd.DataFrame):
        times = dict(zip(profile["layer_name"], profile["median_ms"].astype(float), strict=True))
    else:
        times = profile
    values = np.array([float(times.get(name, np.nan)) for name in graph["layer_name"]])
    sync = graph["is_sync"].to_numpy(bool)
    has = np.isfinite(values) | sync
    return np.where(np.isfinite(values), values, 0.0), has


def stream_schedule(graph: pd.DataFrame,
                    profile: pd.DataFrame | Mapping[str, float] | None) -> pd.DataFrame:
    """Earliest-start schedule of the layers over their streams (see the module docstring)."""
    if graph["stream_id"].isna().all() and len(graph):
        streams = np.zeros(len(graph), dtype=int)  # 8.x layer info: one stream
    else:
        streams = graph["stream_id"].fillna(0).astype(int).to_numpy()
    durations, has_time = _durations(graph, profile)
    edges = sync_edges(graph)
    start = np.zeros(len(graph))
    end = np.zeros(len(graph))
    pred: list[int] = [-1] * len(graph)
    clock: dict[int, tuple[float, int]] = {}  # stream -> (end, row)
    for row in range(len(graph)):
        ready, by = clock.get(int(streams[row]), (0.0, -1))
        for sig in edges.get(row, []):
            if end[sig] > ready:
                ready, by = end[sig], sig
        start[row], pred[row] = ready, by
        end[row] = ready + durations[row]
        clock[int(streams[row])] = (end[row], row)
    on_path = np.zeros(len(graph), dtype=bool)
    if len(graph):
        row = len(end) - 1 - int(np.argmax(end[::-1]))  # the last layer to finish, in order
        while row >= 0:
            on_path[row] = True
            row = pred[row]
    return pd.DataFrame({
        "layer_index": graph["layer_index"].to_numpy(), "layer_name": graph["layer_name"],
        "layer_type": graph["layer_type"], "stream_id": streams,
        "is_sync": graph["is_sync"].to_numpy(bool), "duration_ms": durations,
        "has_time": has_time, "start_ms": start, "end_ms": end,
        "waits_for": [edges.get(r, []) for r in range(len(graph))],
        "on_critical_path": on_path}, columns=list(SCHEDULE_COLUMNS))


def _intervals(schedule: pd.DataFrame) -> pd.DataFrame:
    work = schedule[~schedule["is_sync"] & (schedule["duration_ms"] > 0)]
    return pd.DataFrame({"stream_id": work["stream_id"],
                         "start_ns": (work["start_ms"] * 1e6).round().astype("int64"),
                         "end_ns": (work["end_ms"] * 1e6).round().astype("int64")})


def critical_path_summary(schedule: pd.DataFrame) -> dict[str, Any]:
    """``streams``; ``busy_ms_per_stream`` {stream: summed layer time}; ``single_stream_ms`` (all
    layer times summed: the pass on one stream, no gaps); ``critical_path_ms``;
    ``speedup_bound`` (single_stream_ms / critical_path_ms: no schedule of these layers on these
    streams does better); ``critical_layers`` (names, in order); ``predicted_overlap_fraction``
    (of busy time, two or more streams at once); ``layers_without_time`` (non-sync layers the
    profile had no time for, counted as 0)."""
    work = schedule[~schedule["is_sync"]]
    busy = work.groupby("stream_id")["duration_ms"].sum()
    single = float(work["duration_ms"].sum())
    critical = float(schedule["end_ms"].max()) if len(schedule) else 0.0
    overlap = overlap_summary(_intervals(schedule))
    path = schedule[schedule["on_critical_path"] & ~schedule["is_sync"]]
    return {
        "streams": sorted(int(s) for s in schedule["stream_id"].unique()),
        "busy_ms_per_stream": {int(k): float(v) for k, v in busy.items()},
        "single_stream_ms": single, "critical_path_ms": critical,
        "speedup_bound": single / critical if critical > 0 else float("nan"),
        "critical_layers": path["layer_name"].tolist(),
        "predicted_overlap_fraction": float(overlap["overlap_fraction"]),
        "layers_without_time": int((~schedule["has_time"]).sum()),
    }


def stream_of_cupti(kernels: pd.DataFrame, schedule: pd.DataFrame) -> dict[int, int]:
    """CUPTI stream id -> layer-info StreamId, for a trace of whole passes with one kernel per
    non-sync layer (launch order = engine order); the most common mapping wins."""
    names = schedule.loc[~schedule["is_sync"]]
    numbered = kernel_iterations(kernels, len(names))
    layer_stream = names["stream_id"].to_numpy()
    pairs = pd.DataFrame({"cupti": numbered["stream_id"].to_numpy(),
                          "stream": layer_stream[numbered["index"].to_numpy()]})
    top = pairs.groupby("cupti")["stream"].agg(lambda s: int(s.value_counts().index[0]))
    return {int(k): int(v) for k, v in top.items()}


def measured_passes(kernels: pd.DataFrame, schedule: pd.DataFrame) -> pd.DataFrame:
    """Per traced pass: ``iteration``, ``makespan_ms`` (first kernel start to last kernel end),
    ``overlap_fraction`` and ``busy_ms_stream_<StreamId>`` columns (kernel time per stream)."""
    per = int((~schedule["is_sync"]).sum())
    numbered = kernel_iterations(kernels, per)
    mapping = stream_of_cupti(kernels, schedule)
    numbered["stream"] = numbered["stream_id"].map(mapping)
    rows = []
    for it, group in numbered.groupby("iteration"):
        row: dict[str, Any] = {
            "iteration": int(it),
            "makespan_ms": (group["end_ns"].max() - group["start_ns"].min()) / 1e6,
            "overlap_fraction": overlap_summary(group)["overlap_fraction"]}
        busy = ((group["end_ns"] - group["start_ns"]) / 1e6).groupby(group["stream"]).sum()
        row.update({f"busy_ms_stream_{int(s)}": float(v) for s, v in busy.items()})
        rows.append(row)
    return pd.DataFrame(rows)


def compare_with_trace(schedule: pd.DataFrame, kernels: pd.DataFrame) -> pd.DataFrame:
    """Predicted (from the schedule) against measured (median over the traced passes):
    ``makespan_ms`` (critical path vs first-kernel-start to last-kernel-end), ``overlap_fraction``
    and ``busy_ms_stream_<N>`` per stream. Columns: :data:`COMPARISON_COLUMNS`; ``error`` =
    predicted / measured - 1 (NaN where measured is 0)."""
    summary = critical_path_summary(schedule)
    measured = measured_passes(kernels, schedule).median(numeric_only=True)
    predicted = {"makespan_ms": summary["critical_path_ms"],
                 "overlap_fraction": summary["predicted_overlap_fraction"],
                 **{f"busy_ms_stream_{s}": v for s, v in summary["busy_ms_per_stream"].items()}}
    rows = []
    for metric, value in predicted.items():
        got = float(measured.get(metric, np.nan))
        error = value / got - 1 if got else float("nan")
        rows.append({"metric": metric, "predicted": value, "measured": got, "error": error})
    return pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))


def traced_pass(kernels: pd.DataFrame, schedule: pd.DataFrame, iteration: int = -1
                ) -> pd.DataFrame:
    """One traced pass (default: the last) with each kernel's layer: columns ``layer_name``,
    ``stream`` (layer-info StreamId), ``start_ns``, ``end_ns``, ``on_critical_path`` (of
    ``schedule``) - the measured panel of :func:`~.plots_analysis.plot_critical_path`."""
    work = schedule.loc[~schedule["is_sync"]].reset_index(drop=True)
    numbered = kernel_iterations(kernels, len(work))
    wanted = numbered["iteration"].max() if iteration < 0 else iteration
    one = numbered[numbered["iteration"] == wanted]
    index = one["index"].to_numpy()
    return pd.DataFrame({"layer_name": work["layer_name"].to_numpy()[index],
                         "stream": work["stream_id"].to_numpy()[index],
                         "start_ns": one["start_ns"].to_numpy(),
                         "end_ns": one["end_ns"].to_numpy(),
                         "on_critical_path": work["on_critical_path"].to_numpy()[index]})
