"""The ONNX-parser node header is found as the single pattern it replaced found it (that
pattern backtracked 4096 characters per head on a line repeating the head: issue 15's
``while-parsing-repeated`` shape), on generated text and on every corpus line."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from trtsafe_lab.logs.node_blocks import MAX_HEADER_OUTPUT, search_header

OLD = re.compile(  # the pattern node_blocks.py replaced, the reference here
    r"While parsing node number (?P<index>-?\d+) \[(?P<op>[^\]\s]*)"
    r"(?: -> \"(?P<out>.{0,4096})\")?\]"
)
PIECES = [
    "While parsing node number ", "While parsing node number 3 [Pad", "-", "12", " [", "[", "]",
    '"]', '"', " -> ", ' -> "', "\n", " ", "Op", "out", "x" * 50, "é", "\t",
]


def _same(text: str) -> None:
    old = OLD.search(text)
    new = search_header(text)
    if old is None:
        assert new is None, text
        return
    assert new is not None, text
    assert (new.whole, new.index, new.op, new.out) == (
        old.group(0), old.group("index"), old.group("op"), old.group("out")
    ), text


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_same_as_the_single_pattern(pieces: list[str]) -> None:
    _same("".join(pieces))


def test_output_length_bound() -> None:
    head = 'While parsing node number 1 [Op -> "'
    for size in (0, 1, MAX_HEADER_OUTPUT - 1, MAX_HEADER_OUTPUT, MAX_HEADER_OUTPUT + 1):
        _same(head + "o" * size + '"]')
        _same(head + "o" * size + '"]' + "p" * 10 + '"]')
        _same(head + "o" * (size // 2) + '"]' + "p" * (size // 2) + '"]')
        _same(head + "o" * size + '"]x]')


def test_every_corpus_line(corpus_dir: Path) -> None:
    logs = sorted((corpus_dir / "build-logs" / "cases").glob("*.log"))
    logs += sorted((Path(__file__).parent / "data" / "logs" / "cases").glob("*.log"))
    found = 0
    for log in logs:
        text = log.read_text("utf-8", errors="replace")
        _same(text)
        for line in text.splitlines():
            _same(line)
            found += OLD.search(line) is not None
    assert found > 20
