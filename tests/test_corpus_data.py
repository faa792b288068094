"""The real-log corpus in tests/data/logs is well formed (data checks only, no scoring).

Each case is a verbatim excerpt of a published TensorRT log; INDEX.tsv holds its ground truth.
These tests pin the INDEX format, the computed train/set-aside split, the alignment of names with
categories and fatal flags, and the separation from the shared corpus (scored separately).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from pathlib import Path

import corpus_counts
import pytest

from trtsafe_lab.logs.categories import CATEGORY_RULES, WARNING_CATEGORIES

LOGS = Path(__file__).resolve().parent / "data" / "logs"
CASES = LOGS / "cases"
COLUMNS = [
    "file",
    "source_url",
    "tool",
    "trt_version",
    "split",
    "what_failed",
    "attributed_names",
    "categories",
    "fatal",
    "notes",
    "outcome",
    "tags",
    "batch",
]
TOOLS = frozenset(
    [
        "trtexec",
        "python-api",
        "polygraphy",
        "onnx2trt",
        "tensorrt-llm",
        "torch-tensorrt",
        "torch2trt",
        "tf-trt",
        "deepstream",
        "cpp-app",
        "other",
    ]
)
# The package's category vocabulary: every category a rule can give, plus the warning-only ones.
CATEGORIES = frozenset(name for name, _ in CATEGORY_RULES) | WARNING_CATEGORIES
OUTCOMES = frozenset(
    [
        "build_failed",
        "parse_failed",
        "runtime_failed",
        "build_warning",
        "build_succeeded",
        "inference_succeeded",
    ]
)
SEP = " | "


def _rows() -> list[dict[str, str]]:
    lines = (LOGS / "INDEX.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == COLUMNS
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        assert len(fields) == len(COLUMNS), f"INDEX.tsv line {number}: {len(fields)} fields"
        rows.append(dict(zip(COLUMNS, fields, strict=True)))
    return rows


ROWS = _rows()


def _split(values: str) -> list[str]:
    return values.split(SEP) if values else []


def _hash_split(file: str) -> str:
    return "setaside" if int(hashlib.sha256(file.encode()).hexdigest(), 16) % 3 == 0 else "train"


def test_files_and_rows_match_one_to_one() -> None:
    files = [row["file"] for row in ROWS]
    assert len(files) >= 150
    assert len(set(files)) == len(files)
    # n001-n999, then four digits from batch 6 (n1000 onwards); sorted by number
    assert all(re.fullmatch(r"n(?:\d{3}|[1-9]\d{3})\.log", f) for f in files)
    assert files == sorted(files, key=lambda f: int(f[1:-4]))
    assert set(files) == {p.name for p in CASES.iterdir()}


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["file"])
def test_row_is_consistent_with_its_log(row: dict[str, str]) -> None:
    raw = (CASES / row["file"]).read_bytes()
    text = raw.decode("utf-8")
    assert text.strip() and text.endswith("\n")
    assert row["split"] == _hash_split(row["file"])
    # batch 1: n001-n166 (session 2); batch 2: n167-n359 (session 3); batch 3: n360-n599
    # (session 4); batch 4: n600-n879 (session 5); batch 5: n880+ (session 6), each collected and
    # split before the rules of its session were written; each batch's set-aside part is scored
    # on its own too; batch 6: n1000+ (session 7)
    number = int(row["file"][1:-4])
    bounds = ((166, "1"), (359, "2"), (599, "3"), (879, "4"), (999, "5"))
    expected = next((batch for last, batch in bounds if number <= last), "6")
    assert row["batch"] == expected
    assert row["source_url"].startswith("https://")
    assert row["tool"] in TOOLS
    assert row["outcome"] in OUTCOMES
    assert row["trt_version"] and row["what_failed"] and row["notes"] and row["tags"]
    names, categories, fatal = (
        _split(row["attributed_names"]),
        _split(row["categories"]),
        _split(row["fatal"]),
    )
    assert len(names) == len(categories) == len(fatal)
    assert len(set(names)) == len(names)
    assert set(categories) <= CATEGORIES
    assert set(fatal) <= {"true", "false"}
    for name in names:
        assert name and name == name.strip() and name in text, name


def test_empty_ground_truth_share_is_about_a_quarter() -> None:
    empty = sum(1 for row in ROWS if not row["attributed_names"])
    assert 0.15 <= empty / len(ROWS) <= 0.25


def test_both_splits_and_many_sources_are_present() -> None:
    splits = Counter(row["split"] for row in ROWS)
    assert splits["train"] > splits["setaside"] > 0
    assert {row["tool"] for row in ROWS} == TOOLS


def test_one_thread_never_straddles_the_split() -> None:
    by_url: dict[str, set[str]] = defaultdict(set)
    for row in ROWS:
        by_url[row["source_url"]].add(row["split"])
    assert all(len(splits) == 1 for splits in by_url.values())


def test_groups_have_several_members() -> None:
    groups = Counter(
        tag for row in ROWS for tag in row["tags"].split(";") if tag.startswith("group:")
    )
    assert groups and all(count >= 2 for count in groups.values()), groups


def test_build_summary_cases_print_memory_lines() -> None:
    tagged = [row for row in ROWS if "build-summary" in row["tags"].split(";")]
    assert tagged
    for row in tagged:
        text = (CASES / row["file"]).read_text(encoding="utf-8")
        quoted = re.findall(r"'([^']*(?:Memory|aux streams|device memory)[^']*)'", row["notes"])
        assert quoted and all(line in text for line in quoted), row["file"]


def test_separate_from_the_shared_corpus(corpus_dir: Path) -> None:
    shared = corpus_dir / "build-logs" / "cases"
    header, *lines = (shared / "INDEX.tsv").read_text(encoding="utf-8").splitlines()
    url_column = header.split("\t").index("source_url")
    shared_urls = {line.split("\t")[url_column] for line in lines if line}
    assert shared_urls and not shared_urls & {row["source_url"] for row in ROWS}
    shared_bodies = {p.read_bytes() for p in shared.glob("*.log")}
    assert shared_bodies
    assert not shared_bodies & {(CASES / row["file"]).read_bytes() for row in ROWS}


def test_readme_counts_are_current() -> None:
    """The README's whole-corpus count tables are generated; rerun the script when rows change."""
    readme = corpus_counts.README.read_text(encoding="utf-8")
    assert corpus_counts.current_block(readme) == corpus_counts.block(corpus_counts.rows()), (
        "tests/data/logs/README.md counts are stale: run `python tests/corpus_counts.py --write`"
    )
