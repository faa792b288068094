"""Failure-table accuracy per corpus split, written to benchmarks/results/ (issue 11).

Splits: ``setaside`` and ``train`` of tests/data/logs (only aggregate figures are written for the
set-aside split) and the shared corpus ../shared/corpus/build-logs/cases (TRTSAFE_CORPUS
overrides its root). Figures: exact layer-set match, name precision and recall, category and
fatal accuracy on matched names (definitions in trtsafe_lab/logs/scoring.py). The same figures
are asserted by tests/test_logs_accuracy.py. Each split's exact rate also gets its 95% confidence
interval (Clopper-Pearson, scipy.stats.binomtest): a set-aside split of a few dozen logs is a
sample of the logs users have, and the interval says how far its rate can be read.

    python benchmarks/failure_accuracy.py
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def add_exact_intervals(figures: dict[str, dict[str, Any]]) -> None:
    """Add ``exact_ci95``: the exact-rate 95% Clopper-Pearson interval, to every split's row."""
    from scipy.stats import binomtest

    for row in figures.values():
        if row["cases"]:
            interval = binomtest(row["exact"], row["cases"]).proportion_ci(0.95, method="exact")
            row["exact_ci95"] = [round(interval.low, 4), round(interval.high, 4)]
        else:
            row["exact_ci95"] = [0.0, 1.0]


def main() -> int:
    from trtsafe_lab.logs import analyze_log
    from trtsafe_lab.logs.scoring import corpus_figures, figures_table

    corpus = Path(os.environ.get("TRTSAFE_CORPUS", REPO.parent / "shared" / "corpus"))
    figures, _ = corpus_figures(
        REPO / "tests" / "data" / "logs",
        corpus / "build-logs" / "cases",
        lambda path: analyze_log(path).failures,
    )
    print(figures_table(figures))
    add_exact_intervals(figures)
    print("\nexact rate, 95% Clopper-Pearson interval:")
    for split, row in figures.items():
        low, high = row["exact_ci95"]
        print(f"  {split:12} {row['exact']:4}/{row['cases']:<4} [{low:.3f}, {high:.3f}]")
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
        capture_output=True, text=True, check=False,
    ).stdout.strip()
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    result = {
        "what": "failure-table accuracy per split (trtsafe_lab/logs/scoring.py)",
        "date_utc": stamp,
        "commit": commit,
        "command": "python benchmarks/failure_accuracy.py",
        "machine": platform.platform(),
        "python": sys.version.split()[0],
        "figures": figures,
    }
    out = REPO / "benchmarks" / "results" / f"failure_accuracy_{stamp}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written: {out.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
