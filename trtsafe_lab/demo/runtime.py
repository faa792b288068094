"""Demo step: the CPU prefill/decode pipeline, its trace tables and lifecycle diagrams."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from trtsafe_lab.runtime.pipeline import cpu_pipeline, run_pipeline
from trtsafe_lab.runtime.trace import COL_CALL


def before_deinit(trace: pd.DataFrame) -> pd.DataFrame:
    """The rows before the first deinitialization call (the runner as it was while running)."""
    deinit = trace.index[trace[COL_CALL].str.startswith("deinitialize")]
    return trace if not len(deinit) else trace.loc[: deinit[0] - 1]


def run_demo(out_dir: Path) -> list[Path]:
    """Run the pipeline twice on the in-process CPU executors (test doubles): cleanly, with
    refused rule violations, and with an injected fault on decode's third execution. Write
    both traces (CSV) and each one's lifecycle diagram as it stood before deinitialization."""
    from matplotlib import pyplot as plt

    from trtsafe_lab.runtime.view import plot_lifecycle

    written: list[Path] = []
    cases = (("lifecycle", cpu_pipeline(), "operational, after prefill and 3 decodes"),
             ("lifecycle_fatal", cpu_pipeline(fail_on_decode_call=3),
              "fatal containment after an injected fault on decode"))
    for name, pipeline, what in cases:
        run = run_pipeline(pipeline, decode_steps=3, violations=name == "lifecycle")
        trace = run.runner.trace_table()
        csv = out_dir / f"{name}_trace.csv"
        trace.to_csv(csv, index=False)
        fig = plot_lifecycle(before_deinit(trace),
                             title=f"Safety runner, CPU test double: {what}")
        png = out_dir / f"{name}.png"
        fig.savefig(png, dpi=110, bbox_inches="tight")
        plt.close(fig)
        written += [csv, png]
    return written
