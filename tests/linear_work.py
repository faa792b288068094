"""Linear time for the log path, proven by counting: a static rule check over every regular
expression of ``trtsafe_lab.logs`` and a work counter that is not a clock.

Why the two together prove linear time
--------------------------------------
1. :func:`regex_problems` reads a compiled pattern's parse tree (``re._parser``, the tree the
   ``re`` engine itself runs) and accepts it only when the backtracking engine needs at most
   ``C * n`` steps for one call handed ``n`` characters (``C`` depends on the pattern only):

   - every unbounded repeat (``*``, ``+``, ``{m,}``) is over ONE character item (a literal, a
     class, ``.``): no nested quantifiers, so no exponential or polynomial splitting;
   - when the characters it repeats can also start what follows it, no other unbounded repeat
     comes later: giving the run back one character at a time then costs O(run) times a
     bounded follower, never O(run**2) (``.+?\\s*$`` is refused: ``.`` and ``\\s`` overlap
     and a run of spaces costs O(run**2));
   - in a pattern used with ``search``/``finditer``/``sub``/``split`` (anything but
     ``match``/``fullmatch`` at a known position), the run misses a character of a literal
     that must match before it, so the runs scanned from two different start positions never
     overlap (``While parsing node number .*`` is refused: ``.`` contains every character of
     the literal, and a line of that literal repeated costs O(n**2)).
   Bounded repeats (``{0,1024}``) are constants.
2. :class:`WorkCounter` replaces every module-level pattern of ``trtsafe_lab.logs`` by a proxy
   that adds the characters each call is handed (``endpos - pos``) to a counter. A test grows a
   line of each hostile fragment 1x/4x/16x and checks the counter grows linearly, which catches
   loops that hand the same text to a pattern again and again (stacked prefixes).
   :func:`regex_call_sites` makes sure no pattern escapes the proxy (no ``re.search(...)`` with a
   pattern string and no ``re.compile`` outside module level).

Python-level loops over characters (brace matching, ``_split_top``) do not call patterns; they
are single passes, read by hand.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import re._constants as C  # the parse tree the re engine itself runs
import re._parser as P
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import trtsafe_lab.logs

_ALPHABET_STR = [chr(i) for i in range(128)] + list("\x85\xa0\xe9\u2028\u3000\U0001f600")
_ALPHABET_BYTES = [chr(i) for i in range(256)]
_CATEGORY = {
    C.CATEGORY_DIGIT: r"\d",
    C.CATEGORY_NOT_DIGIT: r"\D",
    C.CATEGORY_SPACE: r"\s",
    C.CATEGORY_NOT_SPACE: r"\S",
    C.CATEGORY_WORD: r"\w",
    C.CATEGORY_NOT_WORD: r"\W",
    C.CATEGORY_LINEBREAK: r"\n",
    C.CATEGORY_NOT_LINEBREAK: r"[^\n]",
}
_SINGLE = (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN)
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)


@dataclass
class _Checker:
    alphabet: list[str]
    is_bytes: bool
    flags: int
    problems: list[str] = field(default_factory=list)

    def chars(self, op: Any, av: Any) -> frozenset[str]:
        """The alphabet characters one single-character item matches."""
        def category(cat: Any, char: str) -> bool:
            expr = _CATEGORY[cat]
            if self.is_bytes:
                return re.fullmatch(expr.encode(), char.encode("latin-1")) is not None
            return re.fullmatch(expr, char) is not None

        if op == C.LITERAL:
            return frozenset(c for c in self.alphabet if ord(c) == av)
        if op == C.NOT_LITERAL:
            return frozenset(c for c in self.alphabet if ord(c) != av)
        if op == C.ANY:
            return frozenset(self.alphabet)  # with or without DOTALL: the larger set is safer
        if op == C.IN:
            negate = bool(av) and av[0][0] == C.NEGATE
            found: set[str] = set()
            for item_op, item_av in av[1:] if negate else av:
                if item_op == C.LITERAL:
                    found.update(c for c in self.alphabet if ord(c) == item_av)
                elif item_op == C.RANGE:
                    found.update(c for c in self.alphabet if item_av[0] <= ord(c) <= item_av[1])
                elif item_op == C.CATEGORY:
                    found.update(c for c in self.alphabet if category(item_av, c))
                else:
                    return frozenset(self.alphabet)
            return frozenset(self.alphabet) - found if negate else frozenset(found)
        raise AssertionError(op)

    def first(self, items: list[Any]) -> tuple[frozenset[str], bool]:
        """Characters a match of ``items`` can start with, and whether it can be empty."""
        out: set[str] = set()
        for op, av in items:
            chars, nullable = self.first_item(op, av)
            out |= chars
            if not nullable:
                return frozenset(out), False
        return frozenset(out), True

    def first_item(self, op: Any, av: Any) -> tuple[frozenset[str], bool]:
        if op in _SINGLE:
            return self.chars(op, av), False
        if op in _REPEATS:
            chars, nullable = self.first(list(av[2]))
            return chars, nullable or av[0] == 0
        if op in (C.SUBPATTERN, C.ATOMIC_GROUP):
            return self.first(list(av[-1]))
        if op == C.BRANCH:
            out: set[str] = set()
            nullable = False
            for branch in av[1]:
                chars, empty = self.first(list(branch))
                out |= chars
                nullable = nullable or empty
            return frozenset(out), nullable
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            return frozenset(), True
        return frozenset(self.alphabet), True  # group references and the like: anything

    def walk(
        self,
        items: list[Any],
        follow: frozenset[str],
        follow_runs: bool,
        before: frozenset[str],
        searched: bool,
    ) -> frozenset[str]:
        """Check ``items`` (followed by ``follow``; ``follow_runs``: an unbounded repeat comes
        later); return the literal characters every match of ``items`` contains."""
        seen = set(before)
        for index, (op, av) in enumerate(items):
            rest, rest_empty = self.first(list(items[index + 1 :]))
            after = rest | follow if rest_empty else rest
            runs = follow_runs or _has_run(list(items[index + 1 :]))
            if op == C.LITERAL:
                seen.update(self.chars(op, av))
            elif op in _REPEATS:
                _low, high, body = av
                self.walk(list(body), after, runs, frozenset(seen), searched)
                if high == C.MAXREPEAT:
                    self.check_run(list(body), after, runs, frozenset(seen), searched)
            elif op in (C.SUBPATTERN, C.ATOMIC_GROUP):
                seen |= self.walk(list(av[-1]), after, runs, frozenset(seen), searched)
            elif op == C.BRANCH:
                common: frozenset[str] | None = None
                for branch in av[1]:
                    got = self.walk(list(branch), after, runs, frozenset(seen), searched)
                    common = got if common is None else common & got
                seen |= common or frozenset()
            elif op in (C.ASSERT, C.ASSERT_NOT):
                self.walk(list(av[1]), frozenset(), False, frozenset(seen), searched)
        return frozenset(seen)

    def check_run(
        self,
        body: list[Any],
        after: frozenset[str],
        runs_after: bool,
        before: frozenset[str],
        searched: bool,
    ) -> None:
        if len(body) != 1 or body[0][0] not in _SINGLE:
            self.problems.append("unbounded repeat over more than one character item")
            return
        run = self.chars(*body[0])
        overlap = run & after
        if overlap and runs_after:
            sample = "".join(sorted(overlap))[:12]
            self.problems.append(
                f"unbounded run can also match what follows it ({sample!r}) and another "
                "unbounded run comes later: backtracking tries every pair of split points"
            )
        if searched and not (before - run):
            self.problems.append(
                "searched pattern with an unbounded run that no earlier literal bounds: runs "
                "scanned from different start positions overlap"
            )


def regex_problems(pattern: re.Pattern[Any], *, searched: bool = True) -> list[str]:
    """Reasons ``pattern`` may take more than linear time ([] when it is linear by rule)."""
    is_bytes = isinstance(pattern.pattern, bytes)
    tree = P.parse(pattern.pattern, pattern.flags & ~re.UNICODE if is_bytes else pattern.flags)
    checker = _Checker(_ALPHABET_BYTES if is_bytes else _ALPHABET_STR, is_bytes, pattern.flags)
    anchored = bool(tree.data) and tree.data[0] == (C.AT, C.AT_BEGINNING)
    checker.walk(list(tree.data), frozenset(), False, frozenset(), searched and not anchored)
    return checker.problems


def _has_run(items: list[Any]) -> bool:
    """Does ``items`` hold an unbounded repeat anywhere?"""
    for op, av in items:
        if op in _REPEATS and (av[1] == C.MAXREPEAT or _has_run(list(av[2]))):
            return True
        if op in (C.SUBPATTERN, C.ATOMIC_GROUP) and _has_run(list(av[-1])):
            return True
        if op == C.BRANCH and any(_has_run(list(branch)) for branch in av[1]):
            return True
    return False


def log_modules() -> list[ModuleType]:
    """Every module of the trtsafe_lab.logs package (the log path)."""
    package = trtsafe_lab.logs
    names = [f"{package.__name__}.{info.name}" for info in pkgutil.iter_modules(package.__path__)]
    return [package, *(importlib.import_module(name) for name in sorted(names))]


def _patterns_in(value: Any) -> Iterator[re.Pattern[Any]]:
    if isinstance(value, re.Pattern):
        yield value
    elif isinstance(value, tuple | list | frozenset | set):
        for item in value:
            yield from _patterns_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item)


def module_patterns() -> dict[str, re.Pattern[Any]]:
    """``module.NAME[#i]`` -> every compiled pattern held by a module-level name."""
    found: dict[str, re.Pattern[Any]] = {}
    for module in log_modules():
        for name, value in vars(module).items():
            if inspect.ismodule(value):
                continue
            for index, pattern in enumerate(_patterns_in(value)):
                found.setdefault(f"{module.__name__}.{name}#{index}", pattern)
    return found


def match_only_names() -> set[str]:
    """``module.NAME`` of patterns whose every use is ``NAME.match(...)``/``.fullmatch(...)``
    (or ``NAME[key].match(...)``): one start position per call, so no search overlap."""
    used: dict[str, set[str]] = {}
    for module in log_modules():
        tree = ast.parse(inspect.getsource(module))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Name):
                continue
            key = f"{module.__name__}.{node.id}"
            parent = parents.get(node)
            if isinstance(parent, ast.Subscript) and parent.value is node:
                node, parent = parent, parents.get(parent)  # type: ignore[assignment]
            kind = "other"
            if isinstance(parent, ast.Attribute) and isinstance(parents.get(parent), ast.Call):
                kind = parent.attr
            if isinstance(parent, ast.Assign | ast.AnnAssign):
                kind = "assign"
            used.setdefault(key, set()).add(kind)
    return {
        key
        for key, kinds in used.items()
        if kinds - {"assign"} and kinds - {"assign"} <= {"match", "fullmatch"}
    }


def regex_call_sites() -> list[str]:
    """``re.<function>(...)`` calls other than module-level ``re.compile`` (would bypass the
    counter and the rule check)."""
    bad: list[str] = []
    for module in log_modules():
        tree = ast.parse(inspect.getsource(module))
        top_level = {id(node) for stmt in tree.body for node in ast.walk(stmt)}
        functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.Lambda)]
        inside = {id(node) for fn in functions for node in ast.walk(fn)}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.func.attr not in ("escape",)
            ):
                compiled = node.func.attr == "compile" and id(node) in top_level
                if not compiled or id(node) in inside:
                    bad.append(f"{module.__name__}:{node.lineno}: re.{node.func.attr}")
    return bad


class CountingPattern:
    """A stand-in for one compiled pattern that counts the characters each call is handed."""

    def __init__(self, pattern: re.Pattern[Any], counter: WorkCounter) -> None:
        self._pattern = pattern
        self._counter = counter
        self.pattern = pattern.pattern
        self.flags = pattern.flags
        self.groupindex = pattern.groupindex

    def _charge(self, string: Any, pos: int = 0, endpos: int | None = None) -> None:
        end = len(string) if endpos is None else min(endpos, len(string))
        self._counter.chars += max(0, end - max(pos, 0))
        self._counter.calls += 1

    def search(self, string: Any, pos: int = 0, endpos: int = 1 << 62) -> Any:
        self._charge(string, pos, endpos)
        return self._pattern.search(string, pos, endpos)

    def match(self, string: Any, pos: int = 0, endpos: int = 1 << 62) -> Any:
        self._charge(string, pos, endpos)
        return self._pattern.match(string, pos, endpos)

    def fullmatch(self, string: Any, pos: int = 0, endpos: int = 1 << 62) -> Any:
        self._charge(string, pos, endpos)
        return self._pattern.fullmatch(string, pos, endpos)

    def finditer(self, string: Any, pos: int = 0, endpos: int = 1 << 62) -> Any:
        self._charge(string, pos, endpos)
        return self._pattern.finditer(string, pos, endpos)

    def findall(self, string: Any, pos: int = 0, endpos: int = 1 << 62) -> Any:
        self._charge(string, pos, endpos)
        return self._pattern.findall(string, pos, endpos)

    def split(self, string: Any, maxsplit: int = 0) -> Any:
        self._charge(string)
        return self._pattern.split(string, maxsplit)

    def sub(self, repl: Any, string: Any, count: int = 0) -> Any:
        self._charge(string)
        return self._pattern.sub(repl, string, count)


@dataclass
class WorkCounter:
    """Characters handed to the log path's patterns (and number of calls)."""

    chars: int = 0
    calls: int = 0

    def _wrap(self, value: Any) -> Any:
        if isinstance(value, re.Pattern):
            return CountingPattern(value, self)
        if isinstance(value, tuple):
            return tuple(self._wrap(item) for item in value)
        if isinstance(value, list):
            return [self._wrap(item) for item in value]
        if isinstance(value, dict):
            return {key: self._wrap(item) for key, item in value.items()}
        return value

    @contextmanager
    def installed(self) -> Iterator[WorkCounter]:
        """Swap every module-level pattern of trtsafe_lab.logs for a counting proxy."""
        saved: list[tuple[ModuleType, str, Any]] = []
        try:
            for module in log_modules():
                for name, value in list(vars(module).items()):
                    if inspect.ismodule(value) or not any(True for _ in _patterns_in(value)):
                        continue
                    if isinstance(value, frozenset | set):
                        continue
                    saved.append((module, name, value))
                    setattr(module, name, self._wrap(value))
            yield self
        finally:
            for module, name, value in reversed(saved):
                setattr(module, name, value)
