"""GPU verification of the safety-runtime lifecycle runner (run on an NVIDIA GPU).

Runs, each as a subprocess, and records what happened (JSON, with GPU name, driver, date and
every command):
  1. pytest on the runtime tests — the gpu-marked ones over the reference CUDA workload, and the
     CPU rule/stateful tests on the same machine;
  2. ``trtsafe-lab runtime-demo --violations`` on the GPU (the prefill/decode pipeline);
  3. ``trtsafe-lab runtime-demo --inject-fault 3`` on the GPU (a real invalid-launch CUDA error:
     fatal containment), with its trace drawn as a lifecycle diagram.
Nothing is timed here; this is a pass/fail record of real GPU behaviour.

Usage: python benchmarks/runtime_gpu_check.py OUT_DIR
"""

from __future__ import annotations

import datetime as dt
import json
import platform
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd

RUNTIME_TESTS = ["tests/test_runtime_gpu.py", "tests/test_runtime_rules.py",
                 "tests/test_runtime_stateful.py"]


def run_step(name: str, argv: list[str], out_dir: Path, log_name: str,
             expect_rc: int) -> dict[str, object]:
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=240, check=False)
    text = proc.stdout + ("\n--- stderr ---\n" + proc.stderr if proc.stderr.strip() else "")
    (out_dir / log_name).write_text(text)
    print(f"== {name}: rc={proc.returncode} (expected {expect_rc})\n{text}", flush=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    return {"name": name, "argv": argv, "rc": proc.returncode, "expected_rc": expect_rc,
            "ok": proc.returncode == expect_rc, "seconds": round(time.perf_counter() - started, 2),
            "last_lines": lines[-4:], "log": log_name}


def junit_outcomes(path: Path) -> dict[str, str]:
    outcomes: dict[str, str] = {}
    if not path.exists():
        return outcomes
    for case in ET.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = [child.tag for child in case]
        outcomes[name] = next((k for k in ("failure", "error", "skipped") if k in kinds), "passed")
    return outcomes


def log_outcomes(text: str) -> dict[str, str]:
    """Per-test outcomes from ``pytest -v`` output; a test left without one crashed the process
    (pytest then writes no junit file, so this is the fallback)."""
    outcomes: dict[str, str] = {}
    for line in text.splitlines():
        match = re.match(r"^(tests/\S+::\S+)(?: (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS))?", line)
        if match:
            outcomes[match.group(1)] = (match.group(2) or "crashed").lower()
    return outcomes


def nvidia_smi() -> str:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return "nvidia-smi not found"
    proc = subprocess.run([exe, "--query-gpu=name,driver_version", "--format=csv,noheader"],
                          capture_output=True, text=True, check=False)
    return proc.stdout.strip()


def main() -> int:
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    from trtsafe_lab.cuda_api import activate_device, device_properties

    activate_device(0)
    record: dict[str, object] = {
        "what": "safety-runtime lifecycle runner on a GPU (issue 7)",
        "command": [sys.executable, *sys.argv], "date_utc": dt.datetime.now(dt.timezone.utc)
        .isoformat(timespec="seconds"), "gpu": device_properties(0), "nvidia_smi": nvidia_smi(),
        "python": platform.python_version(), "host": platform.node()}
    junit = out_dir / "runtime_pytest_junit.xml"
    py = sys.executable
    steps = [
        run_step("pytest runtime tests (gpu + cpu)",
                 [py, "-m", "pytest", "-v", "-p", "no:cacheprovider", f"--junitxml={junit}",
                  *RUNTIME_TESTS], out_dir, "runtime_pytest.log", 0),
        run_step("runtime-demo on the GPU", [py, "-m", "trtsafe_lab", "runtime-demo",
                                             "--violations"], out_dir, "runtime_demo_gpu.txt", 0),
        run_step("runtime-demo on the GPU, injected invalid launch",
                 [py, "-m", "trtsafe_lab", "runtime-demo", "--inject-fault", "3", "--trace-csv",
                  str(out_dir / "runtime_demo_gpu_fault_trace.csv")], out_dir,
                 "runtime_demo_gpu_fault.txt", 1),
    ]
    record["steps"] = steps
    outcomes = junit_outcomes(junit) or log_outcomes((out_dir / "runtime_pytest.log").read_text())
    record["pytest_outcomes"] = outcomes
    gpu_tests = {k: v for k, v in outcomes.items() if "test_runtime_gpu" in k}
    # Skipped GPU tests would leave pytest's exit code at 0: require that they really passed.
    record["gpu_tests_passed"] = bool(gpu_tests) and all(v == "passed" for v in gpu_tests.values())
    fault_csv = out_dir / "runtime_demo_gpu_fault_trace.csv"
    if fault_csv.exists():
        import matplotlib

        matplotlib.use("Agg")
        from trtsafe_lab.demo.runtime import before_deinit
        from trtsafe_lab.runtime.view import plot_lifecycle

        trace = pd.read_csv(fault_csv, keep_default_na=False)
        fig = plot_lifecycle(before_deinit(trace), title="Safety runner on "
                             f"{record['nvidia_smi']}: injected invalid launch, fatal containment")
        fig.savefig(out_dir / "runtime_gpu_lifecycle_fatal.png", dpi=110, bbox_inches="tight")
        fatal_rows = trace[trace["outcome"] == "fatal"]
        record["injected_error"] = (str(fatal_rows.iloc[0]["diagnostic"]) if len(fatal_rows)
                                    else "none recorded")
    passed = all(s["ok"] for s in steps) and record["gpu_tests_passed"]
    record["outcome"] = "pass" if passed else "fail"
    (out_dir / "runtime_gpu_check.json").write_text(json.dumps(record, indent=1))
    print(json.dumps({k: record[k] for k in ("outcome", "gpu_tests_passed", "gpu", "nvidia_smi",
                                            "injected_error") if k in record}, indent=1))
    return 0 if record["outcome"] == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())
