"""Compare runs: one row per run with statistics, speedup against a baseline and its CI.

Only runs of one workload are compared (:mod:`trtsafe_lab.profile.workload`): runs of different
workloads raise :class:`~trtsafe_lab.profile.workload.MixedWorkloadError` naming the
difference, unless ``allow_mixed=True``; then each workload's runs are compared against that
workload's own baseline, and every row says its workload.

:func:`compare_runs` returns a table with the columns in :data:`COMPARE_COLUMNS`:
``run`` (its name), ``workload`` (its workload's label), ``baseline`` (the run its speedup is
against), ``n``, ``median_ms``, ``mean_ms``, ``p90_ms``, ``p95_ms``, ``p99_ms``,
``min_ms``, ``max_ms``, ``std_ms``, ``throughput_qps``; for non-baseline runs
``speedup_vs_baseline`` (baseline median / this median), ``speedup_ci_low``/``_high`` (bootstrap
95% CI), ``ci_method`` (i.i.d. or moving-block bootstrap, see :mod:`~trtsafe_lab.profile.stats`),
``p_value`` (two-sided Mann-Whitney U) and ``significant`` (p < 0.05, and for autocorrelated
times also a CI that excludes 1); and, where the run records them, ``num_aux_streams``,
``device_memory_bytes``, ``ideal_speedup``, ``warmup``, ``iterations``, ``timing_mode``,
``passes_per_sample`` (forward passes behind each sample) and ``statistics`` (what the samples
are: per-iteration records, or for a summary-only trtexec_safe run the medians of its repeats;
with one sample on a side there is no speedup CI).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from trtsafe_lab.profile.loaders import Run
from trtsafe_lab.profile.stats import BLOCK, latency_summary, mann_whitney, speedup_ci
from trtsafe_lab.profile.workload import check_comparable, group_runs, timing_mode

METRICS = {"latency": "latency_ms", "compute": "compute_ms"}
# The JSON keys of `trtsafe-lab profile compare --format json`, in order.
JSON_KEYS = ("run", "workload", "n", "median_ms", "mean_ms", "p90_ms", "p95_ms", "p99_ms",
             "min_ms", "max_ms", "throughput_qps")
SPEEDUP_KEYS = ("speedup_vs_baseline", "speedup_ci_low", "speedup_ci_high")
COMPARE_COLUMNS = (*JSON_KEYS, "baseline", "std_ms", *SPEEDUP_KEYS, "ci_method",
                   "p_value", "significant", "num_aux_streams", "device_memory_bytes",
                   "ideal_speedup", "warmup", "iterations", "timing_mode", "passes_per_sample",
                   "statistics")


def run_samples(run: Run, metric: str) -> np.ndarray:
    """The per-iteration times (ms) of ``metric`` ("latency" or "compute")."""
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {sorted(METRICS)}, got {metric!r}")
    column = METRICS[metric]
    if column not in run.times:
        raise ValueError(f"run {run.name} ({run.path}) has no {column} column")
    return run.times[column].to_numpy(dtype=float)


def _span_ms(run: Run) -> float | None:
    t = run.times
    if {"start_compute_ms", "end_compute_ms"} <= set(t.columns):
        return float(t["end_compute_ms"].max() - t["start_compute_ms"].min())
    return None


def passes_per_sample(run: Run) -> int:
    """Forward passes behind each recorded sample (batched timing; 1 otherwise)."""
    return int((run.info.get("timing") or {}).get("passes_per_sample", 1))


def _recorded(run: Run) -> dict[str, Any]:
    info, timing = run.info, run.info.get("timing", {})
    return {"num_aux_streams": info.get("num_aux_streams"),
            "device_memory_bytes": info.get("device_memory_bytes"),
            "ideal_speedup": info.get("ideal_speedup"),
            "warmup": timing.get("warmup"), "iterations": timing.get("iterations"),
            "timing_mode": timing_mode(info) if "schema" in info else "trtexec",
            "passes_per_sample": passes_per_sample(run), "statistics": info.get("statistics")}


def compare_runs(runs: Sequence[Run], *, baseline: str | None = None, metric: str = "latency",
                 level: float = 0.95, resamples: int = 2000,
                 allow_mixed: bool = False) -> pd.DataFrame:
    """One row per run (see module doc). ``baseline`` is a run name; default: the first run
    (with ``allow_mixed``: of each workload; a named baseline serves its own workload, the
    others use their first run)."""
    if not runs:
        raise ValueError("compare_runs needs at least one run")
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"run names must be unique to pick a baseline, got {names}")
    if baseline is not None and baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not one of the runs {names}")
    groups = group_runs(runs) if allow_mixed else check_comparable(runs)
    rows: dict[str, dict[str, Any]] = {}
    for workload, members in groups.items():
        member_names = [r.name for r in members]
        base_name = baseline if baseline in member_names else member_names[0]
        base = run_samples(members[member_names.index(base_name)], metric)
        for run in members:
            samples = run_samples(run, metric)
            row: dict[str, Any] = {
                "run": run.name, "workload": workload.label, "baseline": base_name,
                **latency_summary(samples, span_ms=_span_ms(run),
                                  passes_per_sample=passes_per_sample(run))}
            if run.name != base_name and min(len(base), len(samples)) > 1:
                s = speedup_ci(base, samples, level=level, resamples=resamples)
                test = mann_whitney(base, samples)
                excludes_one = not s.ci_low <= 1.0 <= s.ci_high
                row.update(speedup_vs_baseline=s.speedup, speedup_ci_low=s.ci_low,
                           speedup_ci_high=s.ci_high, ci_method=s.method if s.method != BLOCK
                           else f"{s.method} (blocks {s.blocks[0]}, {s.blocks[1]})",
                           p_value=test.p_value,
                           significant=test.significant() and (s.method != BLOCK
                                                               or excludes_one))
            rows[run.name] = {**row, **_recorded(run)}
    ordered = [rows[name] for name in names]
    return pd.DataFrame(ordered).reindex(columns=list(COMPARE_COLUMNS))


def to_json_records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The CLI's JSON: one object per run with :data:`JSON_KEYS` (+ speedup keys off-baseline)."""
    out = []
    for row in table.to_dict("records"):
        obj = {k: row[k] for k in JSON_KEYS}
        if pd.notna(row.get("speedup_vs_baseline")):
            obj.update({k: row[k] for k in SPEEDUP_KEYS})
        out.append({k: (v.item() if isinstance(v, np.generic) else v) for k, v in obj.items()})
    return out


def samples_table(runs: Sequence[Run], metric: str = "latency") -> pd.DataFrame:
    """Long table of every iteration: columns ``run``, ``iteration`` and the metric's column
    (``latency_ms`` or ``compute_ms``)."""
    column = METRICS.get(metric, metric)
    frames = [pd.DataFrame({"run": r.name, "iteration": range(len(r.times)),
                            column: run_samples(r, metric)}) for r in runs]
    return pd.concat(frames, ignore_index=True)
