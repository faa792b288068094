"""The runner's steps against the real nvinfer2::safe calls of NVIDIA's safety samples.

The call table (trtsafe_lab/runtime/safe_api_calls.py) is derived from
``../shared/reference/tensorrt-oss/{10.16,11.1}`` (trtSafeExec.cpp, sampleSafeMNISTInfer.cpp,
safeCommon.h); these tests re-derive it (drift), check that every real call maps to a runner
step, that each sample function calls them in the order the runner enforces, and that the
runner's trace names the real calls.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import corpus_root

from trtsafe_lab.runtime.pipeline import cpu_pipeline, run_pipeline
from trtsafe_lab.runtime.safe_api import (
    STEPS_OF,
    real_call_sequence,
    real_calls_of,
    runner_steps_table,
    steps_in_order,
)
from trtsafe_lab.runtime.safe_api_calls import SAFE_API_CALLS
from trtsafe_lab.runtime.safe_api_source import HELPER, SOURCES, derive, extract, render
from trtsafe_lab.runtime.states import CALLS

OSS = corpus_root().parent / "reference" / "tensorrt-oss"


@pytest.fixture(scope="module")
def derived() -> list[tuple[str, str, int, str, str, str]]:
    pytest.importorskip("tree_sitter_cpp")
    if not (OSS / "11.1" / "samples").is_dir():
        pytest.fail(f"NVIDIA sources not found at {OSS}; ../shared must be beside the repo")
    return derive(OSS)


def test_committed_call_table_matches_the_sources(derived: list) -> None:
    assert derived == list(SAFE_API_CALLS), (
        "the safety samples and trtsafe_lab/runtime/safe_api_calls.py differ; regenerate with "
        "python -c 'from trtsafe_lab.runtime.safe_api_source import main; main()'"
    )
    target = Path(__file__).parents[1] / "trtsafe_lab" / "runtime" / "safe_api_calls.py"
    assert render(derived) == target.read_text()


def test_drift_is_detected_when_a_call_is_removed_from_a_copy() -> None:
    pytest.importorskip("tree_sitter_cpp")
    sources = {s: (OSS / "11.1" / s).read_bytes() for s in SOURCES}
    before = extract(sources, "11.1")
    common = "samples/common/safeCommon.h"
    sources[common] = sources[common].replace(b"graph.setAuxStreams(", b"graph.other(")
    after = extract(sources, "11.1")
    assert {r[4] for r in before} - {r[4] for r in after} == {"ITRTGraph::setAuxStreams"}


def test_every_real_call_maps_to_runner_steps() -> None:
    calls = {r[4] for r in SAFE_API_CALLS if not r[4].startswith(HELPER)}
    assert calls <= set(STEPS_OF), sorted(calls - set(STEPS_OF))
    assert all(set(steps) <= set(CALLS) for steps in STEPS_OF.values())
    for name in ("createTRTGraph", "destroyTRTGraph"):
        assert f"nvinfer2::safe::{name}" in calls
    for name in ("executeAsync", "sync", "clone", "setIOTensorAddress", "setInputConsumedEvent"):
        assert f"ITRTGraph::{name}" in calls


@pytest.mark.parametrize("version", ["10.16", "11.1"])
def test_each_sample_function_follows_the_runner_order(version: str) -> None:
    functions: dict[tuple[str, str], list[str]] = {}
    for row in SAFE_API_CALLS:
        if row[0] == version and not row[4].startswith(HELPER):
            functions.setdefault((row[1], row[3]), []).append(row[4])
    assert len(functions) > 5
    for key, calls in functions.items():
        assert steps_in_order(calls) is not None, (key, calls)


def test_order_check_rejects_a_sequence_the_runner_refuses() -> None:
    assert steps_in_order(["nvinfer2::safe::createTRTGraph", "ITRTGraph::executeAsync"])
    assert steps_in_order(["nvinfer2::safe::destroyTRTGraph", "ITRTGraph::executeAsync"]) is None
    assert steps_in_order(["ITRTGraph::executeAsync", "ITRTGraph::setAuxStreams"]) is None


@pytest.mark.parametrize("sample", ["trtSafeExec", "sampleSafeMNIST"])
def test_aux_streams_as_the_11_1_samples_set_them_up(sample: str) -> None:
    seq = list(real_call_sequence(sample, "11.1").itertuples(index=False))
    calls = [r.call for r in seq]
    nb, set_aux = calls.index("ITRTGraph::getNbAuxStreams"), calls.index("ITRTGraph::setAuxStreams")
    first_execute = calls.index("ITRTGraph::executeAsync")
    assert nb < calls.index("cudaStreamCreateWithFlags", nb) < set_aux < first_execute
    assert seq[set_aux].arguments == "streams.data(), nbAuxStreams"
    last_sync = max(i for i, c in enumerate(calls) if c == "ITRTGraph::sync")
    aux_destroy = [i for i, r in enumerate(seq) if r.function == "setUpAuxStreamsOn [lambda]"]
    assert aux_destroy and min(aux_destroy) > last_sync  # destroyed after the final sync
    assert calls[0] in ("nvinfer2::safe::getSafePluginRegistry", "nvinfer2::safe::createTRTGraph")
    assert calls[-1] == "nvinfer2::safe::destroyTRTGraph"


def test_10_16_samples_register_no_aux_streams() -> None:
    # what the migration checker's aux-streams-unregistered finding says about 10.16
    calls = set(real_call_sequence("trtSafeExec", "10.16")["call"])
    assert "ITRTGraph::executeAsync" in calls and "ITRTGraph::setAuxStreams" not in calls


def test_runner_steps_name_their_real_calls() -> None:
    table = runner_steps_table()
    assert list(table["step"]) == list(CALLS)
    init = real_calls_of("initialize")
    assert (
        init.index("createTRTGraph") < init.index("getNbAuxStreams") < init.index("setAuxStreams")
    )
    assert {"executeAsync", "sync"} <= set(real_calls_of("prepare"))
    assert "createTRTGraph" not in real_calls_of("prepare")
    assert "destroyTRTGraph" in real_calls_of("deinitialize_graphs")
    assert real_calls_of("deinitialize_resources")[-1] == "cudaStreamDestroy"


def test_runner_trace_shows_the_real_calls_next_to_each_step() -> None:
    run = run_pipeline(cpu_pipeline(), violations=True)
    trace = run.runner.trace_table()
    ok = trace[trace["outcome"] == "ok"]
    first = ok.groupby("call")["real_calls"].first()
    assert "createTRTGraph" in first["initialize"] and "setAuxStreams" in first["initialize"]
    assert {"executeAsync", "sync"} <= set(first["run_stage"].split(", "))
    assert "destroyTRTGraph" in first["deinitialize_graphs"]
    refused = trace[trace["outcome"] == "refused"]
    assert len(refused) and (refused["real_calls"] == "").all()
