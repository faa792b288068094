"""How the failure explorer's cost grows with the table: one filter change (filter + sort +
render one page + refresh the detail pane) on tables of 1,000 to 100,000 rows, against the
baseline of rendering the whole table as HTML once (what an explorer without paging would send
to the browser on every change), measured in the same run.

    .venv/bin/python benchmarks/failure_explorer_paging.py [--out benchmarks/results/...json]

Prints a table; with --out also records machine, command, date and figures as JSON.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

SIZES = (1_000, 10_000, 100_000)
REPEATS = 5
CHOICES = ("error", "warning", "(all)")  # severity filter values cycled through


def synthetic(n: int) -> pd.DataFrame:
    sev = ("error", "warning", "info")
    cat = ("no-implementation", "tactic-out-of-memory", "shape", "safety-scope", "myelin")
    return pd.DataFrame({
        "layer": [f"/backbone/block{i % 97}/conv{i}/Conv" for i in range(n)],
        "severity": [sev[i % 3] for i in range(n)],
        "fatal": [i % 3 == 0 for i in range(n)],
        "category": [cat[i % 5] for i in range(n)],
        "phase": [("parse", "build", "tactic", "runtime")[i % 4] for i in range(n)],
        "line": range(1, n + 1),
        "message": [f"Could not find any implementation for node conv{i} ({i % 13} tactics)"
                    for i in range(n)],
    })


def median_s(fn: object, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from trtsafe_lab.widgets import FailureExplorer

    rows = []
    for n in SIZES:
        table = synthetic(n)
        lines = [f"log line {i}" for i in range(1, n + 1)]
        explorer = FailureExplorer(table, lines)
        state = {"i": 0}

        def change(explorer: FailureExplorer = explorer, state: dict = state) -> None:
            state["i"] += 1
            explorer.filters["severity"].value = CHOICES[state["i"] % 3]

        change_s = median_s(change)
        full_s = median_s(lambda table=table: table.to_html(index=False), 3)
        rows.append({"rows": n, "filter_change_ms": 1000 * change_s,
                     "full_table_html_ms": 1000 * full_s, "ratio": change_s / full_s,
                     "page_html_chars": len(explorer.table.value)})
    frame = pd.DataFrame(rows)
    print(frame.to_string(index=False, float_format=lambda x: f"{x:.3g}"))
    if args.out:
        record = {"command": " ".join(sys.argv), "date_utc": dt.datetime.now(dt.timezone.utc)
                  .isoformat(timespec="seconds"), "machine": platform.platform(),
                  "python": platform.python_version(), "processor": platform.processor(),
                  "results": rows}
        args.out.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
