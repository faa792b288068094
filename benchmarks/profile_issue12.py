"""GPU verification for issue 12 (run on an NVIDIA GPU; records JSON, run directories, figures).

1. timing modes: per-pass median of ``batched`` (default) and ``per-iteration`` timing against a
   bare CUDA-graph replay loop (one event pair around 500 launches), for the 4x8x(4 blocks),
   8-branch and 4x4x(33 blocks) workloads, single stream and aux streams, in 2 interleaved
   rounds; ratio = mode median / bare median (the target: within 1% for passes >= 0.1 ms);
2. sweeps of the reference workload over aux counts: run directories, sweep table, Pareto plot;
3. critical path: prediction from layer info + per-layer CUPTI times against the CUPTI-measured
   pass (makespan, overlap, per-stream busy), with the error; figures.
Ratios are measured in the same process; nothing here is a pass/fail threshold.

Usage: python benchmarks/profile_issue12.py OUT_DIR RUNS_DIR
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

from trtsafe_lab.cuda_api import activate_device, device_properties
from trtsafe_lab.demo.profile import kernel_names
from trtsafe_lab.profile.critical import (
    compare_with_trace,
    critical_path_summary,
    stream_schedule,
    traced_pass,
)
from trtsafe_lab.profile.cupti_trace import kernel_table
from trtsafe_lab.profile.harness import (
    PER_ITERATION,
    TimingConfig,
    bare_graph_replay_ms,
    profile,
)
from trtsafe_lab.profile.layers import load_graph
from trtsafe_lab.profile.loaders import load_profile_run
from trtsafe_lab.profile.plots_analysis import plot_critical_path, plot_pareto
from trtsafe_lab.profile.reference import ReferenceWorkload, WorkloadSpec
from trtsafe_lab.profile.runner import gpu_clocks
from trtsafe_lab.profile.sweep import sweep_reference
from trtsafe_lab.profile.timeline import kernel_layer_profile

WORKLOADS = {
    "4x8x4blocks": (WorkloadSpec(branches=4, depth=8, blocks=4), 4),
    "8branches": (WorkloadSpec(branches=8, depth=8, blocks=4), 8),
    "4x4x33blocks": (WorkloadSpec(branches=4, depth=4, blocks=33), 4),
}


def med(xs: list[float]) -> float:
    return float(statistics.median(xs))


def timing_modes() -> dict[str, Any]:
    out: dict[str, Any] = {}
    batched = TimingConfig(warmup=50, iterations=200, use_graph=True)
    per_iter = TimingConfig(warmup=50, iterations=500, use_graph=True, mode=PER_ITERATION)
    for name, (spec, aux_n) in WORKLOADS.items():
        for aux in (0, aux_n):
            key = f"{name}-aux{aux}"
            rounds = []
            with ReferenceWorkload(spec, aux_streams=aux) as w:
                for _ in range(2):
                    bare = med(bare_graph_replay_ms(w, launches=500, repeats=5))
                    b = med(profile(w, batched).compute_ms())
                    p = med(profile(w, per_iter).compute_ms())
                    rounds.append({"bare_median_ms": bare, "batched_median_ms": b,
                                   "per_iteration_median_ms": p, "batched_ratio": b / bare,
                                   "per_iteration_ratio": p / bare})
            out[key] = {"spec": spec.__dict__, "aux_streams": aux, "rounds": rounds,
                        "batched_ratio_worst": max(abs(r["batched_ratio"] - 1) for r in rounds),
                        "per_iteration_ratio_worst": max(abs(r["per_iteration_ratio"] - 1)
                                                         for r in rounds)}
            print(key, json.dumps(rounds), flush=True)
    out["timing"] = {"batched": batched.__dict__, "per_iteration": per_iter.__dict__,
                     "bare": "bare_graph_replay_ms(launches=500, repeats=5), median of 5"}
    return out


def sweeps(runs: Path, figures: Path, where: str, command: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, counts in (("4x8x4blocks", [0, 1, 2, 4]), ("8branches", [0, 1, 2, 4, 8])):
        spec = WORKLOADS[name][0]
        table, paths = sweep_reference(spec, counts, TimingConfig(warmup=20, iterations=200),
                                       runs / f"sweep-{name}", command=command)
        out[name] = {"table": table.to_dict("records"), "run_dirs": [p.name for p in paths]}
        plot_pareto(table, where=where).savefig(figures / f"sweep-{name}-pareto.png", dpi=100)
        print(table.to_string(), flush=True)
    return out


def critical(runs: Path, figures: Path, where: str, command: list[str]) -> dict[str, Any]:
    from trtsafe_lab.profile.runner import run_reference

    out: dict[str, Any] = {}
    for name in ("4x8x4blocks", "4x4x33blocks"):
        spec, aux_n = WORKLOADS[name]
        paths = run_reference(spec, [0, aux_n], TimingConfig(warmup=20, iterations=200),
                              runs / f"critical-{name}", command=command, trace=True)
        single, multi = (load_profile_run(p) for p in paths)
        k0, k1 = kernel_table(single.kernels or []), kernel_table(multi.kernels or [])
        graph = load_graph(multi.files["graph"])
        entry: dict[str, Any] = {"runs": [p.name for p in paths]}
        for label, kernels, run in (("single-stream layer times", k0, single),
                                    ("aux-run layer times", k1, multi)):
            prof = kernel_layer_profile(kernels, kernel_names(run))
            schedule = stream_schedule(graph, prof)
            summary = critical_path_summary(schedule)
            entry[label] = {"summary": summary,
                            "vs_cupti": compare_with_trace(schedule, k1).to_dict("records")}
            fig = plot_critical_path(schedule, measured=traced_pass(k1, schedule), where=where,
                                     title=f"{multi.name}: critical path ({label})")
            fig.savefig(figures / f"critical-{name}-{label.split()[0]}.png", dpi=100)
        medians = [med(r.times["latency_ms"].tolist()) for r in (single, multi)]
        entry["measured_speedup"] = medians[0] / medians[1]
        out[name] = entry
        print(name, json.dumps(entry, default=str)[:2000], flush=True)
    return out


def main() -> int:
    out, runs = Path(sys.argv[1]), Path(sys.argv[2])
    figures = runs / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    activate_device(0)
    gpu = {**device_properties(0), "clocks": gpu_clocks(0)}
    date = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    command = [sys.executable, *sys.argv]
    report: dict[str, Any] = {"command": command, "gpu": gpu, "date_utc": date}
    where = f"{gpu['gpu_name']}, {date[:10]}"

    def step(name: str, fn: Any, *a: Any) -> None:
        t = time.perf_counter()
        try:
            report[name] = fn(*a)
        except Exception as err:  # recorded in the report, then the next step runs
            report[name] = {"error": f"{type(err).__name__}: {err}"}
            print(f"[{name}] FAILED {type(err).__name__}: {err}", flush=True)
        report[f"{name}_seconds"] = time.perf_counter() - t
        (out / "issue12_h200.json").write_text(json.dumps(report, indent=1, default=str))

    step("timing_modes", timing_modes)
    step("sweeps", sweeps, runs, figures, where, command)
    step("critical_path", critical, runs, figures, where, command)
    shutil.make_archive(str(out / "issue12_runs_figures"), "gztar", runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
