"""Profile run directories (reference workload, TensorRT runtime): the files of the ``profile``
kind of :mod:`trtsafe_lab.rundir`'s run record.

A profile run holds ``run.timing.json`` (per-iteration records in trtexec's ``--exportTimes``
schema), optionally ``run.graph.json`` (layer info in the ``--exportLayerInfo`` schema) and
``kernels.json`` (a CUPTI kernel trace), and the run manifest (what was run, how it was timed, on
which GPU, every file with size and SHA-256). It is staged like every run
(:func:`trtsafe_lab.rundir.staged_run_dir`), so a crash never leaves something that looks
finished and never deletes what was written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trtsafe_lab import rundir

TIMING = "run.timing.json"
KERNELS = "kernels.json"
GRAPH = "run.graph.json"
PROFILE_KINDS = ("profile", "trtexec-profile")


def write_run_dir(
    parent: Path, name: str, *, records: list[dict[str, float]], info: dict[str, Any],
    kernels: list[dict[str, Any]] | None = None, extra: dict[str, Any] | None = None,
) -> Path:
    """Write profile run ``parent/name`` (kind ``profile``); refuses to overwrite an existing
    run. ``info`` becomes the manifest's own fields; ``extra`` maps more file names to JSON
    payloads (e.g. ``run.graph.json``: layer info). Returns the run's path."""
    with rundir.staged_run_dir(Path(parent), name, "profile") as staging:
        files: dict[str, Any] = {TIMING: records, **(extra or {})}
        if kernels is not None:
            files[KERNELS] = kernels
        for fname, payload in files.items():
            (staging / fname).write_text(json.dumps(payload, separators=(",", ":")))
        rundir.write_run_manifest(staging, "profile", name, info)
    return Path(parent) / name


def read_manifest(run_dir: Path) -> dict[str, Any] | None:
    """The manifest of a profile or trtexec-profile run, or None when ``run_dir`` has no
    manifest (e.g. a folder of trtexec exports). A run of another kind is refused (ValueError
    naming its kind)."""
    if not (Path(run_dir) / rundir.MANIFEST_NAME).is_file():
        return None
    try:
        manifest = rundir.read_run_manifest(run_dir)
    except rundir.RunDirError as err:
        raise ValueError(str(err)) from err
    if manifest["kind"] not in PROFILE_KINDS:
        raise ValueError(f"{run_dir} is a {manifest['kind']} run, not a profile run; "
                         f"profile comparisons read {' or '.join(PROFILE_KINDS)} runs")
    return manifest
