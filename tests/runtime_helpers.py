"""Small builders shared by the runtime tests (CPU only: in-process executors, test doubles)."""

from __future__ import annotations

from trtsafe_lab.runtime import (
    AliasGroup,
    InitSpec,
    InProcessBackend,
    InProcessExecutor,
    SafetyRunner,
    StagePlan,
    TensorDecl,
)
from trtsafe_lab.runtime.pipeline import host_buffer

KV_BYTES = 32


def two_stage_spec(prefill: InProcessExecutor | None = None,
                   decode: InProcessExecutor | None = None, **changes: object) -> InitSpec:
    """prefill (tokens -> hidden, 2 aux streams) and decode (hidden + kv_cache -> logits)."""
    prefill = prefill or InProcessExecutor(
        tensors=(TensorDecl("tokens", 8, "input"), TensorDecl("hidden", 16, "output")),
        num_aux_streams=2)
    decode = decode or InProcessExecutor(
        tensors=(TensorDecl("hidden", 16, "input"), TensorDecl("kv_cache", KV_BYTES, "resource"),
                 TensorDecl("logits", 4, "output")))
    fields: dict[str, object] = {
        "executors": {"pre": prefill, "dec": decode},
        "stages": (StagePlan("prefill", 0, "pre"), StagePlan("decode", 0, "dec")),
        "main_streams": {"pre": 0, "dec": 1},
        "io_aliases": (AliasGroup("hidden", (("pre", "hidden"), ("dec", "hidden"))),),
    }
    fields.update(changes)
    return InitSpec(**fields)  # type: ignore[arg-type]


def resources_for(stage: str) -> dict:
    return {"kv_cache": host_buffer(KV_BYTES, "kv")} if stage == "decode" else {}


def operational_runner(spec: InitSpec | None = None) -> SafetyRunner:
    runner = SafetyRunner(InProcessBackend())
    assert runner.initialize(spec or two_stage_spec()).ok
    for stage in ("prefill", "decode"):
        assert runner.complete_context(stage, 0, resources_for(stage)).ok
    assert runner.prepare(warmup=1).ok
    return runner
