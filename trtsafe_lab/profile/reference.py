"""A reference multi-branch CUDA workload (cuda-python + NVRTC) with TensorRT's aux-stream protocol.

It lets the whole profiler run on any NVIDIA GPU without TensorRT, and shows why aux streams help
or not. ``branches`` independent chains of ``depth`` serially dependent kernels; each kernel is
``blocks`` x ``threads`` threads running ``iters`` rounds of an integer hash (work per kernel).

- Single-stream mode (``aux_streams=0``): every branch runs on the main stream, one after another.
- Aux mode (``aux_streams=N``): like TensorRT's ``execute_async_v3``, the workload records a fork
  event on the main stream, makes each aux stream wait on it, runs branch ``i`` on aux stream
  ``i % N``, records a join event on each aux stream and makes the main stream wait on all of them.

The interface mirrors TensorRT's execution context (``num_aux_streams``, ``set_aux_streams``,
``execute_async``, device memory size), so one harness drives both. The caller owns the streams:
it creates them (non-blocking, distinct, never the default), registers them, optionally captures
``execute_async`` into a CUDA graph, and destroys them only after the final synchronize.

Memory mirrors TensorRT's trade-off: branches that run one after another share one scratch buffer,
concurrent branches need one each, so aux streams cost scratch memory.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from trtsafe_lab.cuda_api import (
    activate_device,
    check_cuda,
    driver_api,
    nvrtc_compile,
    runtime_api,
)

KERNEL_NAME = "branch_step"
KERNEL_SOURCE = r"""
extern "C" __global__ void branch_step(unsigned int* scratch, unsigned int* out, int iters,
                                       int first, unsigned int seed) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int x = first ? (seed ^ (i * 2654435761u)) : scratch[i];
    for (int k = 0; k < iters; ++k) {
        x ^= x >> 13;
        x = x * 1664525u + 1013904223u;
    }
    scratch[i] = x;
    if (out) out[i] = x;
}
"""


@dataclass(frozen=True)
class WorkloadSpec:
    branches: int = 4  # independent branches
    depth: int = 8  # serially dependent kernels per branch
    blocks: int = 4  # grid size of each kernel
    threads: int = 128  # block size
    iters: int = 4096  # inner-loop iterations per thread (work per kernel)

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"WorkloadSpec.{name} must be a positive int, got {value!r}")
        if self.threads > 1024:
            raise ValueError(f"WorkloadSpec.threads must be <= 1024 (CUDA block limit), got "
                             f"{self.threads}")

    @property
    def elements(self) -> int:
        """Threads per kernel = 32-bit words each branch writes."""
        return self.blocks * self.threads


def ideal_speedup(spec: WorkloadSpec, aux_streams: int) -> float:
    """Total work over the critical path: branches / ceil(branches / aux streams); 1 if none.

    It assumes concurrent kernels fit on the GPU side by side; branches that each fill the GPU
    cannot overlap, so there the measured speedup stays near 1 whatever this says.
    """
    if aux_streams <= 0:
        return 1.0
    return spec.branches / math.ceil(spec.branches / aux_streams)


def expected_outputs(spec: WorkloadSpec) -> np.ndarray:
    """What each branch's last kernel writes, computed with numpy: shape (branches, elements)."""
    i = np.arange(spec.elements, dtype=np.uint32)
    rows = []
    with np.errstate(over="ignore"):
        for branch in range(spec.branches):
            x = np.uint32(branch + 1) ^ (i * np.uint32(2654435761))
            for _ in range(spec.depth * spec.iters):
                x ^= x >> np.uint32(13)
                x = x * np.uint32(1664525) + np.uint32(1013904223)
            rows.append(x)
    return np.stack(rows)


def layer_info(spec: WorkloadSpec, aux_streams: int) -> dict[str, Any]:
    """This workload's structure in trtexec's ``--exportLayerInfo`` 10.x schema.

    One "layer" per kernel (``branch{b}.step{d}``, LayerType ``kernel``) with the
    ``StreamId`` it runs on (0 = main stream, i = aux stream i), plus the fork/join sync
    layers (LayerType ``signal`` / ``wait``) that TensorRT's layer info shows for aux streams.
    Generated from the workload itself, not by TensorRT.
    """
    n_aux = aux_streams
    layers: list[dict[str, Any]] = []

    def add(name: str, kind: str, stream: int) -> None:
        layers.append({"Name": name, "LayerType": kind, "StreamId": stream, "Metadata": ""})

    if n_aux:
        add("fork.signal", "signal", 0)
        for a in range(1, n_aux + 1):
            add(f"fork.wait.aux{a}", "wait", a)
    for branch in range(spec.branches):
        stream = branch % n_aux + 1 if n_aux else 0
        for step in range(spec.depth):
            add(f"branch{branch}.step{step}", "kernel", stream)
    if n_aux:
        for a in range(1, n_aux + 1):
            add(f"join.signal.aux{a}", "signal", a)
        add("join.wait", "wait", 0)
    return {"Layers": layers, "Bindings": [], "Source": "trtsafe-lab reference workload"}



@functools.lru_cache(maxsize=8)
def _compile(arch: str) -> bytes:
    """NVRTC-compile the kernel to a cubin for ``arch`` (e.g. "sm_90"); cached per process."""
    return nvrtc_compile(KERNEL_SOURCE.encode(), "branch_step.cu",
                         [f"--gpu-architecture={arch}".encode(), b"-default-device"], cubin=True)


class ReferenceWorkload:
    """The reference workload on ``device``; owns its module, buffers and fork/join events.

    Use as a context manager (or call :meth:`close`). Attributes: ``num_aux_streams`` (aux
    streams it needs; 0 = single-stream), ``device_memory_bytes`` (its buffers),
    ``ideal_speedup`` (total work / critical path for this configuration).
    """

    def __init__(self, spec: WorkloadSpec, *, aux_streams: int = 0, device: int = 0) -> None:
        if not 0 <= aux_streams <= spec.branches:
            raise ValueError(f"aux_streams must be between 0 and branches={spec.branches}, "
                             f"got {aux_streams}: one aux stream per concurrent branch at most")
        self.spec = spec
        self.device = device
        self.num_aux_streams: int = aux_streams
        self.ideal_speedup: float = ideal_speedup(spec, aux_streams)
        lanes = max(1, aux_streams)
        word = 4
        self._scratch_bytes = lanes * spec.elements * word
        self._out_bytes = spec.branches * spec.elements * word
        self.device_memory_bytes: int = self._scratch_bytes + self._out_bytes
        self._aux: list[int] | None = None
        self._closed = False
        self._module: Any = None
        self._base: Any = None
        self._fork: Any = None
        self._joins: list[Any] = []
        try:
            self._allocate(lanes)
        except BaseException:
            self.close()
            raise

    def _allocate(self, lanes: int) -> None:
        rt, drv = runtime_api(), driver_api()
        activate_device(self.device)
        major = check_cuda(rt.cudaDeviceGetAttribute(
            rt.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor, self.device), "cc major")
        minor = check_cuda(rt.cudaDeviceGetAttribute(
            rt.cudaDeviceAttr.cudaDevAttrComputeCapabilityMinor, self.device), "cc minor")
        cubin = _compile(f"sm_{major}{minor}")
        image = np.frombuffer(cubin, dtype=np.uint8)
        self._module = check_cuda(drv.cuModuleLoadData(image.ctypes.data), "cuModuleLoadData")
        self._function = check_cuda(drv.cuModuleGetFunction(self._module, KERNEL_NAME.encode()),
                               "cuModuleGetFunction")
        self._base = check_cuda(rt.cudaMalloc(self.device_memory_bytes), "cudaMalloc")
        check_cuda(rt.cudaMemset(self._base, 0, self.device_memory_bytes), "cudaMemset")
        flags = rt.cudaEventDisableTiming
        self._fork = check_cuda(rt.cudaEventCreateWithFlags(flags), "cudaEventCreateWithFlags")
        for _ in range(self.num_aux_streams):
            self._joins.append(check_cuda(rt.cudaEventCreateWithFlags(flags),
                                     "cudaEventCreateWithFlags"))
        # Pre-pack every launch's parameters once, so execute_async does no Python packing.
        spec, base = self.spec, int(self._base)
        lane_bytes, row_bytes = spec.elements * 4, spec.elements * 4
        self._launches: list[list[tuple[np.ndarray, list[np.ndarray]]]] = []
        for branch in range(spec.branches):
            scratch = base + (branch % lanes) * lane_bytes
            out = base + self._scratch_bytes + branch * row_bytes
            steps = []
            for step in range(spec.depth):
                values: list[np.ndarray] = [np.array([scratch], np.uint64),
                          np.array([out if step == spec.depth - 1 else 0], np.uint64),
                          np.array([spec.iters], np.int32), np.array([int(step == 0)], np.int32),
                          np.array([branch + 1], np.uint32)]
                steps.append((np.array([v.ctypes.data for v in values], np.uint64), values))
            self._launches.append(steps)

    # -- TensorRT-like interface -------------------------------------------------------------
    def set_aux_streams(self, streams: Sequence[int]) -> None:
        """Register caller-owned aux streams: exactly ``num_aux_streams`` distinct non-default
        stream handles (ints). The caller destroys them only after the final synchronize."""
        handles = [int(s) for s in streams]
        if len(handles) != self.num_aux_streams:
            raise ValueError(f"set_aux_streams got {len(handles)} streams but this workload needs "
                             f"exactly num_aux_streams={self.num_aux_streams}")
        if 0 in handles or len(set(handles)) != len(handles):
            raise ValueError(f"aux streams must be distinct and never the default stream (0); "
                             f"got {handles}")
        self._aux = handles

    def execute_async(self, stream: int) -> None:
        """Enqueue one forward pass on ``stream`` (capturable into a CUDA graph)."""
        if self._closed:
            raise RuntimeError("execute_async on a closed ReferenceWorkload")
        stream = int(stream)
        if self.num_aux_streams == 0:
            for steps in self._launches:
                self._launch_branch(steps, stream)
            return
        if self._aux is None:
            raise RuntimeError(f"this workload needs {self.num_aux_streams} aux streams: call "
                               "set_aux_streams([...]) with distinct non-default streams before "
                               "the first execute_async")
        if stream in self._aux:
            raise ValueError(f"the main stream {stream} is also registered as an aux stream")
        rt = runtime_api()
        check_cuda(rt.cudaEventRecord(self._fork, stream), "cudaEventRecord(fork)")
        for aux in self._aux:
            check_cuda(rt.cudaStreamWaitEvent(aux, self._fork, 0), "cudaStreamWaitEvent(fork)")
        for branch, steps in enumerate(self._launches):
            self._launch_branch(steps, self._aux[branch % self.num_aux_streams])
        for aux, join in zip(self._aux, self._joins, strict=True):
            check_cuda(rt.cudaEventRecord(join, aux), "cudaEventRecord(join)")
            check_cuda(rt.cudaStreamWaitEvent(stream, join, 0), "cudaStreamWaitEvent(join)")

    def _launch_branch(self, steps: list[tuple[np.ndarray, list[np.ndarray]]], stream: int) -> None:
        drv, spec = driver_api(), self.spec
        for params, _keepalive in steps:
            check_cuda(drv.cuLaunchKernel(self._function, spec.blocks, 1, 1, spec.threads, 1, 1, 0,
                                     stream, params.ctypes.data, 0), "cuLaunchKernel")

    def outputs(self) -> np.ndarray:
        """Copy each branch's final output to the host: shape (branches, elements), uint32.

        Call after synchronizing the stream that ran :meth:`execute_async`.
        """
        rt = runtime_api()
        host = np.empty((self.spec.branches, self.spec.elements), np.uint32)
        check_cuda(rt.cudaMemcpy(host.ctypes.data, int(self._base) + self._scratch_bytes,
                            self._out_bytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost),
              "cudaMemcpy(outputs)")
        return host

    def describe(self) -> dict[str, Any]:
        """What this workload is, for a run manifest."""
        return {"executor": "reference", **asdict(self.spec),
                "aux_streams": self.num_aux_streams,
                "kernels": self.spec.branches * self.spec.depth,
                "device_memory_bytes": self.device_memory_bytes,
                "ideal_speedup": self.ideal_speedup}

    def layer_info(self) -> dict[str, Any]:
        """This workload's structure as layer info (see :func:`layer_info`)."""
        return layer_info(self.spec, self.num_aux_streams)

    def close(self) -> None:
        """Release events, buffers and the module (idempotent). Synchronize streams first."""
        if self._closed:
            return
        self._closed = True
        rt, drv = runtime_api(), driver_api()
        for event in [self._fork, *self._joins]:
            if event is not None:
                check_cuda(rt.cudaEventDestroy(event), "cudaEventDestroy")
        self._fork, self._joins = None, []
        if self._base is not None:
            check_cuda(rt.cudaFree(self._base), "cudaFree")
            self._base = None
        if self._module is not None:
            check_cuda(drv.cuModuleUnload(self._module), "cuModuleUnload")
            self._module = None

    def __enter__(self) -> ReferenceWorkload:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
