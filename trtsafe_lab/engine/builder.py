"""Build an engine with the TensorRT Python API: ONNX -> network -> config -> serialized engine.

The config carries the engine capability, ``max_aux_streams``, detailed profiling verbosity, a
timing cache (read before, written back after) and, for safe builds, the remote auto-tuning
config. Progress goes to a :class:`ProgressTracker` through an ``IProgressMonitor``; every
builder message is recorded by an ``ILogger`` into the run directory's log in the format the log
parser reads.

Safe builds (11.3+) produce an engine *and* a companion .so; that needs the C++
``IBuilder::buildSerializedSafeNetwork``, which the 11.4 Python bindings do not have (checked in
the tensorrt 11.4.0.106 wheel), and the ordinary ``build_serialized_network`` returns an error for
safe builds. So a safe build is refused before tensorrt is even imported, with the equivalent
``trtexec --safe`` command.

Nothing here was run against a real TensorRT: it is written against
reference/tensorrt-11.4-python-names.txt and tested with recording test doubles.
"""

from __future__ import annotations

import shlex
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from trtsafe_lab.engine.monitor import (
    LogRecorder,
    MonitorAdapter,
    make_logger,
    make_progress_monitor,
)
from trtsafe_lab.rundir import RunWriter, utc_now
from trtsafe_lab.trt_api import import_tensorrt
from trtsafe_lab.trtexec.build import host_summary, record_failure_table
from trtsafe_lab.trtexec.options import TrtexecOptions
from trtsafe_lab.trtexec.progress import ProgressTracker
from trtsafe_lab.trtexec.version import TrtVersion

# Members this package touches on tensorrt objects (not reachable by a scan of ``trt.X``), per
# binding class; tests/test_tensorrt_names.py checks each against the class in NVIDIA's bindings
# source (pyCore.cpp/pyGraph.cpp 11.1; OnnxParser: the 11.4 names list) and this source.
TENSORRT_MEMBERS_USED: dict[str, tuple[str, ...]] = {
    "Builder": ("create_network", "create_builder_config", "build_serialized_network"),
    "OnnxParser": ("parse_from_file",),
    "IBuilderConfig": ("engine_capability", "max_aux_streams", "profiling_verbosity",
                       "create_timing_cache", "set_timing_cache", "remote_auto_tuning_config",
                       "progress_monitor"),
    "ITimingCache": ("serialize",),
    "IProgressMonitor": ("phase_start", "step_complete", "phase_finish"),
    "ILogger": ("log",),
}


_ANY_11X = TrtVersion(11, 4)  # for printing the equivalent trtexec command


class PythonSafeBuildUnsupported(NotImplementedError):
    """Safe builds with a companion .so cannot be done from the TensorRT Python API."""


@dataclass
class PythonBuildOptions:
    """What to build. ``max_aux_streams`` None leaves the builder heuristics; 0 = one stream.
    ``timing_cache`` is read if it exists and written back after the build (shared by sweeps)."""

    onnx: Path
    engine_name: str = "model.engine"
    safe: bool = False
    max_aux_streams: int | None = None
    detailed_profiling: bool = True
    timing_cache: Path | None = None
    remote_auto_tuning_config: str | None = None

    def trtexec_equivalent(self) -> TrtexecOptions:
        """The same build as trtexec options (the path to take for safe builds)."""
        return TrtexecOptions(
            onnx=self.onnx, save_engine=Path(self.engine_name), safe=self.safe,
            max_aux_streams=self.max_aux_streams, timing_cache_file=self.timing_cache,
            profiling_verbosity="detailed" if self.detailed_profiling else None,
            remote_auto_tuning_config=self.remote_auto_tuning_config, skip_inference=True,
        )


def check_python_build(options: PythonBuildOptions) -> None:
    """Refuse what the Python path cannot do, before importing tensorrt."""
    if options.safe:
        flags = options.trtexec_equivalent().to_command(_ANY_11X).argv()[1:]
        raise PythonSafeBuildUnsupported(
            "a TensorRT 11.x safe build produces an engine and a companion .so, which needs the "
            "C++ IBuilder::buildSerializedSafeNetwork; the 11.4 Python bindings have no "
            "build_serialized_safe_network. Build it with trtexec instead, e.g.\n  "
            f"trtsafe-lab build -- {shlex.join(flags)}"
        )
    if options.remote_auto_tuning_config is not None:
        raise ValueError("remote_auto_tuning_config applies only to safe builds (EngineCapability "
                         "SAFETY); remove it, or build safe with trtexec --safe")
    if options.max_aux_streams is not None and options.max_aux_streams < 0:
        raise ValueError(f"max_aux_streams must be an integer >= 0, got {options.max_aux_streams}")
    if not Path(options.onnx).is_file():
        raise FileNotFoundError(f"ONNX model {options.onnx} does not exist")


def configure(trt: ModuleType, builder: Any, options: PythonBuildOptions,
              monitor: Any) -> tuple[Any, Any]:
    """Create the builder config for ``options``; return ``(config, timing_cache)``."""
    config = builder.create_builder_config()
    capability = trt.EngineCapability.SAFETY if options.safe else trt.EngineCapability.STANDARD
    config.engine_capability = capability
    if options.max_aux_streams is not None:
        config.max_aux_streams = options.max_aux_streams
    if options.detailed_profiling:
        config.profiling_verbosity = trt.ProfilingVerbosity.DETAILED
    cache_bytes = b""
    if options.timing_cache is not None and Path(options.timing_cache).is_file():
        cache_bytes = Path(options.timing_cache).read_bytes()
    cache = config.create_timing_cache(cache_bytes)
    config.set_timing_cache(cache, False)
    if options.safe and options.remote_auto_tuning_config is not None:
        config.remote_auto_tuning_config = options.remote_auto_tuning_config
    config.progress_monitor = monitor
    return config, cache


@dataclass
class PythonBuildResult:
    """``run_dir`` is final when ``ok``; else the ``.partial`` one with the log kept."""

    run_dir: Path
    ok: bool
    duration_s: float
    engine: Path | None
    messages: list[tuple[str, str]] = field(default_factory=list)


def build_with_python_api(
    options: PythonBuildOptions,
    runs_dir: Path,
    *,
    label: str = "python-build",
    tracker: ProgressTracker | None = None,
    cancel_event: threading.Event | None = None,
    trt: ModuleType | None = None,
) -> PythonBuildResult:
    """Build ``options.onnx`` into a run directory under ``runs_dir``.

    ``cancel_event`` set from another thread makes the progress monitor cancel the build.
    ``trt`` is for tests (a recording double); by default tensorrt is imported lazily.
    """
    check_python_build(options)
    trt = trt or import_tensorrt("Building with the TensorRT Python API")
    tracker = tracker or ProgressTracker()
    writer = RunWriter(Path(runs_dir), label)
    recorder = LogRecorder(sink=writer.write_line, tracker=tracker)
    adapter = MonitorAdapter(tracker, cancel_event or threading.Event())
    started = time.monotonic()
    try:
        writer.write_json("command.json", {
            "python_api": True, "onnx": str(options.onnx), "engine_name": options.engine_name,
            "max_aux_streams": options.max_aux_streams, "safe": options.safe,
            "timing_cache": str(options.timing_cache) if options.timing_cache else None,
            "trt_version": str(getattr(trt, "__version__", "unknown")),
        })
        writer.write_json("environment.json", {
            **host_summary(), "tensorrt_module": str(getattr(trt, "__file__", "")),
            "trt_version": str(getattr(trt, "__version__", "unknown")),
        })
        logger = make_logger(trt, recorder)
        builder = trt.Builder(logger)
        network = builder.create_network(0)
        parser = trt.OnnxParser(network, logger)
        if not parser.parse_from_file(str(options.onnx)):
            return _finish(writer, tracker, recorder, started, options, "parse_failed")
        config, cache = configure(trt, builder, options, make_progress_monitor(trt, adapter))
        serialized = builder.build_serialized_network(network, config)
        if serialized is None and adapter.cancel_event.is_set():
            writer.abandon("cancelled", "cancelled through the progress monitor")
            tracker.finish("cancelled")
            return PythonBuildResult(writer.path, False, time.monotonic() - started, None,
                                     recorder.records)
        if serialized is None:
            return _finish(writer, tracker, recorder, started, options, "failed")
        engine = writer.path / "artifacts" / options.engine_name
        engine.write_bytes(memoryview(serialized))
        if options.timing_cache is not None:
            Path(options.timing_cache).write_bytes(memoryview(cache.serialize()))
    except BaseException as err:
        writer.abandon("aborted", f"{type(err).__name__}: {err}")
        tracker.finish("aborted")
        raise
    return _finish(writer, tracker, recorder, started, options, "passed")


def _finish(writer: RunWriter, tracker: ProgressTracker, recorder: LogRecorder, started: float,
            options: PythonBuildOptions, status: str) -> PythonBuildResult:
    """Finish the run directory: ``passed`` with the engine, or ``failed``/``parse_failed``
    (the builder ran to its end and said no: a complete record, like a trtexec exit 1)."""
    duration = time.monotonic() - started
    engine = f"artifacts/{options.engine_name}"
    present = status == "passed"
    final = writer.finish({
        "exit_code": 0 if present else 1, "status": status, "duration_s": duration,
        "started_utc": writer.started_utc, "finished_utc": utc_now(),
        "artifacts": [{"kind": "engine", "role": "output", "inside_run": True, "path": engine,
                       "present": present}],
        "missing_artifacts": [] if present else [f"engine {engine}"],
        **record_failure_table(writer.path),
    }, [])
    tracker.finish(status)
    return PythonBuildResult(final, present, duration, final / engine if present else None,
                             recorder.records)
