"""Grammar-independent helpers over tree-sitter syntax trees (the ``migrate`` extra).

One place for what every tree-sitter front end of the checker needs: a parser per grammar,
a node's text and line, a walk in source order and the first syntax error. The C/C++/CUDA
(:mod:`~trtsafe_lab.migrate.cpp_tree`), shell and CMake front ends use these. tree-sitter and its
grammars are imported lazily through :func:`trtsafe_lab._optional.require`, so importing the
checker does not need them.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from trtsafe_lab._optional import require

Node = Any  # tree_sitter.Node (kept loose: tree-sitter is an optional dependency)


@lru_cache(maxsize=8)
def parser(grammar: str, feature: str) -> Any:
    """A tree-sitter parser for the grammar package ``grammar`` (``"tree_sitter_bash"``...).

    A missing tree-sitter or grammar raises
    :class:`~trtsafe_lab._optional.MissingDependencyError` naming ``feature`` and the extra.
    """
    tree_sitter = require("tree_sitter", feature=feature)
    module = require(grammar, feature=feature)
    return tree_sitter.Parser(tree_sitter.Language(module.language()))


def text(node: Node) -> str:
    """The source text of ``node`` ("" for None); bytes that are not UTF-8 are replaced."""
    return bytes(node.text).decode("utf-8", errors="replace") if node is not None else ""


def line(node: Node) -> int:
    """1-based line where ``node`` starts."""
    return int(node.start_point[0]) + 1


def walk(node: Node) -> Iterator[Node]:
    """``node`` and all its descendants, in source order (a loop: no recursion limit)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def first_error(root: Node) -> tuple[int, int] | None:
    """(line of the first syntax error, number of error nodes), or None for a clean parse."""
    if not root.has_error:
        return None
    errors = [n for n in walk(root) if n.type == "ERROR" or n.is_missing]
    if not errors:
        return None
    return line(errors[0]), len(errors)
