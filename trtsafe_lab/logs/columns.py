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
)

ONNX_COLUMNS: tuple[str, ...] = (ONNX_OP, ONNX_INDEX, ONNX_NODES)

COUNT = "count"  # number of failure rows in a summary group
FATAL_COUNT = "fatal_count"  # how many of them are fatal
SUMMARY_COLUMNS: tuple[str, ...] = (CATEGORY, PHASE, LAYER, COUNT, FATAL_COUNT)

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
