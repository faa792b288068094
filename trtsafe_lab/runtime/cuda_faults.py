"""A real, contained CUDA error for teaching and tests: a kernel launch with an invalid config.

:class:`InvalidLaunchExecutor` wraps a GPU executor and, on its N-th ``execute``, launches a
do-nothing kernel with 2048 threads per block (the limit is 1024). The driver rejects the launch
with ``CUDA_ERROR_INVALID_VALUE`` before anything runs. That error is *not sticky*: the CUDA
context stays usable, so the test can check afterwards that containment released every stream
and that the GPU still works. A sticky error (an illegal memory access in a kernel) would poison
the context for the rest of the process, so every later CUDA call — the release calls included —
would fail too; that is why this fault is the one used to demonstrate containment in-process.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from trtsafe_lab.runtime.cuda_backend import cuda_failures_are_fatal
from trtsafe_lab.runtime.executors import Buffer, ExecutorInfo, StageExecutor, StageKey

NOOP_SOURCE = b'extern "C" __global__ void trtsafe_noop() {}'
BAD_BLOCK_SIZE = 2048  # threads per block; CUDA allows at most 1024


@functools.lru_cache(maxsize=1)
def _noop_ptx() -> bytes:
    from trtsafe_lab.cuda_api import nvrtc_compile

    return nvrtc_compile(NOOP_SOURCE, "noop.cu", [], cubin=False)


class InvalidLaunchExecutor:
    """Delegates to ``inner``; the ``fail_on_call``-th execute (1-based, warm-up included)
    launches a kernel with an invalid block size on the stage's stream instead."""

    def __init__(self, inner: StageExecutor, fail_on_call: int) -> None:
        self.inner = inner
        self.fail_on_call = fail_on_call
        self.calls = 0
        self._module: Any = None
        self._function: Any = None

    def query(self) -> ExecutorInfo:
        from trtsafe_lab.cuda_api import check_cuda, driver_api

        info = self.inner.query()
        import numpy as np

        drv = driver_api()
        with cuda_failures_are_fatal("loading the no-op kernel"):
            if self._module is None:  # query may be asked again after a refused initialize
                image = np.frombuffer(_noop_ptx(), np.uint8)
                self._module = check_cuda(drv.cuModuleLoadData(image.ctypes.data),
                                          "cuModuleLoadData")
                self._function = check_cuda(drv.cuModuleGetFunction(self._module, b"trtsafe_noop"),
                                       "cuModuleGetFunction")
        return ExecutorInfo(f"{info.kind}, with an injected invalid launch on call "
                            f"{self.fail_on_call}", info.tensors, info.num_profiles,
                            info.num_aux_streams, info.device_memory_bytes, info.on_gpu)

    def bind(self, tensors: Mapping[str, Buffer], aux_streams: Sequence[int]) -> None:
        self.inner.bind(tensors, aux_streams)

    def bind_context(self, key: StageKey, resources: Mapping[str, Buffer]) -> None:
        self.inner.bind_context(key, resources)

    def execute(self, key: StageKey, profile: int, stream: int) -> None:
        from trtsafe_lab.cuda_api import check_cuda, driver_api

        self.calls += 1
        if self.calls != self.fail_on_call:
            self.inner.execute(key, profile, stream)
            return
        with cuda_failures_are_fatal(f"executing {key[0]}/{key[1]} (injected invalid launch: "
                                     f"{BAD_BLOCK_SIZE} threads per block)"):
            check_cuda(driver_api().cuLaunchKernel(self._function, 1, 1, 1, BAD_BLOCK_SIZE, 1, 1, 0,
                                              stream, 0, 0), "cuLaunchKernel")

    def release(self) -> None:
        from trtsafe_lab.cuda_api import check_cuda, driver_api

        try:
            self.inner.release()
        finally:
            if self._module is not None:
                with cuda_failures_are_fatal("unloading the no-op kernel"):
                    check_cuda(driver_api().cuModuleUnload(self._module), "cuModuleUnload")
                self._module = None
