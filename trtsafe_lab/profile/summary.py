"""The trtexec performance summary, in every printed layout, as a table.

Layouts read:
- 8.x-11.x: ``=== Performance summary ===`` then ``Latency: min = X ms, max = ..., mean = ...,
  median = ..., percentile(90%) = ..., percentile(95%) = ..., percentile(99%) = ...`` lines
  (8.x prints one percentile), ``Throughput: N qps``, ``Total Host Walltime: S s``,
  ``Total GPU Compute Time: S s`` and ``[W]`` warnings;
- pre-8.0: a section name on its own line (``Host Latency``, ``Enqueue Time``, ``GPU Compute``)
  then ``min: X ms (end to end Y ms)``, ``percentile: X ms at 99% (...)``, ``throughput: N qps``,
  ``walltime: S s``;
- the ``performance_summary`` object of ``*.metadata.json`` files (unlabelled lists, read in
  trtexec's print order: min, max, mean, median, then the percentiles).

:func:`parse_summary` returns a :class:`PerformanceSummary`: ``table`` has one row per metric
(``metric`` in snake_case: latency, enqueue_time, h2d_latency, gpu_compute_time, d2h_latency,
host_latency, end_to_end) and the columns ``min_ms``, ``max_ms``, ``mean_ms``, ``median_ms``,
``p90_ms``, ``p95_ms``, ``p99_ms`` (NaN where the layout does not print it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

STAT_COLUMNS = ("min_ms", "max_ms", "mean_ms", "median_ms", "p90_ms", "p95_ms", "p99_ms")
_PREFIX = re.compile(r"^(?:\[[^\]]*\]\s*)*")  # [timestamp] [I] ...
_NUM = r"([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
_STAT = re.compile(rf"(min|max|mean|median|percentile\((\d+(?:\.\d+)?)%\))\s*=\s*{_NUM}\s*ms")
_MODERN = re.compile(r"^([A-Za-z][A-Za-z0-9 ]*?):\s*(min\s*=.*)$")
_OLD_STAT = re.compile(rf"^(min|max|mean|median|percentile):\s*{_NUM}\s*ms"
                       rf"(?:\s*at\s*(\d+)%)?(?:\s*\(end to end\s*{_NUM}\s*ms)?")
_SCALARS = {"throughput": ("throughput_qps", re.compile(rf"^throughput:\s*{_NUM}\s*qps", re.I)),
            "walltime": ("total_host_walltime_s",
                         re.compile(rf"^(?:total host walltime|walltime):\s*{_NUM}\s*s", re.I)),
            "gputotal": ("total_gpu_compute_time_s",
                         re.compile(rf"^total gpu compute time:\s*{_NUM}\s*s", re.I))}


@dataclass
class PerformanceSummary:
    """``table`` (see module doc); ``scalars``: throughput_qps, total_host_walltime_s,
    total_gpu_compute_time_s when printed; ``warnings``: the ``[W]`` lines of the summary;
    ``layout``: "modern", "pre-8" or "metadata"."""

    table: pd.DataFrame
    scalars: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    layout: str = "modern"

    def stat(self, metric: str, column: str) -> float:
        row = self.table.loc[self.table["metric"] == metric, column]
        if row.empty:
            raise KeyError(f"the summary has no {metric!r}; it has {list(self.table['metric'])}")
        return float(row.iloc[0])


def _metric(name: str) -> str:
    name = name.strip().lower()
    return {"gpu compute": "gpu_compute_time"}.get(name, re.sub(r"\W+", "_", name))


def _stat_key(label: str, pct: str | None) -> str | None:
    if label.startswith("percentile"):
        return {"90": "p90_ms", "95": "p95_ms", "99": "p99_ms"}.get(
            str(int(float(pct))) if pct else "99")
    return f"{label}_ms"


def parse_summary(text: str) -> PerformanceSummary:
    """Parse the last performance summary in ``text`` (a whole trtexec log is fine)."""
    rows: dict[str, dict[str, float]] = {}
    scalars: dict[str, float] = {}
    warnings: list[str] = []
    section: str | None = None
    layout = "modern"
    in_summary = False
    for raw in text.splitlines():
        tagged_warning = "[W]" in raw
        line = _PREFIX.sub("", raw).strip()
        if "=== Performance summary ===" in line:
            rows, scalars, warnings, in_summary = {}, {}, [], True
            continue
        if line.startswith("==="):
            in_summary = False
        modern = _MODERN.match(line)
        if modern:
            stats = {}
            for label, pct, value in ((m.group(1), m.group(2), m.group(3))
                                      for m in _STAT.finditer(modern.group(2))):
                key = _stat_key(label.split("(")[0], pct)
                if key:
                    stats[key] = float(value)
            rows[_metric(modern.group(1))] = stats
            continue
        for key, pattern in _SCALARS.values():
            hit = pattern.match(line)
            if hit:
                scalars[key] = float(hit.group(1))
        if re.fullmatch(r"(Host Latency|Enqueue Time|GPU Compute|H2D Latency|D2H Latency)", line):
            section, layout = _metric(line), "pre-8"
            continue
        old = _OLD_STAT.match(line)
        if old and section:
            key = _stat_key(old.group(1), old.group(3))
            if key:
                rows.setdefault(section, {})[key] = float(old.group(2))
                if old.group(4) is not None:
                    rows.setdefault("end_to_end", {})[key] = float(old.group(4))
            continue
        if in_summary and tagged_warning and line:
            warnings.append(line)
    if not rows:
        raise ValueError("no trtexec performance summary found (looked for 'Latency: min = ...' "
                         "lines and the pre-8.0 'min: X ms' layout)")
    return PerformanceSummary(_table(rows), scalars, warnings, layout)


def summary_from_metadata(meta: dict[str, Any]) -> PerformanceSummary:
    """The ``performance_summary`` object of a ``*.metadata.json`` (unlabelled lists)."""
    perf = meta.get("performance_summary") if isinstance(meta, dict) else None
    if not isinstance(perf, dict):
        raise ValueError("metadata has no 'performance_summary' object")
    order = {5: ("min_ms", "max_ms", "mean_ms", "median_ms", "p99_ms"),
             7: STAT_COLUMNS, 4: ("min_ms", "max_ms", "mean_ms", "median_ms")}
    rows, scalars = {}, {}
    for name, value in perf.items():
        if isinstance(value, list):
            if len(value) not in order:
                raise ValueError(f"performance_summary[{name!r}] has {len(value)} values; "
                                 "expected 4, 5 or 7 in trtexec's print order")
            numbers = [_number(name, item) for item in value]
            rows[_metric(name)] = dict(zip(order[len(value)], numbers, strict=True))
        elif name == "Throughput":
            scalars["throughput_qps"] = _number(name, value)
        elif name == "Total Host Walltime":
            scalars["total_host_walltime_s"] = _number(name, value)
        elif name == "Total GPU Compute Time":
            scalars["total_gpu_compute_time_s"] = _number(name, value)
    return PerformanceSummary(_table(rows), scalars, [], "metadata")


def _number(name: str, value: Any) -> float:
    """A metadata value as a float; ValueError naming the field when it is not a number."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise ValueError(f"performance_summary[{name!r}] holds {value!r}, not a number")


def _table(rows: dict[str, dict[str, float]]) -> pd.DataFrame:
    table = pd.DataFrame([{"metric": m, **s} for m, s in rows.items()],
                         columns=["metric", *STAT_COLUMNS])
    return table.astype(dict.fromkeys(STAT_COLUMNS, float))
