"""Run names under the latency-distribution panels are wrapped whole, never cut or rotated into
each other (live runs carry a UTC time stamp, which makes their names long)."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from trtsafe_lab.profile.plots import plot_latency_distribution

NAMES = ["20261201-175335-ref-b4-d8-g4x128-i4096-aux0-graph",
         "20261201-175335-ref-b4-d8-g4x128-i4096-aux4-graph"]


@pytest.mark.parametrize("count", [1, 2, 5])
def test_distribution_labels_hold_whole_run_names(count: int) -> None:
    names = [f"{NAMES[i % 2]}-{i}" for i in range(count)]
    rng = np.random.default_rng(0)
    samples = pd.DataFrame([{"run": name, "latency_ms": float(v)}
                            for name in names for v in rng.normal(1.0, 0.01, 20)])
    fig = plot_latency_distribution(samples)
    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    labels = [tick.get_text() for ax in fig.axes[0].child_axes for tick in ax.get_xticklabels()]
    assert [label.replace("\n", "") for label in labels] == names
    if count > 1:  # several panels share the width: the names are wrapped onto lines
        assert all(max(map(len, label.split("\n"))) < len(NAMES[0]) for label in labels)
    # the labels of neighbouring panels do not overlap
    boxes = [tick.get_window_extent(renderer) for ax in fig.axes[0].child_axes
             for tick in ax.get_xticklabels()]
    for left, right in itertools.pairwise(boxes):
        assert left.x1 <= right.x0, (left, right)


def test_summary_figure_labels_do_not_overlap_with_the_bundled_runs() -> None:
    """The one-page summary (CLI, notebook 03, reports) lays its panels out after they are drawn:
    the distribution panel ends narrower than it starts, and its run names must still fit."""
    from trtsafe_lab.demo.profile import example_runs
    from trtsafe_lab.profile.compare import compare_runs
    from trtsafe_lab.profile.plots import comparison_figure

    for runs in example_runs().values():
        fig = comparison_figure(runs, compare_runs(runs))
        renderer = FigureCanvasAgg(fig).get_renderer()
        fig.draw(renderer)
        panels = fig.axes[0].child_axes
        labels = [tick.get_text() for ax in panels for tick in ax.get_xticklabels()]
        assert [label.replace("\n", "") for label in labels] == [r.name for r in runs]
        boxes = [tick.get_window_extent(renderer) for ax in panels for tick in ax.get_xticklabels()]
        for left, right in itertools.pairwise(boxes):
            assert left.x1 <= right.x0, (labels, left, right)
