"""The exact-rate confidence intervals benchmarks/failure_accuracy.py adds to every split."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "failure_accuracy.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("failure_accuracy_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_clopper_pearson_bounds_at_the_edges_and_inside() -> None:
    figures = {"none": {"cases": 10, "exact": 0}, "all": {"cases": 10, "exact": 10},
               "some": {"cases": 246, "exact": 219}, "empty": {"cases": 0, "exact": 0}}
    _script().add_exact_intervals(figures)
    # Clopper-Pearson at k = 0 / k = n has the closed form 1 - (alpha/2) ** (1/n)
    assert figures["none"]["exact_ci95"] == [0.0, pytest.approx(1 - 0.025 ** 0.1, abs=1e-4)]
    assert figures["all"]["exact_ci95"] == [pytest.approx(0.025 ** 0.1, abs=1e-4), 1.0]
    low, high = figures["some"]["exact_ci95"]
    assert low < 219 / 246 < high and high - low < 0.1
    assert figures["empty"]["exact_ci95"] == [0.0, 1.0]
