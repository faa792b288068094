"""A TensorRT engine as a safety-runner executor (standard runtime, GPU).

NOT verified with TensorRT: TensorRT cannot be installed on this project's machines; the calls
below use names from the 11.4 names file (reference/tensorrt-11.4-python-names.txt) and are
tested against a recording test double only. The safety runtime proper (``nvinfer2::safe``) has
no Python bindings, so this is the nearest x86 stand-in: the standard runtime's execution
context, driven under the runner's discipline.

Mapping to the runner's protocol: ``query`` reports the engine's IO tensors (input/output by
``get_tensor_mode``), ``num_optimization_profiles``, ``num_aux_streams`` and its activation
memory; ``bind`` gives the context the runner-allocated IO addresses and the runner-created aux
streams (exactly ``num_aux_streams``, distinct, non-default), once; ``execute`` selects the
stage's optimization profile when it differs from the active one, then enqueues on the stage's
stream. Every TensorRT failure is a fatal ``TENSORRT_ERROR``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from trtsafe_lab.runtime.executors import Buffer, DeviceError, ExecutorInfo, StageKey, TensorDecl
from trtsafe_lab.runtime.status import Category
from trtsafe_lab.trt_api import (
    DEVICE_MEMORY_NAMES,
    EXECUTE_NAMES,
    first_attr,
    import_tensorrt,
    tensor_bytes,
)

FEATURE = "Running a TensorRT engine under the safety runner"


@contextlib.contextmanager
def tensorrt_failures_are_fatal(what: str) -> Iterator[None]:
    """Turn any error TensorRT raises (or reports as False/None) into a fatal DeviceError."""
    try:
        yield
    except DeviceError:
        raise
    except Exception as err:  # TensorRT's bindings raise RuntimeError, TypeError, ValueError...
        raise DeviceError(Category.TENSORRT_ERROR, f"{what}: {err}") from err


class TensorRTStageExecutor:
    """One deserialized engine and one execution context, run by :class:`SafetyRunner`."""

    def __init__(self, engine_path: str | Path) -> None:
        trt = import_tensorrt(FEATURE)
        self.engine_path = Path(engine_path)
        with tensorrt_failures_are_fatal(f"deserializing {self.engine_path}"):
            self._runtime = trt.Runtime(trt.Logger())
            self.engine = self._runtime.deserialize_cuda_engine(self.engine_path.read_bytes())
            if self.engine is None:
                raise RuntimeError("deserialize_cuda_engine returned None: was the engine built "
                                   "by this TensorRT version for this GPU? (see its log)")
            self.context = self.engine.create_execution_context()
            if self.context is None:
                raise RuntimeError("create_execution_context returned None")
            self._input_mode = trt.TensorIOMode.INPUT
            _, self._execute = first_attr(self.context, EXECUTE_NAMES, "enqueue")
            _, memory = first_attr(self.engine, DEVICE_MEMORY_NAMES, "device memory size")
            self._memory = int(memory)
        self._active_profile = 0
        self._bound = False

    def query(self) -> ExecutorInfo:
        with tensorrt_failures_are_fatal(f"querying {self.engine_path.name}"):
            tensors = []
            for i in range(int(self.engine.num_io_tensors)):
                name = self.engine.get_tensor_name(i)
                nbytes = tensor_bytes(self.engine.get_tensor_shape(name),
                                      self.engine.get_tensor_dtype(name))
                is_input = self.engine.get_tensor_mode(name) == self._input_mode
                tensors.append(TensorDecl(name, nbytes, "input" if is_input else "output"))
            return ExecutorInfo(f"TensorRT engine {self.engine_path.name} (GPU)", tuple(tensors),
                                int(self.engine.num_optimization_profiles),
                                int(self.engine.num_aux_streams), self._memory, on_gpu=True)

    def bind(self, tensors: Mapping[str, Buffer], aux_streams: Sequence[int]) -> None:
        with tensorrt_failures_are_fatal(f"binding {self.engine_path.name}"):
            for name, buffer in tensors.items():
                if not self.context.set_tensor_address(name, int(buffer.address)):
                    raise RuntimeError(f"set_tensor_address({name!r}) returned False")
            if aux_streams:
                self.context.set_aux_streams([int(s) for s in aux_streams])
        self._bound = True

    def bind_context(self, key: StageKey, resources: Mapping[str, Buffer]) -> None:
        # Caller-owned model-local resources are IO tensors of the engine too (e.g. a KV cache).
        self.bind(resources, [])

    def execute(self, key: StageKey, profile: int, stream: int) -> None:
        if not self._bound:
            raise DeviceError(Category.TENSORRT_ERROR, f"{key[0]}/{key[1]}: execute before bind")
        with tensorrt_failures_are_fatal(f"executing {key[0]}/{key[1]} on "
                                         f"{self.engine_path.name}"):
            if profile != self._active_profile:
                if not self.context.set_optimization_profile_async(profile, int(stream)):
                    raise RuntimeError(f"set_optimization_profile_async({profile}) returned False")
                self._active_profile = profile
            if not self._execute(int(stream)):
                raise RuntimeError("enqueue returned False (see TensorRT's log)")

    def release(self) -> None:
        # Dropping the references destroys the context before the engine, as TensorRT requires.
        self.context = None
        self.engine = None
        self._runtime = None
        self._bound = False
