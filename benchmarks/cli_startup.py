"""Start-up cost of ``trtsafe-lab --help`` and ``--version`` against a bare interpreter.

Each command is run as a fresh process (the installed console script's interpreter, ``-m
trtsafe_lab``) ``REPEATS`` times, interleaved with the baseline ``python -c pass`` measured in the
same run; the table gives the median wall time of each, the cost above the baseline and, for
comparison, what importing pandas alone costs (what every command paid before). Target (issue 13):
``--help`` and ``--version`` under 0.15 s; the figures depend on the machine's load, which is
recorded.

    .venv/bin/python benchmarks/cli_startup.py [--out benchmarks/results/...json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPEATS = 15
CASES = {
    "baseline: python -c pass": ["-c", "pass"],
    "trtsafe-lab --help": ["-m", "trtsafe_lab", "--help"],
    "trtsafe-lab --version": ["-m", "trtsafe_lab", "--version"],
    "reference: python -c 'import pandas'": ["-c", "import pandas"],
}


def wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *argv], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(REPEATS):
        for name, argv in CASES.items():  # interleaved: load changes hit every case alike
            times[name].append(wall(argv))
    base = statistics.median(times["baseline: python -c pass"])
    rows = []
    print(f"{'command':<40} {'median s':>9} {'above baseline s':>17} {'ratio':>6}")
    for name, values in times.items():
        median = statistics.median(values)
        rows.append({"command": name, "median_s": median, "above_baseline_s": median - base,
                     "ratio_to_baseline": median / base})
        print(f"{name:<40} {median:9.3f} {median - base:17.3f} {median / base:6.2f}")
    if args.out:
        args.out.write_text(json.dumps({
            "date_utc": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "machine": {"platform": platform.platform(), "python": sys.version.split()[0],
                        "cpus": os.cpu_count(), "load_average": os.getloadavg()},
            "command": " ".join([sys.executable, *sys.argv]), "repeats": REPEATS,
            "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
