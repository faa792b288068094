"""Time `trtsafe-lab report` per notebook and count the warnings it prints.

Makes one input of each kind in a temporary folder (a bundled example log, a build run made with
the REPLAY tool — a recorded log, NOT TensorRT —, the bundled H200 profile runs of one workload)
and times, as a user would run them:

- ``single``: one `trtsafe-lab report INPUT -o X.html` process per input kind (wall time of the
  whole process, kernel start included);
- ``demo``: the report demo step (`trtsafe-lab demo`'s report job: every bundled workload's
  profiling report, the triage report and the tour, in one process), per notebook.

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
    from trtsafe_lab.logs.failures_demo import EXAMPLES
    from trtsafe_lab.profile.profile_demo import example_runs
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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--label", required=True, help="e.g. before / after")
    parser.add_argument("--repeat", type=int, default=2, help="best of N per measurement")
    args = parser.parse_args()
    results: dict[str, object] = {
        "label": args.label,
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
        demo_tries = []
        for _ in range(args.repeat):
            code = ("import sys,time; from pathlib import Path; from trtsafe_lab.report_demo "
                    "import run_demo; t=time.perf_counter(); w=run_demo(Path(sys.argv[1])); "
                    "print(len(w), time.perf_counter()-t)")
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", code, str(work / "demo")], cwd=work,
                                  capture_output=True, text=True, check=False)
            wall = time.perf_counter() - start
            count, inner = done.stdout.split()[-2:] if done.returncode == 0 else ("0", "nan")
            lines = [x for x in done.stderr.splitlines() if x.strip()]
            demo_tries.append({"rc": done.returncode, "notebooks": int(count),
                               "wall_s": round(wall, 3), "in_process_s": round(float(inner), 3),
                               "per_notebook_s": round(float(inner) / max(1, int(count)), 3),
                               "warnings": sum(("warn" in x.lower()
                                                or "without encryption" in x) for x in lines),
                               "stderr_head": lines[:5]})
        results["single"] = single
        results["demo"] = min(demo_tries, key=lambda t: float(t["wall_s"]))  # type: ignore[arg-type]
    out = ROOT / "benchmarks" / "results" / (
        f"report_{args.label}_{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}.json")
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
