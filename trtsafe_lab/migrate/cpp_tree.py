"""Small helpers over a tree-sitter C++ syntax tree (the ``migrate`` extra).

tree-sitter and its grammars are imported lazily through :func:`trtsafe_lab._optional.require`,
so importing the checker does not need them. CUDA sources (``.cu``, ``.cuh``) are parsed with
the ``tree-sitter-cuda`` grammar, a superset of ``tree-sitter-cpp`` that knows ``__global__``,
``__device__`` and ``kernel<<<grid, block, shmem, stream>>>(...)`` launches; its node types are
the C++ grammar's, so every rule works on both. The grammar-independent helpers (``text``,
``line``, ``walk``, ``first_error``, ``Node``) are :mod:`trtsafe_lab.migrate.syntax_tree`'s:
import them from there.
"""

from __future__ import annotations

from collections.abc import Iterator

from trtsafe_lab.migrate.syntax_tree import Node, parser, text, walk

__all__ = ["CUDA_SUFFIXES", "FEATURE", "SourceFile", "arguments", "callee_name", "calls",
           "declared_type", "definitions", "dialect_of", "enclosing_function", "function_name",
           "has_ancestor", "last_name", "parse", "receiver", "root_name"]

FEATURE = "Checking C/C++ sources for 10.x -> 11.x migration"


CUDA_SUFFIXES = frozenset({".cu", ".cuh"})
_GRAMMARS = {"cpp": "tree_sitter_cpp", "cuda": "tree_sitter_cuda"}


def dialect_of(path: str) -> str:
    """``"cuda"`` for ``.cu`` / ``.cuh`` files, else ``"cpp"``."""
    dot = path.rfind(".")
    return "cuda" if dot >= 0 and path[dot:].lower() in CUDA_SUFFIXES else "cpp"


def parse(source: bytes, dialect: str = "cpp") -> Node:
    """The root node of ``source`` parsed as C++ or CUDA (tree-sitter is error tolerant)."""
    return parser(_GRAMMARS[dialect], FEATURE).parse(source).root_node


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


def function_name(function: Node | None) -> str:
    """The name a ``function_definition`` defines (``isNetworkSupported`` for
    ``bool INetworkBuilder::isNetworkSupported(...) const``; also through pointer/reference
    declarators), or "" for None."""
    if function is None:
        return ""
    declarator = function.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    inner = declarator.child_by_field_name("declarator") if declarator is not None else None
    return last_name(inner) or text(inner)


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
