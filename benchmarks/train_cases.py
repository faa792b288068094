"""The train cases of tests/data/logs and the shared corpus's cases, for rule studies.

Set-aside rows are skipped before any of their columns is looked at: the split rule of the
corpus README (``setaside`` iff ``int(sha256(file).hexdigest(), 16) % 3 == 0``) is computed from
the file name, the row's other columns are read only when it says ``train`` (and the row's own
``split`` column must agree). No set-aside case file is ever opened here.
"""

from __future__ import annotations

import csv
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROJECT = REPO / "tests" / "data" / "logs"
SHARED = Path(os.environ.get("TRTSAFE_CORPUS", REPO.parent / "shared" / "corpus"))
SHARED_CASES = SHARED / "build-logs" / "cases"


@dataclass(frozen=True)
class StudyCase:
    """One case a rule study may read: id (``data/n001.log``, ``shared/001.log``), path, the
    thread it was copied from (its source URL), and its collection batch ("" for shared)."""

    case_id: str
    path: Path
    thread: str
    batch: str
    names: tuple[str, ...] = ()  # attributed_names, categories, fatal of the INDEX row
    categories: tuple[str, ...] = ()
    fatal: tuple[str, ...] = ()


def is_setaside_name(file: str) -> bool:
    """The corpus README's split rule, from the file name alone."""
    return int(hashlib.sha256(file.encode()).hexdigest(), 16) % 3 == 0


def train_cases(project: Path = PROJECT) -> Iterator[StudyCase]:
    """Train rows of ``project/INDEX.tsv`` (set-aside rows skipped unread, see above)."""
    with open(project / "INDEX.tsv", newline="", encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
        for line in handle:
            file = line.split("\t", 1)[0]
            if not file or is_setaside_name(file):
                continue
            row = dict(zip(header, line.rstrip("\n").split("\t"), strict=False))
            if row.get("split") != "train":
                raise ValueError(f"{file}: split column {row.get('split')!r} disagrees with the "
                                 "hash rule; fix INDEX.tsv")
            yield StudyCase(f"data/{file}", project / "cases" / file,
                            row.get("source_url", ""), row.get("batch", ""),
                            *(_column(row, key) for key in ("attributed_names", "categories",
                                                            "fatal")))


def _column(row: dict[str, str], key: str) -> tuple[str, ...]:
    value = (row.get(key) or "").strip()
    return tuple(part.strip() for part in value.split(" | ")) if value else ()


def shared_cases(cases_dir: Path = SHARED_CASES) -> Iterator[StudyCase]:
    """Every case of the shared corpus (it has no set-aside part)."""
    with open(cases_dir / "INDEX.tsv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            yield StudyCase(f"shared/{row['file']}", cases_dir / row["file"],
                            row.get("source_url", ""), "", _column(row, "attributed_names"))
