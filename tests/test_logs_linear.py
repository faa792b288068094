"""Linear time on hostile lines (issue 15 #1), proven by counting, not by a clock.

See tests/linear_work.py for why the rule check plus the work counter prove linear time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from linear_work import (
    WorkCounter,
    match_only_names,
    module_patterns,
    regex_call_sites,
    regex_problems,
)

from trtsafe_lab.logs import analyze_log
from trtsafe_lab.logs import parser as parser_module
from trtsafe_lab.logs import records as records_module
from trtsafe_lab.logs.scan import scan_failures

PATTERNS = module_patterns()
MATCH_ONLY = match_only_names()

# The shapes issue 15 measured (20 KB -> 2.4 s ... 1 MiB -> > 300 s before the fix), one
# repeat unit each, and the fragments of real log lines the fuzz test uses.
ISSUE_SHAPES: dict[str, Callable[[int], bytes]] = {
    "stacked-prefixes": lambda n: b"[12:15:24] [W] " * n + b"x",
    "invalid-node-spaces": lambda n: b"[E] Invalid Node - a" + b" " * (16 * n) + b"b",
    "while-parsing-repeated": lambda n: b"[E] " + b'While parsing node number 1 [Op -> "' * n,
    "node-name-call-repeated": lambda n: b"[E] " + b"error.node_name() = '" * n + b"x",
    "no-tactics-repeated": lambda n: b"[E] layers=[ " + b"no tactics to implement operation" * n,
    "whitespace-in-name": lambda n: (
        b"[E] Error Code 10: Internal Error (Could not find any implementation for node a"
        + b" " * (16 * n)
        + b"b.)"
    ),
    "whitespace-before-in": lambda n: b"[E] No tactic available for node a" + b" \t" * (8 * n),
    "iso-digits": lambda n: b"2024-01-01 12:15:24." + b"1" * (16 * n),
    "quotes": lambda n: b"> " * n + b"[E] x",
}
FRAGMENTS = [
    b"[06/07/2022-19:05:53] ", b"[E] ", b"[W] ", b"[TRT] ", b"ERROR: ", b"WARNING: [TRT]: ",
    b"Error[10]: ", b"Error Code 10: Internal Error (", b"{ForeignNode[", b"PWN(",
    b"Could not find any implementation for node ", b"No tactic available for node ",
    b'While parsing node number 3 [Pad -> "out"]:', b'name: "Pad_3"', b"[6] Invalid Node - ",
    b"ERROR: ModelImporter.cpp:1 In function parseGraph:", b"In node 1 with name: ",
    b" and operator: X (f): INVALID_NODE: ", b"Default DLA is enabled but layer ",
    b"layers=[ONNX Layer: ", b"no tactics to implement operation", b": IShuffleLayer applied "
    b"to shape tensor", b" In computeCosts at /a.cpp:1", b"safety scope Layer '", b"'",
    b"GPU error during getBestTactic: ", b"Validation failed for DLA layer: ", b"enqueue",
    b"Loading bytes from a.engine", b"[E:onnxruntime:", b"E0510 12:34:56.789 ",
    b"Layer: ", b"converter rejected node ", b"Falling back to PyTorch", b"node 'a_1' ",
    b"%a.1 : Tensor = aten::x(", b"Unable to convert node: ", b"Exception occurred in - ",
    b"RuntimeError: ", b"trt_module_node: ", b"Reshape_3 ",
]
for _index, _fragment in enumerate(FRAGMENTS):
    ISSUE_SHAPES[f"fragment-{_index}"] = lambda n, f=_fragment: b"[E] " + f * n
    ISSUE_SHAPES[f"fragment-{_index}-spaces"] = (
        lambda n, f=_fragment: b"[E] " + f + b" " * (16 * n) + b"x" + f
    )

BASE = 512  # repeats at 1x; 16x stays under the 1 MiB line cap for every shape
SLACK = 1.15  # linear: c(16n) - c(4n) == 4 * (c(4n) - c(n)); quadratic: 20x, not 4x


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_log_pattern_is_linear_by_rule(name: str) -> None:
    searched = name.split("#")[0] not in MATCH_ONLY
    assert regex_problems(PATTERNS[name], searched=searched) == []


def test_the_rule_check_refuses_the_old_quadratic_patterns() -> None:
    old = [
        r"Invalid Node - (?P<name>.+?)\s*$",
        r"error\.node_name\(\) = '(?P<name>.+)'\s*$",
        r'While parsing node number (?P<index>-?\d+) \[(?P<op>[^\]\s]*)(?: -> "(?P<out>.*)")?\]',
        r"no tactics to implement operation.*?layers=(?=\[)",
        r"\.?\s+In [\w:~<>]+ at \S+:\d+\s*$",
        r"(?:x|(ab)+)*c",
        r"\d{4}-\d\d \d\d(?:[.,]\d+)?\d*:?",
    ]
    for pattern in old:
        assert regex_problems(re.compile(pattern)), pattern
    assert regex_problems(re.compile(r"In [\w:~<>]{1,300} at \S{1,1024}:\d{1,9}\s*$")) == []


def test_no_pattern_escapes_the_counter() -> None:
    assert regex_call_sites() == []
    assert len(PATTERNS) > 50  # the walk really finds the package's patterns


def _work(run: Callable[[], object]) -> int:
    counter = WorkCounter()
    with counter.installed():
        run()
    return counter.chars


def _growth(make: Callable[[int], bytes], run: Callable[[bytes], object]) -> list[int]:
    counts = []
    for k in (1, 4, 16):
        data = make(BASE * k)
        counts.append(_work(lambda: run(data)))  # noqa: B023 - called before the next k
    return counts


@pytest.mark.parametrize("shape", sorted(ISSUE_SHAPES))
def test_work_grows_linearly_with_a_hostile_line(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make = ISSUE_SHAPES[shape]
    assert len(make(16 * BASE)) < 1 << 20
    log = tmp_path / "hostile.log"

    def parse_it(data: bytes) -> object:
        records_module._cached_line_parts.cache_clear()  # no help from an earlier reading
        return analyze_log(data).failures

    def scan(data: bytes) -> object:
        records_module._cached_line_parts.cache_clear()
        log.write_bytes(data + b"\n" + data)
        return scan_failures(log, chunk_bytes=1 << 16)

    # The parser's record cache serves repeated records without running any rule, so it only
    # removes work, by an amount that depends on which repeats hit: the growth is measured
    # with it off (every record read afresh, the worst case) and the cached work checked to be
    # no more than that.
    cached = _growth(make, parse_it) + _growth(make, scan)
    monkeypatch.setattr(parser_module, "RECORD_CACHE", False)
    parse = _growth(make, parse_it)
    scanned = _growth(make, scan)
    assert all(c <= u for c, u in zip(cached, parse + scanned, strict=True)), (cached, parse)
    assert parse[0] > 0
    for counts in (parse, scanned):
        if counts[0] == 0:  # the scan's numpy prefilter found no trigger: no pattern ran
            assert counts == [0, 0, 0]
            continue
        # Second differences, so that fixed costs and caps (64 records split from one line)
        # do not blur the comparison.
        assert counts[2] - counts[1] <= 4 * (counts[1] - counts[0]) * SLACK, counts


def test_the_counter_sees_a_quadratic_loop() -> None:
    """The counter is not blind: a loop that re-hands the rest of a line grows ~n**2."""
    from trtsafe_lab.logs import records

    def quadratic(data: bytes) -> None:
        text = data.decode()
        for pos in range(0, len(text), 15):
            records._TOKEN.match(text, pos)

    counts = _growth(ISSUE_SHAPES["stacked-prefixes"], quadratic)
    assert counts[2] - counts[1] > 4 * (counts[1] - counts[0]) * SLACK * 3
