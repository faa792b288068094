"""Statistics of per-iteration times, and honest comparisons between runs (numpy only).

:func:`latency_summary` gives one run's row (keys in :data:`SUMMARY_KEYS`, milliseconds):
``n``, ``min_ms``, ``median_ms``, ``mean_ms``, ``p90_ms``, ``p95_ms``, ``p99_ms``, ``max_ms``,
``std_ms`` and ``throughput_qps``.
:func:`speedup_ci` bootstraps a confidence interval for the ratio of medians, and
:func:`mann_whitney` tests whether two runs' samples come from the same distribution.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

SUMMARY_KEYS = ("n", "min_ms", "median_ms", "mean_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms",
                "std_ms", "throughput_qps")


def _samples(values: Sequence[float] | np.ndarray, what: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{what}: need a non-empty 1-D list of finite times, got {arr.shape}")
    return arr


def latency_summary(times_ms: Sequence[float] | np.ndarray, *, span_ms: float | None = None
              ) -> dict[str, float]:
    """One run's statistics. ``throughput_qps`` is n / ``span_ms`` (first start to last end of
    the timed loop) when given, else 1000 / mean (back-to-back iterations)."""
    x = _samples(times_ms, "latency_summary")
    p90, p95, p99 = np.percentile(x, [90, 95, 99])
    mean = float(x.mean())
    throughput = (x.size / span_ms * 1e3) if span_ms and span_ms > 0 else 1e3 / mean
    return {"n": int(x.size), "min_ms": float(x.min()), "median_ms": float(np.median(x)),
            "mean_ms": mean, "p90_ms": float(p90), "p95_ms": float(p95), "p99_ms": float(p99),
            "max_ms": float(x.max()), "std_ms": float(x.std(ddof=1)) if x.size > 1 else 0.0,
            "throughput_qps": float(throughput)}


@dataclass(frozen=True)
class Speedup:
    """Baseline median / other median, with a bootstrap percentile CI at ``level``."""

    speedup: float
    ci_low: float
    ci_high: float
    level: float
    resamples: int


def speedup_ci(baseline_ms: Sequence[float] | np.ndarray, other_ms: Sequence[float] | np.ndarray,
               *, level: float = 0.95, resamples: int = 2000, seed: int = 0) -> Speedup:
    """Speedup of ``other`` over ``baseline`` (ratio of medians; >1 means other is faster), with
    a percentile bootstrap CI: both samples are resampled independently ``resamples`` times.
    The seed is fixed so the same data always gives the same interval."""
    base, other = _samples(baseline_ms, "baseline"), _samples(other_ms, "other")
    rng = np.random.default_rng(seed)
    base_meds = np.median(rng.choice(base, (resamples, base.size)), axis=1)
    other_meds = np.median(rng.choice(other, (resamples, other.size)), axis=1)
    ratios = base_meds / other_meds
    alpha = (1 - level) / 2
    low, high = np.quantile(ratios, [alpha, 1 - alpha])
    return Speedup(float(np.median(base) / np.median(other)), float(low), float(high), level,
                   resamples)


@dataclass(frozen=True)
class TestResult:
    """Mann-Whitney U test (two-sided, normal approximation with tie correction)."""

    u: float
    z: float
    p_value: float
    effect: float  # probability that a random baseline time exceeds a random other time

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha


def _ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks (1-based) and the sizes of tie groups."""
    order = np.argsort(values, kind="mergesort")
    sorted_vals = values[order]
    _, starts, counts = np.unique(sorted_vals, return_index=True, return_counts=True)
    avg = starts + (counts + 1) / 2.0
    ranks = np.empty(values.size)
    ranks[order] = np.repeat(avg, counts)
    return ranks, counts


def mann_whitney(baseline_ms: Sequence[float] | np.ndarray, other_ms: Sequence[float] | np.ndarray
                 ) -> TestResult:
    """Is the difference between two runs real? Two-sided Mann-Whitney U (no scipy needed).

    The normal approximation is good for the tens to thousands of iterations a profile has;
    with fewer than 8 samples on a side p is approximate.
    """
    a, b = _samples(baseline_ms, "baseline"), _samples(other_ms, "other")
    n1, n2 = a.size, b.size
    ranks, ties = _ranks(np.concatenate([a, b]))
    u1 = ranks[:n1].sum() - n1 * (n1 + 1) / 2
    mu = n1 * n2 / 2
    n = n1 + n2
    tie_term = float((ties**3 - ties).sum()) / (n * (n - 1)) if n > 1 else 0.0
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term))
    if sigma == 0:
        return TestResult(float(u1), 0.0, 1.0, 0.5)
    z = (u1 - mu - math.copysign(0.5, u1 - mu)) / sigma if u1 != mu else 0.0
    p = math.erfc(abs(z) / math.sqrt(2))
    return TestResult(float(u1), float(z), float(min(1.0, p)), float(u1 / (n1 * n2)))
