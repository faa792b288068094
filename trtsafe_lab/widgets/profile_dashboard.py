"""The profile dashboard: choose runs, the baseline, the metric and a view; table and plot update.

Built over :func:`trtsafe_lab.profile.compare.compare_runs` and the figures of
:mod:`trtsafe_lab.profile.plots`. The figure is rendered to PNG into an ``Image`` widget, so it
shows in any front end (and tests can see it change) without a pyplot window. With no run
chosen, table and plot are cleared. The table's statistics columns and the figure's labels name
the metric shown (``median_compute_ms``, "compute time"), never latency for compute times.
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
from trtsafe_lab.text import for_html, strip_ansi
from trtsafe_lab.widgets.tables import TABLE_STYLE, html_table

# Columns of the comparison table shown in the dashboard, when present.
SHOWN_COLUMNS: tuple[str, ...] = (
    "run", "n", "median_ms", "p99_ms", "throughput_qps", "speedup_vs_baseline",
    "speedup_ci_low", "speedup_ci_high", "significant", "num_aux_streams", "device_memory_bytes",
)
VIEWS: tuple[str, ...] = ("summary", "distribution", "ecdf", "speedup", "memory vs latency")
#: Statistics columns of the comparison table that are times of the chosen metric.
METRIC_COLUMNS: tuple[str, ...] = ("median_ms", "mean_ms", "p90_ms", "p95_ms", "p99_ms", "min_ms",
                                   "max_ms", "std_ms")
#: What each metric is called in a figure's labels.
METRIC_WORDS: dict[str, tuple[str, str]] = {"latency": ("latency", "Latency"),
                                            "compute": ("compute time", "Compute time")}


def metric_table(comparison: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The comparison with its time columns named for ``metric``: ``median_ms`` becomes
    ``median_compute_ms`` (``median_latency_ms`` for latency), so a table of compute times never
    reads as latencies."""
    return comparison.rename(columns={c: c.replace("_ms", f"_{metric}_ms")
                                      for c in METRIC_COLUMNS})


def relabel(figure: Any, metric: str) -> Any:
    """Name ``metric`` in every title and axis label of ``figure`` (the profile plots say
    "latency"; for compute times that would misname what is drawn). Returns ``figure``."""
    word, title_word = METRIC_WORDS[metric]
    if metric == "latency":
        return figure

    def fixed(text: str) -> str:
        return text.replace("latency", word).replace("Latency", title_word)

    for ax in figure.axes:
        ax.set_title(fixed(ax.get_title()))
        ax.set_xlabel(fixed(ax.get_xlabel()))
        ax.set_ylabel(fixed(ax.get_ylabel()))
    if figure._suptitle is not None:
        figure._suptitle.set_text(fixed(figure._suptitle.get_text()))
    return figure


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

    ``runs`` are loaded runs (:func:`trtsafe_lab.profile.loaders.load_profile_run`). Controls:
    which runs (at least one; ``selected`` names the first choice, default all), the baseline
    (one of the chosen runs), the metric (latency / compute, those every run has) and the view.
    ``comparison`` is the comparison now shown (as computed; the table names its time columns
    for the metric); ``figure`` and ``png`` the figure and its PNG (None and empty when no run is
    chosen).
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
        self.choose = w.SelectMultiple(options=[(strip_ansi(n), n) for n in names],
                                       value=tuple(selected or names), description="runs",
                                       rows=min(6, len(names)), layout=w.Layout(width="55%"))
        first = list(self.choose.value)
        self.baseline = w.Dropdown(options=first, value=first[0], description="baseline",
                                   layout=w.Layout(width="auto"))  # long run names in full
        metrics = metrics_available(runs) or list(METRICS)
        self.metric = w.ToggleButtons(options=metrics, value=metrics[0], description="metric")
        self.view = w.Dropdown(options=VIEWS, value=VIEWS[0], description="view")
        self.message = w.HTML()
        self.table = w.HTML()
        self.table.add_class("trtsafe-profile-table")
        self.image = w.Image(format="png", layout=w.Layout(max_width="98%", height="auto"))
        self.image.add_class("trtsafe-profile-plot")
        self.comparison = pd.DataFrame()
        self.figure: Any = None  # the matplotlib Figure now shown, or None
        self.png = b""
        for control in (self.choose, self.baseline, self.metric, self.view):
            control.observe(self._on_change, names="value")
        self.ui = w.VBox([
            w.HBox([self.choose, w.VBox([self.baseline, self.view])],
                   layout=w.Layout(flex_flow="row wrap")),
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
            self._clear("<b>Choose at least one run.</b>")
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
            self._clear(f"<b>No {for_html(METRICS[metric])} in "
                        f"{for_html(', '.join(missing))}.</b>")
            return
        self.message.value = ""
        try:
            self.comparison = compare_runs(runs, baseline=self.baseline.value, metric=metric)
        except MixedWorkloadError as err:  # shown instead of a cross-workload comparison
            self._clear(f"<b>{for_html(err)}</b>")
            return
        shown = [c for c in SHOWN_COLUMNS if c in self.comparison]
        self.table.value = TABLE_STYLE + html_table(metric_table(self.comparison[shown], metric))
        figure = relabel(comparison_view(runs, self.view.value, self.comparison, metric), metric)
        self.figure = figure
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=self.dpi)
        self.png = buffer.getvalue()
        self.image.width = str(round(figure.get_figwidth() * self.dpi))  # shown at its own size
        self.image.value = self.png
        self.image.layout.display = None

    def _clear(self, message: str) -> None:
        """Nothing to compare: say why, and show no table or plot from an earlier choice."""
        self.image.layout.display = "none"  # an empty image would show as a broken one
        self.image.value = b""
        self.figure = None
        self.png = b""
        self.comparison = pd.DataFrame()
        self.table.value = ""
        self.message.value = message

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.ui._repr_mimebundle_(**kwargs)
