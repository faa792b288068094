"""TEST DOUBLE for trtexec_safe -- NOT TensorRT, runs no engine.

It follows NVIDIA's samples/trtSafeExec/trtSafeExec.cpp (../shared/reference/tensorrt-oss):
argv is parsed with the flag table derived from that file (trtsafe_lab.trtexec.tool_parser
.real_parse), so it rejects exactly what the real parser rejects, with its message
("Invalid Argument: ...", "Engine file is required.") and exit status (1; an unparsable number
aborts like the uncaught std::stoi exception). It prints the banners to stderr (SAFE_LOG is
std::cerr), the "Average over N runs" line per iteration and the performance summary in the
source's format, computing min/max/mean/median/percentile/coefficient of variance the way
getSafePerformanceResult does (including its median of an even count: elements n/2 and n/2+1).
The timings are synthetic (a fixed pseudo-random series around TRTEXEC_SAFE_DOUBLE_MEDIAN_MS).
Like the real tool it exits 0 even when the run FAILED (main returns EXIT_SUCCESS).

Environment: TRTEXEC_DOUBLE_VERSION (NV_TENSORRT_VERSION, default 110100),
TRTEXEC_SAFE_DOUBLE_MEDIAN_MS (default 2.0), TRTEXEC_SAFE_DOUBLE_MODE: run (default) | fail
(engine cannot be loaded: [E] + &&&& FAILED, exit 0) | summary-only (no iteration lines).
"""

import math
import os
import random
import sys
import time

from trtsafe_lab.trtexec.flag_table import load_table
from trtsafe_lab.trtexec.tool_parser import real_parse, split_arg
from trtsafe_lab.trtexec.version import TrtVersion


def stamp() -> str:
    return time.strftime("[%m/%d/%Y-%H:%M:%S] ")


def info(text: str) -> None:
    print(stamp() + "[I] " + text, flush=True)


def err(text: str) -> None:
    print(stamp() + "[E] " + text, file=sys.stderr, flush=True)


def fmt(x: float) -> str:
    """A float as a default C++ ostream prints it (6 significant digits)."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:g}"


def banner(state: str, code: int, argv: list[str]) -> None:
    print(f"&&&& {state} TensorRT.trtexec_safe [TensorRT v{code}] [b0] # {' '.join(argv)}",
          file=sys.stderr, flush=True)


def print_help(table) -> None:
    print("Usage: trtexec_safe --loadEngine=<file> [options]  (TEST DOUBLE: flags from "
          f"{', '.join(table.derived_from)})")
    for key, spec in table.flags.items():
        if spec.accepted:
            print(f"  {key:<18} {spec.help}")


def result_of(times: list[float], percent: float) -> dict:
    """getSafePerformanceResult (trtSafeExec.cpp), on one metric."""
    t = sorted(times)
    n = len(t)
    mid = n // 2
    median = t[mid] if n % 2 else (t[mid] + t[min(mid + 1, n - 1)]) / 2
    exclude = int((1 - percent / 100) * n)
    mean = sum(t) / n
    var = sum((x - mean) ** 2 for x in t) / n
    return {"min": t[0], "max": t[-1], "mean": mean, "median": median,
            "percentile": t[max(n - 1 - exclude, 0)],
            "cv": math.sqrt(var) / mean * 100 if mean else math.inf}


def main() -> int:
    argv = sys.argv
    code = int(os.environ.get("TRTEXEC_DOUBLE_VERSION", "110100"))
    table = load_table("trtexec_safe", TrtVersion.from_code(code))
    banner("RUNNING", code, argv)
    info("TEST DOUBLE of trtexec_safe (trtsafe-lab tests) -- NOT TensorRT")
    info("Parsing input arguments...")
    parsed = real_parse(table, argv[1:])
    for line in parsed.stderr_extra:  # std::terminate after an uncaught std::stoi exception
        print(line, file=sys.stderr, flush=True)
    if parsed.exit_code < 0:
        os.abort()
    for warning in parsed.warnings:
        print(stamp() + "[W] " + warning, flush=True)
    if parsed.errors:
        for message in parsed.errors:
            err(message)
        print_help(table)
        return parsed.exit_code
    if parsed.help:
        print_help(table)
        return 0
    opts = {}
    for arg in argv[1:]:
        key, value = split_arg(arg)
        opts[key] = value if value is not None else True
        info(f"{key.lstrip('-')} : {value if value is not None else 'True'}")
    mode = os.environ.get("TRTEXEC_SAFE_DOUBLE_MODE", "run")
    if mode == "fail":
        err(f"Failed to load engine file {opts['--loadEngine']} (TEST DOUBLE: mode fail)")
        banner("FAILED", code, argv)
        return 0  # the real main() returns EXIT_SUCCESS whatever the result
    def number(key: str, kind=float):
        spec = table.get(key)
        return kind(opts.get(key, spec.default if spec else 0))
    iterations = number("--iterations", int)
    avg_runs = number("--avgRuns", int)
    percent = number("--percentile")
    median = float(os.environ.get("TRTEXEC_SAFE_DOUBLE_MEDIAN_MS", "2.0"))
    rng = random.Random(int(median * 1000) + iterations)
    rows = []
    for _ in range(iterations):
        gpu = median * rng.uniform(0.97, 1.06)
        host = gpu + rng.uniform(0.05, 0.1)
        enqueue = rng.uniform(0.01, 0.03)
        rows.append((gpu, host, enqueue))
        if mode != "summary-only":
            info(f"Average over {avg_runs} runs - GPU latency: {fmt(gpu)} ms - Host latency: "
                 f"{fmt(host)} ms (enqueue {fmt(enqueue)} ms)")
    gpu_r, host_r, enq_r = (result_of([r[i] for r in rows], percent) for i in range(3))
    wall = sum(r[1] for r in rows) * avg_runs
    info("")
    info("=== Performance summary ===")
    info(f"Total throughput: {fmt(avg_runs * iterations / wall * 1000)} qps")
    for label, r in (("Host Time: ", host_r), ("Enqueue Time: ", enq_r),
                     ("GPU Compute Time:  ", gpu_r)):
        info(f"{label}min = {fmt(r['min'])} ms, max = {fmt(r['max'])} ms, mean = "
             f"{fmt(r['mean'])} ms, median = {fmt(r['median'])} ms, percentile({fmt(percent)}%) "
             f"= {fmt(r['percentile'])} ms")
    if gpu_r["cv"] > 1.0:
        print(stamp() + "[W] * GPU compute time is unstable, with coefficient of variance = "
              f"{fmt(gpu_r['cv'])}%.", flush=True)
    banner("PASSED", code, argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
