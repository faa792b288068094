"""What a failure means and what to try: a small curated knowledge base (explanations.json).

Each entry of ``explanations.json`` (package data) has: ``id``; ``category`` (a failure
category, or ``"*"`` for any) and ``match`` (alternatives: a literal text the message contains,
or a list of texts it contains in that order), which together decide which failure rows it
explains (literal texts, not regular expressions: matching stays linear in the message);
``title``; ``means``; ``causes`` and ``try`` (lists of short sentences); ``url`` (a
public issue or document that shows the failure); ``example`` (the real log it is tested
against: ``shared:NNN.log`` in ``../shared/corpus/build-logs/cases`` or ``train:FILE`` in
``tests/data/logs/cases``).

Entries are tried in file order; the first whose category and texts match explains the row.
The follow-ups ("Engine could not be created", "Failed to parse onnx file", ...) come last: a
message that holds a specific failure and its follow-up is explained by the failure.
Whitespace runs of the message (a wrapped line, TensorRT 10's indented continuation) count as one
space, so a text with single spaces matches a message wrapped anywhere.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from trtsafe_lab.logs import columns as C

if TYPE_CHECKING:
    import pandas as pd

MAX_MESSAGE_CHARS = 8192  # the texts are looked for in the start of a message only


@dataclass(frozen=True)
class Explanation:
    """One entry of the knowledge base."""

    id: str
    category: str
    match: tuple[tuple[str, ...], ...]  # alternatives, each: texts found in this order
    title: str
    means: str
    causes: tuple[str, ...]
    try_: tuple[str, ...]
    url: str
    example: str

    def matches(self, message: str) -> bool:
        """Does the message contain one alternative's texts, in order?"""
        for texts in self.match:
            position = 0
            for part in texts:
                position = message.find(part, position)
                if position < 0:
                    break
                position += len(part)
            else:
                return True
        return False

    def text(self) -> str:
        """The explanation as a few plain-text lines (for the table view and the explorer)."""
        lines = [f"{self.title} [{self.id}]", f"  means: {self.means}"]
        lines += [f"  cause: {cause}" for cause in self.causes]
        lines += [f"  try:   {step}" for step in self.try_]
        lines.append(f"  see:   {self.url}")
        return "\n".join(lines)


@lru_cache(maxsize=1)
def explanations() -> tuple[Explanation, ...]:
    """All entries, in matching order (read once from the package data)."""
    raw = json.loads(
        resources.files("trtsafe_lab.logs").joinpath("explanations.json").read_text("utf-8")
    )
    return tuple(
        Explanation(
            id=entry["id"],
            category=entry["category"],
            match=tuple(
                (alternative,) if isinstance(alternative, str) else tuple(alternative)
                for alternative in entry["match"]
            ),
            title=entry["title"],
            means=entry["means"],
            causes=tuple(entry["causes"]),
            try_=tuple(entry["try"]),
            url=entry["url"],
            example=entry["example"],
        )
        for entry in raw["explanations"]
    )


def explanation(explanation_id: str) -> Explanation | None:
    """The entry with this id, or None ("" and unknown ids)."""
    return next((entry for entry in explanations() if entry.id == explanation_id), None)


def explanation_id(category: str, message: str) -> str:
    """The id of the first entry that explains a row of this category and message ("" if none)."""
    head = " ".join(message[:MAX_MESSAGE_CHARS].split())  # a wrapped message reads as one line
    for entry in explanations():
        if entry.category in ("*", category) and entry.matches(head):
            return entry.id
    return ""


def explanation_ids(failures: pd.DataFrame) -> pd.Series:
    """``explanation_id`` of every failure row (one lookup per distinct category and message)."""
    import pandas as pd  # here: the CLI's table path reads explanations without pandas

    cache: dict[tuple[str, str], str] = {}
    values = []
    for category, message in zip(failures[C.CATEGORY], failures[C.MESSAGE], strict=True):
        key = (category, message)
        if key not in cache:
            cache[key] = explanation_id(category, message)
        values.append(cache[key])
    return pd.Series(values, index=failures.index, dtype=object)
