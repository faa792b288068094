"""The TensorRT engine executor: a serialized engine run through TensorRT's Python runtime.

NOT verified with TensorRT: TensorRT cannot be installed on this project's machines. The code is
written against the 11.4 names file (reference/tensorrt-11.4-python-names.txt). Where the name a
feature needs is absent from that file, the executor tries the candidates in order and records
which one it used (:data:`trtsafe_lab.trt_api.EXECUTE_NAMES`,
:data:`~trtsafe_lab.trt_api.DEVICE_MEMORY_NAMES`); ``Runtime`` and
``Logger`` are not in the file either (it was read from the module's string table, which misses
some class names) but deserializing from Python needs them
(:data:`~trtsafe_lab.trt_api.NOT_IN_NAMES_FILE`).

Protocol (the same as the reference workload): the harness creates ``num_aux_streams`` aux
streams (non-blocking, distinct, never the default), calls :meth:`set_aux_streams` before the
first :meth:`execute_async`, times with CUDA events on the main stream, and destroys the streams
only after the final synchronize.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trtsafe_lab.cuda_api import activate_device, check_cuda, device_properties, runtime_api
from trtsafe_lab.trt_api import (
    DEVICE_MEMORY_NAMES,
    EXECUTE_NAMES,
    first_attr,
    import_tensorrt,
    tensor_bytes,
)

FEATURE = "Profiling a TensorRT engine"
def _installed_version(distribution: str) -> str:
    """The installed distribution's version (package metadata, not a TensorRT API name)."""
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown (no package metadata)"


class TensorRTEngineExecutor:
    """Deserializes ``engine_path``, allocates zeroed IO buffers, and runs one inference per
    :meth:`execute_async`. Attributes: ``num_aux_streams``, ``device_memory_bytes`` (engine
    activation memory + IO buffers), ``engine_device_memory_bytes``, ``api`` (names used)."""

    def __init__(self, engine_path: Path, *, device: int = 0) -> None:
        trt = import_tensorrt(FEATURE)
        rt = runtime_api()
        activate_device(device)
        self._buffers: list[Any] = []
        self._aux: list[int] | None = None
        logger = trt.Logger()  # default severity: warnings and errors
        self._runtime = trt.Runtime(logger)
        self.engine = self._runtime.deserialize_cuda_engine(Path(engine_path).read_bytes())
        if self.engine is None:
            raise RuntimeError(f"TensorRT could not deserialize {engine_path}: was it built by "
                               "this TensorRT version for this GPU? (see the log above)")
        self.context = self.engine.create_execution_context()
        if self.context is None:
            raise RuntimeError(f"create_execution_context failed for {engine_path}")
        self.num_aux_streams: int = int(self.engine.num_aux_streams)
        mem_name, mem = first_attr(self.engine, DEVICE_MEMORY_NAMES, "device memory size")
        self.engine_device_memory_bytes = int(mem)
        exec_name, self._execute = first_attr(self.context, EXECUTE_NAMES, "enqueue")
        self.api = {"execute": exec_name, "device_memory": mem_name}
        io_bytes = 0
        self.shapes: dict[str, list[int]] = {}
        self.trt_version = _installed_version("tensorrt")
        try:
            for i in range(int(self.engine.num_io_tensors)):
                name = self.engine.get_tensor_name(i)
                self.shapes[name] = [int(d) for d in self.context.get_tensor_shape(name)]
                size = max(1, tensor_bytes(self.shapes[name],
                                           self.engine.get_tensor_dtype(name)))
                ptr = check_cuda(rt.cudaMalloc(size), f"cudaMalloc({name})")
                self._buffers.append(ptr)
                check_cuda(rt.cudaMemset(ptr, 0, size), f"cudaMemset({name})")
                if not self.context.set_tensor_address(name, int(ptr)):
                    raise RuntimeError(f"set_tensor_address({name!r}) failed")
                io_bytes += size
        except BaseException:
            self.close()
            raise
        self.device_memory_bytes: int = self.engine_device_memory_bytes + io_bytes

    def set_aux_streams(self, streams: Sequence[int]) -> None:
        handles = [int(s) for s in streams]
        if len(handles) != self.num_aux_streams or 0 in handles or \
                len(set(handles)) != len(handles):
            raise ValueError(f"the engine needs exactly {self.num_aux_streams} distinct "
                             f"non-default aux streams, got {handles}")
        self.context.set_aux_streams(handles)
        self._aux = handles

    def execute_async(self, stream: int) -> None:
        if self.num_aux_streams and self._aux is None:
            raise RuntimeError("call set_aux_streams before the first execute_async: the "
                               f"engine uses {self.num_aux_streams} aux streams")
        if not self._execute(int(stream)):
            raise RuntimeError(f"{self.api['execute']} returned False (see TensorRT's log)")

    def describe(self) -> dict[str, Any]:
        return {"executor": "tensorrt", "num_aux_streams": self.num_aux_streams,
                "engine_device_memory_bytes": self.engine_device_memory_bytes,
                "device_memory_bytes": self.device_memory_bytes, "api": self.api}

    def close(self) -> None:
        rt = runtime_api()
        while self._buffers:
            check_cuda(rt.cudaFree(self._buffers.pop()), "cudaFree")
        self.context = None
        self.engine = None

    def __enter__(self) -> TensorRTEngineExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def profile_engine(engine_path: Path, *, aux_streams: Sequence[int] | None, warmup: int,
                   iterations: int, use_graph: bool, out_dir: Path,
                   device: int = 0, trace: bool = False) -> list[Path]:
    """Profile an engine once and write a run directory. ``aux_streams`` may only restate the
    engine's own count: it is fixed when the engine is built (``max_aux_streams``)."""
    from dataclasses import asdict

    from trtsafe_lab.profile.harness import TimingConfig, profile
    from trtsafe_lab.profile.identity import engine_record
    from trtsafe_lab.profile.rundir import write_run_dir

    timing = TimingConfig(warmup=warmup, iterations=iterations, use_graph=use_graph)
    with TensorRTEngineExecutor(engine_path, device=device) as executor:
        wanted = list(aux_streams) if aux_streams else [executor.num_aux_streams]
        if wanted != [executor.num_aux_streams]:
            raise ValueError(
                f"{engine_path} uses {executor.num_aux_streams} aux streams, fixed at build "
                f"time; to profile {wanted}, build one engine per count (trtexec "
                "--maxAuxStreams=N, or IBuilderConfig.max_aux_streams) and profile each")
        run = profile(executor, timing)
        kernels = None
        if trace:
            from trtsafe_lab.profile.cupti_trace import kernel_trace
            from trtsafe_lab.profile.runner import TRACE_ITERATIONS

            with kernel_trace() as kernels:
                profile(executor, TimingConfig(0, TRACE_ITERATIONS, use_graph,
                                               mode="per-iteration"))
        name = f"{Path(engine_path).name}-aux{executor.num_aux_streams}-" + (
            "graph" if use_graph else "eager")
        out_dir.mkdir(parents=True, exist_ok=True)
        info = {"command": ["trtsafe-lab", "profile", "engine", str(engine_path)],
                "executor": executor.describe(),
                "workload": engine_record(Path(engine_path), shapes=executor.shapes,
                                          trt_version=executor.trt_version,
                                          tool="tensorrt python runtime"),
                "timing": asdict(timing),
                "num_aux_streams": executor.num_aux_streams,
                "device_memory_bytes": executor.device_memory_bytes,
                "gpu": device_properties(device),
                "date_utc": dt.datetime.now(dt.timezone.utc).date().isoformat()}
        return [write_run_dir(out_dir, name, records=run.records, info=info, kernels=kernels)]
