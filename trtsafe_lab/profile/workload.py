"""What a run measured, so that only like is compared with like.

Every run answers "what was timed, where, and how" with a :class:`Workload`: an ordered ``key``
of the fields that must be equal for two runs' times to be comparable, and a short ``label``.
What a comparison is *about* (the aux-stream count, the ``maxAuxStreams`` build setting, the
precision of a trtexec engine) is deliberately not in the key.

Key fields by source:

- reference workload (run directories of ``profile reference``): ``workload`` = "reference",
  ``branches``, ``depth``, ``blocks``, ``threads``, ``iters``, ``gpu``, ``timing_mode``;
- a TensorRT engine (``profile engine``, ``profile trtexec``, sweeps): ``workload`` = "engine",
  ``network`` (the source network's SHA-256 or name when the run records it, else the engine's
  SHA-256 or path: then every engine is its own workload), ``shapes``, ``trt_version``, ``tool``,
  ``gpu``, ``timing_mode``;
- a folder of trtexec exports: ``workload`` = "trtexec export", ``model`` (from
  ``*.build.metadata.json``), ``shapes`` and ``gpu`` (from ``*.profile.metadata.json``),
  ``timing_mode`` = "trtexec"; a folder without metadata records nothing: ``workload`` =
  "unrecorded" with its ``path``, so it is comparable with nothing but itself.

:func:`group_runs` groups runs by key; :func:`check_comparable` raises
:class:`MixedWorkloadError` naming the first difference.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trtsafe_lab.errors import UsageError
from trtsafe_lab.profile.identity import engine_record
from trtsafe_lab.profile.loaders import Run

__all__ = ["MixedWorkloadError", "Workload", "check_comparable", "describe_difference",
           "engine_record", "group_runs", "timing_mode", "workload_of"]

REFERENCE_FIELDS = ("branches", "depth", "blocks", "threads", "iters")
# Timing modes (see trtsafe_lab.profile.harness); runs made before modes existed timed every
# iteration with events between graph launches.
LEGACY_TIMING_MODE = "per-iteration"


class MixedWorkloadError(UsageError, ValueError):
    """Runs of different workloads were to be compared; the message names the difference."""


@dataclass(frozen=True)
class Workload:
    """``key``: (field, value) pairs that must match; ``label``: a short human description."""

    key: tuple[tuple[str, str], ...]
    label: str

    def as_dict(self) -> dict[str, str]:
        return dict(self.key)


def _gpu(info: dict[str, Any]) -> str:
    gpu = info.get("gpu")
    if isinstance(gpu, dict):
        return str(gpu.get("gpu_name", "unknown GPU"))
    return str(gpu) if gpu else "unknown GPU"


def timing_mode(info: dict[str, Any]) -> str:
    """The timing mode a run directory's manifest records (older runs: per-iteration)."""
    timing = info.get("timing") or {}
    if "mode" in timing:
        return str(timing["mode"])
    if timing.get("events_in_graph"):
        return "events-in-graph"
    return LEGACY_TIMING_MODE


def _metadata(folder: Path, pattern: str) -> dict[str, Any]:
    found = sorted(folder.glob(pattern)) if folder.is_dir() else []
    if not found:
        return {}
    data = json.loads(found[0].read_text())
    return data if isinstance(data, dict) else {}


def _export_workload(run: Run) -> Workload:
    folder = run.path if run.path.is_dir() else run.path.parent
    stem = run.files["timing"].name.removesuffix(".timing.json") if "timing" in run.files else ""
    build = _metadata(folder, f"{stem}.build.metadata.json")
    prof = _metadata(folder, f"{stem}.profile.metadata.json")
    model = str((build.get("model_options") or {}).get("Model", ""))
    if not model:
        return Workload((("workload", "unrecorded"), ("path", str(run.path))),
                        f"unrecorded ({run.name})")
    options = prof.get("inference_options", "")
    shapes = "unknown"
    if isinstance(options, str) and "'Input inference shapes': '" in options:
        shapes = options.split("'Input inference shapes': '", 1)[1].split("'", 1)[0]
    device = str((prof.get("device_information") or {}).get("Selected Device", "unknown GPU"))
    name = Path(model).name
    return Workload((("workload", "trtexec export"), ("model", name), ("shapes", shapes),
                     ("gpu", device), ("timing_mode", "trtexec")), f"{name} on {device}")


def _engine_workload(info: dict[str, Any]) -> Workload:
    recorded = info.get("workload") or {}
    executor = info.get("executor") or {}
    network = recorded.get("network_sha256") or recorded.get("network")
    if not network:
        network = recorded.get("engine_sha256") or recorded.get("engine") or next(
            (a.split("=", 1)[1] for a in info.get("command", [])
             if str(a).startswith("--loadEngine=")), info.get("name", "unknown engine"))
    tool = recorded.get("tool") or executor.get("executor", "unknown")
    key = (("workload", "engine"), ("network", str(network)),
           ("shapes", str(recorded.get("shapes", "unknown"))),
           ("trt_version", str(recorded.get("trt_version", info.get("trt_version", "unknown")))),
           ("tool", str(tool)), ("gpu", _gpu(info)), ("timing_mode", timing_mode(info)))
    short = str(recorded.get("network_name") or Path(str(network)).name)[:40]
    return Workload(key, f"{short} on {_gpu(info)}")


def workload_of(run: Run) -> Workload:
    """The workload ``run`` measured (see the module docstring)."""
    info = run.info
    if info.get("source") == "trtexec" or "schema" not in info:
        return _export_workload(run)
    executor = info.get("executor") or {}
    if executor.get("executor") == "reference":
        spec = {f: str(executor.get(f)) for f in REFERENCE_FIELDS}
        key = (("workload", "reference"), *spec.items(), ("gpu", _gpu(info)),
               ("timing_mode", timing_mode(info)))
        label = (f"reference b{spec['branches']} d{spec['depth']} g{spec['blocks']}x"
                 f"{spec['threads']} i{spec['iters']} on {_gpu(info)}")
        return Workload(key, label)
    return _engine_workload(info)


def group_runs(runs: Sequence[Run]) -> dict[Workload, list[Run]]:
    """Runs grouped by workload, groups and runs in first-seen order."""
    groups: dict[Workload, list[Run]] = {}
    for run in runs:
        groups.setdefault(workload_of(run), []).append(run)
    return groups


def describe_difference(a: Workload, b: Workload) -> str:
    """The fields in which two workloads differ, e.g. ``blocks: 4 vs 4224``."""
    da, db = a.as_dict(), b.as_dict()
    parts = [f"{f}: {da.get(f, '-')} vs {db.get(f, '-')}"
             for f in dict.fromkeys([*da, *db]) if da.get(f) != db.get(f)]
    return "; ".join(parts)


def check_comparable(runs: Sequence[Run]) -> dict[Workload, list[Run]]:
    """Group ``runs``; raise :class:`MixedWorkloadError` when there is more than one group."""
    groups = group_runs(runs)
    if len(groups) > 1:
        (first, a), *rest = groups.items()
        second, b = rest[0]
        raise MixedWorkloadError(
            f"runs measured different workloads, so their times cannot be compared: "
            f"{a[0].name} ({first.label}) and {b[0].name} ({second.label}) differ in "
            f"{describe_difference(first, second)}. Compare runs of one workload, or pass "
            f"allow_mixed=True / --allow-mixed to see each workload's runs compared within "
            f"their own group, labelled.")
    return groups
