"""Load recorded results: trtexec ``--exportTimes`` files and run directories (no GPU needed).

:func:`load_times` reads a ``*.timing.json`` (trtexec's per-iteration records) into a table with
the columns in :data:`TIME_COLUMNS` (snake_case, milliseconds):

- ``start_enq_ms``/``end_enq_ms``: host enqueue start/end; ``start_h2d_ms`` ... ``end_d2h_ms``:
  device-side start/end of the input copy, compute and output copy;
- ``h2d_ms``, ``compute_ms``, ``d2h_ms``: their durations; ``latency_ms``: end-to-end latency.

:func:`load_profile_run` reads either a trtsafe-lab run directory (``manifest.json`` +
``run.timing.json``) or a folder of trtexec exports (one ``*.timing.json``; its ``*.profile.json``
and ``*.graph.json`` are found by the layer loaders in :mod:`trtsafe_lab.profile.layers`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from trtsafe_lab.profile.rundir import GRAPH, KERNELS, TIMING, read_manifest

# trtexec key -> column, in trtexec's order.
TIME_KEYS = {
    "startEnqMs": "start_enq_ms", "endEnqMs": "end_enq_ms", "startH2dMs": "start_h2d_ms",
    "endH2dMs": "end_h2d_ms", "startComputeMs": "start_compute_ms",
    "endComputeMs": "end_compute_ms", "startD2hMs": "start_d2h_ms", "endD2hMs": "end_d2h_ms",
    "h2dMs": "h2d_ms", "computeMs": "compute_ms", "d2hMs": "d2h_ms", "latencyMs": "latency_ms",
}
TIME_COLUMNS = tuple(TIME_KEYS.values())


class ExportError(ValueError):
    """A recorded file is not what its name says; the message names the file and the problem."""


def read_json(path: Path) -> Any:
    """Parse a recorded JSON file; :class:`ExportError` (a ValueError) names it when invalid."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise ExportError(f"{path}: not valid JSON ({err}); was the export cut short?") from err


def load_times(path: Path) -> pd.DataFrame:
    """Per-iteration records of a ``*.timing.json`` (columns: :data:`TIME_COLUMNS`)."""
    data = read_json(path)
    if not isinstance(data, list) or not data or not all(isinstance(row, dict) for row in data):
        raise ExportError(f"{path}: expected a non-empty list of per-iteration objects "
                          "(trtexec --exportTimes)")
    missing = {"computeMs", "latencyMs"} - set(data[0])
    if missing:
        raise ExportError(f"{path}: records lack {sorted(missing)}; is this a --exportTimes file?")
    table = pd.DataFrame.from_records(data)
    table = table.rename(columns=TIME_KEYS)
    try:
        return table[[c for c in TIME_COLUMNS if c in table.columns]].astype(float)
    except (TypeError, ValueError) as err:
        raise ExportError(f"{path}: a per-iteration field is not a number ({err})") from err


@dataclass
class Run:
    """One recorded run: ``times`` (see :func:`load_times`), ``info`` (the manifest, or what is
    known about a trtexec export folder), ``kernels`` (CUPTI records or None), ``files``."""

    name: str
    path: Path
    times: pd.DataFrame
    info: dict[str, Any] = field(default_factory=dict)
    kernels: list[dict[str, Any]] | None = None
    files: dict[str, Path] = field(default_factory=dict)


def load_profile_run(path: Path) -> Run:
    """A run directory or a folder of trtexec exports (or a single ``*.timing.json``)."""
    path = Path(path)
    if path.is_file():
        return Run(path.name.removesuffix(".timing.json"), path, load_times(path),
                   {"source": "trtexec"}, files={"timing": path})
    if not path.is_dir():
        raise FileNotFoundError(f"{path}: no such run directory or trtexec export folder")
    manifest = read_manifest(path)
    if manifest is not None:
        kernels_path = path / KERNELS
        kernels = read_json(kernels_path) if kernels_path.is_file() else None
        files = {"timing": path / TIMING}
        for kind, fname in (("graph", GRAPH), ("profile", "run.profile.json")):
            if (path / fname).is_file():
                files[kind] = path / fname
        return Run(str(manifest.get("name", path.name)), path, load_times(path / TIMING),
                   manifest, kernels, files)
    timings = sorted(path.glob("*.timing.json"))
    if len(timings) != 1:
        found = ", ".join(p.name for p in timings) or "none"
        raise ExportError(f"{path}: a trtexec export folder needs exactly one *.timing.json "
                          f"(found {found}); pass the file itself to choose one")
    stem = timings[0].name.removesuffix(".timing.json")
    files = {"timing": timings[0]}
    for kind in ("profile", "graph"):
        candidate = path / f"{stem}.{kind}.json"
        if candidate.is_file():
            files[kind] = candidate
    return Run(path.name, path, load_times(timings[0]), {"source": "trtexec"}, files=files)
