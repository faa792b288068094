"""``trtsafe-lab profile trtexec ENGINE``: run an engine through trtexec or trtexec_safe into a
profile run directory that ``trtsafe-lab profile compare`` reads.

The command is composed by :mod:`trtsafe_lab.profile.trtexec_exec` and checked against the
source-derived flag table of the tool and version before anything runs. trtexec writes
``--exportTimes`` records; trtexec_safe has no exports, so its run comes from its printed lines
(per-iteration lines with ``--avgRuns=1``; when a log has none, the run is marked summary-only
and ``--repeat N`` gives a distribution of N medians).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from trtsafe_lab.errors import UsageError
from trtsafe_lab.profile.args_cli import add_out_argument, positive_int
from trtsafe_lab.trtexec.tool_cli import add_tool_arguments, tool_version


def _run(args: argparse.Namespace) -> int:
    from trtsafe_lab.profile.loaders import load_profile_run
    from trtsafe_lab.profile.trtexec_exec import is_safe_tool, run_trtexec
    from trtsafe_lab.trtexec.build import ToolNotFoundError, resolve_tool
    from trtsafe_lab.trtexec.rules import RuleViolation

    engine = Path(args.engine)
    if not engine.is_file():
        raise UsageError(f"{engine}: no such engine file (build one with 'trtsafe-lab build')")
    try:
        tool = resolve_tool(args.tool)
    except ToolNotFoundError as err:
        raise UsageError(str(err)) from err
    version, _source = tool_version(args)
    safe_tool = is_safe_tool(args.tool) or is_safe_tool(str(tool))
    if args.repeat != 1 and not safe_tool:
        raise UsageError("--repeat applies to trtexec_safe (one summary per run); trtexec "
                         "records every iteration with --exportTimes")
    name = args.name or f"{engine.stem}-{'trtexec_safe' if safe_tool else 'trtexec'}"
    executable = str(tool) if not safe_tool or is_safe_tool(str(tool)) else args.tool
    try:
        path = run_trtexec(engine.resolve(), Path(args.out), name, version=version,
                           executable=executable, safe=args.safe,
                           companion_so=Path(args.companion_so) if args.companion_so else None,
                           use_graph=not args.no_graph, timeout_s=args.timeout,
                           repeat=args.repeat)
    except RuleViolation as err:
        raise UsageError(str(err)) from err
    except (RuntimeError, FileExistsError) as err:
        print(f"trtsafe-lab profile trtexec: error: {err}")
        return 1
    run = load_profile_run(path)
    print(path)
    print(f"statistics: {run.info.get('statistics')} ({len(run.times)} sample(s))")
    return 0


def register_trtexec(sub: argparse._SubParsersAction) -> None:
    """Add ``trtexec`` to the ``profile`` subcommands."""
    p = sub.add_parser("trtexec", help="run an engine through trtexec or trtexec_safe into a "
                       "profile run directory (needs the tool)",
                       description="Run a built engine through trtexec or trtexec_safe into a "
                       "profile run directory that 'trtsafe-lab profile compare' reads. The "
                       "command is checked against the tool's flag table first; trtexec's "
                       "samples come from --exportTimes, trtexec_safe's from its printed lines.")
    p.add_argument("engine", help="the serialized engine (.engine / .plan)")
    add_tool_arguments(p)
    add_out_argument(p, "out/profile")
    p.add_argument("--name", help="run directory name (if omitted: <engine>-<tool>)")
    p.add_argument("--repeat", type=positive_int, default=1, metavar="N",
                   help="trtexec_safe: run N times into one run directory")
    p.add_argument("--safe", action="store_true",
                   help="trtexec only: the engine is a safe engine (passes --safe)")
    p.add_argument("--companion-so", metavar="FILE.so",
                   help="the engine's companion .so (11.3+; if omitted: <engine>.so)")
    p.add_argument("--no-graph", action="store_true",
                   help="time without CUDA graphs (11.x: --noCudaGraph; 10.x: no --useCudaGraph)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="seconds per tool run (if omitted: no limit)")
    p.set_defaults(func=_run)
