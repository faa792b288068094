"""The in-process timing harness: drives any executor with TensorRT's aux-stream protocol.

An executor is anything with ``num_aux_streams``, ``device_memory_bytes``,
``set_aux_streams(streams)`` and ``execute_async(stream)``: the reference workload
(:mod:`trtsafe_lab.profile.reference`) and the TensorRT engine executor
(:mod:`trtsafe_lab.profile.trt_engine_executor`). The harness owns the streams (non-blocking,
distinct, never the default), registers the aux streams before the first ``execute_async``,
optionally captures one forward pass into a CUDA graph, times it with CUDA events on
the main stream, and destroys the streams only after the final synchronize.

Timing modes (:data:`TIMING_MODES`; the run records which one made it):

- ``batched`` (default): one event pair around ``passes_per_sample`` back-to-back forward passes;
  each record is the mean of those passes. An event record between graph launches costs a few
  microseconds of GPU time and, on a multi-stream graph, delays the next launch's fork; measured
  on an H200 this read aux-stream passes 1.8-3.7% high when every pass had its own events. With
  one event pair per batch that cost is divided by the batch size, so the per-pass figure is
  within 1% of a bare graph-replay loop for passes of 0.1 ms and more (verified on the H200:
  benchmarks/results/timing_modes_h200_*.json). It hides per-pass tails: use it for medians and
  speedups.
- ``per-iteration``: an event pair around every pass (trtexec's way): per-pass tails (p99), at
  the cost of that bias on short multi-stream passes.
- ``events-in-graph``: like per-iteration, with the event records captured as nodes inside the
  graph (re-pointed before each launch); needs ``use_graph``.

Alternatives weighed and not taken: CUPTI graph-level activity timestamps add no GPU work but need
the ``cupti`` extra and a tracing session in the timed loop (tracing itself slows launches).

Records use trtexec's ``--exportTimes`` schema (see :data:`TIMING_KEYS`), so the same loaders and
statistics read reference runs, engine runs and trtexec exports; in batched mode ``computeMs`` /
``latencyMs`` are per-pass means and start/end are the batch's.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from trtsafe_lab.cuda_api import (
    ResourceLedger,
    captured_graph,
    check_cuda,
    cuda_events,
    cuda_streams,
    launch_graph,
    runtime_api,
    synchronize,
)

# trtexec --exportTimes keys, in its order. Host enqueue times are host-clock ms from the start of
# the timed loop; the others are device-clock ms from a reference event recorded just before it.
TIMING_KEYS = ("startEnqMs", "endEnqMs", "startH2dMs", "endH2dMs", "startComputeMs",
               "endComputeMs", "startD2hMs", "endD2hMs", "h2dMs", "computeMs", "d2hMs", "latencyMs")


class TimedExecutor(Protocol):
    """What the harness drives (TensorRT's execution-context shape)."""

    num_aux_streams: int
    device_memory_bytes: int

    def set_aux_streams(self, streams: Sequence[int]) -> None: ...

    def execute_async(self, stream: int) -> None: ...


BATCHED, PER_ITERATION, EVENTS_IN_GRAPH = "batched", "per-iteration", "events-in-graph"
TIMING_MODES = (BATCHED, PER_ITERATION, EVENTS_IN_GRAPH)
DEFAULT_PASSES_PER_SAMPLE = 10


@dataclass(frozen=True)
class TimingConfig:
    """How a run is timed; recorded with its results. ``iterations`` is the number of samples
    (records); in ``batched`` mode each sample times ``passes_per_sample`` forward passes."""

    warmup: int = 20
    iterations: int = 200
    use_graph: bool = True
    mode: str = BATCHED
    # None: DEFAULT_PASSES_PER_SAMPLE when batched, else 1 (resolved on creation).
    passes_per_sample: int = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.warmup < 0 or self.iterations < 1:
            raise ValueError(f"warmup must be >= 0 and iterations >= 1, got {self}")
        if self.mode not in TIMING_MODES:
            raise ValueError(f"timing mode must be one of {TIMING_MODES}, got {self.mode!r}")
        if self.mode == EVENTS_IN_GRAPH and not self.use_graph:
            raise ValueError("timing mode 'events-in-graph' needs use_graph=True")
        if self.passes_per_sample is None:
            object.__setattr__(self, "passes_per_sample",
                               DEFAULT_PASSES_PER_SAMPLE if self.mode == BATCHED else 1)
        if self.passes_per_sample < 1:
            raise ValueError(f"passes_per_sample must be >= 1, got {self.passes_per_sample}")
        if self.mode != BATCHED and self.passes_per_sample != 1:
            raise ValueError(f"timing mode {self.mode!r} times one pass per sample; "
                             f"passes_per_sample={self.passes_per_sample} needs mode 'batched'")

    @property
    def passes(self) -> int:
        """Timed forward passes in all."""
        return self.iterations * self.passes_per_sample


@dataclass
class TimedRun:
    """One profiled run: trtexec-schema records plus how they were made."""

    records: list[dict[str, float]]
    config: TimingConfig
    num_aux_streams: int
    device_memory_bytes: int
    extra: dict[str, Any] = field(default_factory=dict)

    def compute_ms(self) -> list[float]:
        return [r["computeMs"] for r in self.records]


@contextlib.contextmanager
def registered_streams(
    executor: TimedExecutor, ledger: ResourceLedger | None = None
) -> Iterator[int]:
    """Create the main stream and the executor's aux streams, register the aux streams, yield the
    main stream; on exit synchronize and destroy all of them (even after an error)."""
    with cuda_streams(1 + executor.num_aux_streams, ledger) as streams:
        main, aux = streams[0], streams[1:]
        if aux:
            executor.set_aux_streams(aux)
        yield main


@contextlib.contextmanager
def forward_pass(
    executor: TimedExecutor, main: int, use_graph: bool, ledger: ResourceLedger | None = None
) -> Iterator[Callable[[], None]]:
    """Yield a callable that enqueues one forward pass on ``main`` (graph replay or eager).

    Before a capture, one eager pass is run and synchronized, so one-time work of the executor
    (TensorRT allocates and initialises on its first enqueue) stays out of the graph.
    """
    if not use_graph:
        yield lambda: executor.execute_async(main)
        return
    executor.execute_async(main)
    synchronize(main)
    with captured_graph(main, executor.execute_async, ledger) as captured:
        yield lambda: launch_graph(captured.exec, main)


def profile(
    executor: TimedExecutor, config: TimingConfig = TimingConfig(),
    ledger: ResourceLedger | None = None,
) -> TimedRun:
    """Time ``config.iterations`` forward passes of ``executor`` after ``config.warmup`` ones."""
    n = config.iterations
    with registered_streams(executor, ledger) as main, \
            cuda_events(2 * n + 3, timing=True, ledger=ledger) as events:
        ref, starts, ends = events[0], events[1:n + 1], events[n + 1:2 * n + 1]
        if config.mode == EVENTS_IN_GRAPH:
            host = _timed_loop_events_in_graph(executor, main, config, ref, starts, ends,
                                               events[-2:], ledger)
        else:
            with forward_pass(executor, main, config.use_graph, ledger) as enqueue:
                host = _timed_loop(enqueue, main, config, ref, starts, ends)
        records = _records(ref, starts, ends, host, config.passes_per_sample)
    return TimedRun(records, config, executor.num_aux_streams, executor.device_memory_bytes)


def _timed_iterations(launch: Callable[[Any, Any], None], warm: Callable[[], None], main: int,
                      config: TimingConfig, ref: Any, starts: list[Any],
                      ends: list[Any]) -> list[tuple[float, float]]:
    """Warm up, then ``launch(start, end)`` once per timed iteration, all asynchronously on
    ``main`` after the reference event; return each launch's host enqueue window (ms)."""
    rt = runtime_api()
    for _ in range(config.warmup):
        warm()
    synchronize(main)
    host = []
    check_cuda(rt.cudaEventRecord(ref, main), "cudaEventRecord")
    t0 = time.perf_counter()
    for start, end in zip(starts, ends, strict=True):
        a = time.perf_counter()
        launch(start, end)
        host.append(((a - t0) * 1e3, (time.perf_counter() - t0) * 1e3))
    synchronize(main)
    return host


def _timed_loop(enqueue: Callable[[], None], main: int, config: TimingConfig, ref: Any,
                starts: list[Any], ends: list[Any]) -> list[tuple[float, float]]:
    rt = runtime_api()
    batch = range(config.passes_per_sample)

    def launch(start: Any, end: Any) -> None:
        check_cuda(rt.cudaEventRecord(start, main), "cudaEventRecord")
        for _ in batch:
            enqueue()
        check_cuda(rt.cudaEventRecord(end, main), "cudaEventRecord")

    return _timed_iterations(launch, enqueue, main, config, ref, starts, ends)


def _timed_loop_events_in_graph(
    executor: TimedExecutor, main: int, config: TimingConfig, ref: Any, starts: list[Any],
    ends: list[Any], placeholders: list[Any], ledger: ResourceLedger | None,
) -> list[tuple[float, float]]:
    rt = runtime_api()
    first, last = placeholders
    external = rt.cudaEventRecordExternal
    executor.execute_async(main)  # priming pass outside the capture, as in forward_pass
    synchronize(main)

    def timed_pass(stream: int) -> None:
        check_cuda(rt.cudaEventRecordWithFlags(first, stream, external), "cudaEventRecordWithFlags")
        executor.execute_async(stream)
        check_cuda(rt.cudaEventRecordWithFlags(last, stream, external), "cudaEventRecordWithFlags")

    with captured_graph(main, timed_pass, ledger) as captured:
        nodes = captured.event_record_nodes()
        start_node, end_node = nodes[int(first)], nodes[int(last)]

        def point(start: Any, end: Any) -> None:
            check_cuda(rt.cudaGraphExecEventRecordNodeSetEvent(captured.exec, start_node, start),
                  "cudaGraphExecEventRecordNodeSetEvent")
            check_cuda(rt.cudaGraphExecEventRecordNodeSetEvent(captured.exec, end_node, end),
                  "cudaGraphExecEventRecordNodeSetEvent")

        def launch(start: Any, end: Any) -> None:
            point(start, end)
            launch_graph(captured.exec, main)

        point(first, last)
        return _timed_iterations(launch, lambda: launch_graph(captured.exec, main), main,
                                 config, ref, starts, ends)


def _records(ref: Any, starts: list[Any], ends: list[Any], host: list[tuple[float, float]],
             passes: int = 1) -> list[dict[str, float]]:
    rt = runtime_api()
    records = []
    for (enq_start, enq_end), start, end in zip(host, starts, ends, strict=True):
        s = float(check_cuda(rt.cudaEventElapsedTime(ref, start), "cudaEventElapsedTime"))
        e = float(check_cuda(rt.cudaEventElapsedTime(ref, end), "cudaEventElapsedTime"))
        per_pass = (e - s) / passes
        records.append(dict(zip(TIMING_KEYS, (
            enq_start, enq_end, s, s, s, e, e, e, 0.0, per_pass, 0.0, per_pass), strict=True)))
    return records


def bare_graph_replay_ms(
    executor: TimedExecutor, *, launches: int = 200, repeats: int = 5, warmup: int = 20
) -> list[float]:
    """The baseline for harness overhead: a bare loop of ``launches`` graph replays between two
    events, no per-iteration events or host bookkeeping; ``repeats`` loops, mean ms per replay
    of each."""
    rt = runtime_api()
    out = []
    with registered_streams(executor) as main, forward_pass(executor, main, True) as enqueue, \
            cuda_events(2, timing=True) as (start, end):
        for _ in range(warmup):
            enqueue()
        synchronize(main)
        for _ in range(repeats):
            check_cuda(rt.cudaEventRecord(start, main), "cudaEventRecord")
            for _ in range(launches):
                enqueue()
            check_cuda(rt.cudaEventRecord(end, main), "cudaEventRecord")
            synchronize(main)
            out.append(float(check_cuda(rt.cudaEventElapsedTime(start, end), "elapsed")) / launches)
    return out
