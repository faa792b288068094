"""Transfer study: how the rules frozen before a batch was collected read that batch's train cases.

For a collection batch N and the commit whose rules were frozen before batch N was collected,
check the commit out with ``git worktree add /tmp/old-bN COMMIT`` and run::

    python benchmarks/rules_transfer_study.py --code-root /tmp/old-bN --batch N

The old package reads every TRAIN case of batch N (set-aside rows are skipped unread, see
train_cases.py; the case files are read from this checkout's tests/data/logs, the same bytes
main holds), in a child process whose ``sys.path`` starts with the old checkout. Each case is
scored like tests/test_logs_accuracy.py (exact layer set; category and fatal per matched name).
The misses are written as a markdown table with a ``class`` column filled from
``benchmarks/results/rules_transfer_classes.tsv`` (case, class, note): what kind of shape the
fresh log brought that the old rules did not read.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from train_cases import REPO, StudyCase, train_cases

CLASSES = REPO / "benchmarks" / "results" / "rules_transfer_classes.tsv"
_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from trtsafe_lab.logs import analyze_log
for path in sys.stdin.read().split("\n"):
    if not path:
        continue
    failures = analyze_log(path).failures
    found = {}
    for layer, category, fatal in zip(failures["layer"], failures["category"], failures["fatal"]):
        if not layer:
            continue
        if layer not in found or (fatal and not found[layer][1]):
            found[layer] = [category, bool(fatal) or found.get(layer, ["", False])[1]]
    print(json.dumps([path, found]))
"""


def read_old(code_root: Path, cases: list[StudyCase]) -> dict[str, dict[str, list]]:
    """case id -> layer -> [category, fatal] as the package at ``code_root`` reads the case."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(code_root)],
        input="\n".join(str(c.path) for c in cases), capture_output=True, text=True, check=True,
    )
    by_path = dict(json.loads(line) for line in done.stdout.splitlines())
    return {c.case_id: by_path[str(c.path)] for c in cases}


def misses(case: StudyCase, found: dict[str, list]) -> str:
    """What differs from the truth ("" when the case is exact with right category and fatal)."""
    truth = set(case.names)
    parts = []
    if set(found) != truth:
        missing = sorted(truth - set(found))
        extra = sorted(set(found) - truth)
        parts.append(f"missing {missing}" if missing else "")
        parts.append(f"extra {extra}" if extra else "")
    for index, name in enumerate(case.names):
        if name in found and case.categories and case.categories[index] != found[name][0]:
            parts.append(f"category of {name!r}: {found[name][0]} (truth {case.categories[index]})")
        if name in found and case.fatal and case.fatal[index] in ("true", "false") and (
            (case.fatal[index] == "true") != found[name][1]
        ):
            parts.append(f"fatal of {name!r}: {found[name][1]}")
    return "; ".join(p for p in parts if p)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--code-root", type=Path, required=True)
    parser.add_argument("--batch", required=True)
    parser.add_argument("--commit", default="")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    cases = [c for c in train_cases() if c.batch == args.batch]
    old = read_old(args.code_root, cases)
    classes: dict[str, tuple[str, str]] = {}
    if CLASSES.is_file():
        with open(CLASSES, newline="", encoding="utf-8") as handle:
            classes = {row["case"]: (row["class"], row["note"])
                       for row in csv.DictReader(handle, delimiter="\t")}
    rows = []
    for case in cases:
        wrong = misses(case, old[case.case_id])
        if wrong:
            kind, note = classes.get(case.case_id, ("", ""))
            rows.append((case.case_id, wrong, kind, note))
    exact = sum(1 for c in cases if set(old[c.case_id]) == set(c.names))
    counts = Counter(kind or "(unclassified)" for _, _, kind, _ in rows)
    lines = [
        f"## Batch {args.batch}: train cases read by the rules of {args.commit or args.code_root}",
        "",
        f"{len(cases)} train cases; exact layer set {exact}/{len(cases)}; cases with any "
        f"difference (layer set, category or fatal) {len(rows)}.",
        "",
        "| class | cases |", "| --- | ---: |",
        *(f"| {kind} | {n} |" for kind, n in counts.most_common()),
        "",
        "| case | what the old rules read differently | class | note |",
        "| --- | --- | --- | --- |",
        *(f"| {cid} | {wrong.replace('|', '/')} | {kind} | {note} |"
          for cid, wrong, kind, note in rows),
        "",
    ]
    text = "\n".join(lines)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
