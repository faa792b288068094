"""Per-layer exports of trtexec: ``*.profile.json`` and ``*.graph.json`` (8.x, 10.x, 11.x).

:func:`load_profile` columns: ``layer_name``, ``total_ms`` (summed over ``count`` runs),
``average_ms``, ``median_ms`` (per run), ``percentage`` (of the profiled total), ``count``.

:func:`load_graph` columns (one row per engine layer, in engine order): ``layer_index``,
``layer_name``, ``layer_type``, ``stream_id`` (10.x+ ``StreamId``; <NA> in 8.x), ``onnx_layers``
(names from ``Metadata`` ``[ONNX Layer: ...]``, joined by `` | ``), ``is_sync`` (a signal / wait
layer: a cross-stream sync point, kept), ``tactic``, ``inputs``, ``outputs`` (tensor names), and
``schema`` ("8.x", "10.x" or "11.x"). Engines built with ``--profilingVerbosity`` below detailed
list layer names only (strings): then only ``layer_index`` and ``layer_name`` are filled.

:func:`join_layers` joins them by name; profile rows not in the graph (Myelin-internal names in
TensorRT 10+) are kept with ``in_graph`` False.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from trtsafe_lab.profile.loaders import read_json

PROFILE_COLUMNS = ("layer_name", "total_ms", "average_ms", "median_ms", "percentage", "count")
GRAPH_COLUMNS = ("layer_index", "layer_name", "layer_type", "stream_id", "onnx_layers", "is_sync",
                 "tactic", "inputs", "outputs", "schema")
SYNC_TYPES = ("signal", "wait", "signal_and_wait")
_ONNX = re.compile(r"\[ONNX Layer: (.*?)\](?=\x1e|$)", re.S)


def load_profile(path: Path) -> pd.DataFrame:
    """A ``--exportProfile`` file (first element ``{"count": N}``, then one object per layer)."""
    data = read_json(path)
    if not isinstance(data, list) or not data or "count" not in data[0]:
        raise ValueError(f"{path}: expected trtexec --exportProfile JSON: a list starting with "
                         '{"count": N}')
    count = int(data[0]["count"])
    rows = [{"layer_name": d["name"], "total_ms": float(d["timeMs"]),
             "average_ms": float(d["averageMs"]), "median_ms": float(d.get("medianMs", "nan")),
             "percentage": float(d["percentage"]), "count": count} for d in data[1:]]
    return pd.DataFrame(rows, columns=list(PROFILE_COLUMNS))


def _tensor_names(tensors: Any) -> str:
    if not isinstance(tensors, list):
        return ""
    return " | ".join(str(t.get("Name", "")) if isinstance(t, dict) else str(t) for t in tensors)


def _is_sync(layer_type: str) -> bool:
    return layer_type.strip().lower().replace(" ", "_") in SYNC_TYPES


def load_graph(path: Path) -> pd.DataFrame:
    """A ``--exportLayerInfo`` file in any of the 8.x / 10.x / 11.x schemas."""
    data = read_json(path)
    if not isinstance(data, dict) or "Layers" not in data:
        raise ValueError(f"{path}: expected trtexec --exportLayerInfo JSON with a 'Layers' list")
    schema = "11.x" if "I/O Tensors" in data else (
        "10.x" if any(isinstance(x, dict) and "StreamId" in x for x in data["Layers"]) else "8.x")
    rows = []
    for index, layer in enumerate(data["Layers"]):
        if not isinstance(layer, dict):  # non-detailed verbosity: names only
            rows.append({"layer_index": index, "layer_name": str(layer), "schema": schema})
            continue
        layer_type = str(layer.get("LayerType", ""))
        stream = layer.get("StreamId")
        rows.append({
            "layer_index": index, "layer_name": str(layer.get("Name", "")),
            "layer_type": layer_type, "stream_id": stream,
            "onnx_layers": " | ".join(_ONNX.findall(str(layer.get("Metadata", "")))),
            "is_sync": _is_sync(layer_type),
            "tactic": layer.get("TacticValue", layer.get("TacticName")),
            "inputs": _tensor_names(layer.get("Inputs")),
            "outputs": _tensor_names(layer.get("Outputs")), "schema": schema,
        })
    table = pd.DataFrame(rows, columns=list(GRAPH_COLUMNS))
    table["stream_id"] = table["stream_id"].astype("Int64")
    table["is_sync"] = table["is_sync"].fillna(False).astype(bool)
    return table


def io_tensors(path: Path) -> list[str]:
    """Engine input/output tensor names (8.x/10.x ``Bindings``, 11.x ``I/O Tensors``)."""
    data = read_json(path)
    tensors = data.get("I/O Tensors", data.get("Bindings", []))
    return [t.get("Name", "") if isinstance(t, dict) else str(t) for t in tensors]


def join_layers(profile: pd.DataFrame, graph: pd.DataFrame) -> pd.DataFrame:
    """Profile rows joined to the graph by layer name, in engine order; extra columns
    ``in_graph`` (False for Myelin-internal or other names the graph lacks: kept, marked)."""
    joined = profile.merge(graph, on="layer_name", how="left", indicator=True)
    joined["in_graph"] = joined.pop("_merge") == "both"
    return joined.sort_values(["in_graph", "layer_index"], ascending=[False, True],
                              kind="stable").reset_index(drop=True)


def total_layer_time_ms(profile: pd.DataFrame, num_streams: int) -> float:
    """Sum of per-layer average times, which is a latency only for a single-stream engine.

    With aux streams, layers overlap, so the sum is not a latency: this refuses.
    """
    if num_streams > 1:
        raise ValueError(f"this engine ran layers on {num_streams} streams: per-layer times "
                         "overlap, so their sum is not a latency. Use the end-to-end timing "
                         "(--exportTimes) instead.")
    return float(profile["average_ms"].sum())


def streams_in(graph: pd.DataFrame) -> int:
    """Distinct StreamId values (1 when the schema has none)."""
    ids = graph["stream_id"].dropna()
    return max(1, int(ids.nunique()))
