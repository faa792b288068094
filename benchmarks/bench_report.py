"""Time `trtsafe-lab report` per notebook and count the warnings it prints.

Makes one input of each kind in a temporary folder (a bundled example log, a build run made with
the REPLAY tool — a recorded log, NOT TensorRT —, the bundled H200 profile runs of one workload)
and times, as a user would run them:

- ``single``: one `trtsafe-lab report INPUT -o X.html` process per input kind (wall time of the
  whole process, kernel start included);
- ``demo``: the report demo's notebooks (every bundled workload's profiling report, the triage
  report and the tour) in one process, per notebook: with one shared kernel (what
  ``trtsafe_lab.demo.report`` does) and, in the same run for a ratio, with a fresh kernel per
  notebook.

Stderr lines of each process are kept; ``warnings`` counts lines that mention a warning or
"without encryption". Results go to benchmarks/results/report_<label>_<UTC time>.json.

    .venv/bin/python benchmarks/bench_report.py --label before
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "trtsafe_lab"]


def _inputs(work: Path) -> dict[str, list[str]]:
    from trtsafe_lab.demo.logs import EXAMPLES
    from trtsafe_lab.demo.profile import example_runs
    from trtsafe_lab.replay import install_replay_tool
    from trtsafe_lab.trtexec import TrtexecOptions, TrtVersion, run_build

    tool = install_replay_tool(EXAMPLES / "trt11-safe-build-no-tactic.log",
                               work / "trtexec-REPLAY-not-TensorRT", delay_s=0.0)
    (work / "model.onnx").write_text("placeholder: the replay never reads it\n")
    cmd = TrtexecOptions(onnx=Path("model.onnx"), save_engine=Path("model.engine"),
                         safe=True).to_command(TrtVersion(11, 4))
    from trtsafe_lab.trtexec import TrtexecCommand

    run = run_build(TrtexecCommand(str(tool), cmd.flags, cmd.version), work / "runs",
                    cwd=work).run_dir
    first_workload = next(iter(example_runs().values()))
    return {
        "log": [str(EXAMPLES / "trt11-safe-build-autotuner.log")],
        "build": [str(run)],
        "profile": [str(r.path) for r in first_workload],
    }


def _timed(argv: list[str], cwd: Path) -> dict[str, object]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    lines = [x for x in done.stderr.splitlines() if x.strip()]
    return {"argv": argv[len(CLI):], "rc": done.returncode, "wall_s": round(wall, 3),
            "stderr_lines": len(lines),
            "warnings": sum(("warn" in x.lower() or "without encryption" in x) for x in lines),
            "stderr_head": lines[:5]}


PER_NOTEBOOK = """
import json, sys, time
from pathlib import Path
from trtsafe_lab.demo.logs import example_logs
from trtsafe_lab.demo.profile import example_runs
from trtsafe_lab.report import NOTEBOOK_FOR_KIND, ReportKernel, notebooks_dir, write_notebook_report
out, shared = Path(sys.argv[1]), sys.argv[2] == "shared"
jobs = [(NOTEBOOK_FOR_KIND["profile"], {"inputs": [str(r.path) for r in runs]})
        for runs in example_runs().values()]
jobs += [(NOTEBOOK_FOR_KIND["log"], {"inputs": [str(p) for p in example_logs()]}),
         ("04_safety_runtime_tour.ipynb", {})]
times = []
kernel = ReportKernel(notebooks_dir()) if shared else None
try:
    for i, (name, params) in enumerate(jobs):
        t = time.perf_counter()
        write_notebook_report(name, params, out / f"{i}.html", name, kernel)
        times.append([name, round(time.perf_counter() - t, 3)])
finally:
    if kernel is not None:
        kernel.close()
print(json.dumps(times))
"""


def _in_process(work: Path, repeat: int) -> dict[str, object]:
    """The demo's reports in one process: one shared kernel vs a fresh kernel per notebook
    (measured in the same run, alternating), per notebook, best of ``repeat``."""
    best: dict[str, list[list[object]]] = {}
    warnings = {"shared": 0, "fresh": 0}
    for _ in range(repeat):
        for mode in ("fresh", "shared"):
            done = subprocess.run([sys.executable, "-c", PER_NOTEBOOK, str(work / mode), mode],
                                  cwd=work, capture_output=True, text=True, check=True)
            warnings[mode] += sum(("warn" in x.lower() or "without encryption" in x)
                                  for x in done.stderr.splitlines())
            times = json.loads(done.stdout.strip().splitlines()[-1])
            if mode not in best or sum(t[1] for t in times) < sum(t[1] for t in best[mode]):
                best[mode] = times
    total = {m: round(sum(float(t[1]) for t in v), 3) for m, v in best.items()}  # type: ignore[arg-type]
    after_first = {m: round(sum(float(t[1]) for t in v[1:]) / max(1, len(v) - 1), 3)  # type: ignore[arg-type]
                   for m, v in best.items()}
    return {"per_notebook_s": best, "total_s": total,
            "mean_s_per_notebook_after_the_first": after_first,
            "ratio_shared_over_fresh": round(total["shared"] / total["fresh"], 3),
            "warnings": warnings}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--label", required=True, help="e.g. before / after")
    parser.add_argument("--repeat", type=int, default=2, help="best of N per measurement")
    args = parser.parse_args()
    results: dict[str, object] = {
        "label": args.label,
        "command": " ".join([".venv/bin/python", "benchmarks/bench_report.py", *sys.argv[1:]]),
        "date_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "cpus": os.cpu_count(), "note": "2-core VM shared with other jobs"},
        "git_head": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                   capture_output=True, text=True).stdout.strip(),
    }
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        work = Path(tmp)
        inputs = _inputs(work)
        single = {}
        for kind, paths in inputs.items():
            tries = [_timed([*CLI, "report", *paths, "-o", str(work / f"{kind}.html")], work)
                     for _ in range(args.repeat)]
            single[kind] = min(tries, key=lambda t: float(t["wall_s"]))  # type: ignore[arg-type]
        results["single"] = single
        results["demo"] = _in_process(work, args.repeat)
    out = ROOT / "benchmarks" / "results" / (
        f"report_{args.label}_{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}.json")
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
