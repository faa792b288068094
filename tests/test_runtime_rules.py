"""The safety runner's rules, one by one, on the in-process CPU executor (a test double)."""

from __future__ import annotations

import threading

import pytest
from import_check import loaded_after
from runtime_helpers import operational_runner, resources_for, two_stage_spec

from trtsafe_lab.runtime import (
    AliasGroup,
    Category,
    DeviceError,
    InProcessBackend,
    InProcessExecutor,
    SafetyRunner,
    SafetyRuntimeError,
    StagePlan,
    State,
    Status,
    TensorDecl,
    raise_for_status,
)
from trtsafe_lab.runtime.backends import SealedError
from trtsafe_lab.runtime.status import DIAGNOSTIC_MAX_CHARS
from trtsafe_lab.runtime.trace import TRACE_COLUMNS


# -- status ---------------------------------------------------------------------------------------
def test_status_bounds_diagnostic_and_cuda_errors_are_always_fatal() -> None:
    status = Status(Category.CUDA_ERROR, "x" * 5000, call="run_stage")
    assert status.fatal and not status.ok
    assert len(status.diagnostic) == DIAGNOSTIC_MAX_CHARS and status.diagnostic.endswith("…")
    assert not Status(Category.INVALID_STATE, "no").fatal
    with pytest.raises(ValueError):
        Status(Category.OK, fatal=True)


def test_check_raises_for_notebooks() -> None:
    runner = SafetyRunner(InProcessBackend())
    with pytest.raises(SafetyRuntimeError) as info:
        raise_for_status(runner.prepare())
    assert info.value.status.category is Category.INVALID_STATE
    assert "prepare is not legal in state created" in str(info.value)


# -- initialize -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("changes", "needle"), [
    ({"stages": (StagePlan("prefill", 0, "pre"), StagePlan("decode", 0, "nope"))},
     "unknown executor 'nope'"),
    ({"stages": (StagePlan("prefill", 0, "pre"), StagePlan("prefill", 0, "dec"))},
     "prefill/0 is planned 2 times"),
    ({"io_aliases": (AliasGroup("h", (("pre", "hidden"), ("dec", "logits"))),)},
     "mismatched sizes (pre.hidden=16 B, dec.logits=4 B)"),
    ({"io_aliases": (AliasGroup("h", (("pre", "hidden"), ("dec", "kv_cache"))),)},
     "caller-owned resource"),
    ({"main_streams": {"pre": 0}}, "executor 'dec' has no main stream id"),
    ({"stages": (StagePlan("prefill", 0, "pre", profile=1), StagePlan("decode", 0, "dec"))},
     "asks for profile 1, but executor 'pre' has 1"),
])
def test_initialize_refuses_bad_specs_and_allocates_nothing(changes: dict, needle: str) -> None:
    runner = SafetyRunner(InProcessBackend())
    status = runner.initialize(two_stage_spec(**changes))
    assert status.category is Category.INVALID_SPEC and not status.fatal
    assert needle in status.diagnostic
    assert runner.state is State.CREATED
    assert runner.ledger.table().empty
    assert runner.initialize(two_stage_spec()).ok  # a refusal changes nothing: retry works


def test_initialize_refuses_a_cpu_executor_on_a_gpu_backend() -> None:
    gpu_labelled = InProcessBackend(on_gpu=True)  # claims GPU handles; the executors are CPU
    status = SafetyRunner(gpu_labelled).initialize(two_stage_spec())
    assert status.category is Category.INVALID_SPEC
    assert "needs the in-process CPU backend" in status.diagnostic


def test_initialize_allocates_binds_once_and_shares_aliased_buffers() -> None:
    spec = two_stage_spec()
    runner = SafetyRunner(InProcessBackend())
    assert runner.initialize(spec).ok
    pre, dec = spec.executors["pre"], spec.executors["dec"]
    assert isinstance(pre, InProcessExecutor) and isinstance(dec, InProcessExecutor)
    assert pre.bound["hidden"] is dec.bound["hidden"]  # one buffer for the alias group
    assert "kv_cache" not in dec.bound  # caller-owned, bound per context instead
    assert len(pre.aux_streams) == 2 and len(set(pre.aux_streams)) == 2
    # main streams 0 and 1, plus prefill's 2 aux; buffers: hidden, tokens, logits
    assert len(runner.ledger.live("stream")) == 4
    assert len(runner.ledger.live("buffer")) == 3
    assert runner.initialize(spec).category is Category.INVALID_STATE


# -- complete_context and prepare -----------------------------------------------------------------
def test_complete_context_rules() -> None:
    runner = SafetyRunner(InProcessBackend())
    runner.initialize(two_stage_spec())
    assert runner.complete_context("vision", 0, {}).category is Category.INVALID_ARGUMENT
    wrong = runner.complete_context("decode", 0, {})
    assert wrong.category is Category.INVALID_ARGUMENT and "kv_cache" in wrong.diagnostic
    small = runner.complete_context("decode", 0,
                                    {"kv_cache": InProcessBackend().allocate(3, "tiny")})
    assert small.category is Category.INVALID_ARGUMENT and "too small" in small.diagnostic
    assert runner.complete_context("decode", 0, resources_for("decode")).ok
    again = runner.complete_context("decode", 0, resources_for("decode"))
    assert again.category is Category.INVALID_STATE and "once per context" in again.diagnostic
    early = runner.prepare()
    assert early.category is Category.INVALID_STATE and "prefill/0" in early.diagnostic


def test_prepare_warms_every_stage_then_seals() -> None:
    spec = two_stage_spec()
    runner = SafetyRunner(InProcessBackend())
    runner.initialize(spec)
    for stage in ("prefill", "decode"):
        runner.complete_context(stage, 0, resources_for(stage))
    assert runner.prepare(warmup=0).category is Category.INVALID_ARGUMENT
    assert runner.prepare(warmup=3).ok
    assert spec.executors["pre"].calls == {("prefill", 0): 3}  # type: ignore[attr-defined]
    assert spec.executors["dec"].calls == {("decode", 0): 3}  # type: ignore[attr-defined]
    assert runner.state is State.OPERATIONAL and runner.ledger.sealed
    sealed = runner.complete_context("decode", 0, resources_for("decode"))
    assert sealed.category is Category.SEALED
    assert runner.prepare().category is Category.SEALED
    with pytest.raises(SealedError):
        runner.ledger.require_unsealed("allocating a late buffer")


# -- run_stage ------------------------------------------------------------------------------------
def test_run_stage_only_when_operational_and_data_flows_through_the_alias() -> None:
    runner = SafetyRunner(InProcessBackend())
    assert runner.run_stage("prefill", 0, {}).category is Category.INVALID_STATE
    runner = operational_runner()
    assert runner.run_stage("vision", 0, {}).category is Category.INVALID_ARGUMENT
    assert runner.run_stage("prefill", 0, []).category is Category.INVALID_ARGUMENT  # type: ignore[arg-type]

    def feed(inputs, stream):  # type: ignore[no-untyped-def]
        inputs["tokens"].host[:] = bytes(range(1, 9))

    outputs: dict = {}
    assert runner.run_stage("prefill", 0, outputs, prepare=feed).ok
    hidden = bytes(outputs["hidden"].host)
    outputs = {}
    assert runner.run_stage("decode", 0, outputs).ok
    logits_a = bytes(outputs["logits"].host)
    # checksum_compute: decode's logits depend on the hidden bytes it read through the alias
    total = sum(hidden) + 0 + 2  # kv_cache is zero; decode's 2nd call (warm-up was the 1st)
    assert logits_a == bytes((total + i) % 256 for i in range(4))


def test_second_concurrent_request_is_refused_not_queued() -> None:
    gate = threading.Event()
    pre = InProcessExecutor(tensors=(TensorDecl("tokens", 8, "input"),
                                     TensorDecl("hidden", 16, "output")), num_aux_streams=2)
    runner = operational_runner(two_stage_spec(prefill=pre))
    pre.gate = gate
    first: list[Status] = []
    worker = threading.Thread(target=lambda: first.append(runner.run_stage("prefill", 0, {})))
    worker.start()
    try:
        while pre.calls.get(("prefill", 0)) != 2:  # the worker is inside execute, gated
            threading.Event().wait(0.001)
        second = runner.run_stage("decode", 0, {})
        teardown = runner.deinitialize_graphs()
    finally:
        gate.set()
        worker.join(timeout=10)
    assert second.category is Category.REQUEST_ACTIVE and not second.fatal
    assert teardown.category is Category.REQUEST_ACTIVE
    assert first[0].ok
    assert runner.trace_table()["outcome"].tolist()[-3:] == ["refused", "refused", "ok"]
    dec = runner._spec.executors["dec"]  # type: ignore[union-attr]
    assert dec.calls == {("decode", 0): 1}  # the refused request never ran (only warm-up)


def test_reentrant_call_from_prepare_callback_is_refused() -> None:
    runner = operational_runner()
    inner: list[Status] = []
    status = runner.run_stage(
        "prefill", 0, {}, prepare=lambda ins, s: inner.append(runner.run_stage("decode", 0, {})))
    assert status.ok and inner[0].category is Category.REQUEST_ACTIVE


# -- deinitialization -----------------------------------------------------------------------------
def test_deinitialize_graphs_then_resources_in_that_order_only() -> None:
    runner = operational_runner()
    assert runner.deinitialize_resources().category is Category.INVALID_STATE
    assert runner.deinitialize_graphs().ok
    assert runner.run_stage("prefill", 0, {}).category is Category.INVALID_STATE
    assert runner.deinitialize_graphs().category is Category.INVALID_STATE
    assert runner.deinitialize_resources().ok
    assert runner.state is State.DEINITIALIZED and runner.legal_calls() == ()
    assert runner.ledger.live("stream") == [] and runner.ledger.live("buffer") == []
    assert len(runner.ledger.destroyed("stream")) == 4


def test_deinitialize_from_initialization_releases_everything() -> None:
    runner = SafetyRunner(InProcessBackend())
    runner.initialize(two_stage_spec())
    assert runner.deinitialize_graphs().ok and runner.deinitialize_resources().ok
    assert runner.ledger.live("stream") == []


def test_context_manager_deinitializes_and_destruction_does_not() -> None:
    with operational_runner() as runner:
        pass
    assert runner.state is State.DEINITIALIZED
    dropped = operational_runner()
    ledger = dropped.ledger
    del dropped  # no __del__: destruction makes no release calls, so the ledger shows the leak
    assert len(ledger.live("stream")) == 4


# -- fatal containment ----------------------------------------------------------------------------
def test_first_fatal_error_is_kept_and_everything_else_refused_with_it() -> None:
    dec = InProcessExecutor(tensors=(TensorDecl("hidden", 16, "input"),
                                     TensorDecl("kv_cache", 32, "resource"),
                                     TensorDecl("logits", 4, "output")), fail_on_call=2)
    runner = operational_runner(two_stage_spec(decode=dec))  # warm-up was decode's call 1
    fatal = runner.run_stage("decode", 0, {})
    assert fatal.fatal and fatal.category is Category.EXECUTOR_ERROR
    assert "injected fault" in fatal.diagnostic and runner.fatal_status is fatal
    for later in (runner.run_stage("prefill", 0, {}), runner.prepare(),
                  runner.complete_context("decode", 0, {}), runner.initialize(two_stage_spec()),
                  runner.deinitialize_resources()):
        assert later is fatal
    assert runner.legal_calls() == ("deinitialize_graphs",)
    assert runner.deinitialize_graphs().ok
    assert runner.run_stage("decode", 0, {}) is fatal
    assert runner.deinitialize_resources().ok
    assert runner.fatal_status is fatal and runner.ledger.live("stream") == []
    outcomes = runner.trace_table()["outcome"].tolist()
    assert outcomes.count("fatal") == 1 and outcomes.count("contained") == 6


class _BrokenQuery(InProcessExecutor):
    def query(self):  # type: ignore[no-untyped-def]
        raise DeviceError(Category.TENSORRT_ERROR, "engine deserialization failed")


def test_fatal_during_initialize_still_allows_containment() -> None:
    runner = SafetyRunner(InProcessBackend())
    status = runner.initialize(two_stage_spec(decode=_BrokenQuery()))
    assert status.fatal and status.category is Category.TENSORRT_ERROR
    assert runner.initialize(two_stage_spec()) is status
    assert runner.deinitialize_graphs().ok and runner.deinitialize_resources().ok


class _DestroyFails(InProcessBackend):
    def destroy_stream(self, handle: int) -> None:
        raise DeviceError(Category.CUDA_ERROR, "cudaStreamDestroy failed (test double)")


def test_release_errors_are_fatal_but_release_still_completes() -> None:
    runner = SafetyRunner(_DestroyFails())
    runner.initialize(two_stage_spec())
    assert runner.deinitialize_graphs().ok
    status = runner.deinitialize_resources()
    assert status.fatal and "cudaStreamDestroy failed" in status.diagnostic
    assert runner.state is State.DEINITIALIZED and runner.ledger.live("buffer") == []


# -- trace ----------------------------------------------------------------------------------------
def test_trace_records_every_call_with_its_outcome() -> None:
    runner = operational_runner()
    runner.complete_context("decode", 0, {})
    trace = runner.trace_table()
    assert tuple(trace.columns) == TRACE_COLUMNS
    assert trace["call"].tolist() == ["initialize", "complete_context", "complete_context",
                                      "prepare", "complete_context"]
    assert trace["outcome"].tolist() == ["ok", "ok", "ok", "ok", "refused"]
    assert trace["category"].iloc[-1] == "sealed"
    assert trace["state_after"].iloc[3] == "operational"
    assert trace["legal_after"].iloc[3] == "run_stage, deinitialize_graphs"
    assert (trace["duration_ms"] >= 0).all()


def test_runtime_core_imports_no_heavy_modules() -> None:
    code = ("import trtsafe_lab.runtime, trtsafe_lab.runtime.cli, "
            "trtsafe_lab.runtime.cuda_backend, trtsafe_lab.runtime.cuda_faults, "
            "trtsafe_lab.demo.runtime")
    assert loaded_after(code, ("tensorrt", "cuda", "matplotlib", "ipywidgets")) == []


def test_prepare_callback_bug_propagates_and_leaves_runner_usable() -> None:
    runner = operational_runner()

    def broken(inputs, stream):  # type: ignore[no-untyped-def]
        raise KeyError("caller bug")

    with pytest.raises(KeyError):
        runner.run_stage("prefill", 0, {}, prepare=broken)
    assert runner.fatal_status is None and runner.run_stage("prefill", 0, {}).ok
