"""Demo step: profile comparisons and timelines from the bundled H200 reference-workload runs.

The runs under ``trtsafe_lab/examples/profile/runs`` were recorded on an NVIDIA H200 by
``benchmarks/profile_aux_streams.py`` (see each run's manifest for the command and date).
"""

from __future__ import annotations

import json
from pathlib import Path

from trtsafe_lab.examples import example_path
from trtsafe_lab.profile.compare import compare_runs, to_json_records
from trtsafe_lab.profile.layers import load_graph
from trtsafe_lab.profile.loaders import Run, load_profile_run
from trtsafe_lab.profile.timeline import kernel_layer_profile, last_iteration, layer_timeline


def examples_dir() -> Path:
    """The bundled example runs (one run directory each)."""
    return example_path("profile", "runs")


def example_runs() -> dict[str, list[Run]]:
    """Bundled runs grouped by workload (the name up to ``-aux``), single-stream first."""
    groups: dict[str, list[Run]] = {}
    for path in sorted(examples_dir().iterdir()):
        if path.is_dir():
            run = load_profile_run(path)
            groups.setdefault(run.name.split("-aux")[0], []).append(run)
    for runs in groups.values():
        runs.sort(key=lambda r: int(r.info.get("num_aux_streams", 0)))
    return groups


def kernel_names(run: Run) -> list[str]:
    graph = json.loads(run.files["graph"].read_text())
    return [x["Name"] for x in graph["Layers"] if x["LayerType"] == "kernel"]


def run_demo(out_dir: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from trtsafe_lab.profile import plots
    from trtsafe_lab.profile.cupti_trace import kernel_table

    written: list[Path] = []
    for workload, runs in example_runs().items():
        table = compare_runs(runs)
        table.to_csv(out_dir / f"{workload}-compare.csv", index=False)
        (out_dir / f"{workload}-compare.json").write_text(
            json.dumps(to_json_records(table), indent=1))
        fig = plots.comparison_figure(runs, table)
        fig.suptitle(f"{workload}: single stream vs aux streams (NVIDIA H200, CUDA graphs)")
        fig.savefig(out_dir / f"{workload}-compare.png", dpi=90)
        written += [out_dir / f"{workload}-{s}" for s in ("compare.csv", "compare.json",
                                                          "compare.png")]
        traced = [r for r in runs if r.kernels]
        if not traced:
            continue
        fig = Figure(figsize=(9, 2.2 * len(traced)), layout="constrained")
        axes = fig.subplots(len(traced), 1, squeeze=False)[:, 0]
        layer_profiles = {}
        for ax, run in zip(axes, traced, strict=True):
            names = kernel_names(run)
            kernels = kernel_table(run.kernels or [])
            plots.plot_kernel_timeline(last_iteration(kernels, len(names)), ax=ax,
                                       title=f"{run.name}: CUPTI kernels, last forward pass")
            layer_profiles[run.name] = kernel_layer_profile(kernels, names)
        fig.savefig(out_dir / f"{workload}-kernels.png", dpi=90)
        aux_runs = [r.name for r in traced if r.info.get("num_aux_streams")]
        fig = plots.plot_layer_comparison(layer_profiles, overlapping=aux_runs, top=40)
        fig.savefig(out_dir / f"{workload}-layers.png", dpi=90)
        written += [out_dir / f"{workload}-kernels.png", out_dir / f"{workload}-layers.png"]
        for run in traced:
            if run.name in aux_runs:
                timeline = layer_timeline(load_graph(run.files["graph"]),
                                          layer_profiles[run.name])
                fig = plots.plot_stream_timeline(
                    timeline, title=f"{run.name}: layer info per StreamId, sync points in red")
                fig.savefig(out_dir / f"{run.name}-streams.png", dpi=90)
                written.append(out_dir / f"{run.name}-streams.png")
    return written
