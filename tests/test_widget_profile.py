"""The profile dashboard over the bundled H200 runs: controls change the table and the plot."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")


def test_dashboard_follows_its_controls() -> None:
    from trtsafe_lab.demo.profile import example_runs
    from trtsafe_lab.widgets import ProfileDashboard

    groups = example_runs()
    runs = [r for group in groups.values() for r in group]
    dash = ProfileDashboard(runs, dpi=40)  # all runs: three workloads, refused
    assert "different workloads" in dash.message.value and dash.comparison.empty
    assert dash.png == b""
    fill = groups["ref-b4-d8-g4224x128-i1024"]
    dash.choose.value = tuple(r.name for r in fill)
    assert list(dash.comparison["run"]) == [r.name for r in fill]
    assert dash.png.startswith(b"\x89PNG") and dash.image.value == dash.png
    first_png = dash.png

    aux0, aux4 = (r.name for r in groups["ref-b4-d8-g4x128-i4096"])  # small branches
    dash.choose.value = (aux0, aux4)
    assert list(dash.comparison["run"]) == [aux0, aux4]
    assert dash.baseline.options == (aux0, aux4) and dash.baseline.value == aux0
    speedup = dash.comparison.set_index("run").loc[aux4, "speedup_vs_baseline"]
    assert speedup > 1  # aux streams help independent small branches (recorded on an H200)
    assert dash.png != first_png

    dash.baseline.value = aux4
    flipped = dash.comparison.set_index("run").loc[aux0, "speedup_vs_baseline"]
    assert flipped == pytest.approx(1 / speedup, rel=0.05)

    before = dash.png
    dash.metric.value = "compute"  # the figure's axes now say compute (ms)
    assert dash.png != before

    for view in ("distribution", "ecdf", "speedup", "memory vs latency"):
        before = dash.png
        dash.view.value = view
        assert dash.png != before and dash.png.startswith(b"\x89PNG")

    dash.choose.value = ()
    assert "at least one run" in dash.message.value


def _texts(figure: object) -> list[str]:
    axes = figure.axes  # type: ignore[attr-defined]
    texts = [t for ax in axes for t in (ax.get_title(), ax.get_xlabel(), ax.get_ylabel())]
    suptitle = figure._suptitle  # type: ignore[attr-defined]
    return texts + ([suptitle.get_text()] if suptitle is not None else [])


def test_compute_metric_is_named_as_such_and_no_run_clears_everything() -> None:
    from trtsafe_lab.demo.profile import example_runs
    from trtsafe_lab.widgets import ProfileDashboard

    runs = next(iter(example_runs().values()))  # one workload: single stream and aux streams
    dash = ProfileDashboard(runs, dpi=30)
    assert "<th>median_<wbr>latency_<wbr>ms</th>" in dash.table.value
    assert any("latency" in t for t in _texts(dash.figure))
    dash.metric.value = "compute"
    assert "<th>median_<wbr>compute_<wbr>ms</th>" in dash.table.value
    assert "median_ms" not in dash.table.value and "latency" not in dash.table.value
    for view in ("summary", "distribution", "ecdf", "speedup", "memory vs latency"):
        dash.view.value = view
        texts = _texts(dash.figure)
        assert not [t for t in texts if "atency" in t], (view, texts)
        if view in ("summary", "ecdf", "memory vs latency"):
            assert any("compute" in t.lower() for t in texts), (view, texts)

    dash.choose.value = ()
    assert "at least one run" in dash.message.value
    assert dash.table.value == "" and dash.image.value == b"" and dash.png == b""
    assert dash.figure is None and dash.comparison.empty and dash.image.layout.display == "none"
    dash.choose.value = (runs[0].name,)  # back: table and plot are drawn again
    assert dash.table.value and dash.png.startswith(b"\x89PNG") and not dash.image.layout.display
