"""The profile dashboard: choose runs, the baseline, the metric and a view; table and plot update.

Built over :func:`trtsafe_lab.profile.compare.compare_runs` and the figures of
:mod:`trtsafe_lab.profile.plots`. The figure is rendered to PNG into an ``Image`` widget, so it
shows in any front end (and tests can see it change) without a pyplot window.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from trtsafe_lab._optional import require
from trtsafe_lab.profile.compare import METRICS, compare_runs, samples_table
from trtsafe_lab.profile.loaders import Run
from trtsafe_lab.profile.workload import MixedWorkloadError
from trtsafe_lab.text import for_html
from trtsafe_lab.widgets.tables import TABLE_STYLE

# Columns of the comparison table shown in the dashboard, when present.
SHOWN_COLUMNS: tuple[str, ...] = (
    "run", "n", "median_ms", "p99_ms", "throughput_qps", "speedup_vs_baseline",
    "speedup_ci_low", "speedup_ci_high", "significant", "num_aux_streams", "device_memory_bytes",
)
VIEWS: tuple[str, ...] = ("summary", "distribution", "ecdf", "speedup", "memory vs latency")


def metrics_available(runs: Sequence[Run]) -> list[str]:
    """The metrics (keys of ``METRICS``) that every run in ``runs`` has samples for."""
    return [m for m, column in METRICS.items() if all(column in r.times for r in runs)]


def comparison_view(runs: Sequence[Run], view: str, comparison: pd.DataFrame,
                    metric: str) -> Any:
    """The Figure for one dashboard ``view`` (one of :data:`VIEWS`) of ``runs``."""
    from trtsafe_lab.profile import plots

    column = METRICS[metric]
    draw: dict[str, Callable[[], Any]] = {
        "summary": lambda: plots.comparison_figure(runs, comparison, metric=metric),
        "distribution": lambda: plots.plot_latency_distribution(
            samples_table(runs, metric), column=column),
        "ecdf": lambda: plots.plot_latency_ecdf(samples_table(runs, metric), column=column),
        "speedup": lambda: plots.plot_speedup(comparison),
        "memory vs latency": lambda: plots.plot_memory_vs_latency(comparison),
    }
    if view not in draw:
        raise ValueError(f"unknown view {view!r}; choose one of {VIEWS}")
    return draw[view]()


class ProfileDashboard:
    """Compare recorded runs interactively.

    ``runs`` are loaded runs (:func:`trtsafe_lab.profile.loaders.load_run`). Controls: which runs
    (at least one; ``selected`` names the first choice, default all), the baseline (one of the
    chosen runs), the metric (latency / compute, those every run has) and the view.
    ``comparison`` is the table now shown; ``png`` the figure's PNG.
    """

    def __init__(self, runs: Sequence[Run], *, selected: Sequence[str] = (),
                 dpi: int = 90) -> None:
        w = require("ipywidgets", feature="The profile dashboard")
        if not runs:
            raise ValueError("the profile dashboard needs at least one run")
        self.all_runs = {r.name: r for r in runs}
        self.dpi = dpi
        names = list(self.all_runs)
        unknown = set(selected) - set(names)
        if unknown:
            raise ValueError(f"selected runs {sorted(unknown)} are not among {names}")
        self.choose = w.SelectMultiple(options=names, value=tuple(selected or names),
                                       description="runs",
                                       rows=min(6, len(names)), layout=w.Layout(width="60%"))
        first = list(self.choose.value)
        self.baseline = w.Dropdown(options=first, value=first[0], description="baseline")
        metrics = metrics_available(runs) or list(METRICS)
        self.metric = w.ToggleButtons(options=metrics, value=metrics[0], description="metric")
        self.view = w.Dropdown(options=VIEWS, value=VIEWS[0], description="view")
        self.message = w.HTML()
        self.table = w.HTML()
        self.table.add_class("trtsafe-profile-table")
        self.image = w.Image(format="png")
        self.image.add_class("trtsafe-profile-plot")
        self.comparison = pd.DataFrame()
        self.png = b""
        for control in (self.choose, self.baseline, self.metric, self.view):
            control.observe(self._on_change, names="value")
        self.ui = w.VBox([
            w.HBox([self.choose, w.VBox([self.baseline, self.view])]),
            self.metric, self.message, self.table, self.image,
        ])
        self.ui.add_class("trtsafe-profile-dashboard")
        self._refresh()

    @property
    def selected(self) -> list[Run]:
        return [self.all_runs[name] for name in self.choose.value]

    def _on_change(self, _change: object) -> None:
        self._refresh()

    def _refresh(self) -> None:
        runs = self.selected
        if not runs:
            self.message.value = "<b>Choose at least one run.</b>"
            return
        names = [r.name for r in runs]
        if self.baseline.options != tuple(names):
            keep = self.baseline.value if self.baseline.value in names else names[0]
            # Not hold_trait_notifications: it validates the old value against the new
            # options and fails when the new selection shares no run with the old one.
            self.baseline.unobserve(self._on_change, names="value")
            try:
                self.baseline.options = names
                self.baseline.value = keep
            finally:
                self.baseline.observe(self._on_change, names="value")
        metric = self.metric.value
        missing = [r.name for r in runs if METRICS[metric] not in r.times]
        if missing:
            self.message.value = f"<b>No {METRICS[metric]} in {', '.join(missing)}.</b>"
            return
        self.message.value = ""
        try:
            self.comparison = compare_runs(runs, baseline=self.baseline.value, metric=metric)
        except MixedWorkloadError as err:  # shown instead of a cross-workload comparison
            self.message.value = f"<b>{for_html(err)}</b>"
            self.comparison, self.png = pd.DataFrame(), b""
            self.table.value, self.image.value = "", b""
            return
        shown = [c for c in SHOWN_COLUMNS if c in self.comparison]
        self.table.value = TABLE_STYLE + self.comparison[shown].to_html(
            index=False, float_format=lambda x: f"{x:.4g}", na_rep="", border=0,
            classes="trtsafe-table")
        figure = comparison_view(runs, self.view.value, self.comparison, metric)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=self.dpi)
        self.png = buffer.getvalue()
        self.image.width = str(round(figure.get_figwidth() * self.dpi))  # shown at its own size
        self.image.value = self.png

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.ui._repr_mimebundle_(**kwargs)
