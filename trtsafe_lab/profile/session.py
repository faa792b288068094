"""One facade for a profiling comparison in a notebook: tables from ``get_*``, figures from
``plot_*`` (which import matplotlib only when called)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from trtsafe_lab.profile.compare import compare_runs, samples_table
from trtsafe_lab.profile.layers import load_graph, load_profile
from trtsafe_lab.profile.loaders import Run, load_profile_run
from trtsafe_lab.profile.timeline import layer_timeline, overlap_summary


class ProfileComparison:
    """Runs (run directories or trtexec export folders) compared against a baseline.

    >>> cmp = ProfileComparison(["runs/aux0", "runs/aux4"])      # doctest: +SKIP
    >>> cmp.get_comparison()                                       # doctest: +SKIP
    """

    def __init__(self, runs: Sequence[Path | str | Run], *, baseline: str | None = None,
                 metric: str = "latency", allow_mixed: bool = False) -> None:
        self.runs = [r if isinstance(r, Run) else load_profile_run(Path(r)) for r in runs]
        self.baseline = baseline
        self.metric = metric
        self.allow_mixed = allow_mixed

    def run(self, name: str) -> Run:
        for run in self.runs:
            if run.name == name:
                return run
        raise KeyError(f"no run named {name!r}; runs: {[r.name for r in self.runs]}")

    @cached_property
    def comparison(self) -> pd.DataFrame:
        return compare_runs(self.runs, baseline=self.baseline, metric=self.metric,
                            allow_mixed=self.allow_mixed)

    def get_comparison(self) -> pd.DataFrame:
        """One row per run (columns: :data:`~trtsafe_lab.profile.compare.COMPARE_COLUMNS`)."""
        return self.comparison

    def get_samples(self) -> pd.DataFrame:
        """Every iteration: ``run``, ``iteration`` and ``latency_ms`` or ``compute_ms``."""
        return samples_table(self.runs, self.metric)

    def get_layers(self, name: str) -> pd.DataFrame:
        """A run's layer info (:func:`~trtsafe_lab.profile.layers.load_graph`)."""
        run = self.run(name)
        if "graph" not in run.files:
            raise FileNotFoundError(f"run {name} has no layer info (*.graph.json)")
        return load_graph(run.files["graph"])

    def get_layer_profile(self, name: str) -> pd.DataFrame:
        """A run's per-layer profile: trtexec's ``*.profile.json``, else (reference workload)
        the CUPTI kernel trace mapped onto its layers."""
        run = self.run(name)
        if "profile" in run.files:
            return load_profile(run.files["profile"])
        if run.kernels and "graph" in run.files:
            from trtsafe_lab.profile.cupti_trace import kernel_table
            from trtsafe_lab.profile.timeline import kernel_layer_profile

            layers = self.get_layers(name)
            names = layers.loc[layers["layer_type"] == "kernel", "layer_name"].tolist()
            return kernel_layer_profile(kernel_table(run.kernels), names)
        raise FileNotFoundError(f"run {name} has neither *.profile.json nor a kernel trace")

    def get_kernels(self, name: str) -> pd.DataFrame:
        """A run's CUPTI kernel table (see :mod:`~trtsafe_lab.profile.timeline`)."""
        from trtsafe_lab.profile.cupti_trace import kernel_table

        run = self.run(name)
        if not run.kernels:
            raise FileNotFoundError(f"run {name} has no CUPTI kernel trace (kernels.json)")
        return kernel_table(run.kernels)

    def get_overlap(self, name: str) -> dict[str, Any]:
        """Cross-stream kernel overlap of a traced run (:func:`overlap_summary`)."""
        return overlap_summary(self.get_kernels(name))

    def get_stream_timeline(self, name: str) -> pd.DataFrame:
        """Per-stream layer layout from layer info (:func:`layer_timeline`)."""
        try:
            profile = self.get_layer_profile(name)
        except FileNotFoundError:
            profile = None
        return layer_timeline(self.get_layers(name), profile)

    def get_sweep(self) -> pd.DataFrame:
        """One row per run: setting, aux streams used, p50/p95/p99, memory, speedup with CI
        (:func:`~trtsafe_lab.profile.sweep.sweep_table`)."""
        from trtsafe_lab.profile.sweep import sweep_table

        return sweep_table(self.runs, metric=self.metric, allow_mixed=self.allow_mixed)

    def get_critical_path(self, name: str, times_from: str | None = None) -> pd.DataFrame:
        """The earliest-start schedule of run ``name``'s layers over its streams, with the
        critical path (:func:`~trtsafe_lab.profile.critical.stream_schedule`); per-layer times
        from run ``times_from`` (e.g. the single-stream run: uncontended times), default its
        own."""
        from trtsafe_lab.profile.critical import stream_schedule

        return stream_schedule(self.get_layers(name),
                               self.get_layer_profile(times_from or name))

    def get_critical_path_summary(self, name: str, times_from: str | None = None
                                  ) -> dict[str, Any]:
        """Per-stream busy time, single-stream sum, critical path, bound on speedup
        (:func:`~trtsafe_lab.profile.critical.critical_path_summary`)."""
        from trtsafe_lab.profile.critical import critical_path_summary

        return critical_path_summary(self.get_critical_path(name, times_from))

    def get_prediction_error(self, name: str, times_from: str | None = None) -> pd.DataFrame:
        """Predicted (critical path) vs CUPTI-measured makespan, overlap and per-stream busy
        time of a traced run (:func:`~trtsafe_lab.profile.critical.compare_with_trace`)."""
        from trtsafe_lab.profile.critical import compare_with_trace

        return compare_with_trace(self.get_critical_path(name, times_from),
                                  self.get_kernels(name))

    def plot_critical_path(self, name: str, times_from: str | None = None) -> Any:
        from trtsafe_lab.profile.critical import traced_pass
        from trtsafe_lab.profile.plots import measured_where
        from trtsafe_lab.profile.plots_analysis import plot_critical_path

        schedule = self.get_critical_path(name, times_from)
        run = self.run(name)
        measured = traced_pass(self.get_kernels(name), schedule) if run.kernels else None
        return plot_critical_path(schedule, measured=measured, where=measured_where([run]),
                                  title=f"{name}: critical path"
                                  + (f" (layer times of {times_from})" if times_from else ""))

    def plot_sweep(self) -> Any:
        from trtsafe_lab.profile.plots import measured_where
        from trtsafe_lab.profile.plots_analysis import plot_pareto

        return plot_pareto(self.get_sweep(), where=measured_where(self.runs))

    def plot_summary(self) -> Any:
        from trtsafe_lab.profile.plots import comparison_figure

        return comparison_figure(self.runs, self.comparison, metric=self.metric)

    def plot_kernels(self, name: str, ax: Any = None) -> Any:
        from trtsafe_lab.profile.critical import stream_of_cupti, stream_schedule
        from trtsafe_lab.profile.plots import measured_where, plot_kernel_timeline

        kernels = self.get_kernels(name)
        names = None
        if "graph" in self.run(name).files:
            names = stream_of_cupti(kernels, stream_schedule(self.get_layers(name), None))
        return plot_kernel_timeline(kernels, ax=ax, stream_names=names,
                                    title=f"{name}: CUPTI kernels "
                                    f"({measured_where([self.run(name)])})")

    def plot_streams(self, name: str, ax: Any = None) -> Any:
        from trtsafe_lab.profile.plots import measured_where, plot_stream_timeline

        return plot_stream_timeline(self.get_stream_timeline(name), ax=ax,
                                    title=f"{name}: layers per stream "
                                    f"({measured_where([self.run(name)])})")
