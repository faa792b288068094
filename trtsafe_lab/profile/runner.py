"""Run the reference workload in each aux-stream configuration and write run directories."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from trtsafe_lab.cuda_api import activate_device, device_properties
from trtsafe_lab.profile.harness import PER_ITERATION, TimedRun, TimingConfig, profile
from trtsafe_lab.profile.reference import ReferenceWorkload, WorkloadSpec
from trtsafe_lab.profile.rundir import GRAPH, write_run_dir

TRACE_ITERATIONS = 5


def run_name(spec: WorkloadSpec, aux_streams: int, use_graph: bool, prefix: str = "") -> str:
    """A folder name that says what was run, e.g. ``ref-b4-d8-g4x128-i4096-aux4-graph``;
    ``prefix`` (e.g. a UTC time stamp) goes first, joined with ``-``."""
    mode = "graph" if use_graph else "eager"
    name = (f"ref-b{spec.branches}-d{spec.depth}-g{spec.blocks}x{spec.threads}-i{spec.iters}"
            f"-aux{aux_streams}-{mode}")
    return f"{prefix}-{name}" if prefix else name


def gpu_clocks(device: int = 0) -> dict[str, Any]:
    """SM and memory clocks (MHz) now and at most, from ``nvidia-smi``; ``{}`` when it is not
    installed, ``{"error": ...}`` when it fails (recorded, never guessed)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return {}
    fields = ("clocks.sm", "clocks.max.sm", "clocks.mem", "clocks.max.mem")
    done = subprocess.run([smi, f"--id={device}", f"--query-gpu={','.join(fields)}",
                           "--format=csv,noheader,nounits"], capture_output=True, text=True,
                          check=False, timeout=20)
    values = done.stdout.strip().split(", ")
    if done.returncode != 0 or len(values) != len(fields):
        return {"error": f"nvidia-smi exited {done.returncode}: {done.stderr.strip()[:200]}"}
    return {f"{f.replace('.', '_')}_mhz": v for f, v in zip(fields, values, strict=True)}


def run_info(workload: ReferenceWorkload, run: TimedRun, command: Sequence[str],
             gpu: dict[str, Any]) -> dict[str, Any]:
    """Manifest fields for one reference run. ``workload`` says what was measured (the spec);
    ``timing.mode`` how (see :mod:`trtsafe_lab.profile.harness`)."""
    return {"command": list(command), "executor": workload.describe(),
            "workload": {"kind": "reference", **asdict(workload.spec)},
            "timing": {**asdict(run.config), "clock": "CUDA events on the main stream",
                       "latency_is_compute": True},
            "num_aux_streams": run.num_aux_streams,
            "device_memory_bytes": run.device_memory_bytes,
            "ideal_speedup": workload.ideal_speedup, "gpu": gpu,
            "date_utc": dt.datetime.now(dt.timezone.utc).date().isoformat()}


def run_reference(
    spec: WorkloadSpec, aux_counts: Sequence[int], timing: TimingConfig, out_dir: Path,
    *, command: Sequence[str] = (), device: int = 0, trace: bool = False, prefix: str = "",
) -> list[Path]:
    """Profile ``spec`` once per entry of ``aux_counts`` and write one run directory each
    (named by :func:`run_name`; a ``prefix`` such as a time stamp keeps repeated runs in one
    runs folder apart).

    With ``trace`` (needs cupti-python), a CUPTI kernel trace of a few eager iterations is saved
    beside the timings as ``kernels.json``.
    """
    activate_device(device)
    gpu = {**device_properties(device), "clocks": gpu_clocks(device)}
    written = []
    for aux in aux_counts:
        with ReferenceWorkload(spec, aux_streams=aux, device=device) as workload:
            run = profile(workload, timing)
            kernels = None
            if trace:
                from trtsafe_lab.profile.cupti_trace import kernel_trace

                # A short separate traced run in the same mode (tracing perturbs timing).
                with kernel_trace() as kernels:
                    profile(workload, TimingConfig(warmup=0, iterations=TRACE_ITERATIONS,
                                                   use_graph=timing.use_graph,
                                                   mode=PER_ITERATION))
            written.append(write_run_dir(
                out_dir, run_name(spec, aux, timing.use_graph, prefix), records=run.records,
                info=run_info(workload, run, command, gpu), kernels=kernels,
                extra={GRAPH: workload.layer_info()}))
    return written
