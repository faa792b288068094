"""``trtsafe-lab build``: check a trtexec command against the 11.x rules, then run it into a run
directory (or, with ``--dry-run``, print the argv and the expected artifacts and stop)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from trtsafe_lab.errors import UsageError
from trtsafe_lab.logs import columns as C
from trtsafe_lab.paths import created_output_dir
from trtsafe_lab.rundir import BuildRun, RunDirError, load_run
from trtsafe_lab.trtexec.build import BuildAbortedError, BuildResult, TrtexecBuild
from trtsafe_lab.trtexec.dry_run import describe_command
from trtsafe_lab.trtexec.options import TOOLS, TrtexecCommand, parse_flags
from trtsafe_lab.trtexec.progress import ProgressTracker, TerminalProgressBar
from trtsafe_lab.trtexec.rules import RuleViolation, check_command, refusals
from trtsafe_lab.trtexec.runner import SignalInterrupt, signals_as_interrupt
from trtsafe_lab.trtexec.tool_cli import add_tool_arguments, tool_version


def command_from_args(args: argparse.Namespace) -> tuple[TrtexecCommand, str]:
    flags = list(args.flags)
    if flags and flags[0] == "--":
        flags = flags[1:]
    if not flags:
        raise UsageError("no trtexec flags given; write them after '--', e.g. "
                         "trtsafe-lab build --dry-run -- --onnx=model.onnx --safe ...")
    kind = Path(args.tool).name
    if not kind.startswith(TOOLS):
        raise UsageError(
            f"--tool {args.tool!r}: expected trtexec or trtexec_safe (or a path to one)"
        )
    try:
        parsed = parse_flags(flags)
    except ValueError as err:
        raise UsageError(str(err)) from err
    version, source = tool_version(args)
    return TrtexecCommand(args.tool, tuple(parsed), version), source


def _summary(result: BuildResult) -> str:
    proc = result.process
    head = (f"run: {result.run_dir}\nstatus: "
            + (f"exit code {proc.returncode}" if result.complete else f"{proc.status} (incomplete)")
            + f", {proc.duration_s:.1f} s")
    arts = [f"  {a['kind']:<13} {'present' if a['present'] else 'MISSING'}  {a['path']}"
            for a in result.artifacts]
    lines = [head, *(["artifacts:", *arts] if arts else [])]
    if result.complete:
        run = load_run(result.run_dir)
        if not isinstance(run, BuildRun):
            raise RunDirError(f"{result.run_dir} is a {run.kind} run, not a build run")
        record = run.result
        if record.get("failure_table"):
            table = pd.read_csv(result.run_dir / record["failure_table"])
            lines.append(f"failure table: {len(table)} row(s) in {record['failure_table']}")
            if len(table):
                shown = table[[C.LAYER, C.CATEGORY, C.PHASE, C.FATAL, C.LINE, C.MESSAGE]].head(10)
                shown = shown.assign(**{C.MESSAGE: shown[C.MESSAGE].str.slice(0, 70)})
                lines.append(shown.fillna("").to_string(index=False))
        else:
            lines.append(f"failure table: not made ({record.get('failure_table_note')})")
    return "\n".join(lines)


def _cli(args: argparse.Namespace) -> int:
    if args.timeout is not None and not args.timeout > 0:  # NaN too
        raise UsageError(f"--timeout {args.timeout:g}: give the seconds a build may take, a "
                         "number above 0 (or leave it out for no limit)")
    cmd, source = command_from_args(args)
    if args.dry_run:
        print(describe_command(cmd, source))
        return 2 if refusals(check_command(cmd)) else 0
    if not refusals(check_command(cmd)):  # a dry run or a refused build creates nothing
        created_output_dir(args.runs, "--runs")
    tracker = ProgressTracker()
    bar = TerminalProgressBar(stream=sys.stderr) if sys.stderr.isatty() else None
    if bar is not None:
        tracker.listeners.append(bar)
    build = TrtexecBuild(cmd, Path(args.runs), label=args.label, timeout_s=args.timeout,
                         on_line=None if bar else lambda _s, line: print(line, flush=True),
                         progress=tracker)
    try:
        with signals_as_interrupt():  # SIGTERM/SIGHUP: like Ctrl-C (group ended, run kept)
            result = build.run()
    except SignalInterrupt as sig:
        print(f"trtsafe-lab build: stopped by {sig}; the tool's process group was ended and "
              f"the partial run kept (INCOMPLETE.json) under {args.runs}", file=sys.stderr)
        return 128 + sig.signum
    except RuleViolation as err:
        raise UsageError(str(err)) from err
    except BuildAbortedError as err:
        print(f"trtsafe-lab build: error: {err}", file=sys.stderr)
        return 1
    finally:
        if bar is not None:
            bar.close()
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(_summary(result))
    return 0 if result.ok else 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "build",
        help="check a trtexec/trtexec_safe command against the 11.x rules and run it into a "
        "run directory",
        description="Check a trtexec / trtexec_safe command against the TensorRT 11.x rules, "
        "then run it into a run directory (argv, environment, full log, exit code, duration, "
        "artifacts, manifest). Exit 0: built; 1: the tool failed or an expected artifact is "
        "missing; 2: a rule refused the command or bad input.",
    )
    parser.add_argument("--dry-run", action="store_true",
                        help="print the argv and the expected artifacts, run nothing")
    add_tool_arguments(parser)
    parser.add_argument("--runs", default="runs", metavar="DIR",
                        help="folder the run directory is written under")
    parser.add_argument("--label", default="build",
                        help="word in the run directory's name")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="seconds before the build is stopped (the whole process group; "
                        "if omitted: no limit)")
    parser.add_argument("flags", nargs=argparse.REMAINDER,
                        help="trtexec flags after '--', e.g. -- --onnx=m.onnx --safe")
    parser.set_defaults(func=_cli)
