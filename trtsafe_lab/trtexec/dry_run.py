"""What ``trtsafe-lab build --dry-run`` prints for a command: nothing is run."""

from __future__ import annotations

import shlex

from trtsafe_lab.trtexec.options import TrtexecCommand
from trtsafe_lab.trtexec.rules import check_command, expected_artifacts, refusals


def describe_command(cmd: TrtexecCommand, version_source: str) -> str:
    """The dry-run text: argv, rule findings and the expected artifacts (none from a refused
    flag)."""
    lines = [f"tool: {cmd.tool} ({cmd.tool_kind}), TensorRT {cmd.version} ({version_source})",
             f"argv: {shlex.join(cmd.argv())}"]
    findings = check_command(cmd)
    summary = f"{len(findings)} finding(s)" if findings else "all passed"
    lines.append(f"rule checks: {summary}")
    lines += [f"  {f.severity}: {f}" for f in findings]
    refused = {f.flag.lstrip("-") for f in refusals(findings)}  # a refused flag writes nothing
    arts = [a for a in expected_artifacts(cmd) if a.flag not in refused]
    lines.append("expected artifacts:" if arts else "expected artifacts: none")
    for art in arts:
        note = f"; {art.note}" if art.note else ""
        lines.append(f"  {art.kind:<13} {art.role:<6} {art.path}  (--{art.flag}{note})")
    lines.append("In a run directory, relative output paths are written under "
                 "<runs>/<run>/artifacts/; relative inputs are read from the current folder.")
    return "\n".join(lines)
