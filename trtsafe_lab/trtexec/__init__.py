"""trtexec and trtexec_safe: typed commands, the 11.x rules, version detection, a process
runner that streams logs and ends whole process groups, and builds into run directories.

Nothing here imports TensorRT; running a build needs the trtexec executable, analysing its run
directory does not. The names below are loaded on first use, so that importing a small module
of this package (the flag tables, which the test doubles use at every start) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trtsafe_lab.trtexec.build import BuildResult, TrtexecBuild, run_build
    from trtsafe_lab.trtexec.options import Flag, TrtexecCommand, TrtexecOptions, parse_flags
    from trtsafe_lab.trtexec.rules import (
        BuildRuleFinding,
        ExpectedArtifact,
        RuleViolation,
        check_command,
        enforce,
    )
    from trtsafe_lab.trtexec.version import TrtVersion, detect_version

_HOMES = {
    "BuildResult": "build", "TrtexecBuild": "build", "run_build": "build",
    "Flag": "options", "TrtexecCommand": "options", "TrtexecOptions": "options",
    "parse_flags": "options", "ExpectedArtifact": "rules", "BuildRuleFinding": "rules",
    "RuleViolation": "rules", "check_command": "rules", "enforce": "rules",
    "TrtVersion": "version", "detect_version": "version",
}

__all__ = [
    "BuildResult",
    "BuildRuleFinding",
    "ExpectedArtifact",
    "Flag",
    "RuleViolation",
    "TrtVersion",
    "TrtexecBuild",
    "TrtexecCommand",
    "TrtexecOptions",
    "check_command",
    "detect_version",
    "enforce",
    "parse_flags",
    "run_build",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'trtsafe_lab.trtexec' has no attribute {name!r}")
    return getattr(importlib.import_module(f"trtsafe_lab.trtexec.{_HOMES[name]}"), name)
