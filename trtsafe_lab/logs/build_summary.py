"""What a build log says about streams, memory, sizes and times: one row per log.

The wording is TensorRT's and trtexec's own:

- trtexec (``samples/common/sampleEngines.cpp``, ``sampleInference.cpp`` of TensorRT 11.1 in
  ``../shared/reference/tensorrt-oss``): ``Engine built in X sec.``, ``Created engine with size:
  X MiB``, ``Loaded engine with size: X MiB``, ``Engine deserialized in X sec.``, ``Created
  execution context with device memory size: X MiB``, ``Maximum device memory size across all
  profiles: X MiB``, ``Only allocated device memory enough for R: X MiB``.
- the TensorRT library (its log lines, as published; not in the open sources):
  ``[MS] Number of aux streams is N``, ``[MS] Number of total worker streams is N``,
  ``[MS] Multi stream is disabled because the stream assignment failed.`` /
  ``... as cannot find an opportunity to leverage it``, ``Total Activation Memory: N [bytes]``,
  ``Total/Max Scratch Memory: N [bytes]``, ``Total Host/Device Persistent Memory: N [bytes]``,
  ``Total Weights Memory: N bytes``, ``[MemUsageStats] Peak memory usage of TRT CPU/GPU memory
  allocators: CPU X MiB, GPU Y MiB``, ``Engine generation completed in X seconds.``,
  ``Loaded engine size: X MiB``. TensorRT 8.x prints the memory totals without a unit; they are
  bytes there too.

Columns of :func:`build_summary_frame` (:data:`~trtsafe_lab.logs.columns.BUILD_SUMMARY_COLUMNS`):
    log; aux_streams (Int64: "Number of aux streams is N", <NA> when not printed);
    worker_streams (Int64); multi_stream_disabled (bool: "Multi stream is disabled" printed);
    multi_stream_disabled_reason (the words after "because" / "as"); activation_memory_bytes,
    scratch_memory_bytes, host_persistent_memory_bytes, device_persistent_memory_bytes,
    weights_memory_bytes (Int64, bytes); peak_cpu_allocator_mib, peak_gpu_allocator_mib,
    engine_size_mib, loaded_engine_size_mib, context_device_memory_mib,
    max_device_memory_mib (float, MiB); engine_generation_s, build_time_s, deserialize_time_s
    (float, seconds). When a value is printed more than once (several builds or profiles in one
    log) the last one is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import pandas as pd

from trtsafe_lab.logs import columns as C

_NUMBER = r"(?P<value>\d{1,20}(?:\.\d{1,12})?(?:e[+-]?\d{1,3})?)"
# (column, pattern, kind): kind "int" for counts and bytes, "float" for MiB and seconds.
_FIELDS: tuple[tuple[str, re.Pattern[str], str], ...] = tuple(
    (column, re.compile(pattern), kind)
    for column, pattern, kind in (
        (C.AUX_STREAMS, r"Number of aux streams is " + _NUMBER, "int"),
        (C.WORKER_STREAMS, r"Number of total worker streams is " + _NUMBER, "int"),
        (C.ACTIVATION_MEMORY_BYTES, r"Total Activation Memory: " + _NUMBER, "int"),
        (C.SCRATCH_MEMORY_BYTES, r"(?:Total|Max) Scratch Memory: " + _NUMBER, "int"),
        (C.HOST_PERSISTENT_BYTES, r"Total Host Persistent Memory: " + _NUMBER, "int"),
        (C.DEVICE_PERSISTENT_BYTES, r"Total Device Persistent Memory: " + _NUMBER, "int"),
        (C.WEIGHTS_MEMORY_BYTES, r"Total Weights Memory: " + _NUMBER, "int"),
        (C.ENGINE_SIZE_MIB, r"Created engine with size: " + _NUMBER + " MiB", "float"),
        (C.LOADED_ENGINE_SIZE_MIB, r"Loaded engine (?:with )?size: " + _NUMBER + " MiB", "float"),
        (
            C.CONTEXT_DEVICE_MEMORY_MIB,
            r"Created execution context with device memory size: " + _NUMBER + " MiB",
            "float",
        ),
        (
            C.MAX_DEVICE_MEMORY_MIB,
            r"Maximum device memory size across all profiles: " + _NUMBER + " MiB",
            "float",
        ),
        (C.ENGINE_GENERATION_S, r"Engine generation completed in " + _NUMBER + " sec", "float"),
        (C.BUILD_TIME_S, r"Engine built in " + _NUMBER + " sec", "float"),
        (C.DESERIALIZE_TIME_S, r"Engine deserialized in " + _NUMBER + " sec", "float"),
    )
)
_PEAK = re.compile(
    r"Peak memory usage of TRT CPU/GPU memory allocators: CPU (?P<cpu>\d{1,12}) MiB, "
    r"GPU (?P<gpu>\d{1,12}) MiB"
)
_DISABLED = re.compile(r"Multi stream is disabled(?: (?:because|as) (?P<reason>[^\n]{0,300}))?")
# Every line that can hold a field contains one of these: a cheap test before the patterns.
_ANY = re.compile(
    r"aux streams is|worker streams is|Multi stream is disabled|Memory: \d|Peak memory usage"
    r"|engine with size|engine size:|device memory size|Engine generation completed"
    r"|Engine built in|Engine deserialized in"
)
_ANY_BYTES = re.compile(_ANY.pattern.encode())


def summarize_build(lines: Iterable[str | bytes]) -> dict[str, Any]:
    """The build-summary fields of one log (keys: BUILD_SUMMARY_COLUMNS without ``log``)."""
    row: dict[str, Any] = {column: None for column in C.BUILD_SUMMARY_COLUMNS[1:]}
    row[C.MULTI_STREAM_DISABLED] = False
    row[C.MULTI_STREAM_DISABLED_REASON] = ""
    for raw in lines:
        if isinstance(raw, bytes | bytearray):
            if _ANY_BYTES.search(raw) is None:
                continue
            line = raw.decode("utf-8", errors="replace")
        elif _ANY.search(raw) is None:
            continue
        else:
            line = raw
        for column, pattern, kind in _FIELDS:
            match = pattern.search(line)
            if match is not None:
                value = match.group("value")
                row[column] = int(float(value)) if kind == "int" else float(value)
        peak = _PEAK.search(line)
        if peak is not None:
            row[C.PEAK_CPU_ALLOCATOR_MIB] = float(peak.group("cpu"))
            row[C.PEAK_GPU_ALLOCATOR_MIB] = float(peak.group("gpu"))
        disabled = _DISABLED.search(line)
        if disabled is not None:
            row[C.MULTI_STREAM_DISABLED] = True
            reason = (disabled.group("reason") or "").strip().rstrip(".")
            # Both reasons may be printed; the warning (stream assignment failed) says more.
            if reason and (not row[C.MULTI_STREAM_DISABLED_REASON] or "fail" in reason):
                row[C.MULTI_STREAM_DISABLED_REASON] = reason
    return row


_INT_COLUMNS = (
    C.AUX_STREAMS,
    C.WORKER_STREAMS,
    C.ACTIVATION_MEMORY_BYTES,
    C.SCRATCH_MEMORY_BYTES,
    C.HOST_PERSISTENT_BYTES,
    C.DEVICE_PERSISTENT_BYTES,
    C.WEIGHTS_MEMORY_BYTES,
)


def build_summary_frame(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """Rows of :func:`summarize_build` (plus ``log``) as a typed DataFrame."""
    frame = pd.DataFrame(list(rows), columns=list(C.BUILD_SUMMARY_COLUMNS))
    for column in _INT_COLUMNS:
        frame[column] = frame[column].astype("Int64")
    for column in C.BUILD_SUMMARY_COLUMNS:
        if column.endswith(("_mib", "_s")):
            frame[column] = frame[column].astype("float64")
    frame[C.MULTI_STREAM_DISABLED] = frame[C.MULTI_STREAM_DISABLED].astype(bool)
    return frame
