"""Statistics of per-iteration times, and comparisons a reviewer accepts (scipy.stats).

:func:`latency_summary` gives one run's row (keys in :data:`SUMMARY_KEYS`, milliseconds):
``n``, ``min_ms``, ``median_ms``, ``mean_ms``, ``p90_ms``, ``p95_ms``, ``p99_ms``, ``max_ms``,
``std_ms`` and ``throughput_qps``; percentiles use numpy's default (linear) interpolation, which
is what trtexec's printed summary matches (tested on the corpus).

:func:`speedup_ci` is the ratio of medians with a bootstrap confidence interval. Iteration times
are a time series: clock boosts, thermal drift and other work make neighbouring iterations alike,
and an i.i.d. bootstrap then gives intervals that are too narrow. So each sample's lag-1
autocorrelation is tested first (:func:`lag1_autocorrelation`: significant when
``|r1| > 2 / sqrt(n)``). When neither sample is autocorrelated, ``scipy.stats.bootstrap``
(two independent samples, percentile interval) is used; otherwise a moving-block bootstrap
(Künsch 1989) with block length ``ceil(n ** (1/3))`` per sample (the usual rate for distribution
quantiles; Hall, Horowitz & Jing 1995) resamples whole blocks, keeping the dependence inside them.
The method used is recorded in :class:`Speedup`.

:func:`mann_whitney` is ``scipy.stats.mannwhitneyu`` (two-sided; exact p-values for small samples
without ties, the normal approximation with tie correction otherwise).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

SUMMARY_KEYS = ("n", "min_ms", "median_ms", "mean_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms",
                "std_ms", "throughput_qps")
IID = "iid bootstrap (scipy.stats.bootstrap, percentile)"
BLOCK = "moving-block bootstrap"


def _samples(values: Sequence[float] | np.ndarray, what: str) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{what}: need a non-empty 1-D list of finite times, got {arr.shape}")
    return arr


def latency_summary(times_ms: Sequence[float] | np.ndarray, *, span_ms: float | None = None,
              passes_per_sample: int = 1) -> dict[str, float]:
    """One run's statistics. ``throughput_qps`` is forward passes / ``span_ms`` (first start to
    last end of the timed loop) when given, else 1000 / mean (back-to-back iterations).
    ``passes_per_sample``: forward passes behind each sample (batched timing)."""
    x = _samples(times_ms, "latency_summary")
    p90, p95, p99 = np.percentile(x, [90, 95, 99])
    mean = float(x.mean())
    passes = x.size * passes_per_sample
    throughput = (passes / span_ms * 1e3) if span_ms and span_ms > 0 else 1e3 / mean
    return {"n": int(x.size), "min_ms": float(x.min()), "median_ms": float(np.median(x)),
            "mean_ms": mean, "p90_ms": float(p90), "p95_ms": float(p95), "p99_ms": float(p99),
            "max_ms": float(x.max()), "std_ms": float(x.std(ddof=1)) if x.size > 1 else 0.0,
            "throughput_qps": float(throughput)}


def lag1_autocorrelation(values: Sequence[float] | np.ndarray) -> float:
    """Lag-1 sample autocorrelation of a series (0.0 for fewer than 3 values or no spread)."""
    x = _samples(values, "lag1_autocorrelation")
    if x.size < 3:
        return 0.0
    d = x - x.mean()
    denom = float(d @ d)
    return float(d[:-1] @ d[1:]) / denom if denom > 0 else 0.0


def is_autocorrelated(values: Sequence[float] | np.ndarray) -> bool:
    """True when ``|r1| > 2 / sqrt(n)`` (outside the approximate 95% band of white noise)."""
    x = _samples(values, "is_autocorrelated")
    return x.size >= 3 and abs(lag1_autocorrelation(x)) > 2 / math.sqrt(x.size)


def block_length(n: int) -> int:
    """The moving-block bootstrap's block length for ``n`` samples: ``ceil(n ** (1/3))``."""
    return max(1, math.ceil(n ** (1 / 3)))


@dataclass(frozen=True)
class Speedup:
    """Baseline median / other median, with a bootstrap CI at ``level``; ``method`` says which
    bootstrap, ``blocks`` the block lengths used for (baseline, other) (1 = i.i.d.)."""

    speedup: float
    ci_low: float
    ci_high: float
    level: float
    resamples: int
    method: str = IID
    blocks: tuple[int, int] = (1, 1)


def moving_block_medians(x: np.ndarray, block: int, resamples: int,
                         rng: np.random.Generator) -> np.ndarray:
    """Medians of ``resamples`` moving-block bootstrap resamples of the series ``x``."""
    n = x.size
    block = min(block, n)
    per = math.ceil(n / block)
    starts = rng.integers(0, n - block + 1, size=(resamples, per))
    index = (starts[:, :, None] + np.arange(block)).reshape(resamples, per * block)[:, :n]
    return np.median(x[index], axis=1)


def _rng_kw() -> str:
    params = inspect.signature(sps.bootstrap).parameters
    return "rng" if "rng" in params else "random_state"


def speedup_ci(baseline_ms: Sequence[float] | np.ndarray, other_ms: Sequence[float] | np.ndarray,
               *, level: float = 0.95, resamples: int = 2000, seed: int = 0) -> Speedup:
    """Speedup of ``other`` over ``baseline`` (ratio of medians; >1 means other is faster) with a
    bootstrap CI (see the module docstring for which one). The seed is fixed so the same data
    always gives the same interval."""
    base, other = _samples(baseline_ms, "baseline"), _samples(other_ms, "other")
    point = float(np.median(base) / np.median(other))
    rng = np.random.default_rng(seed)
    if not (is_autocorrelated(base) or is_autocorrelated(other)):
        def ratio(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
            return np.asarray(np.median(a, axis=axis) / np.median(b, axis=axis))

        res = sps.bootstrap((base, other), ratio, n_resamples=resamples, vectorized=True,
                            paired=False, confidence_level=level, method="percentile",
                            **{_rng_kw(): rng})
        low, high = res.confidence_interval
        return Speedup(point, float(low), float(high), level, resamples)
    blocks = (block_length(base.size), block_length(other.size))
    ratios = (moving_block_medians(base, blocks[0], resamples, rng)
              / moving_block_medians(other, blocks[1], resamples, rng))
    alpha = (1 - level) / 2
    low, high = np.quantile(ratios, [alpha, 1 - alpha])
    return Speedup(point, float(low), float(high), level, resamples, BLOCK, blocks)


@dataclass(frozen=True)
class TestResult:
    """Two-sided Mann-Whitney U test (``scipy.stats.mannwhitneyu``); ``u`` is the baseline's U,
    ``effect`` = U / (n1 n2): the probability that a baseline time exceeds an other time."""

    u: float
    p_value: float
    effect: float
    method: str

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha


def mann_whitney(baseline_ms: Sequence[float] | np.ndarray, other_ms: Sequence[float] | np.ndarray
                 ) -> TestResult:
    """Is the difference between two runs real? ``method`` "auto": exact for small samples
    without ties, else asymptotic with tie and continuity correction. Assumes independent
    samples: :func:`~trtsafe_lab.profile.compare.compare_runs` also requires the CI to exclude 1
    when the times are autocorrelated."""
    a, b = _samples(baseline_ms, "baseline"), _samples(other_ms, "other")
    if np.ptp(np.concatenate([a, b])) == 0:  # all equal: no evidence of a difference
        return TestResult(a.size * b.size / 2, 1.0, 0.5, "all values equal")
    res = sps.mannwhitneyu(a, b, alternative="two-sided", method="auto")
    exact = min(a.size, b.size) <= 8 and np.unique(np.concatenate([a, b])).size == a.size + b.size
    return TestResult(float(res.statistic), float(res.pvalue),
                      float(res.statistic) / (a.size * b.size),
                      "exact" if exact else "asymptotic")
