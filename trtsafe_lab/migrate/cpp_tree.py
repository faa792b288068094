"""Small helpers over a tree-sitter C++ syntax tree (the ``migrate`` extra).

tree-sitter and its grammars are imported lazily through :func:`trtsafe_lab._optional.require`,
so importing the checker does not need them. CUDA sources (``.cu``, ``.cuh``) are parsed with
the ``tree-sitter-cuda`` grammar, a superset of ``tree-sitter-cpp`` that knows ``__global__``,
``__device__`` and ``kernel<<<grid, block, shmem, stream>>>(...)`` launches; its node types are
the C++ grammar's, so every rule works on both.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from trtsafe_lab._optional import require

Node = Any  # tree_sitter.Node (kept loose: tree-sitter is an optional dependency)

FEATURE = "Checking C/C++ sources for 10.x -> 11.x migration"


CUDA_SUFFIXES = frozenset({".cu", ".cuh"})
_GRAMMARS = {"cpp": "tree_sitter_cpp", "cuda": "tree_sitter_cuda"}


def dialect_of(path: str) -> str:
    """``"cuda"`` for ``.cu`` / ``.cuh`` files, else ``"cpp"``."""
    dot = path.rfind(".")
    return "cuda" if dot >= 0 and path[dot:].lower() in CUDA_SUFFIXES else "cpp"


@lru_cache(maxsize=2)
def _parser(dialect: str) -> Any:
    tree_sitter = require("tree_sitter", feature=FEATURE)
    grammar = require(_GRAMMARS[dialect], feature=FEATURE)
    return tree_sitter.Parser(tree_sitter.Language(grammar.language()))


def parse(source: bytes, dialect: str = "cpp") -> Node:
    """The root node of ``source`` parsed as C++ or CUDA (tree-sitter is error tolerant)."""
    return _parser(dialect).parse(source).root_node


def text(node: Node) -> str:
    return bytes(node.text).decode("utf-8", errors="replace") if node is not None else ""


def line(node: Node) -> int:
    """1-based line where ``node`` starts."""
    return int(node.start_point[0]) + 1


def walk(node: Node) -> Iterator[Node]:
    """``node`` and all its descendants, in source order."""
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


def calls(node: Node) -> Iterator[Node]:
    return (n for n in walk(node) if n.type == "call_expression")


def callee_name(call: Node) -> str:
    """The called function's own name: ``a->b.createTRTGraph(...)`` -> ``createTRTGraph``."""
    return last_name(call.child_by_field_name("function"))


_WRAPPERS = ("pointer_expression", "parenthesized_expression", "reference_expression")


def _unwrap(node: Node) -> Node | None:
    return node.child_by_field_name("argument") or (
        node.named_children[-1] if node.named_children else None
    )


def last_name(node: Node) -> str:
    """The rightmost identifier of a name, field access or qualified name (a loop, not
    recursion: nesting depth is the input's to choose)."""
    while node is not None:
        kind = node.type
        if kind in ("identifier", "field_identifier", "type_identifier", "namespace_identifier"):
            return text(node)
        if kind == "field_expression":
            node = node.child_by_field_name("field")
        elif kind in ("qualified_identifier", "template_function", "template_method"):
            node = node.child_by_field_name("name")
        elif kind in _WRAPPERS:
            node = _unwrap(node)
        else:
            return ""
    return ""


def receiver(call: Node) -> Node | None:
    """The object a method is called on (``config`` in ``config->setFlag(...)``)."""
    function = call.child_by_field_name("function")
    if function is not None and function.type == "field_expression":
        return function.child_by_field_name("argument")
    return None


def arguments(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [n for n in args.named_children if n.type != "comment"]


def root_name(node: Node) -> str:
    """The variable an expression is about: ``*config`` / ``config.get()`` / ``aux[i]`` ->
    ``config`` / ``config`` / ``aux``; ``this->mConfig`` -> ``mConfig`` (a loop, not recursion)."""
    while node is not None:
        kind = node.type
        if kind in ("identifier", "field_identifier"):
            return text(node)
        if kind == "field_expression":
            base = node.child_by_field_name("argument")
            if base is not None and base.type == "this":
                return last_name(node.child_by_field_name("field"))
            node = base
        elif kind in _WRAPPERS:
            node = _unwrap(node)
        elif kind == "subscript_expression":
            node = node.child_by_field_name("argument")
        elif kind == "call_expression":
            node = receiver(node)
        elif kind == "qualified_identifier":
            return last_name(node)
        else:
            return ""
    return ""


def enclosing_function(node: Node) -> Node | None:
    current = node.parent
    while current is not None:
        if current.type == "function_definition":
            return current
        current = current.parent
    return None


def has_ancestor(node: Node, types: set[str], stop: Node | None = None) -> Node | None:
    current = node.parent
    while current is not None and current != stop:
        if current.type in types:
            return current
        current = current.parent
    return None


def definitions(root: Node) -> dict[str, list[tuple[int, Node, Node]]]:
    """Variable name -> [(start byte, declaration node, value node)] for every initialised
    declaration, struct member default and plain assignment in the file."""
    out: dict[str, list[tuple[int, Node, Node]]] = {}
    for node in walk(root):
        name_node = value = None
        if node.type == "init_declarator":
            name_node = node.child_by_field_name("declarator")
            value = node.child_by_field_name("value")
        elif node.type == "field_declaration":
            name_node = node.child_by_field_name("declarator")
            value = node.child_by_field_name("default_value")
        elif node.type == "assignment_expression" and text(
            node.child_by_field_name("operator")
        ) in (
            "=",
            "",
        ):
            name_node = node.child_by_field_name("left")
            value = node.child_by_field_name("right")
        if name_node is None or value is None:
            continue
        while name_node.type in ("pointer_declarator", "reference_declarator", "array_declarator"):
            inner = name_node.child_by_field_name("declarator")
            if inner is None:
                break
            name_node = inner
        name = root_name(name_node) if name_node.type != "identifier" else text(name_node)
        if name:
            out.setdefault(name, []).append((node.start_byte, node, value))
    return out


def declared_type(root: Node, name: str) -> str:
    """The declared type text of variable or parameter ``name`` (first declaration found)."""
    for node in walk(root):
        if node.type in ("parameter_declaration", "declaration", "field_declaration"):
            for child in walk(node):
                if child.type in ("identifier", "field_identifier") and text(child) == name:
                    return text(node.child_by_field_name("type"))
    return ""


class SourceFile:
    """One parsed translation unit and lookups shared by the rules."""

    def __init__(self, source: bytes, path: str) -> None:
        self.path = path
        self.root = parse(source, dialect_of(path))
        self.calls = list(calls(self.root))
        self.defs = definitions(self.root)

    def by_name(self, *names: str) -> list[Node]:
        return [c for c in self.calls if callee_name(c) in names]

    def value_of(self, name: str, before: int, function: Node | None) -> Node | None:
        """The value last given to ``name`` before byte ``before`` (same function first)."""
        best: Node | None = None
        fallback: Node | None = None
        for start, decl, value in self.defs.get(name, []):
            if function is not None and enclosing_function(decl) == function:
                if start < before:
                    best = value
            elif enclosing_function(decl) is None:
                fallback = value
        return best if best is not None else fallback
