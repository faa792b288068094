"""Run directories for in-process profile runs (reference workload, TensorRT runtime).

A run directory holds ``manifest.json`` (what was run, how it was timed, on which GPU, the files
with sizes and SHA-256) and ``run.timing.json`` (per-iteration records in trtexec's
``--exportTimes`` schema), optionally ``run.graph.json`` (layer info in the ``--exportLayerInfo``
schema) and ``kernels.json`` (a CUPTI kernel trace). It is written under
``.<name>.partial`` and renamed when complete (:func:`trtsafe_lab.rundir.staged_run_dir`), so a
crash never leaves something that looks finished and never deletes what was written.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path
from typing import Any

from trtsafe_lab.rundir import staged_run_dir

MANIFEST = "manifest.json"
TIMING = "run.timing.json"
KERNELS = "kernels.json"
GRAPH = "run.graph.json"
SCHEMA = "trtsafe-lab/profile-run/1"


def write_run_dir(
    parent: Path, name: str, *, records: list[dict[str, float]], info: dict[str, Any],
    kernels: list[dict[str, Any]] | None = None, extra: dict[str, Any] | None = None,
) -> Path:
    """Write ``parent/name`` atomically; refuses to overwrite an existing run. Returns its path.

    ``extra`` maps more file names to JSON payloads (e.g. ``run.graph.json``: layer info).
    """
    with staged_run_dir(Path(parent), name) as staging:
        files: dict[str, Any] = {TIMING: records, **(extra or {})}
        if kernels is not None:
            files[KERNELS] = kernels
        listing = {}
        for fname, payload in files.items():
            data = json.dumps(payload, separators=(",", ":")).encode()
            (staging / fname).write_bytes(data)
            listing[fname] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        manifest = {"schema": SCHEMA, "name": name,
                    "created_utc": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                    **info, "files": listing}
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1))
    return Path(parent) / name


def read_manifest(run_dir: Path) -> dict[str, Any] | None:
    """The run's manifest, or None when ``run_dir`` is not a trtsafe-lab run directory."""
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        return None
    manifest: dict[str, Any] = json.loads(path.read_text())
    if manifest.get("schema") != SCHEMA:
        raise ValueError(f"{path}: schema {manifest.get('schema')!r} is not {SCHEMA!r}")
    return manifest
