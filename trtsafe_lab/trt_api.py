"""TensorRT access shared by every executor: the lazy ``tensorrt`` import and the names that differ
between TensorRT versions.

NOT verified with TensorRT: TensorRT cannot be installed on this project's machines. The names are
checked against the 11.4 names file (reference/tensorrt-11.4-python-names.txt) by
tests/test_tensorrt_names.py. Where the name a feature needs is absent from that file, callers try
the candidates in order with :func:`first_attr` and record which one they used.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from trtsafe_lab._optional import require

# enqueue and engine device memory, as NVIDIA's 11.1 bindings source (pyCore.cpp) binds them:
# IExecutionContext.execute_async_v3(stream_handle), ICudaEngine.device_memory_size_v2. The
# 11.4 names file has no name with a digit at all (its `execute_async` is `execute_async_v3`
# cut at the digit), and the 11.1 bindings have no `execute_async` / `device_memory_size`.
EXECUTE_NAMES = ("execute_async_v3",)
DEVICE_MEMORY_NAMES = ("device_memory_size_v2",)
# (Logger is explained as the tail of ILogger; Runtime is declared in tests/test_tensorrt_names.py)
NOT_IN_NAMES_FILE = ("Runtime", "Logger", "execute_async_v3", "device_memory_size_v2")
# Bytes per element by TensorRT DataType member name (sub-byte types rounded up per tensor).
DTYPE_BITS = {"FLOAT": 32, "HALF": 16, "BF16": 16, "INT8": 8, "UINT8": 8, "BOOL": 8, "FP8": 8,
              "INT32": 32, "INT64": 64, "INT4": 4, "FP4": 4, "E8M0": 8}


def first_attr(obj: Any, names: Sequence[str], what: str) -> tuple[str, Any]:
    """The first of ``names`` that ``obj`` has, as (name, attribute); a clear error otherwise."""
    for name in names:
        if hasattr(obj, name):
            return name, getattr(obj, name)
    raise AttributeError(f"{type(obj).__name__} has none of {list(names)} for {what}; this "
                         "TensorRT version is not supported by the engine executor")


def tensor_bytes(shape: Sequence[int], dtype: Any) -> int:
    """Bytes of a tensor of ``shape`` and TensorRT ``dtype`` (its enum member name is used)."""
    dims = [int(d) for d in shape]
    if any(d < 0 for d in dims):
        raise ValueError(f"tensor shape {dims} is dynamic: the engine executor supports static "
                         "shapes only; build the engine with fixed shapes")
    name = str(getattr(dtype, "name", dtype)).rsplit(".", 1)[-1].upper()
    if name not in DTYPE_BITS:
        raise ValueError(f"unknown TensorRT data type {dtype!r}")
    count = 1
    for d in dims:
        count *= d
    return (count * DTYPE_BITS[name] + 7) // 8


def import_tensorrt(feature: str) -> ModuleType:
    """The ``tensorrt`` module, or a MissingDependencyError naming ``feature`` and the trt extra."""
    return require("tensorrt", feature=feature)
