"""The safety runner: the Edge-LLM safety runtime's lifecycle rules, enforced over executors.

::

    runner = SafetyRunner(InProcessBackend())          # or CudaBackend(device=0) for the GPU
    runner.initialize(spec)                            # validate, query, allocate + bind all IO
    runner.complete_context("prefill", 0, resources)   # once per stage/slot
    runner.prepare(warmup=1)                           # warm every stage/profile, then seal
    runner.run_stage("decode", 0, outputs)             # only when Operational, one at a time
    runner.deinitialize_graphs(); runner.deinitialize_resources()

Each step stands for real ``nvinfer2::safe`` calls, in the order NVIDIA's safety samples make
them (``samples/trtSafeExec/trtSafeExec.cpp``, ``samples/sampleSafeMNIST/sampleSafeMNISTInfer.cpp``,
``samples/common/safeCommon.h`` of TensorRT 11.1; table and mapping in
:mod:`trtsafe_lab.runtime.safe_api`): ``initialize`` = ``createTRTGraph`` (+ ``clone`` per
thread), IO tensors and ``setIOTensorAddress``, ``setInputConsumedEvent``, and the aux streams
as ``setUpAuxStreamsOn`` does it (``getNbAuxStreams(n)``, n non-blocking streams,
``setAuxStreams(streams, n)`` before the first ``executeAsync``); ``prepare`` = warm-up
``executeAsync`` + ``sync``; ``run_stage`` = ``executeAsync(stream)`` + ``sync()``;
``deinitialize_graphs`` = final ``sync`` + ``destroyTRTGraph``; ``deinitialize_resources`` =
``cudaStreamDestroy`` after the final sync. The trace's ``real_calls`` column names them.

Every call returns a :class:`~trtsafe_lab.runtime.status.Status` and never raises for a rule
violation or a CUDA error (wrap a call in
:func:`~trtsafe_lab.runtime.status.raise_for_status` to raise).
Rules:

- Calls are legal only in the states :func:`~trtsafe_lab.runtime.states.legal_calls` lists;
  others are refused (``invalid_state``; ``sealed`` for binding after prepare) and change nothing.
- One active request: a call made while another is in flight (another thread, or a ``prepare``
  callback calling back in) is refused with ``request_active`` at once, never queued.
- Fatal containment: the first CUDA/TensorRT/executor error is kept as :attr:`fatal_status`;
  every later call is refused with that same status, except the next deinitialization step,
  which releases without launching GPU work (it still waits for queued work before freeing).
- A ``prepare`` callback of ``run_stage`` is caller code: a DeviceError it raises is fatal like
  any CUDA error; any other exception is a bug in that code and propagates unchanged (the
  request ends, the runner stays as it was).
- Destruction makes no CUDA calls: a runner dropped without deinitializing leaks (its
  :attr:`ledger` shows what); use ``with SafetyRunner(...)`` to deinitialize on exit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

import pandas as pd

from trtsafe_lab.runtime.backends import Backend, HandleLedger, SealedError
from trtsafe_lab.runtime.executors import Buffer, DeviceError, ExecutorInfo, StageKey
from trtsafe_lab.runtime.spec import InitSpec, StagePlan, queried_problems, structural_problems
from trtsafe_lab.runtime.states import PHASE_OF, State, legal_calls
from trtsafe_lab.runtime.status import Category, Status, ok, refused
from trtsafe_lab.runtime.trace import (
    OUTCOME_CONTAINED,
    OUTCOME_FATAL,
    OUTCOME_OK,
    OUTCOME_REFUSED,
    Trace,
)

#: ``prepare`` callback of run_stage: gets the stage's input buffers and its main stream, and may
#: enqueue work (e.g. copy token ids in) before the stage runs, inside the active request.
PrepareFn = Callable[[Mapping[str, Buffer], int], None]


class SafetyRunner:
    """Enforces the safety runtime's lifecycle over executors; see the module docstring."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.ledger = HandleLedger()
        self.trace = Trace()
        self.state = State.CREATED
        self.fatal_status: Status | None = None
        self._guard = threading.Lock()
        self._spec: InitSpec | None = None
        self._infos: dict[str, ExecutorInfo] = {}
        self._plans: dict[StageKey, StagePlan] = {}
        self._pending: set[StageKey] = set()
        self._main: dict[int, int] = {}  # main stream id -> handle
        self._aux: dict[str, list[int]] = {}  # executor -> aux stream handles
        self._buffers: list[Buffer] = []
        self._io: dict[str, dict[str, Buffer]] = {}  # executor -> tensor -> buffer

    # -- what a notebook asks ----------------------------------------------------------------
    @property
    def fatal(self) -> bool:
        return self.fatal_status is not None

    def legal_calls(self) -> tuple[str, ...]:
        """Calls accepted now (see :func:`trtsafe_lab.runtime.states.legal_calls`)."""
        return legal_calls(self.state, fatal=self.fatal, contexts_pending=bool(self._pending))

    def describe(self) -> dict[str, Any]:
        """State, phase, fatal status, legal calls, pending contexts and live handles."""
        return {"state": self.state.value, "phase": PHASE_OF[self.state].value,
                "fatal": "" if self.fatal_status is None else str(self.fatal_status),
                "legal_calls": list(self.legal_calls()),
                "contexts_pending": sorted(f"{s}/{n}" for s, n in self._pending),
                "live_streams": len(self.ledger.live("stream")),
                "live_buffers": len(self.ledger.live("buffer")), "backend": self.backend.name}

    def trace_table(self) -> pd.DataFrame:
        """The trace (columns: :class:`trtsafe_lab.runtime.trace.Trace`)."""
        return self.trace.table()

    def outputs_of(self, stage: str, slot: int) -> dict[str, Buffer]:
        plan = self._plans[(stage, slot)]
        info = self._infos[plan.executor]
        return {t.name: self._io[plan.executor][t.name] for t in info.tensors
                if t.role == "output"}

    # -- the API -------------------------------------------------------------------------------
    def initialize(self, spec: InitSpec) -> Status:
        return self._call("initialize", lambda: self._initialize(spec))

    def complete_context(self, stage: str, slot: int, resources: Mapping[str, Buffer]) -> Status:
        return self._call("complete_context", lambda: self._complete(stage, slot, resources),
                          stage, slot)

    def prepare(self, warmup: int = 1) -> Status:
        return self._call("prepare", lambda: self._prepare(warmup))

    def run_stage(self, stage: str, slot: int, outputs: MutableMapping[str, Buffer],
                  prepare: PrepareFn | None = None) -> Status:
        return self._call("run_stage", lambda: self._run(stage, slot, outputs, prepare),
                          stage, slot)

    def deinitialize_graphs(self) -> Status:
        return self._call("deinitialize_graphs", self._release_graphs)

    def deinitialize_resources(self) -> Status:
        return self._call("deinitialize_resources", self._release_resources)

    def __enter__(self) -> SafetyRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        """Deinitialize in order (also in containment); calls, not destruction."""
        if "deinitialize_graphs" in self.legal_calls():
            self.deinitialize_graphs()
        if "deinitialize_resources" in self.legal_calls():
            self.deinitialize_resources()

    # -- the one gate every call passes -------------------------------------------------------
    def _call(self, call: str, body: Callable[[], Status], stage: str = "",
              slot: int = -1) -> Status:
        started, before = self.trace.now(), self.state

        def record(status: Status, outcome: str) -> Status:
            self.trace.record(call=call, started=started, before=before, after=self.state,
                              status=status, outcome=outcome, fatal_now=self.fatal,
                              legal_after=self.legal_calls(), stage=stage, slot=slot)
            return status

        if not self._guard.acquire(blocking=False):
            return record(refused(call, Category.REQUEST_ACTIVE,
                                  f"{call} refused: another call is in flight (one active "
                                  "request; calls are refused, not queued)"), OUTCOME_REFUSED)
        try:
            legal = self.legal_calls()
            if self.fatal_status is not None and call not in legal:
                return record(self.fatal_status, OUTCOME_CONTAINED)
            if call not in legal:
                return record(self._illegal(call, legal), OUTCOME_REFUSED)
            try:
                status = body()
            except DeviceError as err:
                status = self._make_fatal(call, err.category, str(err))
            if status.fatal:  # this call hit an error (the first, or one met while containing)
                return record(status, OUTCOME_FATAL)
            return record(status, OUTCOME_OK if status.ok else OUTCOME_REFUSED)
        finally:
            self._guard.release()

    def _illegal(self, call: str, legal: tuple[str, ...]) -> Status:
        where = f"in state {self.state.value} ({PHASE_OF[self.state].value})"
        if call in ("complete_context", "prepare") and self.state is State.OPERATIONAL:
            return refused(call, Category.SEALED, f"{call} {where}: prepare() sealed the runner; "
                           "no new binding or allocation is possible. Deinitialize and start over")
        if call == "prepare" and self._pending:
            missing = ", ".join(f"{s}/{n}" for s, n in sorted(self._pending))
            return refused(call, Category.INVALID_STATE,
                           f"prepare {where}: complete_context first for {missing}")
        return refused(call, Category.INVALID_STATE,
                       f"{call} is not legal {where}; legal now: {', '.join(legal) or 'none'}")

    def _make_fatal(self, call: str, category: Category, message: str) -> Status:
        status = Status(category, message, True, call)
        if self.fatal_status is None:
            self.fatal_status = status
        return status

    # -- bodies ----------------------------------------------------------------------------------
    def _initialize(self, spec: InitSpec) -> Status:
        problems = structural_problems(spec)
        if problems:
            return refused("initialize", Category.INVALID_SPEC, "; ".join(problems))
        infos = {name: ex.query() for name, ex in spec.executors.items()}
        problems = queried_problems(spec, infos, self.backend.on_gpu)
        if problems:
            return refused("initialize", Category.INVALID_SPEC, "; ".join(problems))
        self._spec, self._infos = spec, infos
        self._plans = {p.key: p for p in spec.stages}
        self.state = State.INITIALIZED  # from here on, what is created is released by deinit
        self._pending = set(self._plans)
        for stream_id in sorted(set(spec.main_streams.values())):
            self._main[stream_id] = self._new_stream(f"main stream {stream_id}")
        for name, info in infos.items():
            self._aux[name] = [self._new_stream(f"{name} aux {i}")
                               for i in range(info.num_aux_streams)]
        shared: dict[tuple[str, str], Buffer] = {}
        for group in spec.io_aliases:
            first, tensor = group.members[0]
            decl = infos[first].tensor(tensor)
            assert decl is not None  # checked by queried_problems
            buf = self._new_buffer(decl.nbytes, f"alias {group.name}")
            shared.update({member: buf for member in group.members})
        for name, info in infos.items():
            self._io[name] = {t.name: shared.get((name, t.name))
                              or self._new_buffer(t.nbytes, f"{name}.{t.name}")
                              for t in info.tensors if t.role != "resource"}
        for name, ex in spec.executors.items():
            ex.bind(self._io[name], self._aux[name])
        return ok("initialize")

    def _new_stream(self, label: str) -> int:
        self.ledger.require_unsealed(f"creating {label}")
        handle = self.backend.create_stream()
        self.ledger.created("stream", handle, 0, label)
        return handle

    def _new_buffer(self, nbytes: int, label: str) -> Buffer:
        self.ledger.require_unsealed(f"allocating {label}")
        buf = self.backend.allocate(nbytes, label)
        self.ledger.created("buffer", buf.address, nbytes, label)
        self._buffers.append(buf)
        return buf

    def _complete(self, stage: str, slot: int, resources: Mapping[str, Buffer]) -> Status:
        key = (stage, slot)
        if key not in self._plans:
            return refused("complete_context", Category.INVALID_ARGUMENT,
                           f"no stage plan for {stage}/{slot}; planned: {self._plan_names()}")
        if key not in self._pending:
            return refused("complete_context", Category.INVALID_STATE,
                           f"context {stage}/{slot} is already complete (once per context)")
        plan = self._plans[key]
        wanted = {t.name: t.nbytes for t in self._infos[plan.executor].tensors
                  if t.role == "resource"}
        if set(resources) != set(wanted):
            return refused("complete_context", Category.INVALID_ARGUMENT,
                           f"{stage}/{slot} ({plan.executor}) needs resources {sorted(wanted)}, "
                           f"got {sorted(resources)}")
        small = [f"{n} has {resources[n].nbytes} B < {b} B" for n, b in wanted.items()
                 if resources[n].nbytes < b]
        if small:
            return refused("complete_context", Category.INVALID_ARGUMENT,
                           f"{stage}/{slot}: resources too small: {'; '.join(small)}")
        self._spec_executor(plan).bind_context(key, resources)
        self._pending.discard(key)
        return ok("complete_context")

    def _prepare(self, warmup: int) -> Status:
        if warmup < 1:
            return refused("prepare", Category.INVALID_ARGUMENT,
                           f"warmup must be >= 1 (every stage/profile is warmed), got {warmup}")
        for key, plan in sorted(self._plans.items()):
            stream = self._main_stream(plan)
            for _ in range(warmup):
                self._spec_executor(plan).execute(key, plan.profile, stream)
            self.backend.synchronize(stream)
        self.ledger.sealed = True
        self.state = State.OPERATIONAL
        return ok("prepare")

    def _run(self, stage: str, slot: int, outputs: MutableMapping[str, Buffer],
             prepare: PrepareFn | None) -> Status:
        key = (stage, slot)
        plan = self._plans.get(key)
        if plan is None:
            return refused("run_stage", Category.INVALID_ARGUMENT,
                           f"no stage plan for {stage}/{slot}; planned: {self._plan_names()}")
        if not isinstance(outputs, MutableMapping):
            return refused("run_stage", Category.INVALID_ARGUMENT,
                           f"outputs must be a mutable mapping (e.g. a dict), got "
                           f"{type(outputs).__name__}")
        stream = self._main_stream(plan)
        if prepare is not None:
            roles = {t.name: t.role for t in self._infos[plan.executor].tensors}
            io = self._io[plan.executor]
            ins = {n: b for n, b in io.items() if roles[n] == "input"}
            prepare(ins, stream)
        self._spec_executor(plan).execute(key, plan.profile, stream)
        self.backend.synchronize(stream)
        outputs.update(self.outputs_of(stage, slot))
        return ok("run_stage")

    def _release_graphs(self) -> Status:
        errors = self._sync_all()
        executors = self._spec.executors if self._spec is not None else {}
        for name, ex in executors.items():
            try:
                ex.release()
            except DeviceError as err:
                errors.append((err.category, f"releasing {name}: {err}"))
        self.state = State.GRAPHS_RELEASED
        return self._release_status("deinitialize_graphs", errors)

    def _release_resources(self) -> Status:
        errors = self._sync_all()  # the final sync: nothing is destroyed while work is queued
        handles = [h for hs in self._aux.values() for h in hs] + list(self._main.values())
        for handle in handles:
            try:
                self.backend.destroy_stream(handle)
            except DeviceError as err:
                errors.append((err.category, f"destroying stream {handle:#x}: {err}"))
            self.ledger.destroyed_now("stream", handle)
        for buf in self._buffers:
            try:
                self.backend.free(buf)
            except DeviceError as err:
                errors.append((err.category, f"freeing {buf.label}: {err}"))
            self.ledger.destroyed_now("buffer", buf.address)
        self._aux, self._main, self._buffers, self._io = {}, {}, [], {}
        self.state = State.DEINITIALIZED
        return self._release_status("deinitialize_resources", errors)

    def _sync_all(self) -> list[tuple[Category, str]]:
        errors: list[tuple[Category, str]] = []
        for handle in [*self._main.values(), *(h for hs in self._aux.values() for h in hs)]:
            try:
                self.backend.synchronize(handle)
            except DeviceError as err:
                errors.append((err.category, f"synchronizing stream {handle:#x}: {err}"))
        return errors

    def _release_status(self, call: str, errors: list[tuple[Category, str]]) -> Status:
        """OK, or the errors met while releasing (kept as the fatal status if first)."""
        if not errors:
            return ok(call)
        text = "released with errors: " + "; ".join(msg for _, msg in errors)
        return self._make_fatal(call, errors[0][0], text)

    # -- small helpers -------------------------------------------------------------------------
    def _spec_executor(self, plan: StagePlan) -> Any:
        assert self._spec is not None
        return self._spec.executors[plan.executor]

    def _main_stream(self, plan: StagePlan) -> int:
        assert self._spec is not None
        return self._main[self._spec.main_streams[plan.executor]]

    def _plan_names(self) -> str:
        return ", ".join(f"{s}/{n}" for s, n in sorted(self._plans)) or "none"


__all__ = ["PrepareFn", "SafetyRunner", "SealedError"]
