"""The bundled H200 example runs, the demo step and the plots (Agg backend)."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

from trtsafe_lab.demo.profile import example_runs, kernel_names, run_demo
from trtsafe_lab.profile.compare import compare_runs, samples_table
from trtsafe_lab.profile.cupti_trace import kernel_table
from trtsafe_lab.profile.timeline import (
    kernel_iterations,
    kernel_layer_profile,
    last_iteration,
    overlap_summary,
)


@pytest.fixture(scope="module")
def groups():
    return example_runs()


def test_examples_were_recorded_on_a_gpu(groups) -> None:
    assert set(groups) == {"ref-b4-d8-g4x128-i4096", "ref-b4-d8-g4224x128-i1024",
                           "ref-b4-d4-g33x128-i4096"}
    for runs in groups.values():
        assert [r.info["num_aux_streams"] for r in runs] == [0, 4]
        for run in runs:
            assert run.info["gpu"]["gpu_name"] == "NVIDIA H200"
            assert run.info["timing"]["iterations"] == len(run.times) == 200


def test_small_branches_overlap_and_fill_branches_do_not_speed_up(groups) -> None:
    small = compare_runs(groups["ref-b4-d8-g4x128-i4096"])
    fill = compare_runs(groups["ref-b4-d8-g4224x128-i1024"])
    s, f = small.iloc[1], fill.iloc[1]
    assert s["speedup_ci_low"] > 2 and s["speedup_vs_baseline"] > 0.8 * s["ideal_speedup"]
    assert f["speedup_vs_baseline"] < 1.2 and f["ideal_speedup"] == 4
    assert s["device_memory_bytes"] > small.iloc[0]["device_memory_bytes"]  # aux costs memory


def test_cupti_traces_overlap_only_with_aux_streams(groups) -> None:
    single, aux = groups["ref-b4-d8-g4x128-i4096"]
    names = kernel_names(aux)
    assert len(names) == 32
    one = overlap_summary(last_iteration(kernel_table(single.kernels or []), 32))
    four = overlap_summary(last_iteration(kernel_table(aux.kernels or []), 32))
    assert one["streams"] == 1 and one["cross_stream_overlap_ns"] == 0
    assert four["streams"] == 4 and four["overlap_fraction"] > 0.5
    # graph_node_id order is capture order: within each branch, step d starts before d+1
    numbered = kernel_iterations(kernel_table(aux.kernels or []), 32)
    for _, group in numbered.groupby([numbered["iteration"], numbered["index"] // 8]):
        assert group.sort_values("index")["start_ns"].is_monotonic_increasing
    layers = kernel_layer_profile(kernel_table(aux.kernels or []), names)
    by_branch = layers.groupby(layers["layer_name"].str.split(".").str[0])["stream_id"]
    assert (by_branch.nunique() == 1).all() and by_branch.first().nunique() == 4


def test_demo_writes_tables_and_figures(tmp_path: Path) -> None:
    files = run_demo(tmp_path)
    assert all(p.is_file() and p.stat().st_size > 0 for p in files)
    names = {p.name for p in files}
    assert "ref-b4-d8-g4x128-i4096-compare.json" in names
    assert "ref-b4-d8-g4x128-i4096-aux4-graph-streams.png" in names
    assert "ref-b4-d4-g33x128-i4096-aux4-graph-critical-path.png" in names
    assert "ref-b4-d4-g33x128-i4096-pareto.png" in names
    assert sum(n.endswith(".png") for n in names) == 18  # 6 figures per workload


def test_plots_return_figures_and_draw_on_given_axes(groups) -> None:
    from matplotlib.figure import Figure

    from trtsafe_lab.profile import plots

    runs = groups["ref-b4-d8-g4x128-i4096"]
    table = compare_runs(runs)
    fig = plots.plot_speedup(table)
    ax = fig.axes[0]
    assert len(ax.patches) == 1  # one non-baseline bar (horizontal)
    assert ax.patches[0].get_width() == pytest.approx(table.iloc[1]["speedup_vs_baseline"])
    host = Figure()
    target = host.add_subplot()
    assert plots.plot_latency_ecdf(samples_table(runs), ax=target) is host
    assert len(target.lines) == 2


def test_facade_tables(groups) -> None:
    from trtsafe_lab.profile.session import ProfileComparison

    runs = groups["ref-b4-d8-g4x128-i4096"]
    cmp = ProfileComparison(runs)
    assert cmp.get_comparison()["run"].tolist() == [r.name for r in runs]
    aux = runs[1].name
    assert cmp.get_overlap(aux)["streams"] == 4
    assert len(cmp.get_layer_profile(aux)) == 32
    timeline = cmp.get_stream_timeline(aux)
    assert timeline["is_sync"].sum() == 10  # fork signal + 4 waits, 4 join signals + wait
    with pytest.raises(KeyError, match="no run named"):
        cmp.run("nope")
