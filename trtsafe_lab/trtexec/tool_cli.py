"""The ``--tool`` and ``--trt-version`` options of every command that runs trtexec or
trtexec_safe (``build``, ``profile sweep engines``, ``profile trtexec``), defined once, and the
TensorRT version they give. Stdlib only at import time (``trtsafe-lab --help`` stays fast)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from trtsafe_lab.errors import UsageError

if TYPE_CHECKING:
    from trtsafe_lab.trtexec.version import TrtVersion


def add_tool_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--tool`` (default trtexec) and ``--trt-version`` (default: asked of the tool)."""
    parser.add_argument("--tool", default="trtexec",
                        help="trtexec or trtexec_safe: a name on PATH or a path to one")
    parser.add_argument("--trt-version", metavar="VERSION",
                        help="the TensorRT version X.Y[.Z] whose trtexec rules and flags "
                        "apply (if omitted: read from the tool's --help banner)")


def tool_version(args: argparse.Namespace) -> tuple[TrtVersion, str]:
    """The TensorRT version of ``args`` (``--trt-version``, else asked of ``--tool``) and where
    it came from ("given" or "detected from PATH"); UsageError saying what to pass when neither
    gives one."""
    from trtsafe_lab.trtexec.build import resolve_tool
    from trtsafe_lab.trtexec.version import TrtVersion, VersionDetectionError, detect_version

    if args.trt_version:
        try:
            return TrtVersion.parse(args.trt_version), "given"
        except ValueError as err:
            raise UsageError(f"--trt-version: {err}") from err
    try:
        tool_path = resolve_tool(args.tool)
        return detect_version(tool_path), f"detected from {tool_path}"
    except FileNotFoundError as err:
        raise UsageError(
            f"cannot tell which TensorRT version the rules apply to: {err} "
            "Give it with --trt-version X.Y (e.g. --trt-version 11.4)."
        ) from err
    except VersionDetectionError as err:  # its message already says to pass --trt-version
        raise UsageError(f"cannot tell which TensorRT version the rules apply to: {err}."
                         ) from err
