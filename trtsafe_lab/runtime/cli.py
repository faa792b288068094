"""``trtsafe-lab runtime-demo``: the prefill/decode pipeline through the safety runner.

By default it runs on the GPU over the reference CUDA workload (needs cuda-python and an NVIDIA
GPU, and says so when they are missing — it never falls back to the CPU on its own). ``--cpu``
runs the in-process CPU executors instead and says that this is not a GPU result.
Exit codes: 0 the run followed the lifecycle and decode returned the prompt, 1 it did not (a
fatal error, injected or not, or wrong output), 2 bad arguments or missing dependencies.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from trtsafe_lab.runtime.pipeline import PipelineRun, cpu_pipeline, gpu_pipeline, run_pipeline
from trtsafe_lab.runtime.trace import (
    COL_CALL,
    COL_CATEGORY,
    COL_DIAGNOSTIC,
    COL_DURATION_MS,
    COL_OUTCOME,
    COL_SEQ,
    COL_SLOT,
    COL_STAGE,
    COL_STATE_AFTER,
    COL_STATE_BEFORE,
)

SHOWN = [COL_SEQ, COL_CALL, COL_STAGE, COL_SLOT, COL_STATE_BEFORE, COL_STATE_AFTER, COL_OUTCOME,
         COL_CATEGORY, COL_DURATION_MS, COL_DIAGNOSTIC]


def format_trace(trace: pd.DataFrame, width: int = 70) -> str:
    """The trace as text: the main columns, diagnostics cut to ``width`` characters."""
    shown = trace[SHOWN].copy()
    shown[COL_DIAGNOSTIC] = shown[COL_DIAGNOSTIC].map(
        lambda s: (s if len(s) <= width else s[: width - 1] + "…").ljust(width))
    shown[COL_STAGE] = shown[COL_STAGE].where(shown[COL_SLOT] >= 0, "")
    shown[COL_SLOT] = shown[COL_SLOT].map(lambda n: "" if n < 0 else str(n))
    return shown.to_string(index=False, float_format=lambda v: f"{v:.3f}")


def summarize_pipeline(run: PipelineRun) -> tuple[str, bool]:
    """A few lines on the outcome, and whether the run was clean."""
    runner = run.runner
    live_streams, live_buffers = runner.ledger.live("stream"), runner.ledger.live("buffer")
    made = len(runner.ledger.destroyed("stream")) + len(live_streams)
    lines = [f"streams created {made}, alive now {len(live_streams)}; "
             f"IO buffers alive now {len(live_buffers)}"]
    same = run.output == run.expected
    if run.output is None:
        lines.append("decode produced no output")
    else:
        lines.append(f"last successful decode output equals the prompt carried through prefill "
                     f"and the 'hidden' alias: {'yes' if same else 'NO'}")
    if runner.fatal_status is not None:
        lines.append(f"fatal status kept: {runner.fatal_status}")
    clean = same and runner.fatal_status is None and not live_streams and not live_buffers
    return "\n".join(lines), clean


def _cli(args: argparse.Namespace) -> int:
    from trtsafe_lab.errors import UsageError

    if args.decode_steps < 1:
        raise UsageError("--decode-steps must be >= 1")
    if args.inject_fault is not None and args.inject_fault < 1:
        raise UsageError("--inject-fault N counts decode executions from 1 (warm-up included)")
    if args.cpu:
        pipeline = cpu_pipeline(fail_on_decode_call=args.inject_fault)
        print("executors: in-process CPU executors (--cpu): a test double of the lifecycle, "
              "NOT a GPU result")
    else:
        from trtsafe_lab._optional import MissingDependencyError

        try:
            pipeline = gpu_pipeline(args.device, fail_on_decode_call=args.inject_fault)
        except MissingDependencyError as err:
            raise MissingDependencyError(
                f"{err} Without a GPU, run trtsafe-lab runtime-demo --cpu (the in-process CPU "
                "executors, a test double)") from err
        print(f"executors: {pipeline.label}")
    run = run_pipeline(pipeline, decode_steps=args.decode_steps, violations=args.violations)
    trace = run.runner.trace_table()
    print(format_trace(trace))
    text, clean = summarize_pipeline(run)
    print(text)
    if args.trace_csv:
        Path(args.trace_csv).parent.mkdir(parents=True, exist_ok=True)
        trace.to_csv(args.trace_csv, index=False)
        print(f"trace written to {args.trace_csv}")
    return 0 if clean else 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "runtime-demo",
        help="run a prefill/decode pipeline through the safety-runtime lifecycle runner",
        description="Run prefill once and decode --decode-steps times through the safety "
                    "runner (initialize, complete_context, prepare+seal, run_stage, "
                    "deinitialize) and print the trace. GPU by default (reference CUDA "
                    "workload); --cpu for the in-process test double.")
    parser.add_argument("--cpu", action="store_true",
                        help="use the in-process CPU executors (a test double, not a GPU result)")
    parser.add_argument("--device", type=int, default=0, help="CUDA device number")
    parser.add_argument("--decode-steps", type=int, default=3, metavar="N",
                        help="decode runs after the prefill")
    parser.add_argument("--inject-fault", type=int, metavar="K", default=None,
                        help="make decode's K-th execution fail (GPU: an invalid kernel launch, "
                             "a real CUDA error; --cpu: an injected executor fault) to show "
                             "fatal containment")
    parser.add_argument("--violations", action="store_true",
                        help="also make calls the rules refuse, to see refusals in the trace")
    parser.add_argument("--trace-csv", default=None, metavar="FILE.csv",
                        help="also write the trace table to this CSV file")
    parser.set_defaults(func=_cli)
