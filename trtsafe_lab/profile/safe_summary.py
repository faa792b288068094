"""Read what trtexec_safe prints: its per-iteration lines and its performance summary.

The format is NVIDIA's ``samples/trtSafeExec/trtSafeExec.cpp`` (10.16 and 11.1), every line
prefixed by ``[MM/DD/YYYY-HH:MM:SS] [I] `` (``safeCommon.h`` ``getTimestampStr``), numbers as a
C++ stream prints a float (6 significant digits, ``1.5e-05``, ``inf``):

- per iteration: ``Average over N runs - GPU latency: G ms - Host latency: H ms (enqueue E ms)``
  (each iteration is the mean of ``--avgRuns`` inferences; with ``--avgRuns=1`` one inference);
- ``=== Performance summary ===``, ``Total throughput: Q qps``, then ``Host Time``,
  ``Enqueue Time`` and ``GPU Compute Time`` (two spaces before ``min``), each ``min = .. ms,
  max = .. ms, mean = .. ms, median = .. ms, percentile(P%) = .. ms``; a ``[W] * GPU compute
  time is unstable, with coefficient of variance = C%.`` warning;
- ``&&&& PASSED|FAILED TensorRT.trtexec_safe ...``: the outcome. trtexec_safe's ``main`` returns
  0 even when it FAILED, so the banner, not the exit code, says whether it worked.

There is no ``--exportTimes`` in trtexec_safe: these lines are all the timing it gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

from trtsafe_lab.profile.summary import STAT_COLUMNS, PerformanceSummary

_NUM = r"([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan)"
_PREFIX = re.compile(r"^(?:\[[^\]]*\]\s*)*")
_AVERAGE = re.compile(rf"^Average over (\d+) runs - GPU latency: {_NUM} ms - Host latency: {_NUM} "
                      rf"ms \(enqueue {_NUM} ms\)$")
_THROUGHPUT = re.compile(rf"^Total throughput: {_NUM} qps$")
_STATS = re.compile(rf"^(Host Time|Enqueue Time|GPU Compute Time):  ?min = {_NUM} ms, "
                    rf"max = {_NUM} ms, mean = {_NUM} ms, median = {_NUM} ms, "
                    rf"percentile\({_NUM}%\) = {_NUM} ms$")
_UNSTABLE = re.compile(r"^\* GPU compute time is unstable, with coefficient of variance = "
                       rf"{_NUM}%\.$")
_BANNER = re.compile(r"^&&&& (PASSED|FAILED) TensorRT\.trtexec_safe ")
METRICS = {"Host Time": "host_time", "Enqueue Time": "enqueue_time",
           "GPU Compute Time": "gpu_compute_time"}
ITERATION_COLUMNS = ("compute_ms", "latency_ms", "enqueue_ms")


@dataclass
class SafeRunLog:
    """What one trtexec_safe log says.

    ``summary``: the performance summary as :class:`PerformanceSummary` (metrics host_time,
    enqueue_time, gpu_compute_time; the printed percentile goes to ``p90_ms``/``p95_ms``/
    ``p99_ms`` when it is 90/95/99, else into ``extra_percentile``); None when it printed none.
    ``iterations``: one row per ``Average over N runs`` line: ``compute_ms`` (GPU latency),
    ``latency_ms`` (host latency), ``enqueue_ms``; ``avg_runs``: N (inferences per row).
    ``outcome``: ``PASSED``/``FAILED`` from the banner, None without one; ``unstable_cv_pct``:
    the coefficient of variance of the unstable-time warning.
    """

    summary: PerformanceSummary | None
    iterations: pd.DataFrame
    avg_runs: int | None
    outcome: str | None
    percentile: float | None = None
    extra_percentile: dict[str, float] = field(default_factory=dict)
    unstable_cv_pct: float | None = None


def _f(text: str) -> float:
    return float(text)  # Python reads C++'s 1.5e-05, inf and nan alike


def parse_safe_log(text: str) -> SafeRunLog:
    """Parse a trtexec_safe log (the last summary wins; iteration lines before it count)."""
    rows: list[tuple[float, float, float]] = []
    avg_runs: set[int] = set()
    stats: dict[str, dict[str, float]] = {}
    scalars: dict[str, float] = {}
    warnings: list[str] = []
    outcome = None
    percentile = None
    extra: dict[str, float] = {}
    unstable = None
    for raw in text.splitlines():
        line = _PREFIX.sub("", raw).rstrip()
        if not line:
            continue
        if banner := _BANNER.match(line):
            outcome = banner[1]
            continue
        if avg := _AVERAGE.match(line):
            avg_runs.add(int(avg[1]))
            rows.append((_f(avg[2]), _f(avg[3]), _f(avg[4])))
            continue
        if line == "=== Performance summary ===":
            stats, scalars, warnings = {}, {}, []
            continue
        if hit := _THROUGHPUT.match(line):
            scalars["throughput_qps"] = _f(hit[1])
            continue
        if hit := _STATS.match(line):
            percentile = _f(hit[6])
            values = {"min_ms": _f(hit[2]), "max_ms": _f(hit[3]), "mean_ms": _f(hit[4]),
                      "median_ms": _f(hit[5])}
            column = {90.0: "p90_ms", 95.0: "p95_ms", 99.0: "p99_ms"}.get(percentile)
            if column:
                values[column] = _f(hit[7])
            else:
                extra[METRICS[hit[1]]] = _f(hit[7])
            stats[METRICS[hit[1]]] = values
            continue
        if hit := _UNSTABLE.match(line):
            unstable = _f(hit[1])
            warnings.append(line)
    summary = None
    if stats:
        table = pd.DataFrame([{"metric": m, **s} for m, s in stats.items()],
                             columns=["metric", *STAT_COLUMNS]).astype(
                                 dict.fromkeys(STAT_COLUMNS, float))
        summary = PerformanceSummary(table, scalars, warnings, "trtexec_safe")
    if len(avg_runs) > 1:
        raise ValueError(f"the log mixes 'Average over N runs' lines of N = {sorted(avg_runs)}; "
                         "is it the log of more than one trtexec_safe run?")
    iterations = pd.DataFrame(rows, columns=list(ITERATION_COLUMNS)).astype(float)
    return SafeRunLog(summary, iterations, next(iter(avg_runs), None), outcome, percentile,
                      extra, unstable)
