"""Failure-table speed and memory on a large verbose log, against grep in the same run.

Builds a log of at least --size-mb MB in a temporary folder by concatenating the corpus's
verbose trtexec build log (../shared/corpus/build-logs/verbose) and, every few copies, one of
the failure cases (../shared/corpus/build-logs/cases), then times

  baseline:  grep -c -E '\\[E\\]|\\[W\\]|Error Code|ERROR' LOG
  measured:  trtsafe_lab.logs.analyze_log(LOG).failures   (in a fresh Python process)

best of --repeat runs each, and prints MB/s, the ratio and the peak memory (ru_maxrss of the
measuring process; a process that only imports the package is measured too, as the floor, and
the failure table is also run on a quarter of the log to show whether memory grows with it).
Writes the figures with machine, command and date to benchmarks/results/.

    python benchmarks/bench_failure_table.py [--size-mb 400] [--repeat 3]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GREP_PATTERN = r"\[E\]|\[W\]|Error Code|ERROR"
TARGET_RATIO = 3.0

CHILD = r"""
import json, resource, sys, time

def peak_rss_mb():
    # VmHWM restarts at exec; ru_maxrss would include the parent's peak inherited at fork.
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:  # no /proc (not Linux): fall back to ru_maxrss, which may include the parent
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

started = time.perf_counter()
from trtsafe_lab.logs import analyze_log
imported = time.perf_counter()
cpu = time.process_time()
if sys.argv[1] == "--import-only":
    failures = None
else:
    failures = analyze_log(sys.argv[1]).failures
done = time.perf_counter()
print(json.dumps({
    "import_s": imported - started,
    "table_s": done - imported,
    "table_cpu_s": time.process_time() - cpu,
    "rows": None if failures is None else len(failures),
    "fatal_rows": None if failures is None else int(failures["fatal"].sum()),
    "named_layers": None if failures is None else int((failures["layer"] != "").sum()),
    "peak_rss_mb": peak_rss_mb(),
}))
"""


def corpus_root() -> Path:
    return Path(os.environ.get("TRTSAFE_CORPUS", REPO.parent / "shared" / "corpus"))


def build_log(folder: Path, size_mb: float) -> tuple[Path, int, int]:
    """Concatenate the verbose log (and a failure case every 8 copies) to >= size_mb."""
    corpus = corpus_root()
    verbose = sorted((corpus / "build-logs" / "verbose").glob("*.log"))
    cases = sorted((corpus / "build-logs" / "cases").glob("*.log"))
    if not verbose or not cases:
        sys.exit(f"corpus not found under {corpus}; set TRTSAFE_CORPUS")
    big = verbose[0].read_bytes()
    path = folder / "large-verbose-build.log"
    copies = inserted = 0
    with open(path, "wb") as out:
        while out.tell() < size_mb * 1e6:
            out.write(big)
            copies += 1
            if copies % 8 == 0:
                case = cases[inserted % len(cases)].read_bytes()
                out.write(case if case.endswith(b"\n") else case + b"\n")
                inserted += 1
    return path, copies, inserted


def time_grep(path: Path, repeat: int) -> dict[str, float]:
    grep = shutil.which("grep")
    if grep is None:
        sys.exit("grep is not on PATH: the baseline needs it")
    best = float("inf")
    best_cpu = float("inf")
    count = ""
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        result = subprocess.run(
            [grep, "-c", "-E", GREP_PATTERN, str(path)], capture_output=True, text=True
        )
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best, best_cpu = min(best, elapsed), min(best_cpu, cpu)
        count = result.stdout.strip()
    return {"wall_s": best, "cpu_s": best_cpu, "matching_lines": int(count or 0)}


def run_child(argument: str, repeat: int) -> dict[str, float]:
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-c", CHILD, argument],
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
        )
        figures = json.loads(result.stdout)
        figures["process_wall_s"] = time.perf_counter() - started
        runs.append(figures)
    best = min(runs, key=lambda run: run["table_s"])
    best["peak_rss_mb"] = max(run["peak_rss_mb"] for run in runs)
    return best


def machine() -> dict[str, object]:
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:  # no /proc/cpuinfo: keep platform.processor()'s (vaguer) name
        pass
    memory_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {
        "hostname": platform.node(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(memory_gb, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "load_average_1min_at_start": load,
    }


def git_commit() -> str:
    result = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
    )
    return result.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=400.0, help="log size (default 400)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, best kept")
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results"))
    args = parser.parse_args()

    info = machine()
    with tempfile.TemporaryDirectory(prefix="trtsafe-bench-") as tmp:
        folder = Path(tmp)
        log, copies, inserted = build_log(folder, args.size_mb)
        size_mb = log.stat().st_size / 1e6
        quarter = folder / "quarter.log"
        with open(log, "rb") as source, open(quarter, "wb") as target:
            left = log.stat().st_size // 4
            while left > 0:
                block = source.read(min(left, 1 << 24))
                target.write(block)
                left -= len(block)
        subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # page cache
        grep = time_grep(log, args.repeat)
        table = run_child(str(log), args.repeat)
        quarter_table = run_child(str(quarter), 1)
        floor = run_child("--import-only", 1)

    ratio = table["table_s"] / grep["wall_s"]
    results = {
        "benchmark": "failure table vs grep",
        "date_utc": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "git_commit": git_commit(),
        "machine": info,
        "log": {
            "size_mb": round(size_mb, 1),
            "verbose_copies": copies,
            "failure_cases_inserted": inserted,
        },
        "grep": {**grep, "pattern": GREP_PATTERN, "mb_per_s": size_mb / grep["wall_s"]},
        "failure_table": {**table, "mb_per_s": size_mb / table["table_s"]},
        "failure_table_quarter_log": quarter_table,
        "import_only": floor,
        "ratio_table_to_grep_wall": ratio,
        "ratio_table_cpu_to_grep_cpu": table["table_cpu_s"] / max(grep["cpu_s"], 1e-9),
        "target_ratio": TARGET_RATIO,
        "target_met": ratio <= TARGET_RATIO,
    }
    print(f"log: {size_mb:.0f} MB ({copies} verbose copies, {inserted} failure cases)")
    print(f"{'':26}{'seconds':>9}{'MB/s':>9}{'peak MB':>9}")
    print(f"{'grep -c -E':26}{grep['wall_s']:9.2f}{size_mb / grep['wall_s']:9.0f}{'':>9}")
    print(
        f"{'failure table':26}{table['table_s']:9.2f}{size_mb / table['table_s']:9.0f}"
        f"{table['peak_rss_mb']:9.0f}"
    )
    print(
        f"{'failure table, 1/4 log':26}{quarter_table['table_s']:9.2f}"
        f"{size_mb / 4 / quarter_table['table_s']:9.0f}{quarter_table['peak_rss_mb']:9.0f}"
    )
    print(f"{'import only (floor)':26}{floor['import_s']:9.2f}{'':>9}{floor['peak_rss_mb']:9.0f}")
    print(
        f"ratio failure table / grep: {ratio:.2f}x wall, "
        f"{results['ratio_table_cpu_to_grep_cpu']:.2f}x CPU (target <= {TARGET_RATIO}x): "
        + ("met" if results["target_met"] else "NOT met")
    )
    print(
        f"rows: {table['rows']} ({table['fatal_rows']} fatal, {table['named_layers']} naming a "
        f"layer); grep matched {grep['matching_lines']} lines"
    )
    print(f"wrote {write_results(Path(args.out), 'failure_table', results)}")
    return 0


def write_results(out_dir: Path, name: str, results: dict[str, object]) -> Path:
    """Write ``results`` to ``out_dir/NAME_<UTC stamp>.json``; return the path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = out_dir / f"{name}_{stamp}.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    return out


if __name__ == "__main__":
    sys.exit(main())
