"""The table of runs under a folder: every kind of run directory, one row each.

``trtsafe-lab runs`` prints it; the run directories themselves are :mod:`trtsafe_lab.rundir`'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from trtsafe_lab.rundir import (
    INCOMPLETE_NAME,
    KINDS,
    MANIFEST_NAME,
    PARTIAL_SUFFIX,
    BuildRun,
    RunDirError,
    RunRecord,
    load_run,
    read_json_object,
)

# Columns of list_runs(): run_name, kind, status (a build's result status; "complete" for a
# finished run of another kind; the INCOMPLETE note's status for a partial run; "unreadable" or
# "no manifest"), created_utc, exit_code / duration_s (seconds) / started_utc / tool /
# trt_version / n_artifacts / missing_artifacts where the kind records them (else empty),
# n_files (files in the manifest), path, note (why a run is unreadable or incomplete).
RUN_COLUMNS = (
    "run_name", "kind", "status", "created_utc", "exit_code", "duration_s", "started_utc",
    "tool", "trt_version", "n_artifacts", "missing_artifacts", "n_files", "path", "note",
)


def _row(run: RunRecord) -> dict[str, Any]:
    row: dict[str, Any] = {"run_name": run.name, "kind": run.kind, "status": "complete",
                           "created_utc": run.manifest.get("created_utc"),
                           "trt_version": run.manifest.get("trt_version"),
                           "n_files": len(run.manifest["files"]), "path": str(run.path)}
    if isinstance(run, BuildRun):
        row.update(status=run.result.get("status"), exit_code=run.result.get("exit_code"),
                   duration_s=run.result.get("duration_s"),
                   started_utc=run.result.get("started_utc"),
                   tool=run.command.get("tool_kind"), trt_version=run.command.get("trt_version"),
                   n_artifacts=len(run.result.get("artifacts", [])),
                   missing_artifacts=len(run.result.get("missing_artifacts", [])))
    elif run.kind in ("profile", "trtexec-profile"):
        executor = run.manifest.get("executor")
        row["tool"] = executor.get("executor") if isinstance(executor, dict) else None
    return row


def _partial_row(path: Path) -> dict[str, Any]:
    status, note, kind = "incomplete", "no manifest was written", None
    marker = path / INCOMPLETE_NAME
    if marker.is_file():
        try:
            data = read_json_object(marker)
            status, note = str(data.get("status", status)), str(data.get("detail", ""))
            kind = data.get("kind") if data.get("kind") in KINDS else None
        except RunDirError as err:
            note = str(err)
    return {"run_name": path.name, "kind": kind, "status": status, "path": str(path),
            "note": note}


def list_runs(runs_dir: str | Path, include_partial: bool = False,
              kind: str | None = None) -> pd.DataFrame:
    """One row per run of any kind under ``runs_dir`` (columns :data:`RUN_COLUMNS`), in name
    order (names start with a UTC time stamp where trtsafe-lab chose them).

    ``kind`` keeps one kind. A run whose manifest cannot be read is listed with status
    ``unreadable`` and the reason in ``note``. With ``include_partial``, incomplete
    (``.partial``) runs and folders without a manifest are listed too. Never raises for what a
    folder holds.
    """
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown run kind {kind!r}; one of {', '.join(KINDS)}")
    folder = Path(runs_dir)
    rows = []
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        if not path.is_dir():
            continue
        if path.name.endswith(PARTIAL_SUFFIX):
            row = _partial_row(path)
            if include_partial and kind in (None, row["kind"]):
                rows.append(row)
            continue
        if not (path / MANIFEST_NAME).is_file():
            if include_partial and kind is None:
                rows.append({"run_name": path.name, "status": "no manifest", "path": str(path),
                             "note": f"not a run directory: no {MANIFEST_NAME}"})
            continue
        try:
            row = _row(load_run(path))
        except (RunDirError, OSError) as err:
            if kind is None:  # a broken run is always shown
                rows.append({"run_name": path.name, "status": "unreadable", "path": str(path),
                             "note": str(err)})
            continue
        if kind is None or row["kind"] == kind:
            rows.append(row)
    return pd.DataFrame(rows, columns=list(RUN_COLUMNS))
