"""Failure-table accuracy per corpus split, written to benchmarks/results/ (issue 11).

Splits: ``setaside`` and ``train`` of tests/data/logs (only aggregate figures are written for the
set-aside split) and the shared corpus ../shared/corpus/build-logs/cases (TRTSAFE_CORPUS
overrides its root). Figures: exact layer-set match, name precision and recall, category and
fatal accuracy on matched names (definitions in trtsafe_lab/logs/scoring.py). The same figures
are asserted by tests/test_logs_accuracy.py.

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

REPO = Path(__file__).resolve().parents[1]


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
