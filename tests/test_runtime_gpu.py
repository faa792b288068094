"""The safety runner over the reference CUDA workload on a real GPU (marker gpu; skipped here).

Run on the H200 with benchmarks/runtime_gpu_check.py, which records the result under
benchmarks/results/. The injected error is an invalid kernel launch (2048 threads per block),
a real CUDA_ERROR_INVALID_VALUE that is not sticky, so the test can check after containment that
every stream is gone and the context still works (see trtsafe_lab/runtime/cuda_faults.py for why
a sticky error such as an illegal address is not used in-process).
"""

from __future__ import annotations

import threading

import pytest

from trtsafe_lab.runtime import Category, SafetyRunner, StagePlan, Status
from trtsafe_lab.runtime.pipeline import gpu_pipeline, run_pipeline
from trtsafe_lab.runtime.spec import InitSpec

pytestmark = pytest.mark.gpu

STREAMS_PER_PIPELINE = 4  # one shared main stream, 2 aux for prefill, 1 aux for decode


def test_pipeline_runs_on_the_gpu_and_releases_every_stream() -> None:
    run = run_pipeline(gpu_pipeline(0), decode_steps=3, violations=True)
    categories = [s.category for s in run.statuses]
    assert categories.count(Category.INVALID_STATE) == 1  # run_stage before prepare
    assert categories.count(Category.SEALED) == 1  # complete_context after the seal
    assert all(s.ok for s in run.statuses if s.category not in (Category.INVALID_STATE,
                                                                  Category.SEALED))
    assert run.runner.fatal_status is None
    assert run.output == run.expected  # prompt -> prefill.x -> y == decode.x (alias) -> y
    ledger = run.runner.ledger
    assert ledger.live("stream") == [] and ledger.live("buffer") == []
    assert len(ledger.destroyed("stream")) == STREAMS_PER_PIPELINE


def test_workload_results_are_right_when_run_by_the_runner() -> None:
    from trtsafe_lab.profile.reference import WorkloadSpec, expected_outputs
    from trtsafe_lab.runtime.cuda_backend import CudaBackend, ReferenceWorkloadExecutor

    spec = WorkloadSpec(branches=4, depth=4, iters=256)
    executor = ReferenceWorkloadExecutor(spec, aux_streams=3)
    with SafetyRunner(CudaBackend(0)) as runner:
        assert runner.initialize(InitSpec({"w": executor}, (StagePlan("prefill", 0, "w"),),
                                          {"w": 0})).ok
        assert runner.complete_context("prefill", 0, {}).ok
        assert runner.prepare(warmup=2).ok
        assert runner.run_stage("prefill", 0, {}).ok
        got = executor.workload.outputs()
        assert (got == expected_outputs(spec)).all()
        assert executor.executions == 3
    assert runner.ledger.live("stream") == [] and len(runner.ledger.destroyed("stream")) == 4


def test_injected_cuda_error_ends_in_fatal_containment_without_leaks() -> None:
    from trtsafe_lab.runtime.cuda_backend import CudaBackend

    # decode executions: 1 = warm-up, 2 = first decode, 3 = second decode -> invalid launch
    run = run_pipeline(gpu_pipeline(0, fail_on_decode_call=3), decode_steps=3)
    runner = run.runner
    fatal = runner.fatal_status
    assert fatal is not None and fatal.fatal and fatal.category is Category.CUDA_ERROR
    # The driver's answer to 2048 threads per block (expected CUDA_ERROR_INVALID_VALUE; the
    # exact name is recorded by benchmarks/runtime_gpu_check.py rather than assumed here).
    assert "cuLaunchKernel failed with CUDA_ERROR_" in fatal.diagnostic
    assert "injected invalid launch" in fatal.diagnostic and fatal.call == "run_stage"
    outcomes = runner.trace_table()["outcome"].tolist()
    assert outcomes[-4:] == ["fatal", "contained", "ok", "ok"]  # decode 2, 3, deinit x2
    assert run.statuses[-3] is fatal  # the third decode was refused with the kept status
    assert run.output == run.expected  # from the decode that ran before the fault
    ledger = runner.ledger
    assert ledger.live("stream") == [] and ledger.live("buffer") == []
    assert len(ledger.destroyed("stream")) == STREAMS_PER_PIPELINE
    # Not sticky: the same context still creates, syncs and destroys streams, and runs again.
    backend = CudaBackend(0)
    handle = backend.create_stream()
    backend.synchronize(handle)
    backend.destroy_stream(handle)
    again = run_pipeline(gpu_pipeline(0), decode_steps=1)
    assert again.runner.fatal_status is None and again.output == again.expected


def test_second_request_is_refused_while_one_runs_on_the_gpu() -> None:
    pipeline = gpu_pipeline(0)
    with SafetyRunner(pipeline.backend) as runner:
        runner.initialize(pipeline.spec)
        for (stage, slot), resources in pipeline.resources.items():
            runner.complete_context(stage, slot, resources)
        assert runner.prepare().ok
        other: list[Status] = []

        def from_another_thread(inputs: object, stream: int) -> None:
            worker = threading.Thread(target=lambda: other.append(
                runner.run_stage("decode", 0, {})))
            worker.start()
            worker.join(timeout=30)

        assert runner.run_stage("prefill", 0, {}, prepare=from_another_thread).ok
        assert other[0].category is Category.REQUEST_ACTIVE and not other[0].fatal
        assert runner.run_stage("decode", 0, {}).ok  # once the first is done, it is accepted


def test_every_stream_is_live_until_deinitialize_and_released_after() -> None:
    """CUDA keeps no count of live streams, so the backend's own registry and the ledger are
    checked, and each handle is queried while it is live. A destroyed handle is not queried:
    that is undefined behaviour, and on the H200 it crashed the process (segmentation fault in
    cudaStreamQuery; benchmarks/results/runtime_gpu_pytest_h200_run1.log)."""
    pipeline = gpu_pipeline(0)
    backend = pipeline.backend
    runner = SafetyRunner(backend)
    assert runner.initialize(pipeline.spec).ok
    handles = runner.ledger.live("stream")
    assert len(handles) == STREAMS_PER_PIPELINE and 0 not in handles
    assert sorted(backend.held_streams()) == sorted(handles)  # type: ignore[attr-defined]
    assert all(backend.stream_is_live(h) for h in handles)  # type: ignore[attr-defined]
    assert runner.deinitialize_graphs().ok and runner.deinitialize_resources().ok
    assert backend.held_streams() == []  # type: ignore[attr-defined]
    assert sorted(runner.ledger.destroyed("stream")) == sorted(handles)
