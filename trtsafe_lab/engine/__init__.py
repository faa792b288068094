"""The TensorRT Python builder path. ``tensorrt`` is imported lazily, only when a build runs,
through :func:`trtsafe_lab._optional.require`; importing this package does not import it."""

from trtsafe_lab.engine.builder import (
    PythonBuildOptions,
    PythonBuildResult,
    PythonSafeBuildUnsupported,
    build_with_python_api,
    check_python_build,
)
from trtsafe_lab.engine.monitor import LogRecorder

__all__ = [
    "LogRecorder", "PythonBuildOptions", "PythonBuildResult", "PythonSafeBuildUnsupported",
    "build_with_python_api", "check_python_build",
]
