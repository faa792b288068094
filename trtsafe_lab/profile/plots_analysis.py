"""Figures for sweeps and the critical path (a view module; matplotlib imported by callers' call).

Every function takes a table and an optional ``ax`` and returns the Figure; none calls
``show()``; every data string passes through :func:`trtsafe_lab.text.for_matplotlib`.
``where`` is the "what was measured where" part of the title (e.g. "NVIDIA H200, 2026-12-01").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from trtsafe_lab.text import for_matplotlib

BYTE_UNITS = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10), ("bytes", 1))


def byte_unit(values: Any) -> tuple[str, float]:
    """One unit for a whole figure: the largest of GiB/MiB/KiB the biggest value reaches."""
    arr = np.asarray(values, dtype=float)
    top = float(np.nanmax(arr)) if arr.size and np.isfinite(arr).any() else 0.0
    return next(((u, f) for u, f in BYTE_UNITS if top >= f), ("bytes", 1))


def figure_axes(ax: Axes | None, size: tuple[float, float] = (6.4, 4.0)
                ) -> tuple[Figure, Axes]:
    """``ax`` and its Figure, or a new constrained-layout Figure of ``size`` with one axes."""
    if ax is not None:
        fig = ax.get_figure()
        assert isinstance(fig, Figure)
        return fig, ax
    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.add_subplot()


def stream_label(stream: int) -> str:
    """A lane name by layer-info StreamId: 0 is the main stream, N the N-th aux stream."""
    return "main stream" if int(stream) == 0 else f"aux stream {int(stream)}"


def plot_pareto(table: pd.DataFrame, *, ax: Axes | None = None, where: str = "") -> Figure:
    """Median latency against memory for each sweep setting (a :func:`sweep_table`), p95 as an
    error bar to the right, the Pareto front joined; memory axis from zero, one byte unit."""
    fig, ax = figure_axes(ax, (7.0, 4.4))
    rows = table.dropna(subset=["memory_bytes"])
    unit, scale = byte_unit(rows["memory_bytes"])
    mem = rows["memory_bytes"].to_numpy(float) / scale
    p50, p95 = rows["p50_ms"].to_numpy(float), rows["p95_ms"].to_numpy(float)
    front = rows["on_pareto_front"].to_numpy(bool)
    ax.errorbar(p50, mem, xerr=[np.zeros_like(p50), p95 - p50], fmt="none", ecolor="grey",
                lw=1, capsize=3)
    ax.scatter(p50[~front], mem[~front], color="tab:grey", zorder=3, label="dominated")
    ax.scatter(p50[front], mem[front], color="tab:blue", zorder=3, label="Pareto front")
    order = np.argsort(p50[front])
    ax.plot(p50[front][order], mem[front][order], color="tab:blue", lw=1, zorder=2)
    placed: list[tuple[float, float]] = []
    x_span = float(p95.max()) if len(p95) else 1.0
    y_span = float(mem.max()) if len(mem) else 1.0
    for setting, used, x, y in zip(rows["setting"], rows["aux_streams_used"], p50, mem,
                                   strict=True):
        text = f"setting {setting}" + ("" if pd.isna(used) else f" (uses {int(used)})")
        near = sum(abs(x - px) < 0.04 * x_span and abs(y - py) < 0.04 * y_span
                   for px, py in placed)  # stack labels of (nearly) coincident points
        placed.append((x, y))
        ax.annotate(for_matplotlib(text), (x, y), xytext=(5, 5 - 10 * near),
                    textcoords="offset points", fontsize=7)
    ax.set_ylim(0, max(float(mem.max()) * 1.25, 1e-9) if len(mem) else 1)
    ax.set_xlim(left=0, right=float(p95.max()) * 1.15 if len(p95) else 1)
    ax.set_xlabel("latency per pass (ms): median, bar to p95")
    ax.set_ylabel(f"memory ({unit})")
    workloads = ", ".join(dict.fromkeys(str(w) for w in table["workload"]))
    ax.set_title(for_matplotlib(f"Aux-stream sweep: latency vs memory\n{workloads}"
                                + (f"\nmeasured {where}" if where else "")), fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    if len(rows) < len(table):
        ax.text(0.99, 0.02, f"{len(table) - len(rows)} run(s) without recorded memory",
                transform=ax.transAxes, ha="right", fontsize=7)
    return fig


def _lanes(ax: Axes, streams: list[int]) -> dict[int, int]:
    lanes = {s: i for i, s in enumerate(sorted(streams))}
    ax.set_yticks(range(len(lanes)), [stream_label(s) for s in lanes])
    ax.set_ylim(len(lanes) - 0.4, -0.6)
    return lanes


def plot_critical_path(schedule: pd.DataFrame, *, measured: pd.DataFrame | None = None,
                       where: str = "", title: str = "") -> Figure:
    """Per-stream lanes of a :func:`~trtsafe_lab.profile.critical.stream_schedule`: layers as
    bars, the critical path in red, sync edges (signal -> wait) as arrows between lanes. With
    ``measured`` (one traced pass: columns ``stream`` = layer-info StreamId, ``start_ns``,
    ``end_ns``, ``on_critical_path``), a second panel below on the same time axis."""
    panels = 2 if measured is not None else 1
    streams = sorted(int(s) for s in schedule["stream_id"].unique())
    height = 0.9 + 0.38 * len(streams)
    fig = Figure(figsize=(9.0, 0.6 + height * panels), layout="constrained")
    axes = fig.subplots(panels, 1, sharex=True, squeeze=False)[:, 0]
    ax = axes[0]
    lanes = _lanes(ax, streams)
    work = schedule[~schedule["is_sync"]]
    for on_path, color in ((False, "tab:blue"), (True, "tab:red")):
        part = work[work["on_critical_path"] == on_path]
        ax.barh([lanes[int(s)] for s in part["stream_id"]], part["duration_ms"] * 1e3,
                left=part["start_ms"] * 1e3, height=0.6, color=color, edgecolor="white",
                linewidth=0.4, label="critical path" if on_path else "other layers")
    for row in schedule.itertuples(index=False):
        for sig in row.waits_for:
            src = schedule.iloc[sig]
            ax.annotate("", xy=(row.start_ms * 1e3, lanes[int(row.stream_id)]),
                        xytext=(src["end_ms"] * 1e3, lanes[int(src["stream_id"])]),
                        arrowprops={"arrowstyle": "->", "color": "tab:green", "lw": 0.8})
    ax.plot([], [], color="tab:green", lw=0.8, label="sync: signal -> wait")
    ax.set_title("predicted from layer info + per-layer times", fontsize=8, loc="left")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    if measured is not None:
        mx = axes[1]
        mlanes = _lanes(mx, sorted({*streams, *(int(s) for s in measured["stream"])}))
        t0 = measured["start_ns"].min()
        for on_path, color in ((False, "tab:blue"), (True, "tab:red")):
            part = measured[measured["on_critical_path"] == on_path]
            mx.barh([mlanes[int(s)] for s in part["stream"]],
                    (part["end_ns"] - part["start_ns"]) / 1e3,
                    left=(part["start_ns"] - t0) / 1e3, height=0.6, color=color,
                    edgecolor="white", linewidth=0.4)
        mx.set_title("measured (CUPTI kernels of one pass; red: the predicted critical layers)",
                     fontsize=8, loc="left")
    axes[-1].set_xlabel("time from pass start (µs)")
    fig.suptitle(for_matplotlib(title or "Critical path per stream")
                 + (f" ({for_matplotlib(where)})" if where else ""), fontsize=9)
    return fig
