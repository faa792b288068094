"""``trtsafe-lab failures LOG... [--onnx MODEL] [--format table|csv|json]``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from trtsafe_lab.logs import columns as C


def _cli(args: argparse.Namespace) -> int:
    import pandas as pd

    from trtsafe_lab.errors import UsageError
    from trtsafe_lab.logs.analysis import analyze_log
    from trtsafe_lab.logs.onnx import OnnxModelError
    from trtsafe_lab.logs.source import LogReadError
    from trtsafe_lab.logs.tables import flatten_for_csv, to_records

    frames = []
    for path in args.logs:
        try:
            analysis = analyze_log(path, onnx_model=args.onnx)
        except (LogReadError, OnnxModelError) as err:
            raise UsageError(str(err)) from err
        frame = analysis.failures.copy()
        if len(args.logs) > 1:
            frame.insert(0, "log", path)
        frames.append(frame)
    failures = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    out = sys.stdout
    try:
        if args.format == "json":
            json.dump(to_records(failures), out, indent=2, ensure_ascii=False)
            out.write("\n")
        elif args.format == "csv":
            flatten_for_csv(failures).to_csv(out, index=False)
        else:
            _print_table(failures, out)
        out.flush()
    except BrokenPipeError:
        # The reader (e.g. `| head`) closed the pipe: not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _print_table(failures: Any, out: Any) -> None:
    if failures.empty:
        out.write("no failures found\n")
        return
    shown = ["log"] if "log" in failures else []
    shown += [C.LINE, C.SEVERITY, C.FATAL, C.PHASE, C.CATEGORY, C.ERROR_CODE, C.LAYER]
    table = failures[shown].copy()
    table[C.LAYER] = table[C.LAYER].map(lambda s: s if len(s) <= 80 else s[:77] + "...")
    # Nullable integer columns print <NA> whatever na_rep says: blank them as objects instead.
    table = table.astype(object).where(table.notna(), "")
    text = table.to_string(index=False)
    out.write(text + "\n")
    fatal = int(failures[C.FATAL].sum())
    named = failures.loc[failures[C.LAYER] != "", C.LAYER].nunique()
    out.write(f"\n{len(failures)} failure rows, {fatal} fatal, {named} distinct layers named\n")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "failures",
        help="layer-level failure table from TensorRT build / parse / runtime logs",
        description="Read TensorRT build, ONNX-parser or runtime logs (trtexec, Python API, "
        "Polygraphy, DeepStream, TF-TRT, Torch-TensorRT) and print one row per layer-level "
        "finding. Exit 0 when every log was read (findings or not), 2 when one cannot be read.",
    )
    parser.add_argument("logs", nargs="+", metavar="LOG", help="log file(s) to read")
    parser.add_argument(
        "--onnx", metavar="MODEL", help="ONNX model: add op type, node index, ForeignNode ranges"
    )
    parser.add_argument(
        "--format", choices=("table", "csv", "json"), default="table", help="output format"
    )
    parser.set_defaults(func=_cli)
