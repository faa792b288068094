"""``trtsafe-lab failures LOG... [--onnx MODEL] [--group | --summary] [--format table|csv|json]``.

Default: one row per layer-level finding. ``--group``: one row per failure signature across all
the logs (:mod:`trtsafe_lab.logs.signatures`). ``--summary``: one row per log with the aux-stream,
memory and engine-size lines it prints (:mod:`trtsafe_lab.logs.build_summary`). JSON output is an
envelope ``{"failures": [...]}``, ``{"signatures": [...]}`` or ``{"build_summary": [...]}``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from trtsafe_lab.logs import columns as C


def _cli(args: argparse.Namespace) -> int:
    from trtsafe_lab.errors import UsageError
    from trtsafe_lab.logs.source import LogReadError

    scanned: list[list[dict[str, Any]]] = []
    if args.onnx is None and not args.summary:
        # The plain failure table: the streaming scan first; pandas only for --group and CSV.
        # The table and JSON are printed from the scan's rows (what analyze_log(path).failures
        # holds, without building the DataFrame: most of the time on an error-dense log).
        # numpy's OpenBLAS starts a thread per CPU at import (~0.07 s of CPU here); this
        # command does no linear algebra. Only where the user has not chosen a number.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

        # The cyclic garbage collector's passes over the rows and the parser's caches (all
        # acyclic: peak memory is the same without them) cost 5-10% of an error-dense scan.
        collecting = gc.isenabled()
        gc.disable()
        try:
            if not args.group and args.format != "csv":
                from trtsafe_lab.logs.scan_chunks import open_scan

                # The first log opened, and its worker forked, before the parser's modules are
                # imported: their regular expressions compile while the worker reads.
                first = open_scan(args.logs[0])
                from trtsafe_lab.logs.scan import iter_failures

                # Rows formatted as the scan gives them (while its worker still reads); printed
                # when all are formatted, so a log that cannot be read leaves no partial table.
                # each log opened when the one before is done (not all at once: a shell glob
                # of thousands of logs would run out of file descriptors)
                streams = (
                    iter_failures(path, started=first if index == 0 else None)
                    for index, path in enumerate(args.logs)
                )
                _emit_rows(_table_rows(streams, args.logs), args)
                return 0
            from trtsafe_lab.logs.scan import scan_failures

            for path in args.logs:
                scanned.append(scan_failures(path))
        except LogReadError as err:
            raise UsageError(str(err)) from err
        finally:
            if collecting:
                gc.enable()
    import pandas as pd

    from trtsafe_lab.logs.analysis import analyze_log
    from trtsafe_lab.logs.onnx import OnnxModelError
    from trtsafe_lab.logs.tables import failures_frame

    failures_frames = []
    summaries = []
    for index, path in enumerate(args.logs):
        try:
            if scanned:
                frame = failures_frame(scanned[index])  # what analyze_log(path) gives
            else:
                analysis = analyze_log(path, onnx_model=args.onnx)
                if args.summary:
                    summaries.append(analysis.build_summary())
                frame = analysis.failures.copy()
        except (LogReadError, OnnxModelError) as err:
            raise UsageError(str(err)) from err
        if len(args.logs) > 1 or args.group:
            frame.insert(0, C.LOG, path)
        failures_frames.append(frame)
    failures = pd.concat(failures_frames, ignore_index=True) if failures_frames else pd.DataFrame()
    if args.summary:
        _emit("build_summary", pd.concat(summaries, ignore_index=True), args)
    elif args.group:
        from trtsafe_lab.logs.signatures import failure_signatures

        _emit("signatures", failure_signatures(failures), args)
    else:
        _emit("failures", failures, args)
    return 0


def _table_rows(
    scanned: Iterable[Iterable[dict[str, Any]]], paths: list[str]
) -> Iterator[dict[str, Any]]:
    """The scan's rows with ``explanation_id`` filled in (and ``log`` when there are several
    logs), as :func:`tables.failures_frame` gives them; the dicts are changed in place."""
    from trtsafe_lab.logs.explanations import explanation_id

    ids: dict[tuple[str, str], str] = {}
    several = len(paths) > 1
    category, message, explanation = C.CATEGORY, C.MESSAGE, C.EXPLANATION_ID  # once per row
    for path, rows in zip(paths, scanned, strict=True):
        for row in rows:
            key = (row[category], row[message])
            found = ids.get(key)
            if found is None:
                found = ids[key] = explanation_id(*key)
            row[explanation] = found
            if several:
                row[C.LOG] = path
            yield row


def _emit_rows(rows: Iterable[dict[str, Any]], args: argparse.Namespace) -> None:
    """What :func:`_emit` writes for the failure table, from its rows (no pandas): JSON in the
    table's column order (``log`` first), tuples as lists, as :func:`tables.to_records` gives.
    A closed output pipe (``| head``) is the top-level handler's (exit 141, like every command)."""
    out = sys.stdout
    if args.format == "json":
        columns = ((C.LOG,) if len(args.logs) > 1 else ()) + C.FAILURE_COLUMNS
        records = []
        for row in rows:
            record = {}
            for column in columns:
                value = row.get(column)
                record[column] = list(value) if isinstance(value, tuple) else value
            records.append(record)
        out.write(json.dumps({"failures": records}, indent=2, ensure_ascii=False))
        out.write("\n")  # apart: appended, it copies the whole text again
    else:
        from trtsafe_lab.logs import text_views

        pieces = text_views.failure_text(rows)
        raw = getattr(out, "buffer", None)
        encoding = getattr(out, "encoding", None) or ""
        if raw is None or os.linesep != "\n" or encoding.lower().replace("_", "-") != "utf-8":
            for piece in list(pieces):  # all formatted, then printed
                out.write(piece)
        else:
            # each piece encoded as it is formatted (while the worker still reads), as the
            # stream would encode it (UTF-8: no state, no byte-order mark); printed at the end
            errors = out.errors or "strict"
            data = [piece.encode("utf-8", errors) for piece in pieces]
            out.flush()
            for block in data:
                raw.write(block)
            raw.flush()
            return
    out.flush()


def _emit(kind: str, table: Any, args: argparse.Namespace) -> None:
    from trtsafe_lab.logs import text_views
    from trtsafe_lab.logs.tables import flatten_for_csv, to_records

    out = sys.stdout
    if args.format == "json":
        json.dump({kind: to_records(table)}, out, indent=2, ensure_ascii=False)
        out.write("\n")
    elif args.format == "csv":
        flatten_for_csv(table).to_csv(out, index=False)
    elif kind == "build_summary":
        out.write(text_views.format_build_summary(table))
    elif kind == "signatures":
        out.write(text_views.format_signatures(table))
    else:
        out.write(text_views.format_failures(table, onnx=args.onnx is not None))
    out.flush()


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "failures",
        help="layer-level failure table from TensorRT build / parse / runtime logs",
        description="Read TensorRT build, ONNX-parser or runtime logs (trtexec, Python API, "
        "Polygraphy, DeepStream, TF-TRT, Torch-TensorRT) and print one row per layer-level "
        "finding, with an explanation of known failure families. Exit 0 when every log was "
        "read (findings or not), 2 when one cannot be read.",
    )
    parser.add_argument("logs", nargs="+", metavar="LOG", help="log file(s) to read")
    parser.add_argument(
        "--onnx", metavar="MODEL", help="the ONNX model the logs were built from: adds each "
        "layer's op type, node index and ForeignNode ranges"
    )
    view = parser.add_mutually_exclusive_group()
    view.add_argument(
        "--group",
        action="store_true",
        help="one row per failure signature across all LOGs (same failure, other names/numbers)",
    )
    view.add_argument(
        "--summary",
        action="store_true",
        help="one row per log: aux streams, multi-stream disabled, activation/scratch/weights "
        "memory, engine size, build time (the lines trtexec and TensorRT print)",
    )
    parser.add_argument(
        "--format", choices=("table", "csv", "json"), default="table",
        help="table: one block per row, messages in full; csv: one line per row; json: one "
        "object holding the rows",
    )
    parser.set_defaults(func=_cli)
