"""GPU verification of aux-stream profiling on the reference workload (run on an NVIDIA GPU).

Prints and records (JSON) with GPU name, driver, date and command:
  1. correctness: both modes, eager and graph, match a numpy reference;
  2. small independent branches: aux-stream speedup with CUDA graphs vs the ideal;
  3. GPU-filling branches: speedup near 1x;
  4. harness overhead: profiler median vs a bare CUDA-graph replay loop;
  5. repeatability: two identical runs' medians;
  6. CUPTI kernel overlap across streams (aux vs single stream), if cupti-python is installed;
  7. leaks: N profile runs (workload + streams + events + graph each) in one process.
Ratios are measured in the same run; nothing here is a pass/fail threshold except as reported.

Usage: python benchmarks/profile_aux_streams.py OUT_DIR [--leak-runs 1000] [--runs-dir DIR]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from trtsafe_lab.cuda_api import (
    ResourceLedger,
    activate_device,
    device_memory_used,
    device_properties,
    synchronize,
)
from trtsafe_lab.profile.harness import (
    EVENTS_IN_GRAPH,
    PER_ITERATION,
    TimingConfig,
    bare_graph_replay_ms,
    forward_pass,
    profile,
    registered_streams,
)
from trtsafe_lab.profile.reference import ReferenceWorkload, WorkloadSpec, expected_outputs
from trtsafe_lab.profile.runner import run_reference


def median(xs: list[float]) -> float:
    return float(statistics.median(xs))


def measure(spec: WorkloadSpec, aux: int, cfg: TimingConfig) -> dict:
    with ReferenceWorkload(spec, aux_streams=aux) as w:
        run = profile(w, cfg)
        return {"aux_streams": aux, "median_ms": median(run.compute_ms()),
                "ideal_speedup": w.ideal_speedup, "device_memory_bytes": w.device_memory_bytes}


def speedup_case(spec: WorkloadSpec, aux: int, cfg: TimingConfig) -> dict:
    base, auxr = measure(spec, 0, cfg), measure(spec, aux, cfg)
    speedup = base["median_ms"] / auxr["median_ms"]
    return {"spec": spec.__dict__, "timing": cfg.__dict__, "single": base, "aux": auxr,
            "speedup": speedup, "ideal_speedup": auxr["ideal_speedup"],
            "fraction_of_ideal": speedup / auxr["ideal_speedup"]}


def correctness() -> dict:
    spec = WorkloadSpec(branches=3, depth=4, blocks=2, threads=64, iters=37)
    want = expected_outputs(spec)
    result = {}
    for aux in (0, 1, 3):
        for graph in (False, True):
            with ReferenceWorkload(spec, aux_streams=aux) as w, \
                    registered_streams(w) as main, forward_pass(w, main, graph) as enqueue:
                enqueue()
                synchronize(main)
                result[f"aux{aux}-{'graph' if graph else 'eager'}"] = bool(
                    np.array_equal(w.outputs(), want))
    return result


def cupti_overlap(spec: WorkloadSpec, aux: int) -> dict:
    try:
        from trtsafe_lab.profile.cupti_trace import kernel_table, kernel_trace
        from trtsafe_lab.profile.timeline import kernel_layer_profile, overlap_summary
    except ImportError as err:
        return {"skipped": str(err)}
    out = {}
    for a in (0, aux):
        for graph in (False, True):
            key = f"aux{a}-{'graph' if graph else 'eager'}"
            try:
                with ReferenceWorkload(spec, aux_streams=a) as w:
                    profile(w, TimingConfig(2, 1, graph, PER_ITERATION))  # warm
                    with kernel_trace() as recs:
                        profile(w, TimingConfig(0, 3, graph, PER_ITERATION))
                table = kernel_table(recs)
                out[key] = overlap_summary(table)
                out[key]["stream_ids"] = sorted(int(x) for x in table["stream_id"].unique())
                # Does the kernel -> layer mapping hold? Each branch's layers on one stream.
                names = [x["Name"] for x in w.layer_info()["Layers"] if x["LayerType"] == "kernel"]
                layers = kernel_layer_profile(table, names)
                per_branch = layers.groupby(layers["layer_name"].str.split(".").str[0])
                out[key]["streams_per_branch"] = sorted(set(per_branch["stream_id"].nunique()))
                out[key]["branch_streams"] = per_branch["stream_id"].first().tolist()
                out[key]["layer_count"] = int(layers["count"].min())
            except Exception as err:  # recorded in the report, not hidden
                out[key] = {"error": f"{type(err).__name__}: {err}"}
    return out


def leak_check(spec: WorkloadSpec, aux: int, runs: int) -> dict:
    ledger = ResourceLedger()
    cfg = TimingConfig(warmup=1, iterations=3, use_graph=True)

    def one() -> None:
        with ReferenceWorkload(spec, aux_streams=aux) as w:
            profile(w, cfg, ledger)

    for _ in range(10):
        one()
    before, live_before = device_memory_used(0), ledger.live()
    t = time.perf_counter()
    for _ in range(runs):
        one()
    secs = time.perf_counter() - t
    after, live_after = device_memory_used(0), ledger.live()
    return {"runs": runs, "seconds": secs, "device_memory_used_before": before,
            "device_memory_used_after": after, "device_memory_delta": after - before,
            "live_before": live_before, "live_after": live_after,
            "created": dict(ledger.created), "destroyed": dict(ledger.destroyed)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--leak-runs", type=int, default=1000)
    parser.add_argument("--runs-dir", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    activate_device(0)
    gpu = device_properties(0)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm",
                          "--format=csv,noheader"], capture_output=True, text=True, check=False)
    report: dict = {"command": [sys.executable, *sys.argv], "gpu": gpu,
                    "nvidia_smi": smi.stdout.strip(), "python": platform.python_version(),
                    "date_utc": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}

    def step(name, fn, *a):
        t = time.perf_counter()
        report[name] = fn(*a)
        print(f"[{name}] {time.perf_counter() - t:.1f}s {json.dumps(report[name])}", flush=True)
        (args.out / "profile_aux_streams.json").write_text(json.dumps(report, indent=1))

    # Per-iteration events, as in runs 1-6 (issue 4); the default batched mode is measured by
    # benchmarks/profile_issue12.py.
    cfg = TimingConfig(warmup=50, iterations=500, use_graph=True, mode=PER_ITERATION)
    small = WorkloadSpec(branches=4, depth=8, blocks=4, threads=128, iters=4096)
    small8 = WorkloadSpec(branches=8, depth=8, blocks=4, threads=128, iters=4096)
    small_long = WorkloadSpec(branches=4, depth=8, blocks=4, threads=128, iters=16384)
    fill = WorkloadSpec(branches=4, depth=8, blocks=gpu["sm_count"] * 32, threads=128, iters=1024)
    step("correctness", correctness)
    step("small_branches_graph", speedup_case, small, 4, cfg)
    step("small_branches_eager", speedup_case, small, 4,
         TimingConfig(warmup=50, iterations=500, use_graph=False, mode=PER_ITERATION))
    step("small_8_branches_graph", speedup_case, small8, 8, cfg)
    step("gpu_filling_graph", speedup_case, fill, 4, TimingConfig(50, 200, True, PER_ITERATION))

    def overhead() -> dict:
        out = {}
        in_graph = TimingConfig(cfg.warmup, cfg.iterations, True, mode=EVENTS_IN_GRAPH)
        for spec_name, spec in (("small", small), ("small_iters16k", small_long)):
            for aux in (0, 4):
                with ReferenceWorkload(spec, aux_streams=aux) as w:
                    prof = median(profile(w, cfg).compute_ms())
                    prof_in = median(profile(w, in_graph).compute_ms())
                    bare = bare_graph_replay_ms(w, launches=500, repeats=5)
                out[f"{spec_name}-aux{aux}"] = {
                    "profiler_median_ms": prof, "profiler_events_in_graph_median_ms": prof_in,
                    "bare_replay_ms": bare, "bare_median_ms": median(bare),
                    "overhead_ratio": prof / median(bare),
                    "overhead_ratio_events_in_graph": prof_in / median(bare)}
        return out

    step("harness_overhead", overhead)

    def repeat() -> dict:
        out = {}
        in_graph = TimingConfig(cfg.warmup, cfg.iterations, True, mode=EVENTS_IN_GRAPH)
        for label, c in (("", cfg), ("-events_in_graph", in_graph)):
            for aux in (0, 4):
                a, b = measure(small, aux, c), measure(small, aux, c)
                out[f"aux{aux}{label}"] = {"first_ms": a["median_ms"],
                                           "second_ms": b["median_ms"],
                                           "ratio": b["median_ms"] / a["median_ms"]}
        return out

    step("repeatability", repeat)
    step("cupti_overlap", cupti_overlap, small, 4)
    step("leak_check", leak_check, small, 4, args.leak_runs)
    if args.runs_dir:
        args.runs_dir.mkdir(parents=True, exist_ok=True)
        overlap = report.get("cupti_overlap", {})
        trace = "skipped" not in overlap and not any("error" in v for v in overlap.values())
        cmd = report["command"]
        paths = run_reference(small, [0, 4], TimingConfig(20, 200, True), args.runs_dir,
                              command=cmd, trace=trace)
        paths += run_reference(fill, [0, 4], TimingConfig(20, 200, True), args.runs_dir,
                               command=cmd, trace=trace)
        report["run_dirs"] = [p.name for p in paths]
        shutil.make_archive(str(args.out / "runs"), "gztar", args.runs_dir)
        (args.out / "profile_aux_streams.json").write_text(json.dumps(report, indent=1))
        print("[runs]", report["run_dirs"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
