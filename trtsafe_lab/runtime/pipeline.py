"""A two-stage LLM-style pipeline ("prefill" then "decode") run through the safety runner.

Prefill reads a prompt and writes a hidden state; decode reads that hidden state through an IO
alias group (no copy) and writes its output. :func:`cpu_pipeline` builds it from in-process CPU
executors (test doubles); :func:`gpu_pipeline` from the reference CUDA workload on a GPU, where
each stage also copies its input to its output on the device, so the prompt must come back out
of decode unchanged — a check that IO binding, the alias and the ``prepare`` callback work.
:func:`run_pipeline` drives the whole lifecycle and returns the runner (trace, ledger) and what
came out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from trtsafe_lab.runtime.backends import Backend, InProcessBackend
from trtsafe_lab.runtime.executors import Buffer, InProcessExecutor, TensorDecl
from trtsafe_lab.runtime.lifecycle import SafetyRunner
from trtsafe_lab.runtime.spec import AliasGroup, InitSpec, StagePlan
from trtsafe_lab.runtime.status import Status

PROMPT = b"trtsafe-lab: hello, safety runtime"
IO_BYTES = 64  # size of the prompt / hidden-state / output tensors


@dataclass
class Pipeline:
    """What :func:`run_pipeline` needs: the backend, the init spec, caller-owned resources per
    stage/slot, how to write the prompt into an input buffer and read an output buffer back."""

    backend: Backend
    spec: InitSpec
    resources: dict[tuple[str, int], dict[str, Buffer]]
    upload: Callable[[Buffer, bytes, int], None]
    download: Callable[[Buffer], bytes]
    label: str


@dataclass
class PipelineRun:
    """Outcome: the runner (``trace_table()``, ``ledger``), every status in call order, the
    bytes decode wrote last (``None`` if it never ran) and ``expected`` (what they should be)."""

    runner: SafetyRunner
    statuses: list[Status] = field(default_factory=list)
    output: bytes | None = None
    expected: bytes = b""


def host_buffer(nbytes: int, label: str) -> Buffer:
    """A caller-owned host buffer (a model-local resource for the in-process executor)."""
    return InProcessBackend().allocate(nbytes, label)


def _host_upload(buf: Buffer, data: bytes, stream: int) -> None:
    assert buf.host is not None
    buf.host[:] = data.ljust(buf.nbytes, b"\0")[: buf.nbytes]


def _host_download(buf: Buffer) -> bytes:
    assert buf.host is not None
    return bytes(buf.host)


def cpu_pipeline(fail_on_decode_call: int | None = None) -> Pipeline:
    """Prefill and decode as in-process CPU executors (test doubles; no GPU involved).

    ``fail_on_decode_call`` injects an executor fault on decode's N-th execution (warm-up
    included), to show fatal containment.
    """
    prefill = InProcessExecutor(
        tensors=(TensorDecl("tokens", IO_BYTES, "input"),
                 TensorDecl("hidden", IO_BYTES, "output")),
        compute=_copy_compute("tokens", "hidden"), num_aux_streams=2)
    decode = InProcessExecutor(
        tensors=(TensorDecl("hidden", IO_BYTES, "input"),
                 TensorDecl("kv_cache", 4 * IO_BYTES, "resource"),
                 TensorDecl("logits", IO_BYTES, "output")),
        compute=_copy_compute("hidden", "logits"), fail_on_call=fail_on_decode_call)
    spec = InitSpec(
        executors={"prefill_engine": prefill, "decode_engine": decode},
        stages=(StagePlan("prefill", 0, "prefill_engine"), StagePlan("decode", 0, "decode_engine")),
        main_streams={"prefill_engine": 0, "decode_engine": 0},
        io_aliases=(AliasGroup("hidden", (("prefill_engine", "hidden"),
                                          ("decode_engine", "hidden"))),),
    )
    resources = {("prefill", 0): {},
                 ("decode", 0): {"kv_cache": host_buffer(4 * IO_BYTES, "kv_cache (caller)")}}
    return Pipeline(InProcessBackend(), spec, resources, _host_upload, _host_download,
                    "in-process CPU executors (test doubles, not a GPU result)")


def _copy_compute(src: str, dst: str) -> Callable[[Mapping[str, bytearray],
                                                   Mapping[str, bytearray], int], None]:
    def compute(ins: Mapping[str, bytearray], outs: Mapping[str, bytearray], call: int) -> None:
        outs[dst][:] = ins[src]

    return compute


def gpu_pipeline(device: int = 0, fail_on_decode_call: int | None = None) -> Pipeline:
    """Prefill (reference workload, 2 aux streams) and decode (smaller, 1 aux stream) on CUDA
    ``device``; ``fail_on_decode_call`` injects an invalid kernel launch (a real CUDA error)."""
    from trtsafe_lab.profile.reference import WorkloadSpec
    from trtsafe_lab.runtime.cuda_backend import CudaBackend, ReferenceWorkloadExecutor
    from trtsafe_lab.runtime.cuda_faults import InvalidLaunchExecutor
    from trtsafe_lab.runtime.executors import StageExecutor

    backend = CudaBackend(device)
    prefill = ReferenceWorkloadExecutor(WorkloadSpec(branches=4, depth=8), aux_streams=2,
                                        device=device, io_bytes=IO_BYTES)
    decode: StageExecutor = ReferenceWorkloadExecutor(WorkloadSpec(branches=2, depth=4),
                                                 aux_streams=1, device=device, io_bytes=IO_BYTES)
    if fail_on_decode_call is not None:
        decode = InvalidLaunchExecutor(decode, fail_on_decode_call)
    spec = InitSpec(
        executors={"prefill_engine": prefill, "decode_engine": decode},
        stages=(StagePlan("prefill", 0, "prefill_engine"), StagePlan("decode", 0, "decode_engine")),
        main_streams={"prefill_engine": 0, "decode_engine": 0},
        io_aliases=(AliasGroup("hidden", (("prefill_engine", "y"), ("decode_engine", "x"))),),
    )
    return Pipeline(backend, spec, {("prefill", 0): {}, ("decode", 0): {}}, backend.upload,
                    backend.download, f"reference CUDA workload on {backend.name}")


def run_pipeline(pipeline: Pipeline, *, decode_steps: int = 3,
                 violations: bool = False) -> PipelineRun:
    """Initialize, complete both contexts, prepare (warm-up 1, seal), run prefill once and
    decode ``decode_steps`` times, then deinitialize graphs and resources — in containment too.

    ``violations`` adds calls the rules refuse (run_stage before prepare, complete_context after
    the seal), so the trace shows refusals next to the accepted calls.
    """
    runner = SafetyRunner(pipeline.backend)
    run = PipelineRun(runner, expected=PROMPT.ljust(IO_BYTES, b"\0")[:IO_BYTES])
    say = run.statuses.append
    say(runner.initialize(pipeline.spec))
    if violations:
        say(runner.run_stage("prefill", 0, {}))  # refused: not Operational yet
    for (stage, slot), resources in pipeline.resources.items():
        say(runner.complete_context(stage, slot, resources))
    say(runner.prepare(warmup=1))
    if violations:
        say(runner.complete_context("decode", 0, pipeline.resources[("decode", 0)]))  # sealed

    def feed(inputs: Mapping[str, Buffer], stream: int) -> None:
        for buf in inputs.values():
            pipeline.upload(buf, PROMPT, stream)

    outputs: dict[str, Buffer] = {}
    say(runner.run_stage("prefill", 0, outputs, prepare=feed))
    for _ in range(decode_steps):
        outputs = {}
        status = runner.run_stage("decode", 0, outputs)
        say(status)
        if status.ok:
            run.output = b"".join(pipeline.download(b) for b in outputs.values())
    say(runner.deinitialize_graphs())
    say(runner.deinitialize_resources())
    return run
