"""Figures for profiling (a view module: matplotlib is imported here, lazily by callers).

Every function takes a table and an optional ``ax``, draws, and returns the Figure; none calls
``show()``. Every data string (run names, workloads, layer names) passes through
:func:`trtsafe_lab.text.for_matplotlib`; legends sit outside the data; memory axes start at zero
in one byte unit per figure.
Tables: ``samples`` from :func:`~trtsafe_lab.profile.compare.samples_table`,
``comparison`` from :func:`~trtsafe_lab.profile.compare.compare_runs`, layer tables from
:mod:`~trtsafe_lab.profile.layers`, timelines from :mod:`~trtsafe_lab.profile.timeline`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from trtsafe_lab.profile.loaders import Run
from trtsafe_lab.profile.plots_analysis import byte_unit, figure_axes, stream_label
from trtsafe_lab.text import for_matplotlib as fm
from trtsafe_lab.text import wrap_name


def plot_latency_distribution(samples: pd.DataFrame, *, column: str = "latency_ms",
                              ax: Axes | None = None) -> Figure:
    """Violin with a box inside, one panel per run (``samples``: columns ``run`` and ``column``).

    Each run gets its own latency axis: runs that differ by 4x but each vary by 1% would
    otherwise draw as flat lines on a shared axis. Compare levels with the ECDF or speedup plots.
    """
    fig, ax = figure_axes(ax)
    names = list(dict.fromkeys(samples["run"]))
    ax.set_title("Latency distribution per run (own axis each)")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    width = 1.0 / max(len(names), 1)
    # run names are wrapped to the width each panel has (7 pt characters ~0.06 in), never cut;
    # 0.7 of it: on a grid of panels, constrained layout narrows this axes after it is drawn
    axes_inches = ax.get_position().width * fig.get_figwidth()
    label_chars = max(10, int(0.7 * axes_inches * width / 0.06))
    for i, name in enumerate(names):
        values = samples.loc[samples["run"] == name, column].to_numpy()
        panel = ax.inset_axes((i * width + 0.12 * width, 0.12, 0.78 * width, 0.86))
        if values.size > 1 and np.ptp(values) > 0:
            panel.violinplot(values, showextrema=False)
        panel.boxplot(values, widths=0.3, showfliers=False)
        panel.set_xticks([1], [fm("\n".join(wrap_name(name, label_chars)))], fontsize=7)
        panel.tick_params(axis="y", labelsize=7)
        if i == 0:
            panel.set_ylabel(column.replace("_ms", " (ms)"))
    return fig


def plot_latency_ecdf(samples: pd.DataFrame, *, column: str = "latency_ms",
                      ax: Axes | None = None) -> Figure:
    """Empirical CDF of each run's per-iteration times."""
    fig, ax = figure_axes(ax)
    for name, group in samples.groupby("run", sort=False):
        x = np.sort(group[column].to_numpy())
        ax.step(x, np.arange(1, x.size + 1) / x.size, where="post", label=fm(name))
    ax.set_xlabel(column.replace("_ms", " (ms)"))
    ax.set_ylabel("fraction of samples ≤ x")
    ax.set_title("Latency ECDF")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def plot_speedup(comparison: pd.DataFrame, *, ax: Axes | None = None) -> Figure:
    """Speedup of each run's median against its workload's baseline, with its bootstrap CI as
    error bars and the workload's ideal speedup where the run records one. Horizontal bars (one
    row per run, baseline named on each), so one run or many read the same; with several
    workloads each row names its workload."""
    rows = comparison.dropna(subset=["speedup_vs_baseline"])
    fig, ax = figure_axes(ax, (6.4, 1.6 + 0.45 * max(len(rows), 1)))
    if rows.empty:
        ax.text(0.5, 0.5, "only baseline runs: nothing to compare", ha="center",
                transform=ax.transAxes)
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title("Speedup vs baseline", fontsize=9)
        return fig
    y = np.arange(len(rows))
    s = rows["speedup_vs_baseline"].to_numpy(float)
    err = np.vstack([s - rows["speedup_ci_low"].to_numpy(float),
                     rows["speedup_ci_high"].to_numpy(float) - s])
    ax.barh(y, s, xerr=err, capsize=4, height=0.6, color="tab:blue", label="measured (95% CI)")
    ideal = rows["ideal_speedup"].to_numpy(float) if "ideal_speedup" in rows else []
    if len(ideal) and np.isfinite(ideal).any():
        ax.scatter(ideal, y, marker="|", s=400, color="tab:red", zorder=3, label="ideal")
    for yi, value in zip(y, s, strict=True):
        ax.annotate(f"{value:.2f}x", (value, yi), xytext=(-4, 0), textcoords="offset points",
                    fontsize=8, ha="right", va="center", color="white")
    ax.axvline(1.0, color="grey", lw=0.8, ls="--")
    mixed = "workload" in rows and rows["workload"].nunique() > 1
    labels = [fm(f"{r.run}\nvs {r.baseline}" + (f"\n[{r.workload}]" if mixed else ""))
              for r in rows.itertuples()] if "baseline" in rows else [fm(n) for n in rows["run"]]
    ax.set_yticks(y, labels, fontsize=7)
    ax.set_ylim(len(rows) - 0.4, -0.6)
    ax.set_xlim(left=0)
    ax.set_xlabel("speedup of the median (baseline / run)")
    ax.set_title("Speedup vs baseline" + (" (within each workload)" if mixed else ""),
                 fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def plot_memory_vs_latency(comparison: pd.DataFrame, *, ax: Axes | None = None) -> Figure:
    """Device memory against median latency, one labelled point per run; memory from zero in
    one unit (the largest of GiB/MiB/KiB reached)."""
    fig, ax = figure_axes(ax)
    rows = comparison.dropna(subset=["device_memory_bytes"])
    raw = rows["device_memory_bytes"].to_numpy(float)
    unit, scale = byte_unit(raw)
    mem = raw / scale
    ax.scatter(rows["median_ms"], mem)
    for name, xv, yv in zip(rows["run"], rows["median_ms"], mem, strict=True):
        left = xv < rows["median_ms"].mean()
        ax.annotate(fm(name), (xv, yv), fontsize=7, xytext=(4 if left else -4, 4),
                    textcoords="offset points", ha="left" if left else "right")
    ax.margins(x=0.15)
    ax.set_ylim(0, float(mem.max()) * 1.25 if len(mem) else 1)
    ax.set_xlabel("median latency (ms)")
    ax.set_ylabel(f"device memory ({unit})")
    ax.set_title("Memory cost vs latency")
    if len(rows) == 0:
        ax.text(0.5, 0.5, "no run records its device memory", ha="center", transform=ax.transAxes)
        ax.set_xticks([])
        ax.set_yticks([])
    return fig


def plot_layer_comparison(layers: dict[str, pd.DataFrame], *, overlapping: Sequence[str] = (),
                          top: int = 20, ax: Axes | None = None) -> Figure:
    """Per-layer median time of several engines side by side (``layers``: run name -> profile
    table). Runs named in ``overlapping`` ran layers on several streams: their bars are hatched
    and labelled, because overlapping layer times cannot be added up or compared as latency."""
    fig, ax = figure_axes(ax, (8.0, 1.5 + 0.22 * min(top, max(len(t) for t in layers.values()))))
    merged = None
    for name, table in layers.items():
        col = table.set_index("layer_name")["median_ms"].rename(name)
        merged = col.to_frame() if merged is None else merged.join(col, how="outer")
    if merged is None:
        raise ValueError("plot_layer_comparison needs at least one profile table")
    first = list(next(iter(layers.values()))["layer_name"])
    if len(merged) <= top:  # all layers: keep the first table's (engine) order
        merged = merged.loc[first + [n for n in merged.index if n not in first]]
    else:
        merged = merged.loc[merged.max(axis=1).sort_values(ascending=False).index[:top]]
    y = np.arange(len(merged))
    height = 0.8 / len(layers)
    for i, name in enumerate(merged.columns):
        over = name in overlapping
        ax.barh(y + i * height, merged[name].fillna(0), height,
                label=fm(f"{name} (overlapping streams)" if over else name),
                hatch="//" if over else None)
    ax.set_yticks(y + 0.4 - height / 2, [fm(str(n)[:40]) for n in merged.index], fontsize=6)
    ax.invert_yaxis()
    ax.set_xlabel("median time per layer (ms)")
    ax.set_title(f"Per-layer time ({len(merged)} layers)")
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.04), ncol=2, frameon=False)
    return fig


def plot_stream_timeline(timeline: pd.DataFrame, *, ax: Axes | None = None,
                         title: str = "Layers per stream (engine order)") -> Figure:
    """Per-stream layout from layer info (:func:`~trtsafe_lab.profile.timeline.layer_timeline`):
    one row per StreamId, sync layers (signal/wait) as red markers."""
    fig, ax = figure_axes(ax, (8.0, 3.0))
    work = timeline[~timeline["is_sync"]]
    ax.barh(work["stream_id"], work["duration_ms"], left=work["start_ms"], height=0.6,
            edgecolor="white", linewidth=0.5)
    sync = timeline[timeline["is_sync"]]
    ax.scatter(sync["start_ms"], sync["stream_id"], marker="|", s=300, color="tab:red",
               label="sync (signal / wait)", zorder=3)
    streams = sorted(timeline["stream_id"].unique())
    ax.set_yticks(streams, [stream_label(s) for s in streams])
    ax.invert_yaxis()
    span = float((timeline["start_ms"] + timeline["duration_ms"]).max() or 1.0)
    ax.set_xlim(-0.03 * span, 1.03 * span)
    ax.set_xlabel("ordering position (ms of profiled layer time, not measured start times)")
    ax.set_title(fm(title), fontsize=9)
    if len(sync):
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def plot_kernel_timeline(kernels: pd.DataFrame, *, ax: Axes | None = None,
                         title: str = "CUPTI kernel timeline",
                         stream_names: dict[int, int] | None = None) -> Figure:
    """Measured kernel intervals per CUDA stream (a CUPTI kernel table), time (µs) from the
    first kernel. ``stream_names`` maps CUPTI stream ids to layer-info StreamIds (see
    :func:`~trtsafe_lab.profile.critical.stream_of_cupti`), so lanes read "main stream",
    "aux stream N"; unmapped ids are shown as "CUDA stream <id>". Give several runs axes that
    share x (``sharex``) to compare them on one time axis."""
    fig, ax = figure_axes(ax, (8.0, 3.0))
    t0 = kernels["start_ns"].min()
    names = stream_names or {}

    def lane(s: int) -> tuple[int, int]:
        return (0, names[s]) if s in names else (1, s)

    streams = sorted((int(s) for s in kernels["stream_id"].unique()), key=lane)
    row = {s: i for i, s in enumerate(streams)}
    for s, group in kernels.groupby("stream_id"):
        ax.barh([row[int(s)]] * len(group), (group["end_ns"] - group["start_ns"]) / 1e3,
                left=(group["start_ns"] - t0) / 1e3, height=0.6, edgecolor="white",
                linewidth=0.3)
    ax.set_yticks(range(len(streams)), [stream_label(names[s]) if s in names
                                        else f"CUDA stream {s}" for s in streams])
    ax.set_ylim(len(streams) - 0.4, -0.6)
    ax.set_xlim(left=0)
    ax.set_xlabel("time from the pass's first kernel (µs)")
    ax.set_title(fm(title), fontsize=9)
    return fig


def measured_where(runs: Sequence[Run]) -> str:
    """"GPU, date" of the runs (distinct values joined), for figure titles."""
    gpus, dates = [], []
    for run in runs:
        gpu = run.info.get("gpu")
        gpus.append(str(gpu.get("gpu_name")) if isinstance(gpu, dict) else "GPU not recorded")
        dates.append(str(run.info.get("date_utc") or run.info.get("created_utc", ""))[:10]
                     or "date not recorded")
    return ", ".join([*dict.fromkeys(gpus), *dict.fromkeys(dates)])


def comparison_figure(runs: Sequence[Run], comparison: pd.DataFrame, *,
                      metric: str = "latency") -> Figure:
    """The CLI's one-page summary: distribution, ECDF, speedup with CI, memory vs latency,
    titled with the workload(s) and where and when they were measured."""
    from trtsafe_lab.profile.compare import METRICS, samples_table

    column = METRICS[metric]
    samples = samples_table(runs, metric)
    fig = Figure(figsize=(12, 8), layout="constrained")
    axes: Any = fig.subplots(2, 2)
    plot_latency_distribution(samples, column=column, ax=axes[0, 0])
    plot_latency_ecdf(samples, column=column, ax=axes[0, 1])
    plot_speedup(comparison, ax=axes[1, 0])
    plot_memory_vs_latency(comparison, ax=axes[1, 1])
    workloads = list(dict.fromkeys(comparison["workload"].astype(str))) \
        if "workload" in comparison else []
    what = workloads[0] if len(workloads) == 1 else f"{len(workloads)} workloads: " + \
        "; ".join(workloads)
    modes = []
    if "timing_mode" in comparison:
        for mode, passes in dict.fromkeys(zip(comparison["timing_mode"],
                                              comparison["passes_per_sample"], strict=True)):
            modes.append(f"{mode} ({int(passes)}-pass means)" if passes and passes > 1
                         else str(mode))
    timing = f"; timing: {', '.join(modes)}" if modes else ""
    fig.suptitle(fm(f"{metric} of {what}\nmeasured: {measured_where(runs)}{timing}"),
                 fontsize=10)
    return fig
