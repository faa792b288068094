"""Executors behind a small protocol, and the plain in-process executor used by CPU tests.

An executor is what runs a stage: a TensorRT engine's execution context, the reference CUDA
workload (:mod:`trtsafe_lab.runtime.cuda_backend`), or :class:`InProcessExecutor`, a plain Python
executor that computes on host bytes. The in-process executor exists so the lifecycle rules can be
exercised without a GPU; it is named as a CPU test double everywhere it appears (its ``kind``)
and never stands in for a GPU result.

The runner talks to executors only through :class:`StageExecutor`: ``query`` once at initialize,
then ``bind`` (all IO, once), ``bind_context`` (once per stage/slot), ``execute`` (enqueue on a
stream) and ``release`` (deinitialize_graphs). A failure inside them is reported by raising
:class:`DeviceError` with a category; the runner turns that into a fatal status.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from trtsafe_lab.runtime.status import Category

Role = Literal["input", "output", "resource"]
StageKey = tuple[str, int]  # (stage id, slot)


class DeviceError(Exception):
    """A CUDA, TensorRT or executor failure; ``category`` says which (always fatal)."""

    def __init__(self, category: Category, message: str) -> None:
        super().__init__(message)
        self.category = category


@dataclass(frozen=True)
class TensorDecl:
    """One IO tensor of an executor: ``nbytes`` of storage; ``role`` input/output are allocated
    and bound by the runner at initialize, ``resource`` tensors are caller-owned model-local
    resources (e.g. a KV cache) handed over in ``complete_context``."""

    name: str
    nbytes: int
    role: Role


@dataclass(frozen=True)
class ExecutorInfo:
    """What ``query`` reports: ``kind`` (human-readable, says CPU double or GPU), IO tensors,
    ``num_profiles``, ``num_aux_streams`` the runner must create, ``device_memory_bytes`` the
    executor holds itself, and ``on_gpu`` (which backend it needs)."""

    kind: str
    tensors: tuple[TensorDecl, ...] = ()
    num_profiles: int = 1
    num_aux_streams: int = 0
    device_memory_bytes: int = 0
    on_gpu: bool = False

    def tensor(self, name: str) -> TensorDecl | None:
        return next((t for t in self.tensors if t.name == name), None)


@dataclass
class Buffer:
    """Storage bound to a tensor: ``address`` (device pointer, or host address for the CPU
    backend), ``nbytes`` and, for host storage, the ``host`` bytearray itself."""

    address: int
    nbytes: int
    host: bytearray | None = None
    label: str = ""


class StageExecutor(Protocol):
    """What the runner needs from an executor (a TensorRT context, a workload, a CPU double)."""

    def query(self) -> ExecutorInfo: ...

    def bind(self, tensors: Mapping[str, Buffer], aux_streams: Sequence[int]) -> None: ...

    def bind_context(self, key: StageKey, resources: Mapping[str, Buffer]) -> None: ...

    def execute(self, key: StageKey, profile: int, stream: int) -> None: ...

    def release(self) -> None: ...


Compute = Callable[[Mapping[str, bytearray], Mapping[str, bytearray], int], None]


def checksum_compute(inputs: Mapping[str, bytearray], outputs: Mapping[str, bytearray],
                     call: int) -> None:
    """Default in-process computation: every output byte ``i`` becomes
    ``(sum of all input and resource bytes + call + i) % 256`` — data-dependent, so a test can
    tell whether an aliased buffer really carried the previous stage's output."""
    total = sum(sum(buf) for buf in inputs.values()) + call
    for out in outputs.values():
        out[:] = bytes((total + i) % 256 for i in range(len(out)))


@dataclass
class InProcessExecutor:
    """CPU test double: runs ``compute`` on host bytearrays, in the calling thread.

    ``fail_on_call`` makes the N-th ``execute`` (1-based) raise an injected
    :class:`DeviceError` (category EXECUTOR_ERROR, never CUDA_ERROR: nothing here touches a GPU).
    ``gate``, when set, makes ``execute`` wait until the event is set — tests use it to hold a
    request in flight. ``calls`` counts executions per stage/slot.
    """

    tensors: tuple[TensorDecl, ...] = ()
    compute: Compute = checksum_compute
    num_profiles: int = 1
    num_aux_streams: int = 0
    fail_on_call: int | None = None
    gate: threading.Event | None = None
    kind: str = "in-process CPU executor (test double, not a GPU result)"
    calls: dict[StageKey, int] = field(default_factory=dict)
    bound: dict[str, Buffer] = field(default_factory=dict)
    contexts: dict[StageKey, dict[str, Buffer]] = field(default_factory=dict)
    aux_streams: tuple[int, ...] = ()
    released: bool = False

    def query(self) -> ExecutorInfo:
        return ExecutorInfo(self.kind, self.tensors, self.num_profiles, self.num_aux_streams,
                            0, on_gpu=False)

    def bind(self, tensors: Mapping[str, Buffer], aux_streams: Sequence[int]) -> None:
        if self.bound:
            raise RuntimeError("InProcessExecutor.bind called twice: IO is bound once")
        self.bound = dict(tensors)
        self.aux_streams = tuple(aux_streams)

    def bind_context(self, key: StageKey, resources: Mapping[str, Buffer]) -> None:
        self.contexts[key] = dict(resources)

    def execute(self, key: StageKey, profile: int, stream: int) -> None:
        if self.released:
            raise RuntimeError("InProcessExecutor.execute after release")
        total_calls = sum(self.calls.values()) + 1
        self.calls[key] = self.calls.get(key, 0) + 1
        if self.gate is not None:
            self.gate.wait()
        if self.fail_on_call is not None and total_calls == self.fail_on_call:
            raise DeviceError(Category.EXECUTOR_ERROR,
                              f"injected fault on call {total_calls} of the in-process CPU "
                              f"executor ({key[0]}/{key[1]}); no GPU involved")
        views = {**self.bound, **self.contexts.get(key, {})}
        roles = {t.name: t.role for t in self.tensors}
        ins = {n: _host(b) for n, b in views.items() if roles.get(n) in ("input", "resource")}
        outs = {n: _host(b) for n, b in views.items() if roles.get(n) == "output"}
        self.compute(ins, outs, self.calls[key])

    def release(self) -> None:
        self.released = True


def _host(buf: Buffer) -> bytearray:
    if buf.host is None:
        raise RuntimeError(f"buffer {buf.label or hex(buf.address)} is device memory: the "
                           "in-process CPU executor can only read host buffers")
    return buf.host
