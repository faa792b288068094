"""Statistics against scipy: Mann-Whitney (exact / asymptotic), bootstrap, block bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from trtsafe_lab.profile.stats import (
    BLOCK,
    IID,
    block_length,
    is_autocorrelated,
    lag1_autocorrelation,
    mann_whitney,
    moving_block_medians,
    speedup_ci,
)


def ar1(n: int, phi: float, seed: int, level: float = 1.0) -> np.ndarray:
    """An AR(1) series around ``level`` (autocorrelated iteration times, e.g. clock drift)."""
    rng = np.random.default_rng(seed)
    x = np.empty(n)
    x[0] = rng.normal()
    for i in range(1, n):
        x[i] = phi * x[i - 1] + rng.normal()
    return level + 0.01 * x


def test_mann_whitney_small_samples_are_exact() -> None:
    a, b = [1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.5, 10.0]
    ours = mann_whitney(a, b)
    exact = sps.mannwhitneyu(a, b, alternative="two-sided", method="exact")
    assert ours.method == "exact" and ours.u == exact.statistic == 0
    assert ours.p_value == pytest.approx(exact.pvalue)  # 2/252: smaller than the normal approx.
    assert ours.p_value == pytest.approx(2 / 252)
    assert ours.effect == 0.0
    assert mann_whitney([1, 1, 1], [1, 1, 1]).p_value == 1.0


def test_mann_whitney_large_or_tied_samples_are_asymptotic() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.normal(1.0, 0.1, 300).round(2), rng.normal(1.02, 0.1, 250).round(2)  # ties
    ours = mann_whitney(a, b)
    ref = sps.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic")
    assert ours.method == "asymptotic"
    assert ours.p_value == pytest.approx(ref.pvalue) and ours.u == ref.statistic


def test_iid_speedup_ci_is_scipys_bootstrap() -> None:
    rng = np.random.default_rng(7)
    base, fast = rng.normal(2.0, 0.05, 400), rng.normal(1.0, 0.025, 400)
    s = speedup_ci(base, fast, resamples=999, seed=5)
    assert s.method == IID and s.blocks == (1, 1)
    ref = sps.bootstrap((base, fast), lambda a, b, axis=-1: np.median(a, axis=axis)
                        / np.median(b, axis=axis), n_resamples=999, paired=False,
                        vectorized=True, method="percentile", rng=np.random.default_rng(5))
    assert (s.ci_low, s.ci_high) == pytest.approx(tuple(ref.confidence_interval))
    assert s.ci_low < 2.0 < s.ci_high and s.ci_low < s.speedup < s.ci_high
    assert speedup_ci(base, fast, resamples=999, seed=5) == s  # reproducible


def test_autocorrelated_times_get_a_wider_block_bootstrap_interval() -> None:
    base, other = ar1(400, 0.9, 1, 2.0), ar1(400, 0.9, 2, 1.0)
    assert lag1_autocorrelation(base) > 0.8 and is_autocorrelated(base)
    assert not is_autocorrelated(np.random.default_rng(0).normal(size=400))
    s = speedup_ci(base, other)
    assert s.method == BLOCK and s.blocks == (block_length(400), block_length(400)) == (8, 8)
    iid = sps.bootstrap((base, other), lambda a, b, axis=-1: np.median(a, axis=axis)
                        / np.median(b, axis=axis), n_resamples=2000, paired=False,
                        vectorized=True, method="percentile", rng=np.random.default_rng(0))
    low, high = iid.confidence_interval
    assert s.ci_high - s.ci_low > 1.5 * (high - low)  # i.i.d. resampling is overconfident here


def test_moving_block_resamples_keep_blocks_of_the_series() -> None:
    x = np.arange(100, dtype=float)
    meds = moving_block_medians(x, 10, 50, np.random.default_rng(0))
    assert meds.shape == (50,) and meds.min() >= 0 and meds.max() <= 99
    # a series of length 100 in blocks of 100 is always the series itself
    assert np.all(moving_block_medians(x, 100, 5, np.random.default_rng(0)) == 49.5)


def test_throughput_counts_every_pass_of_a_batched_sample() -> None:
    from trtsafe_lab.profile.stats import latency_summary

    one = latency_summary([1.0] * 10, span_ms=10.0)
    batched = latency_summary([1.0] * 10, span_ms=100.0, passes_per_sample=10)
    assert one["throughput_qps"] == batched["throughput_qps"] == pytest.approx(1000.0)
