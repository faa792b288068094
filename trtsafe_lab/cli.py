"""The ``trtsafe-lab`` command line: one subcommand per job, each a thin layer over the library.

Each subcommand lives beside the code it drives, in a module exposing
``register(subparsers) -> None``; the parser it adds sets ``func`` to a callable taking the parsed
arguments and returning the exit code. Exit codes: 0 success, 1 the checked thing has problems,
2 bad input (unreadable file, rule violation, bad arguments).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from trtsafe_lab import __version__
from trtsafe_lab._optional import MissingDependencyError
from trtsafe_lab.errors import UsageError

# Modules that register subcommands, in the order they appear in --help.
COMMAND_MODULES: tuple[str, ...] = (
    "trtsafe_lab.demo",
    "trtsafe_lab.logs.cli",
    "trtsafe_lab.runs_cli",
    "trtsafe_lab.trtexec.cli",
    "trtsafe_lab.artifacts_cli",
    "trtsafe_lab.profile.cli",
    "trtsafe_lab.runtime.cli",
    "trtsafe_lab.migrate.cli",
    "trtsafe_lab.report",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trtsafe-lab",
        description="TensorRT 11.x safety bring-up: builds, failure tables, aux-stream profiling.",
    )
    parser.add_argument("--version", action="version", version=f"trtsafe-lab {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except (UsageError, MissingDependencyError, FileNotFoundError, PermissionError) as err:
        print(f"trtsafe-lab {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"trtsafe-lab {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
