"""C/C++ aux-stream rules: registration before ``executeAsync``, destruction after ``sync()``.

Works on the order of calls within one function of a tree-sitter syntax tree.
"""

from __future__ import annotations

import re

from trtsafe_lab.migrate import cpp_tree as t
from trtsafe_lab.migrate import syntax_tree as st
from trtsafe_lab.migrate.cpp_tree import SourceFile
from trtsafe_lab.migrate.rules import MigrationFinding, make_finding
from trtsafe_lab.migrate.syntax_tree import Node

_ZERO_AUX_COMMENT = re.compile(r"maxAuxStreams\s*[=:]?\s*0\b|max_aux_streams\s*=\s*0\b")
_ERROR_EXITS = {"return_statement", "throw_statement"}


def _is_graph_execute(call: Node) -> bool:
    return t.receiver(call) is not None and len(t.arguments(call)) == 1


def _aux_registered(file: SourceFile) -> list[Node]:
    return [c for c in file.calls if "AuxStreams" in t.callee_name(c)]


def _zero_aux_evidence(file: SourceFile) -> bool:
    for call in file.by_name("setMaxAuxStreams"):
        args = t.arguments(call)
        if args and st.text(args[0]) in ("0", "0U", "0u"):
            return True
    return any(
        n.type == "comment" and _ZERO_AUX_COMMENT.search(st.text(n)) for n in st.walk(file.root)
    )


def aux_unregistered(file: SourceFile) -> list[MigrationFinding]:
    executes = [c for c in file.by_name("executeAsync") if _is_graph_execute(c)]
    if not executes or _zero_aux_evidence(file):
        return []
    registered = _aux_registered(file)
    out: list[MigrationFinding] = []
    seen_functions: set[int] = set()
    for call in executes:
        function = t.enclosing_function(call)
        key = function.start_byte if function is not None else -1
        if key in seen_functions:
            continue
        seen_functions.add(key)
        if not registered:
            detail = "executeAsync with no getNbAuxStreams/setAuxStreams in this file"
        else:
            local = [c for c in registered if t.enclosing_function(c) == function]
            if not local or any(c.start_byte < call.start_byte for c in local):
                continue
            detail = "setAuxStreams/getNbAuxStreams come after the first executeAsync"
        out.append(make_finding("aux-streams-unregistered", file.path, st.line(call), detail))
    return out


def _range_source(call: Node, function: Node, name: str) -> str:
    """For ``for (auto s : auxStreams) cudaStreamDestroy(s)`` return ``auxStreams``."""
    loop = t.has_ancestor(call, {"for_range_loop"}, function)
    while loop is not None:
        declarator = loop.child_by_field_name("declarator")
        names = {st.text(n) for n in st.walk(declarator) if n.type == "identifier"}
        if name in names:
            return t.root_name(loop.child_by_field_name("right"))
        loop = t.has_ancestor(loop, {"for_range_loop"}, function)
    return name


def error_exit(block: Node | None) -> bool:
    """True when ``block`` contains a return or throw (the branch leaves the function)."""
    return block is not None and any(n.type in _ERROR_EXITS for n in st.walk(block))


def _error_path(node: Node, function: Node) -> bool:
    """True when ``node`` sits in an if-branch that leaves the function (cleanup on error)."""
    branch = t.has_ancestor(node, {"if_statement"}, function)
    if branch is None:
        return False
    return error_exit(branch.child_by_field_name("consequence"))


def aux_destroyed_early(file: SourceFile) -> list[MigrationFinding]:
    out: list[MigrationFinding] = []
    functions = {
        f.start_byte: f for c in file.by_name("sync") if (f := t.enclosing_function(c)) is not None
    }
    for function in functions.values():
        local = list(t.calls(function))
        syncs = [c for c in local if t.callee_name(c) == "sync" and t.receiver(c) is not None]
        executes = [c for c in local if t.callee_name(c) == "executeAsync" and _is_graph_execute(c)]
        if not syncs or not executes:
            continue
        aux_names = {
            t.root_name(t.arguments(c)[0])
            for c in local
            if t.callee_name(c) == "setAuxStreams" and t.arguments(c)
        }
        last_sync = max(c.start_byte for c in syncs)
        first_execute = min(c.start_byte for c in executes)
        for call in local:
            if t.callee_name(call) != "cudaStreamDestroy" or not t.arguments(call):
                continue
            name = _range_source(call, function, t.root_name(t.arguments(call)[0]))
            if name not in aux_names and "aux" not in name.lower():
                continue
            if first_execute < call.start_byte < last_sync and not _error_path(call, function):
                stream = st.text(t.arguments(call)[0])
                detail = f"cudaStreamDestroy({stream}) before the final sync()"
                out.append(
                    make_finding("aux-streams-destroyed-early", file.path, st.line(call), detail)
                )
    return out
