"""``trtsafe-lab failures LOG`` as a whole process (start-up included) against grep (issue 11).

Two logs are generated in a temporary folder (never committed) from the shared corpus:

- *error-dense*: copies of the verbose trtexec build log (``../shared/corpus/build-logs/
  verbose``) with ``--cases-per-copy`` real failing logs (``build-logs/cases``, in turn)
  after each copy, up to ``--dense-mb`` MB (default 480 MB, ~36,000 findings);
- *clean*: copies of the verbose log only, ``--clean-mb`` MB (default 480 MB);
- *error-dense, distinct copies*: as error-dense, but in every inserted copy of a failing log
  the layer names it blames (``attributed_names`` of the corpus INDEX.tsv) get the copy's
  number (``/model/Conv`` -> ``/model/Conv_c17``), so no message repeats one before it and the
  parser's record cache and the table's text cache cannot help (their worst case).

For each, best of ``--repeat`` runs of

  baseline:  grep -c -E '\\[E\\]|\\[W\\]|Error Code|ERROR' LOG
  measured:  trtsafe-lab failures LOG       (the installed entry point, default table format)

and the ratio measured/baseline (target <= 3). The package is byte-compiled first (``compileall``,
as a regular ``pip install`` leaves it): this sandbox sets PYTHONDONTWRITEBYTECODE and installs
the package editable, so without it every run compiles the modules it imports from source.
Also the start-up alone (``trtsafe-lab failures EMPTY_LOG``) and the parse of the hostile
one-line shapes of issue 15 in MB/s. Writes machine, command, sizes and figures to
benchmarks/results/.

    python benchmarks/bench_failures_cli.py [--dense-mb 480] [--clean-mb 480] [--repeat 3]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_failure_table import machine, write_results  # shared with the in-process benchmark

REPO = Path(__file__).resolve().parents[1]
GREP_PATTERN = r"\[E\]|\[W\]|Error Code|ERROR"
TARGET_RATIO = 3.0


def corpus_root() -> Path:
    return Path(os.environ.get("TRTSAFE_CORPUS", REPO.parent / "shared" / "corpus"))


MIN_RENAMED_CHARS = 3  # shorter attributed names are left alone (they occur inside words)


def _name_patterns(corpus: Path) -> dict[str, re.Pattern[bytes] | None]:
    """Per case file: a pattern matching the names its INDEX.tsv row attributes (longest first)."""
    patterns: dict[str, re.Pattern[bytes] | None] = {}
    with open(corpus / "cases" / "INDEX.tsv", encoding="utf-8", newline="") as index:
        for row in csv.DictReader(index, delimiter="\t"):
            names = {n.strip() for n in row["attributed_names"].split(" | ")}
            names = {n for n in names if len(n) >= MIN_RENAMED_CHARS}
            ordered = sorted(names, key=len, reverse=True)
            patterns[row["file"]] = (
                re.compile(b"|".join(re.escape(n.encode()) for n in ordered)) if ordered else None
            )
    return patterns


def build_log(
    path: Path, size_mb: float, cases_per_copy: int, *, distinct: bool = False
) -> dict[str, int]:
    corpus = corpus_root() / "build-logs"
    verbose = sorted((corpus / "verbose").glob("*.log"))
    files = sorted((corpus / "cases").glob("*.log"))
    cases = [p.read_bytes() for p in files]
    if not verbose or not cases:
        sys.exit(f"corpus not found under {corpus.parent}; set TRTSAFE_CORPUS")
    names = _name_patterns(corpus) if distinct else {}
    big = verbose[0].read_bytes()
    cases = [case if case.endswith(b"\n") else case + b"\n" for case in cases]
    copies = inserted = renamed = 0
    with open(path, "wb") as out:
        while out.tell() < size_mb * 1e6:
            out.write(big)
            copies += 1
            for _ in range(cases_per_copy):
                index = inserted % len(cases)
                case = cases[index]
                pattern = names.get(files[index].name)
                if pattern is not None:
                    suffix = b"_c%d" % inserted
                    case, count = pattern.subn(lambda m, s=suffix: m.group() + s, case)
                    renamed += count
                out.write(case)
                inserted += 1
    return {
        "bytes": path.stat().st_size,
        "verbose_copies": copies,
        "cases_inserted": inserted,
        **({"names_renamed": renamed} if distinct else {}),
    }


def best_of(argv: list[str], repeat: int) -> tuple[float, str]:
    best = float("inf")
    output = ""
    for _ in range(repeat):
        started = time.perf_counter()
        result = subprocess.run(argv, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
        if result.returncode not in (0, 1):
            sys.exit(f"{argv} failed ({result.returncode}): {result.stderr[-2000:]}")
        best = min(best, elapsed)
        output = result.stdout
    return best, output


def measure(log: Path, repeat: int, failures: list[str]) -> dict[str, object]:
    grep = shutil.which("grep")
    if grep is None:
        sys.exit("grep is not on PATH: the baseline needs it")
    subprocess.run(["cat", str(log)], stdout=subprocess.DEVNULL, check=True)  # page cache
    grep_s, grep_out = best_of([grep, "-c", "-E", GREP_PATTERN, str(log)], repeat)
    table_s, _ = best_of([*failures, str(log)], repeat)  # the default table, as users run it
    json_s, json_out = best_of([*failures, str(log), "--format", "json"], 1)
    rows = json.loads(json_out)["failures"]
    size_mb = log.stat().st_size / 1e6
    return {
        "size_mb": round(size_mb, 1),
        "grep_s": round(grep_s, 3),
        "grep_matching_lines": int(grep_out.strip() or 0),
        "failures_s": round(table_s, 3),
        "failures_mb_per_s": round(size_mb / table_s, 1),
        "failures_json_s_one_run": round(json_s, 3),
        "rows": len(rows),
        "named_rows": sum(1 for row in rows if row["layer"]),
        "ratio": round(table_s / grep_s, 2),
        "target_met": table_s / grep_s <= TARGET_RATIO,
    }


def hostile_shapes() -> dict[str, float]:
    """MB/s of the full parse on one-line hostile shapes of issue 15 (1 MiB lines)."""
    sys.path.insert(0, str(REPO / "tests"))
    from test_logs_linear import ISSUE_SHAPES

    from trtsafe_lab.logs.parser import LogParser

    speeds = {}
    for name in [n for n in ISSUE_SHAPES if not n.startswith("fragment-")]:
        make = ISSUE_SHAPES[name]
        repeats = 1
        while len(make(repeats * 2)) < 1 << 20:
            repeats *= 2
        line = make(repeats)
        best = float("inf")
        for _ in range(3):
            parser = LogParser(keep_events=False)
            started = time.perf_counter()
            parser.feed(line)
            parser.finish()
            best = min(best, time.perf_counter() - started)
        speeds[name] = round(len(line) / 1e6 / best, 2)
    return speeds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dense-mb", type=float, default=480.0)
    parser.add_argument("--clean-mb", type=float, default=480.0)
    parser.add_argument("--cases-per-copy", type=int, default=42)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results"))
    args = parser.parse_args()
    entry = shutil.which("trtsafe-lab", path=str(Path(sys.executable).parent))
    failures = [entry, "failures"] if entry else [sys.executable, "-m", "trtsafe_lab", "failures"]
    info = {**machine(), "note": "2 cores shared with other sessions working at the same time"}
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "trtsafe_lab")],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    with tempfile.TemporaryDirectory(prefix="trtsafe-bench-") as tmp:
        folder = Path(tmp)
        empty = folder / "empty.log"
        empty.write_bytes(b"")
        startup_s, _ = best_of([*failures, str(empty)], args.repeat)
        dense = folder / "error-dense.log"
        dense_info = build_log(dense, args.dense_mb, args.cases_per_copy)
        dense_figures = measure(dense, args.repeat, failures)
        dense.unlink()
        clean = folder / "clean-verbose.log"
        clean_info = build_log(clean, args.clean_mb, 0)
        clean_figures = measure(clean, args.repeat, failures)
        clean.unlink()
        distinct = folder / "error-dense-distinct.log"
        distinct_info = build_log(distinct, args.dense_mb, args.cases_per_copy, distinct=True)
        distinct_figures = measure(distinct, args.repeat, failures)
    results = {
        "benchmark": "trtsafe-lab failures (whole process) vs grep -c -E",
        "date_utc": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "measured_command": " ".join([*failures, "LOG"]),
        "baseline_command": f"grep -c -E '{GREP_PATTERN}' LOG",
        "bytecode": "package byte-compiled with compileall before measuring",
        "git_commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
        ).stdout.strip(),
        "machine": info,
        "startup_empty_log_s": round(startup_s, 3),
        "error_dense": {**dense_info, **dense_figures},
        "clean_verbose": {**clean_info, **clean_figures},
        "error_dense_distinct": {**distinct_info, **distinct_figures},
        "hostile_line_parse_mb_per_s": hostile_shapes(),
        "target_ratio": TARGET_RATIO,
        "load_average_at_end": round(os.getloadavg()[0], 2),
    }
    shapes = ("error_dense", "clean_verbose", "error_dense_distinct")
    results["verdict"] = "; ".join(
        f"{name}: {figures['ratio']}x, target {'met' if figures['target_met'] else 'NOT met'}"
        for name in shapes
        if isinstance(figures := results[name], dict)
    )
    for name in shapes:
        figures = results[name]
        assert isinstance(figures, dict)
        print(
            f"{name:20} {figures['size_mb']:7.0f} MB  grep {figures['grep_s']:6.2f} s  "
            f"failures {figures['failures_s']:6.2f} s  ratio {figures['ratio']:5.2f}x  "
            f"rows {figures['rows']}"
        )
    print(f"start-up (empty log): {startup_s:.3f} s")
    print("verdict:", results["verdict"])
    print("hostile one-line shapes, MB/s:", results["hostile_line_parse_mb_per_s"])
    print(f"wrote {write_results(Path(args.out), 'failures_cli', results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
