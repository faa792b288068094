"""Demo step: profile comparisons and timelines from the bundled H200 reference-workload runs.

The runs under ``trtsafe_lab/examples/profile/runs`` were recorded on an NVIDIA H200 by
``benchmarks/profile_aux_streams.py`` (see each run's manifest for the command and date).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from trtsafe_lab.examples import example_path
from trtsafe_lab.profile.compare import compare_runs, to_json_records
from trtsafe_lab.profile.layers import load_graph
from trtsafe_lab.profile.loaders import Run, load_profile_run
from trtsafe_lab.profile.timeline import kernel_layer_profile, last_iteration, layer_timeline
from trtsafe_lab.profile.workload import check_comparable
from trtsafe_lab.text import for_matplotlib


def examples_dir() -> Path:
    """The bundled example runs (one run directory each)."""
    return example_path("profile", "runs")


def example_runs() -> dict[str, list[Run]]:
    """Bundled runs grouped by workload (keyed by the name up to ``-aux``; each group is checked
    to be one workload, :func:`~trtsafe_lab.profile.workload.check_comparable`), single-stream
    first."""
    groups: dict[str, list[Run]] = {}
    for path in sorted(examples_dir().iterdir()):
        if path.is_dir():
            run = load_profile_run(path)
            groups.setdefault(run.name.split("-aux")[0], []).append(run)
    for runs in groups.values():
        runs.sort(key=lambda r: int(r.info.get("num_aux_streams", 0)))
        check_comparable(runs)
    return groups


def kernel_names(run: Run) -> list[str]:
    """The run's kernel layers in graph order, from its layer info (``*.graph.json``)."""
    return _kernel_layers(load_graph(run.files["graph"]))


def _kernel_layers(layers: pd.DataFrame) -> list[str]:
    return layers.loc[layers["layer_type"] == "kernel", "layer_name"].tolist()


def run_demo(out_dir: Path) -> list[Path]:
    """Per bundled workload: the comparison (CSV, JSON, PNG), the sweep (CSV, Pareto PNG) and,
    for runs with a CUPTI kernel trace, kernel timelines, per-layer times, the critical path and
    the per-stream layer timeline (PNG). Returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from trtsafe_lab.profile import plots, plots_analysis
    from trtsafe_lab.profile.critical import stream_of_cupti, stream_schedule, traced_pass
    from trtsafe_lab.profile.cupti_trace import kernel_table
    from trtsafe_lab.profile.sweep import sweep_table

    written: list[Path] = []
    for workload, runs in example_runs().items():
        table = compare_runs(runs)
        table.to_csv(out_dir / f"{workload}-compare.csv", index=False)
        (out_dir / f"{workload}-compare.json").write_text(
            json.dumps(to_json_records(table), indent=1))
        fig = plots.comparison_figure(runs, table)
        fig.savefig(out_dir / f"{workload}-compare.png", dpi=90)
        where = plots.measured_where(runs)
        sweep = sweep_table(runs)
        sweep.to_csv(out_dir / f"{workload}-sweep.csv", index=False)
        plots_analysis.plot_pareto(sweep, where=where).savefig(out_dir / f"{workload}-pareto.png",
                                                               dpi=90)
        written += [out_dir / f"{workload}-{s}" for s in ("compare.csv", "compare.json",
                                                          "compare.png", "sweep.csv",
                                                          "pareto.png")]
        traced = [r for r in runs if r.kernels]
        if not traced:
            continue
        fig = Figure(figsize=(9, 2.2 * len(traced)), layout="constrained")
        axes = fig.subplots(len(traced), 1, squeeze=False, sharex=True)[:, 0]
        # each traced run's layer info and kernel table, read once
        graphs = {run.name: load_graph(run.files["graph"]) for run in traced}
        kernels = {run.name: kernel_table(run.kernels or []) for run in traced}
        layer_profiles = {}
        for ax, run in zip(axes, traced, strict=True):
            names = _kernel_layers(graphs[run.name])
            schedule = stream_schedule(graphs[run.name], None)
            plots.plot_kernel_timeline(last_iteration(kernels[run.name], len(names)), ax=ax,
                                       title=f"{run.name}: CUPTI kernels, last forward pass",
                                       stream_names=stream_of_cupti(kernels[run.name], schedule))
            layer_profiles[run.name] = kernel_layer_profile(kernels[run.name], names)
        fig.suptitle(for_matplotlib(f"{workload}: kernels per stream on one time axis ({where})"),
                     fontsize=9)
        fig.savefig(out_dir / f"{workload}-kernels.png", dpi=90)
        aux_runs = [r.name for r in traced if r.info.get("num_aux_streams")]
        fig = plots.plot_layer_comparison(layer_profiles, overlapping=aux_runs, top=40)
        fig.suptitle(for_matplotlib(f"{workload}: per-layer time from CUPTI ({where})"),
                     fontsize=9)
        fig.savefig(out_dir / f"{workload}-layers.png", dpi=90)
        written += [out_dir / f"{workload}-kernels.png", out_dir / f"{workload}-layers.png"]
        single = next((r for r in traced if not r.info.get("num_aux_streams")), None)
        for run in traced:
            if run.name in aux_runs and single is not None:
                schedule = stream_schedule(graphs[run.name], layer_profiles[single.name])
                fig = plots_analysis.plot_critical_path(
                    schedule, measured=traced_pass(kernels[run.name], schedule),
                    where=where, title=f"{run.name}: critical path (layer times of "
                    f"{single.name})")
                fig.savefig(out_dir / f"{run.name}-critical-path.png", dpi=90)
                written.append(out_dir / f"{run.name}-critical-path.png")
            if run.name in aux_runs:
                timeline = layer_timeline(graphs[run.name], layer_profiles[run.name])
                fig = plots.plot_stream_timeline(
                    timeline, title=f"{run.name}: layer info per StreamId, sync points in red "
                    f"({where})")
                fig.savefig(out_dir / f"{run.name}-streams.png", dpi=90)
                written.append(out_dir / f"{run.name}-streams.png")
    return written
