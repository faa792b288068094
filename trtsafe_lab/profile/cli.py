"""``trtsafe-lab profile compare|reference|engine|trtexec``: aux-stream profiling."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

# All stdlib-only at import time (trtsafe-lab profile --help imports no pandas).
from trtsafe_lab.errors import UsageError
from trtsafe_lab.profile.args_cli import add_out_argument, add_timing_arguments, positive_int
from trtsafe_lab.profile.harness import DEFAULT_PASSES_PER_SAMPLE, TIMING_MODES
from trtsafe_lab.profile.trtexec_cli import register_trtexec
from trtsafe_lab.trtexec.tool_cli import add_tool_arguments


def _ints_at_least(text: str, minimum: int, expected: str) -> list[int]:
    """Comma-separated integers, each >= ``minimum`` (``expected`` describes them)."""
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers: {text!r}") from err
    if not values or min(values) < minimum:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return values


def _int_list(text: str) -> list[int]:
    return _ints_at_least(text, 0, "non-negative integers")


def _int_list_heuristic(text: str) -> list[int]:
    return _ints_at_least(text, -1, "integers >= 0 or -1 (heuristics)")


def _compare(args: argparse.Namespace) -> int:
    from trtsafe_lab.profile.compare import compare_runs, to_json_records
    from trtsafe_lab.profile.loaders import ExportError, load_profile_run
    from trtsafe_lab.profile.workload import MixedWorkloadError

    try:
        runs = [load_profile_run(Path(p)) for p in args.runs]
        table = compare_runs(runs, baseline=args.baseline, metric=args.metric,
                             allow_mixed=args.allow_mixed)
    except MixedWorkloadError:
        raise
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


def _spec_and_timing(args: argparse.Namespace) -> tuple[Any, Any]:
    from trtsafe_lab.profile.harness import TimingConfig
    from trtsafe_lab.profile.reference import WorkloadSpec

    spec = WorkloadSpec(branches=args.branches, depth=args.depth, blocks=args.blocks,
                        threads=args.threads, iters=args.iters)
    if max(args.aux) > spec.branches:
        raise UsageError(f"--aux {max(args.aux)} is more aux streams than --branches "
                         f"{spec.branches}")
    try:
        timing = TimingConfig(warmup=args.warmup, iterations=args.iterations,
                              use_graph=args.graph, mode=args.timing,
                              passes_per_sample=args.passes_per_sample)
    except ValueError as err:
        raise UsageError(f"--timing/--passes-per-sample: {err}") from err
    return spec, timing


def _reference(args: argparse.Namespace) -> int:
    from trtsafe_lab.profile.runner import run_reference

    spec, timing = _spec_and_timing(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    paths = run_reference(spec, args.aux, timing, out, command=["trtsafe-lab", *sys.argv[1:]],
                          trace=args.trace)
    for path in paths:
        print(path)
    return 0


def _show_sweep(table: Any, args: argparse.Namespace, where: Callable[[], str]) -> None:
    """Print the sweep table; with ``--plot`` also write the Pareto plot titled ``where()``
    (called only then: it may read the runs, and the plot needs matplotlib)."""
    if args.format == "json":
        print(table.to_json(orient="records", indent=1))
    elif args.format == "csv":
        print(table.to_csv(index=False), end="")
    else:
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if args.plot:
        from trtsafe_lab.profile.plots_analysis import plot_pareto

        plot_pareto(table, where=where()).savefig(args.plot, dpi=110)
        print(f"wrote {args.plot}", file=sys.stderr)


def _measured_where(runs: Any) -> str:
    from trtsafe_lab.profile.plots import measured_where

    return measured_where(runs)


def _sweep_runs(args: argparse.Namespace) -> int:
    from trtsafe_lab.profile.loaders import ExportError, load_profile_run
    from trtsafe_lab.profile.sweep import sweep_table
    from trtsafe_lab.profile.workload import MixedWorkloadError

    try:
        runs = [load_profile_run(Path(p)) for p in args.runs]
        table = sweep_table(runs, metric=args.metric, allow_mixed=args.allow_mixed)
    except MixedWorkloadError:
        raise
    except (ExportError, ValueError, FileNotFoundError) as err:
        raise UsageError(str(err)) from err
    _show_sweep(table, args, lambda: _measured_where(runs))
    return 0


def _sweep_reference(args: argparse.Namespace) -> int:
    from trtsafe_lab.profile.loaders import load_profile_run
    from trtsafe_lab.profile.sweep import sweep_reference

    spec, timing = _spec_and_timing(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table, paths = sweep_reference(spec, args.aux, timing, out,
                                   command=["trtsafe-lab", *sys.argv[1:]], trace=args.trace)
    _show_sweep(table, args, lambda: _measured_where([load_profile_run(p) for p in paths]))
    return 0


def _sweep_engines(args: argparse.Namespace) -> int:
    from trtsafe_lab.profile.sweep import sweep_engine_family
    from trtsafe_lab.trtexec.cli import command_from_args
    from trtsafe_lab.trtexec.rules import RuleViolation

    command, _source = command_from_args(args)
    try:
        table, builds = sweep_engine_family(command, Path(args.out), args.values)
    except (RuleViolation, ValueError) as err:
        raise UsageError(str(err)) from err
    print(builds.to_string(index=False), file=sys.stderr)
    _show_sweep(table, args, lambda: f"{command.tool}, TensorRT {command.version}")
    return 0 if (builds["build_status"] == "passed").all() else 1


def _engine(args: argparse.Namespace) -> int:
    from trtsafe_lab.profile.trt_engine_executor import profile_engine

    paths = profile_engine(Path(args.engine), aux_streams=args.aux_streams,
                           warmup=args.warmup, iterations=args.iterations,
                           use_graph=args.graph, out_dir=Path(args.out), trace=args.trace)
    for path in paths:
        print(path)
    return 0


def _reference_arguments(parser: argparse.ArgumentParser, aux: str) -> None:
    """The reference workload's options; ``aux`` is the default of ``--aux`` ("0,4")."""
    parser.add_argument("--branches", type=positive_int, default=4,
                        help="independent branches of the workload, each a chain of dependent "
                        "kernels")
    parser.add_argument("--depth", type=positive_int, default=8,
                        help="serially dependent kernels per branch")
    parser.add_argument("--blocks", type=positive_int, default=4,
                        help="thread blocks per kernel launch")
    parser.add_argument("--threads", type=positive_int, default=128,
                        help="threads per block")
    parser.add_argument("--iters", type=positive_int, default=4096,
                        help="integer-hash rounds per thread in each kernel: the work per kernel")
    parser.add_argument("--aux", type=_int_list, default=aux, metavar="N,N,...",
                        help="aux-stream counts to run, one run each")
    add_timing_arguments(parser, "forward passes", "in batched mode each sample times "
                         "--passes-per-sample passes")
    parser.add_argument("--timing", choices=TIMING_MODES, default=TIMING_MODES[0],
                        help="batched: one event pair per --passes-per-sample passes, "
                        "unbiased medians; per-iteration: events around every pass, for tails; "
                        "events-in-graph: per-iteration with the events inside the captured "
                        "graph, needs --graph")
    parser.add_argument("--passes-per-sample", type=positive_int, default=None,
                        help="forward passes per sample, batched mode only (if omitted: "
                        f"{DEFAULT_PASSES_PER_SAMPLE})")
    add_out_argument(parser, "out/profile")


def _metric_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--metric", choices=("latency", "compute"), default="latency",
                        help="the time per sample to compare: latency (latencyMs: copies in, "
                        "compute, copies out) or compute (computeMs: GPU compute alone)")


def _output_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table",
                        help="print a table, JSON records or CSV")
    parser.add_argument("--plot", metavar="FILE.png", help="also write the Pareto plot")


def _register_sweep(sub: Any) -> None:
    sweep = sub.add_parser("sweep", help="latency vs memory per aux-stream setting: recorded "
                           "runs, the reference workload, or an engine family built by trtexec",
                           description="One row per aux-stream setting: latency, memory and "
                           "speedup against the first setting, with a Pareto plot (--plot). "
                           "SOURCE says where the runs come from.")
    kinds = sweep.add_subparsers(dest="sweep_source", metavar="SOURCE", required=True)
    runs = kinds.add_parser("runs", help="one table and Pareto plot from recorded runs",
                            description="The sweep table of recorded run directories or trtexec "
                            "export folders, one per aux-stream setting (no GPU needed).")
    runs.add_argument("runs", nargs="+", metavar="RUN",
                      help="a run directory or a folder of trtexec exports, one per setting")
    _metric_argument(runs)
    runs.add_argument("--allow-mixed", action="store_true",
                      help="runs of several workloads: speedups within each workload")
    _output_arguments(runs)
    runs.set_defaults(func=_sweep_runs)
    ref = kinds.add_parser("reference", help="the reference workload at each --aux count (GPU)",
                           description="Run the reference multi-branch CUDA workload once per "
                           "--aux count into run directories under --out and print their sweep "
                           "table (needs an NVIDIA GPU and cuda-python).")
    _reference_arguments(ref, aux="0,1,2,4")
    _output_arguments(ref)
    ref.set_defaults(func=_sweep_reference)
    eng = kinds.add_parser(
        "engines", help="build the engine once per --maxAuxStreams value (checked like "
        "trtsafe-lab build), then profile each with the same tool: trtsafe-lab profile sweep "
        "engines -- --onnx=m.onnx --saveEngine=m.engine ...",
        description="Build the engine once per --values setting of --maxAuxStreams (through the "
        "build job's checks), profile each with the same tool and print the sweep table; the "
        "build's trtexec flags go after '--'.")
    eng.add_argument("--values", type=_int_list_heuristic, default="0,1,2,4,-1",
                     metavar="N,N,...",
                     help="--maxAuxStreams settings, one build each; -1 leaves the flag out "
                     "(TensorRT's heuristics)")
    add_tool_arguments(eng)
    add_out_argument(eng, "out/sweep")
    _output_arguments(eng)
    eng.add_argument("flags", nargs=argparse.REMAINDER,
                     help="the build's trtexec flags after '--', e.g. -- --onnx=m.onnx "
                     "--saveEngine=m.engine")
    eng.set_defaults(func=_sweep_engines)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "profile", help="aux-stream versus single-stream profiling: compare runs, run the "
        "reference CUDA workload or a TensorRT engine",
        description="Aux-stream versus single-stream profiling. ACTION: compare recorded runs, "
        "sweep settings, run the reference CUDA workload, or profile a TensorRT engine "
        "(directly or through trtexec / trtexec_safe).")
    sub = parser.add_subparsers(dest="profile_command", metavar="ACTION", required=True)

    cmp_ = sub.add_parser("compare", help="latency statistics of recorded runs and their "
                          "speedup over a baseline, with a confidence interval",
                          description="Latency statistics of each recorded run (run directories "
                          "or trtexec export folders) and its speedup over the baseline with a "
                          "bootstrap confidence interval. Runs of different workloads are "
                          "refused unless --allow-mixed (no GPU needed).")
    cmp_.add_argument("runs", nargs="+", metavar="RUN",
                      help="a run directory or a folder of trtexec exports (*.timing.json)")
    cmp_.add_argument("--baseline", metavar="NAME",
                      help="the run (by name) to compare against (if omitted: the first RUN)")
    _metric_argument(cmp_)
    cmp_.add_argument("--allow-mixed", action="store_true",
                      help="runs of different workloads: compare each workload's runs within "
                      "their own group (labelled) instead of refusing (exit 2)")
    cmp_.add_argument("--format", choices=("table", "json"), default="table",
                      help="print a table or JSON records")
    cmp_.add_argument("--plot", metavar="FILE.png", help="also write a comparison figure")
    cmp_.set_defaults(func=_compare)

    ref = sub.add_parser("reference", help="run the reference multi-branch CUDA workload (GPU)",
                         description="Run the reference workload (--branches independent chains "
                         "of --depth dependent kernels) once per --aux count, each into a run "
                         "directory under --out (needs an NVIDIA GPU and cuda-python).")
    _reference_arguments(ref, aux="0,4")
    ref.set_defaults(func=_reference)

    _register_sweep(sub)

    eng = sub.add_parser("engine", help="profile a serialized TensorRT engine (needs tensorrt)",
                         description="Deserialize the engine with the TensorRT Python API, time "
                         "its inference with the aux streams it was built for and write a run "
                         "directory under --out (needs tensorrt, cuda-python and a GPU). To "
                         "compare aux-stream counts, build one engine per count: trtsafe-lab "
                         "profile sweep engines.")
    eng.add_argument("engine", help="the serialized engine (.engine / .plan)")
    eng.add_argument("--aux-streams", type=_int_list, default=None, metavar="N",
                     help="the engine's aux-stream count, checked only: it is fixed when the "
                     "engine is built, so another count is refused (if omitted: the engine's "
                     "num_aux_streams)")
    add_timing_arguments(eng, "inferences", f"each sample times {DEFAULT_PASSES_PER_SAMPLE} "
                         "inferences")
    add_out_argument(eng, "out/profile")
    eng.set_defaults(func=_engine)

    register_trtexec(sub)
