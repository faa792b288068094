"""``trtsafe-lab runs``: list the run directories of every kind under a folder (no TensorRT)."""

from __future__ import annotations

import argparse
from pathlib import Path

from trtsafe_lab.rundir import KINDS

DEFAULT_RUNS = "runs"


def _cli(args: argparse.Namespace) -> int:
    import pandas as pd

    from trtsafe_lab.runs_table import list_runs

    if args.runs is None:  # the default folder: not there yet means no runs yet
        args.runs = DEFAULT_RUNS
        if not Path(DEFAULT_RUNS).exists():
            print(f"no runs yet: there is no {DEFAULT_RUNS}/ folder here (trtsafe-lab build "
                  f"writes its runs there); give another folder with --runs DIR")
            return 0
    table = list_runs(args.runs, include_partial=args.all, kind=args.kind)
    if table.empty:
        what = f"{args.kind} runs" if args.kind else "runs"
        print(f"no {'' if args.all else 'finished '}{what} under {args.runs}")
        return 0
    shown = table.drop(columns=["path"]).dropna(axis="columns", how="all").convert_dtypes()
    shown = shown.astype(object).where(shown.notna(), "")  # counts stay integers, gaps blank
    with pd.option_context("display.width", 200, "display.max_colwidth", 60):
        print(shown.to_string(index=False))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    runs = subparsers.add_parser(
        "runs", help="list the run directories of every kind under a folder (no TensorRT needed)",
        description="List the run directories under a folder: builds, profile runs, trtexec "
        "profile runs, engine pairs and reports, one row each (a run whose manifest cannot be "
        "read is listed as unreadable, with the reason).")
    runs.add_argument("--runs", metavar="DIR", help="folder the run directories are under (if "
                      f"omitted: {DEFAULT_RUNS}, the folder trtsafe-lab build writes to)")
    runs.add_argument("--kind", choices=KINDS, help="list only runs of this kind")
    runs.add_argument("--all", action="store_true",
                      help="also list incomplete (.partial) runs (cancelled, timed out, crashed) "
                      "and folders without a manifest")
    runs.set_defaults(func=_cli)
