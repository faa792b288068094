"""``trtsafe-lab migrate PATH... [--format table|json]``.

Exit codes: 0 no error-severity finding; 1 one or more; 2 an input could not be read (a path that
does not exist, a file that cannot be read as text or is not a regular file) or was over one of
the checker's limits (size, expansion, YAML aliases, nesting: ``file-over-limit``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from trtsafe_lab.migrate.check import check_paths, has_errors
from trtsafe_lab.migrate.rules import ERROR, MigrationFinding

UNREADABLE = "file-unreadable"
OVER_LIMIT = "file-over-limit"


def write_json(findings: Sequence[MigrationFinding], out: TextIO) -> None:
    """A JSON array of ``{file, line, rule, severity, message, fix}`` objects."""
    json.dump([f.as_dict() for f in findings], out, indent=2)
    out.write("\n")


def write_table(findings: Sequence[MigrationFinding], out: TextIO) -> None:
    """One block per finding: ``file:line  severity  rule``, the message, then the fix."""
    for f in findings:
        out.write(f"{f.file}:{f.line}  {f.severity}  {f.rule}\n")
        out.write(f"    {f.message}\n")
        out.write(f"    fix: {f.fix}\n")
    errors = sum(f.severity == ERROR for f in findings)
    files = len({f.file for f in findings})
    out.write(
        f"{len(findings)} finding(s): {errors} error(s), {len(findings) - errors} warning(s)"
        f" in {files} file(s)\n"
    )


def exit_code(findings: Sequence[MigrationFinding]) -> int:
    """2 when an input was unreadable or over a limit, else 1 with an error finding, else 0."""
    if any(f.rule in (UNREADABLE, OVER_LIMIT) for f in findings):
        return 2
    return 1 if has_errors(findings) else 0


def _run(args: argparse.Namespace) -> int:
    findings = check_paths(args.paths)
    if args.format == "json":
        write_json(findings, sys.stdout)
    else:
        write_table(findings, sys.stdout)
    return exit_code(findings)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "migrate",
        help="find 10.x-only code and build steps before moving to TensorRT 11.x safety",
        description="Check C/C++, Python, shell, Makefiles, CMake and CI YAML (folders are "
        "walked) for TensorRT 10.x safety usage that breaks on 11.x. Exit 0: no error; 1: "
        "errors found; 2: an input could not be read or was over a size/expansion/nesting "
        "limit.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to check")
    parser.add_argument(
        "--format", choices=("table", "json"), default="table",
        help="table: one block per finding with its fix; json: a list of findings",
    )
    parser.set_defaults(func=_run)
