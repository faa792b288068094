"""Small owners for CUDA resources (streams, events, graphs, buffers), through cuda-python.

Every resource lives behind a context manager that always releases it (house style 8), and every
CUDA call goes through :func:`check_cuda`, which turns an error code into an exception naming
the call.
A :class:`ResourceLedger` counts what these owners created and destroyed, so a caller can show that
a long run leaves nothing behind. cuda-python is imported lazily (the ``gpu`` extra).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from trtsafe_lab._optional import require

FEATURE = "GPU profiling (reference workload, TensorRT runtime executor)"


class CudaError(RuntimeError):
    """A CUDA, driver or NVRTC call failed; the message names the call and the error."""


def runtime_api() -> ModuleType:
    """The ``cuda.bindings.runtime`` module, or a MissingDependencyError naming the gpu extra."""
    return require("cuda.bindings.runtime", feature=FEATURE)


def driver_api() -> ModuleType:
    return require("cuda.bindings.driver", feature=FEATURE)


def nvrtc_api() -> ModuleType:
    return require("cuda.bindings.nvrtc", feature=FEATURE)


def _error_text(err: Any) -> str:
    name = getattr(err, "name", str(err))
    module = type(err).__module__ or ""
    try:
        if "runtime" in module:
            _, text = runtime_api().cudaGetErrorString(err)
            return f"{name}: {text.decode() if isinstance(text, bytes) else text}"
        if "driver" in module:
            _, text = driver_api().cuGetErrorString(err)
            return f"{name}: {text.decode() if isinstance(text, bytes) else text}"
    except (TypeError, AttributeError, UnicodeDecodeError):
        return str(name)
    return str(name)


def check_cuda(result: Any, what: str) -> Any:
    """Unpack a cuda-python ``(err, *values)`` result; raise :class:`CudaError` if err != 0.

    Returns None, the single value, or the tuple of values.
    """
    if isinstance(result, tuple):
        err, values = result[0], result[1:]
    else:
        err, values = result, ()
    if int(err) != 0:
        raise CudaError(
            f"{what} failed with {_error_text(err)}. Check that the GPU is visible "
            "(nvidia-smi) and that no earlier kernel faulted; a sticky error needs a new process."
        )
    if not values:
        return None
    return values[0] if len(values) == 1 else values


@dataclass
class ResourceLedger:
    """Counts resources created and destroyed through this module's owners.

    ``live()`` maps a kind ("stream", "event", "graph", "graph_exec", "buffer", "module") to how
    many are alive now; ``live_bytes`` is the device memory held by live buffers.
    """

    created: Counter[str] = field(default_factory=Counter)
    destroyed: Counter[str] = field(default_factory=Counter)
    live_bytes: int = 0

    def add(self, kind: str, n: int = 1) -> None:
        self.created[kind] += n

    def remove(self, kind: str, n: int = 1) -> None:
        self.destroyed[kind] += n

    def live(self) -> dict[str, int]:
        kinds = set(self.created) | set(self.destroyed)
        return {k: self.created[k] - self.destroyed[k] for k in sorted(kinds)}


def nvrtc_compile(source: bytes, name: str, options: list[bytes], *, cubin: bool) -> bytes:
    """Compile CUDA C++ ``source`` with NVRTC; return a cubin (``cubin=True``, needs an
    ``--gpu-architecture=sm_XY`` option) or PTX. A compile error raises :class:`CudaError`
    with NVRTC's log."""
    nv = nvrtc_api()
    prog = check_cuda(nv.nvrtcCreateProgram(source, name.encode(), 0, [], []), "nvrtcCreateProgram")
    try:
        (err,) = nv.nvrtcCompileProgram(prog, len(options), options)
        if int(err) != 0:
            size = check_cuda(nv.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
            log = b" " * size
            check_cuda(nv.nvrtcGetProgramLog(prog, log), "nvrtcGetProgramLog")
            raise CudaError(f"NVRTC could not compile {name} "
                            f"({b' '.join(options).decode()}): {err.name}\n"
                            f"{log.decode(errors='replace')}")
        get_size, get = ((nv.nvrtcGetCUBINSize, nv.nvrtcGetCUBIN) if cubin
                         else (nv.nvrtcGetPTXSize, nv.nvrtcGetPTX))
        image = b" " * check_cuda(get_size(prog), "nvrtc: image size")
        check_cuda(get(prog, image), "nvrtc: image")
        return image
    finally:
        check_cuda(nv.nvrtcDestroyProgram(prog), "nvrtcDestroyProgram")


def activate_device(device: int) -> None:
    """Make ``device``'s primary context current on this thread (runtime and driver API)."""
    rt = runtime_api()
    check_cuda(driver_api().cuInit(0), "cuInit")
    check_cuda(rt.cudaSetDevice(device), f"cudaSetDevice({device})")
    check_cuda(rt.cudaFree(0), "cudaFree(0) (primary context initialisation)")


def synchronize(stream: int) -> None:
    check_cuda(runtime_api().cudaStreamSynchronize(stream), "cudaStreamSynchronize")


@contextlib.contextmanager
def cuda_streams(count: int, ledger: ResourceLedger | None = None) -> Iterator[list[int]]:
    """``count`` distinct non-blocking streams (never the default stream), as int handles.

    They are destroyed on exit after synchronizing each, so the caller may leave work queued.
    """
    rt = runtime_api()
    handles: list[Any] = []
    try:
        for _ in range(count):
            stream = check_cuda(
                rt.cudaStreamCreateWithFlags(rt.cudaStreamNonBlocking), "cudaStreamCreateWithFlags"
            )
            handles.append(stream)
            if ledger:
                ledger.add("stream")
        ints = [int(s) for s in handles]
        if 0 in ints or len(set(ints)) != len(ints):
            raise CudaError(f"stream handles are not distinct and non-default: {ints}")
        yield ints
    finally:
        errors: list[str] = []
        for stream in reversed(handles):
            for call, what in (
                (rt.cudaStreamSynchronize, "cudaStreamSynchronize"),
                (rt.cudaStreamDestroy, "cudaStreamDestroy"),
            ):
                try:
                    check_cuda(call(stream), what)
                except CudaError as err:
                    errors.append(str(err))
            if ledger:
                ledger.remove("stream")
        if errors:
            raise CudaError("releasing streams: " + "; ".join(errors))


@contextlib.contextmanager
def cuda_events(
    count: int, *, timing: bool, ledger: ResourceLedger | None = None
) -> Iterator[list[Any]]:
    """``count`` events; ``timing=False`` makes them sync-only (cheaper, fine inside graphs)."""
    rt = runtime_api()
    flags = rt.cudaEventDefault if timing else rt.cudaEventDisableTiming
    events: list[Any] = []
    try:
        for _ in range(count):
            events.append(
                check_cuda(rt.cudaEventCreateWithFlags(flags), "cudaEventCreateWithFlags"))
            if ledger:
                ledger.add("event")
        yield events
    finally:
        for event in events:
            check_cuda(rt.cudaEventDestroy(event), "cudaEventDestroy")
            if ledger:
                ledger.remove("event")


@dataclass(frozen=True)
class CapturedGraph:
    """A captured CUDA graph (``graph``) and its instantiated executable (``exec``)."""

    graph: Any
    exec: Any

    def event_record_nodes(self) -> dict[int, Any]:
        """Event-record nodes of the graph (external records), keyed by their event's handle."""
        rt = runtime_api()
        _, count = check_cuda(rt.cudaGraphGetNodes(self.graph, 0), "cudaGraphGetNodes")
        nodes, _ = check_cuda(rt.cudaGraphGetNodes(self.graph, count), "cudaGraphGetNodes")
        found = {}
        record = rt.cudaGraphNodeType.cudaGraphNodeTypeEventRecord
        for node in nodes:
            if check_cuda(rt.cudaGraphNodeGetType(node), "cudaGraphNodeGetType") == record:
                event = check_cuda(rt.cudaGraphEventRecordNodeGetEvent(node), "GetEvent")
                found[int(event)] = node
        return found


@contextlib.contextmanager
def captured_graph(
    stream: int, enqueue: Callable[[int], None], ledger: ResourceLedger | None = None
) -> Iterator[CapturedGraph]:
    """Capture ``enqueue(stream)`` into a CUDA graph; yield it with its instantiated exec.

    Work that ``enqueue`` forks onto other streams with events is captured too (the fork/join
    protocol). The graph and its exec are destroyed on exit.
    """
    rt = runtime_api()
    mode = rt.cudaStreamCaptureMode.cudaStreamCaptureModeThreadLocal
    check_cuda(rt.cudaStreamBeginCapture(stream, mode), "cudaStreamBeginCapture")
    try:
        enqueue(stream)
    except BaseException:
        # End the capture so the stream is usable again, drop what was captured, re-raise.
        err, partial = rt.cudaStreamEndCapture(stream)
        if int(err) == 0 and partial is not None:
            rt.cudaGraphDestroy(partial)
        raise
    graph = check_cuda(rt.cudaStreamEndCapture(stream), "cudaStreamEndCapture")
    if ledger:
        ledger.add("graph")
    exec_ = None
    try:
        exec_ = check_cuda(rt.cudaGraphInstantiate(graph, 0), "cudaGraphInstantiate")
        if ledger:
            ledger.add("graph_exec")
        check_cuda(rt.cudaGraphUpload(exec_, stream), "cudaGraphUpload")
        yield CapturedGraph(graph, exec_)
    finally:
        if exec_ is not None:
            check_cuda(rt.cudaGraphExecDestroy(exec_), "cudaGraphExecDestroy")
            if ledger:
                ledger.remove("graph_exec")
        check_cuda(rt.cudaGraphDestroy(graph), "cudaGraphDestroy")
        if ledger:
            ledger.remove("graph")


def launch_graph(graph_exec: Any, stream: int) -> None:
    check_cuda(runtime_api().cudaGraphLaunch(graph_exec, stream), "cudaGraphLaunch")


def device_memory_used(device: int) -> int:
    """Bytes of device memory in use on the current device (total - free, driver's view)."""
    free, total = check_cuda(runtime_api().cudaMemGetInfo(), "cudaMemGetInfo")
    return int(total) - int(free)


def device_properties(device: int) -> dict[str, Any]:
    """Name, compute capability, SM count and driver/runtime versions of ``device``."""
    rt = runtime_api()
    prop = check_cuda(rt.cudaGetDeviceProperties(device), "cudaGetDeviceProperties")
    name = prop.name
    name = name.split(b"\0", 1)[0].decode() if isinstance(name, bytes) else str(name)
    return {
        "gpu_name": name,
        "compute_capability": f"{prop.major}.{prop.minor}",
        "sm_count": int(prop.multiProcessorCount),
        "driver_version": int(check_cuda(rt.cudaDriverGetVersion(), "cudaDriverGetVersion")),
        "runtime_version": int(check_cuda(rt.cudaRuntimeGetVersion(), "cudaRuntimeGetVersion")),
    }
