"""The migration checker on its 10.x fixtures (every rule, right line) and their 11.x fixes (zero).

Each 10.x fixture marks the findings it must produce in comments: ``expect: rule`` on the line
itself, or ``expect+N: rule`` / ``expect-N: rule`` for N lines below / above.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trtsafe_lab.migrate import RULES, check_paths
from trtsafe_lab.migrate.walker import walk

FIXTURES = Path(__file__).parent / "fixtures" / "migrate"
V10 = FIXTURES / "v10"
V11 = FIXTURES / "v11"
_MARKER = re.compile(r"expect(?P<offset>[+-]\d+)?: (?P<rules>[a-z0-9-]+(?:, [a-z0-9-]+)*)")
MIGRATION_RULES = [r for r in RULES if not r.startswith("file-")]


def expected_findings(root: Path) -> set[tuple[str, int, str]]:
    """(file relative to root, line, rule) from the markers in every fixture under ``root``."""
    out: set[tuple[str, int, str]] = set()
    for path in walk(root):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            for match in _MARKER.finditer(line):
                target = number + int(match.group("offset") or 0)
                for rule in match.group("rules").split(", "):
                    out.add((path.relative_to(root).as_posix(), target, rule))
    return out


def found(root: Path) -> set[tuple[str, int, str]]:
    return {
        (Path(f.file).relative_to(root).as_posix(), f.line, f.rule) for f in check_paths([root])
    }


@pytest.fixture(scope="module")
def v10_found() -> set[tuple[str, int, str]]:
    return found(V10)


def test_markers_cover_every_rule() -> None:
    marked = {rule for _, _, rule in expected_findings(V10)}
    assert marked == set(MIGRATION_RULES)
    assert marked <= set(RULES)


def test_v10_fixtures_give_exactly_the_marked_findings(
    v10_found: set[tuple[str, int, str]],
) -> None:
    expected = expected_findings(V10)
    assert v10_found - expected == set(), "false positives"
    assert expected - v10_found == set(), "missed findings"


@pytest.mark.parametrize("rule", MIGRATION_RULES)
def test_each_rule_fires_on_its_10x_fixture(
    rule: str, v10_found: set[tuple[str, int, str]]
) -> None:
    lines = {(file, line) for file, line, r in v10_found if r == rule}
    assert lines == {(file, line) for file, line, r in expected_findings(V10) if r == rule}


def test_v11_fixtures_give_zero_findings() -> None:
    assert check_paths([V11]) == []


def test_every_10x_fixture_has_an_11x_version() -> None:
    v10 = {p.relative_to(V10) for p in walk(V10)}
    v11 = {p.relative_to(V11) for p in walk(V11)}
    assert v10 == v11
    assert len(v10) >= 9
    kinds = {p.suffix or p.name for p in v10}
    assert {".cpp", ".py", ".sh", ".yml", "Makefile", ".txt"} <= kinds
