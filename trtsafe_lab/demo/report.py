"""Demo step: HTML reports made by executing the notebooks headless on the bundled examples.

Writes the aux-stream profiling report of each bundled H200 workload, the failure-triage report
of the bundled example logs and the teaching tour, all in one kernel.
"""

from __future__ import annotations

from pathlib import Path

from trtsafe_lab.demo.logs import example_logs
from trtsafe_lab.report import NOTEBOOK_FOR_KIND, ReportKernel, notebooks_dir, write_notebook_report

TOUR = "04_safety_runtime_tour.ipynb"


def run_demo(out_dir: Path) -> list[Path]:
    """Write one profiling report per bundled workload, the triage report of the example logs
    and the tour (HTML, notebooks executed headless). Returns the files written."""
    from trtsafe_lab.demo.profile import example_runs

    written = []
    with ReportKernel(notebooks_dir()) as kernel:  # one kernel for every report of the demo
        for workload, runs in example_runs().items():
            written.append(write_notebook_report(
                NOTEBOOK_FOR_KIND["profile"], {"inputs": [str(r.path) for r in runs]},
                out_dir / f"profile-{workload}.html",
                f"trtsafe-lab: aux-stream profiling, {workload}", kernel))
        written.append(write_notebook_report(
            NOTEBOOK_FOR_KIND["log"], {"inputs": [str(p) for p in example_logs()]},
            out_dir / "failure-triage-examples.html", "trtsafe-lab: failure triage, example logs",
            kernel))
        written.append(write_notebook_report(
            TOUR, {}, out_dir / "safety-runtime-tour.html",
            "trtsafe-lab: a tour of the 11.x safety workflow", kernel))
    return written
