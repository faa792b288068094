"""trtexec and trtexec_safe: typed commands, the 11.x rules, version detection, a process
runner that streams logs and ends whole process groups, and builds into run directories.

Nothing here imports TensorRT; running a build needs the trtexec executable, analysing its run
directory does not.
"""

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
