"""Column names of the failure-table DataFrames, defined once.

Every table in :mod:`trtsafe_lab.logs` uses these constants; display renames happen only in views.
"""

from __future__ import annotations

LINE = "line"  # 1-based line number where the record (events) or the finding (failures) starts
END_LINE = "end_line"  # 1-based last line of a multi-line record
TIMESTAMP = "timestamp"  # the first timestamp printed on the record's first line, as printed
SEVERITY = "severity"  # internal_error, critical, error, warning, info, verbose, or "" (untagged)
SOURCE = "source"  # who printed it: trtexec, tensorrt, onnx-parser, polygraphy, deepstream, ...
ERROR_CODE = "error_code"  # TensorRT ErrorCode number (Error Code 10 -> 10), <NA> when none
ERROR_NAME = "error_name"  # the category TensorRT printed after the code ("Internal Error")
ERROR_ENUM_NAME = "error_enum"  # nvinfer1::ErrorCode name of error_code (10 -> kUNSUPPORTED_STATE)
LOCATION = "location"  # TensorRT / parser source location as printed (file::func::line, file:line)
FUNCTION = "function"  # the function or API named with the location (computeCosts, parseGraph)
MESSAGE = "message"  # the message without line prefixes; multi-line records joined with "\n"
NAMES = "names"  # layer / node names the record mentions as failing (tuple of str)

LAYER = "layer"  # the failing layer / ONNX node name exactly as printed ("" when none is named)
MEMBERS = "members"  # names inside a fused layer or ForeignNode range (tuple of str)
EXPLANATION_ID = "explanation_id"  # id of the curated explanation (explanations.json), "" if none
TENSORS = "tensors"  # tensor names the finding's message mentions (tuple of str; not layers)
FATAL = "fatal"  # True when the finding stops the parse, build or run it occurred in
CATEGORY = "category"  # no-implementation, tactic-out-of-memory, parser-unsupported, shape, ...
PHASE = "phase"  # parse, build, tactic or runtime

ONNX_OP = "onnx_op"  # op_type of the ONNX node named by `layer` (with --onnx)
ONNX_INDEX = "onnx_index"  # index of that node in the ONNX graph's node list (with --onnx)
ONNX_NODES = "onnx_nodes"  # ONNX nodes a ForeignNode range or fused name spans (tuple of str)

EVENT_COLUMNS: tuple[str, ...] = (
    LINE,
    END_LINE,
    TIMESTAMP,
    SEVERITY,
    SOURCE,
    ERROR_CODE,
    ERROR_NAME,
    ERROR_ENUM_NAME,
    LOCATION,
    FUNCTION,
    PHASE,
    MESSAGE,
    NAMES,
)

FAILURE_COLUMNS: tuple[str, ...] = (
    LAYER,
    MEMBERS,
    SEVERITY,
    FATAL,
    CATEGORY,
    ERROR_CODE,
    ERROR_NAME,
    ERROR_ENUM_NAME,
    PHASE,
    LINE,
    SOURCE,
    LOCATION,
    FUNCTION,
    MESSAGE,
    TENSORS,
    EXPLANATION_ID,
)

ONNX_COLUMNS: tuple[str, ...] = (ONNX_OP, ONNX_INDEX, ONNX_NODES)

COUNT = "count"  # number of failure rows in a summary group
FATAL_COUNT = "fatal_count"  # how many of them are fatal
SUMMARY_COLUMNS: tuple[str, ...] = (CATEGORY, PHASE, LAYER, COUNT, FATAL_COUNT)

# --- failure signatures (trtsafe_lab.logs.signatures) and explanations
SIGNATURE = "signature"  # the message with names/numbers/paths/times replaced by placeholders
LOG_COUNT = "log_count"  # number of distinct logs a signature occurs in
LOGS = "logs"  # the logs it occurs in (tuple of names, order of first appearance)
LAYERS = "layers"  # distinct layers named by its rows (tuple of str)
FIRST_EXAMPLE = "first_example"  # the message of its first row, as printed
SIGNATURE_COLUMNS: tuple[str, ...] = (
    SIGNATURE,
    CATEGORY,
    COUNT,
    LOG_COUNT,
    LOGS,
    LAYERS,
    FIRST_EXAMPLE,
    EXPLANATION_ID,
)

# --- build summary (one row per log; trtsafe_lab.logs.build_summary says where each is printed)
LOG = "log"  # the log's path (or "<text>" / "<bytes>")
AUX_STREAMS = "aux_streams"  # "[MS] Number of aux streams is N" (count)
WORKER_STREAMS = "worker_streams"  # "[MS] Number of total worker streams is N" (count)
MULTI_STREAM_DISABLED = "multi_stream_disabled"  # "[MS] Multi stream is disabled ..." printed
MULTI_STREAM_DISABLED_REASON = "multi_stream_disabled_reason"  # words after because / as
ACTIVATION_MEMORY_BYTES = "activation_memory_bytes"  # "Total Activation Memory: N" (bytes)
SCRATCH_MEMORY_BYTES = "scratch_memory_bytes"  # "Total/Max Scratch Memory: N" (bytes)
HOST_PERSISTENT_BYTES = "host_persistent_memory_bytes"  # "Total Host Persistent Memory: N"
DEVICE_PERSISTENT_BYTES = "device_persistent_memory_bytes"  # "Total Device Persistent Memory"
WEIGHTS_MEMORY_BYTES = "weights_memory_bytes"  # "Total Weights Memory: N bytes"
PEAK_CPU_ALLOCATOR_MIB = "peak_cpu_allocator_mib"  # "[MemUsageStats] Peak ... CPU X MiB"
PEAK_GPU_ALLOCATOR_MIB = "peak_gpu_allocator_mib"  # "[MemUsageStats] Peak ... GPU Y MiB"
ENGINE_SIZE_MIB = "engine_size_mib"  # trtexec "Created engine with size: X MiB"
LOADED_ENGINE_SIZE_MIB = "loaded_engine_size_mib"  # "Loaded engine [with ]size: X MiB"
CONTEXT_DEVICE_MEMORY_MIB = "context_device_memory_mib"  # "... context with device memory size"
MAX_DEVICE_MEMORY_MIB = "max_device_memory_mib"  # "Maximum device memory size across all profiles"
ENGINE_GENERATION_S = "engine_generation_s"  # "Engine generation completed in X seconds."
BUILD_TIME_S = "build_time_s"  # trtexec "Engine built in X sec."
DESERIALIZE_TIME_S = "deserialize_time_s"  # trtexec "Engine deserialized in X sec."
BUILD_SUMMARY_COLUMNS: tuple[str, ...] = (
    LOG,
    AUX_STREAMS,
    WORKER_STREAMS,
    MULTI_STREAM_DISABLED,
    MULTI_STREAM_DISABLED_REASON,
    ACTIVATION_MEMORY_BYTES,
    SCRATCH_MEMORY_BYTES,
    HOST_PERSISTENT_BYTES,
    DEVICE_PERSISTENT_BYTES,
    WEIGHTS_MEMORY_BYTES,
    PEAK_CPU_ALLOCATOR_MIB,
    PEAK_GPU_ALLOCATOR_MIB,
    ENGINE_SIZE_MIB,
    LOADED_ENGINE_SIZE_MIB,
    CONTEXT_DEVICE_MEMORY_MIB,
    MAX_DEVICE_MEMORY_MIB,
    ENGINE_GENERATION_S,
    BUILD_TIME_S,
    DESERIALIZE_TIME_S,
)

# Names of TensorRT's nvinfer1::ErrorCode values, indexed by number (the N of "Error Code N").
ERROR_ENUM: tuple[str, ...] = (
    "kSUCCESS",
    "kUNSPECIFIED_ERROR",
    "kINTERNAL_ERROR",
    "kINVALID_ARGUMENT",
    "kINVALID_CONFIG",
    "kFAILED_ALLOCATION",
    "kFAILED_INITIALIZATION",
    "kFAILED_EXECUTION",
    "kFAILED_COMPUTATION",
    "kINVALID_STATE",
    "kUNSUPPORTED_STATE",
)


def error_enum(code: int | None) -> str:
    """``10`` -> ``"kUNSUPPORTED_STATE"``; "" for no code or one outside 0-10."""
    return ERROR_ENUM[code] if code is not None and 0 <= code < len(ERROR_ENUM) else ""
