"""benchmarks/fuzz_long_run.py confirms a superlinear candidate by the work per character at
16x/64x/256x; its first rule (second differences) flagged two linear inputs of the third run
(benchmarks/results/fuzz_long_run_20261201_summary.md)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
from linear_work import WorkCounter

REPO = Path(__file__).resolve().parents[1]
RUN = REPO / "benchmarks" / "results" / "fuzz_long_run_20261201T1710Z_seed17.json"


@pytest.fixture(scope="module")
def fuzz() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "fuzz_long_run", REPO / "benchmarks" / "fuzz_long_run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_long_run"] = module
    spec.loader.exec_module(module)
    return module


def test_the_two_inputs_flagged_by_the_old_rule_are_linear(fuzz: ModuleType) -> None:
    flagged = json.loads(RUN.read_text())["examples"]["superlinear"]
    assert len(flagged) == 2
    counter = WorkCounter()
    with counter.installed():
        for hex_input in flagged:
            data = bytes.fromhex(hex_input)
            assert not fuzz.confirmed_superlinear(lambda d: fuzz.work(counter, d), data)


def test_the_rule_tells_quadratic_from_linear_work(fuzz: ModuleType) -> None:
    data = b"short\n" + b"x" * 100 + b"\n"
    assert fuzz.confirmed_superlinear(lambda d: len(d) ** 2 // 1000, data)  # quadratic
    assert not fuzz.confirmed_superlinear(lambda d: 30 * len(d) + 5000, data)  # linear + fixed
    per_char = {1600: 35, 6400: 23, 25600: 28}  # a cheaper middle scale, like the flagged two

    def cheap_middle(d: bytes) -> int:
        return per_char[len(d)] * len(d)

    assert fuzz.work_per_char(cheap_middle, data) == [35.0, 23.0, 28.0]
    assert not fuzz.confirmed_superlinear(cheap_middle, data)
