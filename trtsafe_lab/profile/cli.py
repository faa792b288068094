"""``trtsafe-lab profile compare|reference|engine|trtexec``: aux-stream profiling."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from trtsafe_lab.errors import UsageError


def _int_list(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers: {text!r}") from err
    if not values or min(values) < 0:
        raise argparse.ArgumentTypeError(f"expected non-negative integers, got {text!r}")
    return values


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _compare(args: argparse.Namespace) -> int:
    from trtsafe_lab.profile.compare import compare_runs, to_json_records
    from trtsafe_lab.profile.loaders import ExportError, load_profile_run

    try:
        runs = [load_profile_run(Path(p)) for p in args.runs]
        table = compare_runs(runs, baseline=args.baseline, metric=args.metric)
    except (ExportError, ValueError) as err:
        raise UsageError(str(err)) from err
    for run in runs:  # runs that are not per-iteration records say what their samples are
        if str(run.info.get("statistics", "")).startswith("summary-only"):
            print(f"note: {run.name}: {run.info['statistics']}", file=sys.stderr)
    if args.format == "json":
        json.dump(to_json_records(table), sys.stdout, indent=1)
        print()
    else:
        shown = table.drop(columns=[c for c in table.columns if table[c].isna().all()])
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if args.plot:
        from trtsafe_lab.profile.plots import comparison_figure

        fig = comparison_figure(runs, table, metric=args.metric)
        fig.savefig(args.plot, dpi=110)
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0


def _reference(args: argparse.Namespace) -> int:
    from trtsafe_lab.profile.harness import TimingConfig
    from trtsafe_lab.profile.reference import WorkloadSpec
    from trtsafe_lab.profile.runner import run_reference

    spec = WorkloadSpec(branches=args.branches, depth=args.depth, blocks=args.blocks,
                        threads=args.threads, iters=args.iters)
    if max(args.aux) > spec.branches:
        raise UsageError(f"--aux {max(args.aux)} is more aux streams than --branches "
                         f"{spec.branches}")
    if args.events_in_graph and not args.graph:
        raise UsageError("--events-in-graph needs --graph")
    timing = TimingConfig(warmup=args.warmup, iterations=args.iterations, use_graph=args.graph,
                          events_in_graph=args.events_in_graph)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    paths = run_reference(spec, args.aux, timing, out, command=["trtsafe-lab", *sys.argv[1:]],
                          trace=args.trace)
    for path in paths:
        print(path)
    return 0


def _engine(args: argparse.Namespace) -> int:
    from trtsafe_lab.profile.trt_engine_executor import profile_engine

    paths = profile_engine(Path(args.engine), aux_streams=args.aux_streams,
                           warmup=args.warmup, iterations=args.iterations,
                           use_graph=args.graph, out_dir=Path(args.out), trace=args.trace)
    for path in paths:
        print(path)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "profile", help="aux-stream versus single-stream profiling: compare runs, run the "
        "reference CUDA workload or a TensorRT engine")
    sub = parser.add_subparsers(dest="profile_command", metavar="ACTION", required=True)

    cmp_ = sub.add_parser("compare", help="statistics and speedup with CI of recorded runs")
    cmp_.add_argument("runs", nargs="+", metavar="RUN",
                      help="a run directory or a folder of trtexec exports (*.timing.json)")
    cmp_.add_argument("--baseline", help="the run (by name) to compare against (default: first)")
    cmp_.add_argument("--metric", choices=("latency", "compute"), default="latency",
                      help="latency uses latencyMs, compute uses computeMs (default: latency)")
    cmp_.add_argument("--format", choices=("table", "json"), default="table",
                      help="print a table or JSON records (default: table)")
    cmp_.add_argument("--plot", metavar="FILE.png", help="also write a comparison figure")
    cmp_.set_defaults(func=_compare)

    ref = sub.add_parser("reference", help="run the reference multi-branch CUDA workload (GPU)")
    ref.add_argument("--branches", type=_positive, default=4,
                     help="independent branches of the workload, each a chain of dependent kernels "
                     "(default: 4)")
    ref.add_argument("--depth", type=_positive, default=8,
                     help="serially dependent kernels per branch (default: 8)")
    ref.add_argument("--blocks", type=_positive, default=4,
                     help="thread blocks per kernel launch (default: 4)")
    ref.add_argument("--threads", type=_positive, default=128,
                     help="threads per block (default: 128)")
    ref.add_argument("--iters", type=_positive, default=4096,
                     help="integer-hash rounds per thread in each kernel: the work per kernel "
                     "(default: 4096)")
    ref.add_argument("--aux", type=_int_list, default=[0, 4],
                     help="aux-stream counts to run, comma-separated (default: 0,4)")
    ref.add_argument("--graph", action="store_true", help="replay a captured CUDA graph")
    ref.add_argument("--warmup", type=int, default=20,
                     help="untimed forward passes before timing (default: 20)")
    ref.add_argument("--iterations", type=_positive, default=200,
                     help="timed forward passes per run (default: 200)")
    ref.add_argument("--events-in-graph", action="store_true",
                     help="with --graph: record the timing events inside the graph")
    ref.add_argument("--trace", action="store_true",
                     help="also record a CUPTI kernel trace (needs cupti-python)")
    ref.add_argument("--out", default="out/profile", help="parent folder of the run directories")
    ref.set_defaults(func=_reference)

    eng = sub.add_parser("engine", help="profile a serialized TensorRT engine (needs tensorrt)")
    eng.add_argument("engine", help="the serialized engine (.engine / .plan)")
    eng.add_argument("--aux-streams", type=_int_list, default=None,
                     help="how many of the engine's aux streams to give it, comma-separated; "
                     "default: what the engine asks for (num_aux_streams)")
    eng.add_argument("--graph", action="store_true", help="replay a captured CUDA graph")
    eng.add_argument("--trace", action="store_true",
                     help="also record a CUPTI kernel trace (needs cupti-python)")
    eng.add_argument("--warmup", type=int, default=20,
                     help="untimed inferences before timing (default: 20)")
    eng.add_argument("--iterations", type=_positive, default=200,
                     help="timed inferences per run (default: 200)")
    eng.add_argument("--out", default="out/profile", help="parent folder of the run directories")
    eng.set_defaults(func=_engine)

    from trtsafe_lab.profile.trtexec_cli import register_trtexec

    register_trtexec(sub)
