"""C/C++ sources -> findings, on a tree-sitter syntax tree (no regular expressions over code).

Looks at call expressions (``createTRTGraph``, ``buildSerializedNetwork``,
``setEngineCapability``, ``isNetworkSupported``, ``executeAsync``, ``setAuxStreams``,
``cudaStreamDestroy``, ``sync``), declarations and their initialisers (where a companion .so
path comes from), identifiers (``kSAFETY_SCOPE``) and the order of calls within one function.
"""

from __future__ import annotations

import re

from trtsafe_lab.migrate import cpp_tree as t
from trtsafe_lab.migrate.commands import Facts
from trtsafe_lab.migrate.cpp_tree import Node
from trtsafe_lab.migrate.rules import Finding, make_finding

_STRINGS = ("string_literal", "raw_string_literal", "concatenated_string")
_SAFETY_CAPABILITIES = {"kSAFETY", "kSAFE_GPU"}
_BUILD_CALLS = {
    "buildSerializedNetwork",
    "buildSerializedSafeNetwork",
    "buildSerializedNetworkToStream",
    "buildEngineWithConfig",
}
_PATH_WRAPPERS = {"c_str", "data", "string", "generic_string", "native", "u8string"}
_PATH_CONSTRUCTORS = {"string", "path", "basic_string"}
_ABSOLUTE_CALLS = {"absolute", "canonical", "weakly_canonical", "realpath"}
_ZERO_AUX_COMMENT = re.compile(r"maxAuxStreams\s*[=:]?\s*0\b|max_aux_streams\s*=\s*0\b")
_ERROR_EXITS = {"return_statement", "throw_statement"}


class _File:
    """One parsed translation unit and lookups shared by the rules."""

    def __init__(self, source: bytes, path: str) -> None:
        self.path = path
        self.root = t.parse(source)
        self.calls = list(t.calls(self.root))
        self.defs = t.definitions(self.root)

    def by_name(self, *names: str) -> list[Node]:
        return [c for c in self.calls if t.callee_name(c) in names]

    def value_of(self, name: str, before: int, function: Node | None) -> Node | None:
        """The value last given to ``name`` before byte ``before`` (same function first)."""
        best: Node | None = None
        fallback: Node | None = None
        for start, decl, value in self.defs.get(name, []):
            if function is not None and t.enclosing_function(decl) == function:
                if start < before:
                    best = value
            elif t.enclosing_function(decl) is None:
                fallback = value
        return best if best is not None else fallback


def _string_value(node: Node) -> str:
    return "".join(
        t.text(n) for n in t.walk(node) if n.type in ("string_content", "raw_string_content")
    )


def _path_value(
    file: _File, node: Node | None, function: Node | None, depth: int = 0
) -> Node | None:
    """The string literal a path expression comes from, or None when it cannot be known.

    Follows ``.c_str()``, ``std::string(...)``, ``fs::path(...)``, ``x + "..."``, ``dir / name``
    and variables to their initialisers. Returns the literal node; a literal is what decides
    whether the path is absolute (its start).
    """
    if node is None or depth > 6:
        return None
    kind = node.type
    if kind in _STRINGS:
        return node
    if kind in ("initializer_list", "argument_list", "parenthesized_expression"):
        named = [n for n in node.named_children if n.type != "comment"]
        return _path_value(file, named[0], function, depth + 1) if named else None
    if kind == "binary_expression" and t.text(node.child_by_field_name("operator")) in "+/":
        return _path_value(file, node.child_by_field_name("left"), function, depth + 1)
    if kind == "call_expression":
        name = t.callee_name(node)
        if name in _ABSOLUTE_CALLS:
            return None
        if name in _PATH_WRAPPERS:
            return _path_value(file, t.receiver(node), function, depth + 1)
        args = t.arguments(node)
        if name in _PATH_CONSTRUCTORS and args:
            return _path_value(file, args[0], function, depth + 1)
        return None
    if kind in ("identifier", "field_identifier", "field_expression", "qualified_identifier"):
        value = file.value_of(t.last_name(node), node.start_byte, function)
        return _path_value(file, value, function, depth + 1)
    return None


def _looks_like_recorder(file: _File, node: Node) -> bool:
    if node.type == "pointer_expression":
        return True
    name = t.root_name(node)
    if "recorder" in name.lower():
        return True
    return bool(name) and "Recorder" in t.declared_type(file.root, name)


def _create_graph(file: _File) -> list[Finding]:
    out: list[Finding] = []
    for call in file.by_name("createTRTGraph"):
        args = t.arguments(call)
        if len(args) < 4:
            continue
        where = t.line(call)
        companion = args[3]
        if len(args) == 4 or _looks_like_recorder(file, companion):
            out.append(make_finding("companion-so-missing", file.path, where, "createTRTGraph"))
            continue
        if companion.type in ("null", "nullptr") or t.text(companion) in ("nullptr", "NULL"):
            out.append(
                make_finding(
                    "companion-so-missing", file.path, where, "createTRTGraph gets nullptr"
                )
            )
            continue
        if len(args) <= 6 and args[4].type in ("true", "false"):
            out.append(make_finding("companion-so-missing", file.path, where, "createTRTGraph"))
            continue
        literal = _path_value(file, companion, t.enclosing_function(call))
        if literal is None:
            continue
        value = _string_value(literal)
        if value and not value.startswith("/") and not re.match(r"[A-Za-z]:[\\/]", value):
            out.append(
                make_finding(
                    "companion-so-relative",
                    file.path,
                    t.line(literal),
                    f'companion .so path "{value}" (used by createTRTGraph at line {where})',
                )
            )
    return out


def _safety_configs(file: _File, scope: Node | None) -> set[str]:
    """Names of builder configs set to the SAFETY capability inside ``scope`` (None: file)."""
    names: set[str] = set()
    for call in file.by_name("setEngineCapability"):
        if scope is not None and t.enclosing_function(call) != scope:
            continue
        idents = {t.last_name(n) for n in t.walk(call) if n.type in ("identifier",)}
        if idents & _SAFETY_CAPABILITIES:
            names.add(t.root_name(t.receiver(call)))
    return names


def _safe_build(file: _File) -> list[Finding]:
    out: list[Finding] = []
    file_configs = _safety_configs(file, None)
    for call in file.by_name("buildSerializedNetwork"):
        args = t.arguments(call)
        if len(args) < 2:
            continue
        config = t.root_name(args[1])
        local = _safety_configs(file, t.enclosing_function(call))
        if config in local or config in file_configs or (local and not config):
            out.append(
                make_finding(
                    "safe-build-api",
                    file.path,
                    t.line(call),
                    f"buildSerializedNetwork on config '{config}' with EngineCapability::kSAFETY",
                )
            )
    return out


def _safety_scope(file: _File) -> list[Finding]:
    lines = sorted(
        {
            t.line(n)
            for n in t.walk(file.root)
            if n.type == "identifier" and t.text(n) == "kSAFETY_SCOPE"
        }
    )
    return [make_finding("safety-scope-noop", file.path, n, "kSAFETY_SCOPE") for n in lines]


def _checked(file: _File, call: Node, function: Node) -> bool:
    """True when the result of build ``call`` is tested (if / ! / assert) in ``function``."""
    holder = t.has_ancestor(call, {"if_statement", "conditional_expression"}, function)
    if holder is not None:
        return True
    decl = t.has_ancestor(call, {"init_declarator", "assignment_expression"}, function)
    if decl is None:
        return False
    target = decl.child_by_field_name("declarator") or decl.child_by_field_name("left")
    name = t.root_name(target)
    for node in t.walk(function):
        if node.start_byte <= call.start_byte or node.type != "identifier" or t.text(node) != name:
            continue
        if t.has_ancestor(node, {"if_statement", "while_statement", "conditional_expression"}):
            return True
        outer = t.has_ancestor(node, {"call_expression"}, function)
        if outer is not None and re.search(r"ASSERT|CHECK", t.callee_name(outer)):
            return True
    return False


def _early_reject(call: Node, function: Node) -> bool:
    """``if (!isNetworkSupported(...)) { ...; return/throw; }``: false => stop, which is fine."""
    parent = call.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    if parent is None or parent.type != "unary_expression" or not t.text(parent).startswith("!"):
        return False
    branch = t.has_ancestor(call, {"if_statement"}, function)
    if branch is None:
        return False
    condition = branch.child_by_field_name("condition")
    if condition is None or not condition.start_byte <= call.start_byte < condition.end_byte:
        return False
    consequence = branch.child_by_field_name("consequence")
    return consequence is not None and any(n.type in _ERROR_EXITS for n in t.walk(consequence))


def _network_supported(file: _File) -> list[Finding]:
    out: list[Finding] = []
    for call in file.by_name("isNetworkSupported"):
        function = t.enclosing_function(call)
        if function is None or _early_reject(call, function):
            continue
        reason = ""
        decl = t.has_ancestor(call, {"init_declarator", "assignment_expression"}, function)
        returned = t.has_ancestor(call, {"return_statement"}, function) is not None
        if not returned and decl is not None:
            target = decl.child_by_field_name("declarator") or decl.child_by_field_name("left")
            name = t.root_name(target)
            returned = any(
                n.type == "identifier"
                and t.text(n) == name
                and t.has_ancestor(n, {"return_statement"}, function) is not None
                for n in t.walk(function)
            )
        builds = [c for c in t.calls(function) if t.callee_name(c) in _BUILD_CALLS]
        if returned:
            reason = "its result is returned as the answer"
        elif not builds:
            reason = "no build follows it in this function"
        elif not any(_checked(file, b, function) for b in builds):
            reason = "the build's own result is never checked"
        if reason:
            out.append(
                make_finding(
                    "network-supported-not-a-gate",
                    file.path,
                    t.line(call),
                    f"isNetworkSupported() decides the outcome ({reason})",
                )
            )
    return out


def _is_graph_execute(call: Node) -> bool:
    return t.receiver(call) is not None and len(t.arguments(call)) == 1


def _aux_registered(file: _File) -> list[Node]:
    return [c for c in file.calls if "AuxStreams" in t.callee_name(c)]


def _zero_aux_evidence(file: _File) -> bool:
    for call in file.by_name("setMaxAuxStreams"):
        args = t.arguments(call)
        if args and t.text(args[0]) in ("0", "0U", "0u"):
            return True
    return any(
        n.type == "comment" and _ZERO_AUX_COMMENT.search(t.text(n)) for n in t.walk(file.root)
    )


def _aux_unregistered(file: _File) -> list[Finding]:
    executes = [c for c in file.by_name("executeAsync") if _is_graph_execute(c)]
    if not executes or _zero_aux_evidence(file):
        return []
    registered = _aux_registered(file)
    out: list[Finding] = []
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
        out.append(make_finding("aux-streams-unregistered", file.path, t.line(call), detail))
    return out


def _range_source(call: Node, function: Node, name: str) -> str:
    """For ``for (auto s : auxStreams) cudaStreamDestroy(s)`` return ``auxStreams``."""
    loop = t.has_ancestor(call, {"for_range_loop"}, function)
    while loop is not None:
        declarator = loop.child_by_field_name("declarator")
        names = {t.text(n) for n in t.walk(declarator) if n.type == "identifier"}
        if name in names:
            return t.root_name(loop.child_by_field_name("right"))
        loop = t.has_ancestor(loop, {"for_range_loop"}, function)
    return name


def _error_path(node: Node, function: Node) -> bool:
    """True when ``node`` sits in an if-branch that leaves the function (cleanup on error)."""
    branch = t.has_ancestor(node, {"if_statement"}, function)
    if branch is None:
        return False
    consequence = branch.child_by_field_name("consequence")
    return consequence is not None and any(n.type in _ERROR_EXITS for n in t.walk(consequence))


def _aux_destroyed_early(file: _File) -> list[Finding]:
    out: list[Finding] = []
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
                stream = t.text(t.arguments(call)[0])
                detail = f"cudaStreamDestroy({stream}) before the final sync()"
                out.append(
                    make_finding("aux-streams-destroyed-early", file.path, t.line(call), detail)
                )
    return out


def _safety_evidence(file: _File) -> bool:
    """True when the source uses the safety runtime or builds with the SAFETY capability."""
    for node in t.walk(file.root):
        if node.type == "identifier" and t.text(node) in _SAFETY_CAPABILITIES | {"createTRTGraph"}:
            return True
        if node.type == "namespace_identifier" and t.text(node) == "nvinfer2":
            return True
    return False


def analyse_cpp(source: bytes, path: str) -> Facts:
    """All C/C++ findings for one source file (``path`` is what findings report)."""
    file = _File(source, path)
    facts = Facts(safety=_safety_evidence(file))
    error = t.first_error(file.root)
    if error is not None:
        facts.findings.append(
            make_finding(
                "file-unparsable",
                path,
                error[0],
                f"C++ syntax not understood at line {error[0]} ({error[1]} place(s))",
            )
        )
    for rule in (
        _create_graph,
        _safe_build,
        _safety_scope,
        _network_supported,
        _aux_unregistered,
        _aux_destroyed_early,
    ):
        facts.findings.extend(rule(file))
    return facts
