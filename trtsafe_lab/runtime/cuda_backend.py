"""The runner on a real GPU: CUDA streams and device memory, and the reference workload adapter.

:class:`CudaBackend` creates the runner's streams (non-blocking, distinct, never the default
stream) and IO buffers in the device's primary context — the one CUDA context the whole run
uses — and reports every CUDA failure as a fatal :class:`DeviceError`.
:class:`ReferenceWorkloadExecutor` puts the profiling job's reference CUDA workload
(:mod:`trtsafe_lab.profile.reference`) behind the runner's executor protocol, the way a
TensorRT execution context would sit there: it reports its aux-stream count, takes the
runner-created aux streams once, and enqueues on the stream it is given.

cuda-python is imported lazily (the ``gpu`` extra): importing this module needs neither it nor a
GPU.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trtsafe_lab.runtime.executors import Buffer, DeviceError, ExecutorInfo, StageKey, TensorDecl
from trtsafe_lab.runtime.status import Category

FEATURE = "The safety runner on a GPU"


@contextlib.contextmanager
def cuda_failures_are_fatal(what: str) -> Iterator[None]:
    """Turn a CudaError raised inside the block into a fatal DeviceError naming ``what``."""
    from trtsafe_lab.cuda_api import CudaError

    try:
        yield
    except CudaError as err:
        raise DeviceError(Category.CUDA_ERROR, f"{what}: {err}") from err


def _rt() -> Any:
    from trtsafe_lab.cuda_api import runtime_api

    return runtime_api()


def _check(result: Any, what: str) -> Any:
    from trtsafe_lab.cuda_api import check_cuda

    return check_cuda(result, what)


@dataclass
class CudaBackend:
    """Streams and IO memory on CUDA ``device`` (its primary context, made current here)."""

    device: int = 0
    on_gpu: bool = True
    name: str = ""
    _streams: dict[int, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from trtsafe_lab.cuda_api import activate_device, device_properties

        with cuda_failures_are_fatal(f"activating CUDA device {self.device}"):
            activate_device(self.device)
            props = device_properties(self.device)
        self.name = f"CUDA device {self.device} ({props['gpu_name']})"

    def create_stream(self) -> int:
        rt = _rt()
        with cuda_failures_are_fatal("creating a stream"):
            stream = _check(rt.cudaStreamCreateWithFlags(rt.cudaStreamNonBlocking),
                            "cudaStreamCreateWithFlags")
        self._streams[int(stream)] = stream
        return int(stream)

    def destroy_stream(self, handle: int) -> None:
        stream = self._streams.pop(handle)
        with cuda_failures_are_fatal(f"destroying stream {handle:#x}"):
            _check(_rt().cudaStreamDestroy(stream), "cudaStreamDestroy")

    def synchronize(self, handle: int) -> None:
        with cuda_failures_are_fatal(f"synchronizing stream {handle:#x}"):
            _check(_rt().cudaStreamSynchronize(self._streams[handle]), "cudaStreamSynchronize")

    def allocate(self, nbytes: int, label: str) -> Buffer:
        rt = _rt()
        with cuda_failures_are_fatal(f"allocating {nbytes} B for {label}"):
            ptr = _check(rt.cudaMalloc(max(nbytes, 1)), "cudaMalloc")
            _check(rt.cudaMemset(ptr, 0, max(nbytes, 1)), "cudaMemset")
        return Buffer(int(ptr), nbytes, None, label)

    def free(self, buffer: Buffer) -> None:
        with cuda_failures_are_fatal(f"freeing {buffer.label}"):
            _check(_rt().cudaFree(buffer.address), "cudaFree")

    # -- for callers and tests -------------------------------------------------------------
    def stream_is_live(self, handle: int) -> bool:
        """True when ``cudaStreamQuery`` accepts ``handle`` (idle or busy).

        Only for handles this backend still holds: asking CUDA about a destroyed stream is
        undefined behaviour, and on an H200 (driver 580.159.04, CUDA 13) it crashed the process
        with a segmentation fault (benchmarks/results/runtime_gpu_pytest_h200_run1.log).
        """
        if handle not in self._streams:
            raise ValueError(f"stream {handle:#x} is not held by this backend (destroyed or "
                             "never created here); CUDA cannot be asked about it safely")
        err, *_ = _rt().cudaStreamQuery(self._streams[handle])
        return int(err) in (0, int(_rt().cudaError_t.cudaErrorNotReady))

    def held_streams(self) -> list[int]:
        """Handles of the streams created here and not destroyed yet."""
        return list(self._streams)

    def upload(self, buffer: Buffer, data: bytes, stream: int) -> None:
        """Copy ``data`` host→device into ``buffer`` on ``stream`` (pageable source)."""
        import numpy as np

        rt, host = _rt(), np.frombuffer(data, np.uint8)
        with cuda_failures_are_fatal(f"uploading to {buffer.label}"):
            _check(rt.cudaMemcpyAsync(buffer.address, host.ctypes.data, len(data),
                                      rt.cudaMemcpyKind.cudaMemcpyHostToDevice,
                                      self._streams[stream]), "cudaMemcpyAsync(H2D)")
            _check(rt.cudaStreamSynchronize(self._streams[stream]), "cudaStreamSynchronize")

    def download(self, buffer: Buffer) -> bytes:
        """Copy ``buffer`` device→host (synchronous) and return its bytes."""
        import numpy as np

        rt, host = _rt(), np.zeros(buffer.nbytes, np.uint8)
        with cuda_failures_are_fatal(f"downloading {buffer.label}"):
            _check(rt.cudaMemcpy(host.ctypes.data, buffer.address, buffer.nbytes,
                                 rt.cudaMemcpyKind.cudaMemcpyDeviceToHost), "cudaMemcpy(D2H)")
        return host.tobytes()


class ReferenceWorkloadExecutor:
    """The reference CUDA workload as a runner executor (GPU).

    ``io_bytes`` > 0 declares an input ``x`` and an output ``y`` of that size; each execution
    enqueues the workload and then a device copy ``x → y`` on the same stream, so IO binding,
    alias groups and ``prepare`` callbacks are exercised on the GPU too. The workload's own
    buffers are internal (it declares them as ``device_memory_bytes``).
    """

    def __init__(self, spec: Any = None, *, aux_streams: int = 0, device: int = 0,
                 io_bytes: int = 0) -> None:
        from trtsafe_lab.profile.reference import ReferenceWorkload, WorkloadSpec

        with cuda_failures_are_fatal("creating the reference workload"):
            self.workload = ReferenceWorkload(spec or WorkloadSpec(), aux_streams=aux_streams,
                                              device=device)
        self.io_bytes = io_bytes
        self._io: dict[str, Buffer] = {}
        self.executions = 0

    def query(self) -> ExecutorInfo:
        tensors = ((TensorDecl("x", self.io_bytes, "input"),
                    TensorDecl("y", self.io_bytes, "output")) if self.io_bytes else ())
        return ExecutorInfo("reference CUDA workload (GPU)", tensors, 1,
                            self.workload.num_aux_streams, self.workload.device_memory_bytes,
                            on_gpu=True)

    def bind(self, tensors: Mapping[str, Buffer], aux_streams: Sequence[int]) -> None:
        self._io = dict(tensors)
        self.workload.set_aux_streams(list(aux_streams))

    def bind_context(self, key: StageKey, resources: Mapping[str, Buffer]) -> None:
        return None  # the workload has no model-local resources

    def execute(self, key: StageKey, profile: int, stream: int) -> None:
        with cuda_failures_are_fatal(f"executing {key[0]}/{key[1]} on the reference workload"):
            self.workload.execute_async(stream)
            if self.io_bytes:
                rt = _rt()
                _check(rt.cudaMemcpyAsync(self._io["y"].address, self._io["x"].address,
                                          self.io_bytes,
                                          rt.cudaMemcpyKind.cudaMemcpyDeviceToDevice, stream),
                       "cudaMemcpyAsync(x -> y)")
        self.executions += 1

    def release(self) -> None:
        with cuda_failures_are_fatal("closing the reference workload"):
            self.workload.close()
