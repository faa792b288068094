"""C/C++ sources -> findings, on a tree-sitter syntax tree (no regular expressions over code).

Looks at call expressions (``createTRTGraph``, ``buildSerializedNetwork``,
``setEngineCapability``, ``isNetworkSupported``, ``executeAsync``, ``setAuxStreams``,
``cudaStreamDestroy``, ``sync``), declarations and their initialisers (where a companion .so
path comes from), identifiers (``kSAFETY_SCOPE``) and the order of calls within one function.
"""

from __future__ import annotations

import re

from trtsafe_lab.migrate import cpp_tree as t
from trtsafe_lab.migrate import syntax_tree as st
from trtsafe_lab.migrate.commands import (
    OVERLAY,
    TRTEXEC,
    TRTEXEC_SAFE,
    CommandFacts,
    PartialParse,
    analyse_command,
    program_name,
    remote_paths_outside_overlay,
)
from trtsafe_lab.migrate.cpp_macros import attribute_macros, blank_macros
from trtsafe_lab.migrate.cpp_streams import aux_destroyed_early, aux_unregistered, error_exit
from trtsafe_lab.migrate.cpp_tree import SourceFile
from trtsafe_lab.migrate.rules import MigrationFinding, make_finding
from trtsafe_lab.migrate.shell import parse_shell
from trtsafe_lab.migrate.syntax_tree import Node
from trtsafe_lab.migrate.words import Word

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


def _string_value(node: Node) -> str:
    return "".join(
        st.text(n) for n in st.walk(node) if n.type in ("string_content", "raw_string_content")
    )


def _path_value(
    file: SourceFile, node: Node | None, function: Node | None, depth: int = 0
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
    if kind == "binary_expression" and st.text(node.child_by_field_name("operator")) in "+/":
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


def _looks_like_recorder(file: SourceFile, node: Node) -> bool:
    if node.type == "pointer_expression":
        return True
    name = t.root_name(node)
    if "recorder" in name.lower():
        return True
    return bool(name) and "Recorder" in t.declared_type(file.root, name)


def _create_graph(file: SourceFile) -> list[MigrationFinding]:
    out: list[MigrationFinding] = []
    for call in file.by_name("createTRTGraph"):
        args = t.arguments(call)
        if len(args) < 4:
            continue
        where = st.line(call)
        companion = args[3]
        if len(args) == 4 or _looks_like_recorder(file, companion):
            out.append(make_finding("companion-so-missing", file.path, where, "createTRTGraph"))
            continue
        if companion.type in ("null", "nullptr") or st.text(companion) in ("nullptr", "NULL"):
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
                    st.line(literal),
                    f'companion .so path "{value}" (used by createTRTGraph at line {where})',
                )
            )
    return out


def _safety_configs(file: SourceFile, scope: Node | None) -> set[str]:
    """Names of builder configs set to the SAFETY capability inside ``scope`` (None: file)."""
    names: set[str] = set()
    for call in file.by_name("setEngineCapability"):
        if scope is not None and t.enclosing_function(call) != scope:
            continue
        idents = {t.last_name(n) for n in st.walk(call) if n.type in ("identifier",)}
        if idents & _SAFETY_CAPABILITIES:
            names.add(t.root_name(t.receiver(call)))
    return names


def _safe_build(file: SourceFile) -> list[MigrationFinding]:
    out: list[MigrationFinding] = []
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
                    st.line(call),
                    f"buildSerializedNetwork on config '{config}' with EngineCapability::kSAFETY",
                )
            )
    return out


def _safety_scope(file: SourceFile) -> list[MigrationFinding]:
    """Uses of ``kSAFETY_SCOPE``; its declaration (an ``enumerator``, as in NvInfer.h) is not
    a use."""
    lines = sorted(
        {
            st.line(n)
            for n in st.walk(file.root)
            if n.type == "identifier"
            and st.text(n) == "kSAFETY_SCOPE"
            and (n.parent is None or n.parent.type != "enumerator")
        }
    )
    return [make_finding("safety-scope-noop", file.path, n, "kSAFETY_SCOPE") for n in lines]


def _checked(file: SourceFile, call: Node, function: Node) -> bool:
    """True when the result of build ``call`` is tested (if / ! / assert) in ``function``."""
    holder = t.has_ancestor(call, {"if_statement", "conditional_expression"}, function)
    if holder is not None:
        return True
    decl = t.has_ancestor(call, {"init_declarator", "assignment_expression"}, function)
    if decl is None:
        return False
    target = decl.child_by_field_name("declarator") or decl.child_by_field_name("left")
    name = t.root_name(target)
    for node in st.walk(function):
        if node.start_byte <= call.start_byte or node.type != "identifier" or st.text(node) != name:
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
    if parent is None or parent.type != "unary_expression" or not st.text(parent).startswith("!"):
        return False
    branch = t.has_ancestor(call, {"if_statement"}, function)
    if branch is None:
        return False
    condition = branch.child_by_field_name("condition")
    if condition is None or not condition.start_byte <= call.start_byte < condition.end_byte:
        return False
    consequence = branch.child_by_field_name("consequence")
    return error_exit(consequence)


def _forwards(call: Node, function: Node) -> bool:
    """True when ``function`` is the API's own forwarding wrapper of the same name, as in
    NvInfer.h: ``bool isNetworkSupported(...) { return mImpl->isNetworkSupported(...); }``."""
    return t.function_name(function) == t.callee_name(call)


def _network_supported(file: SourceFile) -> list[MigrationFinding]:
    out: list[MigrationFinding] = []
    for call in file.by_name("isNetworkSupported"):
        function = t.enclosing_function(call)
        if function is None or _early_reject(call, function) or _forwards(call, function):
            continue
        reason = ""
        decl = t.has_ancestor(call, {"init_declarator", "assignment_expression"}, function)
        returned = t.has_ancestor(call, {"return_statement"}, function) is not None
        if not returned and decl is not None:
            target = decl.child_by_field_name("declarator") or decl.child_by_field_name("left")
            name = t.root_name(target)
            returned = any(
                n.type == "identifier"
                and st.text(n) == name
                and t.has_ancestor(n, {"return_statement"}, function) is not None
                for n in st.walk(function)
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
                    st.line(call),
                    f"isNetworkSupported() decides the outcome ({reason})",
                )
            )
    return out


def _literal_words(node: Node) -> list[Word]:
    """Words of a string literal (or adjacent literals) as shell text, with their lines."""
    value = _string_value(node)
    commands = parse_shell(value, st.line(node)) if value else []
    return commands[0] if len(commands) == 1 else []


def _command_strings(file: SourceFile) -> CommandFacts:
    """trtexec command lines written in C/C++: ``system("trtexec ...")`` / ``popen`` strings
    and argv initialisers such as ``{"trtexec", "--safe", "--fp16"}``."""
    facts = CommandFacts()
    for call in file.by_name("system", "popen", "execl", "execlp", "execv", "execvp"):
        args = t.arguments(call)
        if args and args[0].type in _STRINGS:
            for argv in parse_shell(_string_value(args[0]), st.line(args[0])):
                facts.extend(analyse_command(argv, file.path))
    for node in st.walk(file.root):
        if node.type != "initializer_list":
            continue
        items = [n for n in node.named_children if n.type != "comment"]
        if not items or items[0].type not in _STRINGS:
            continue
        argv = [Word(_string_value(n), st.line(n)) for n in items if n.type in _STRINGS]
        if program_name(argv[0]) in (TRTEXEC, TRTEXEC_SAFE):
            facts.extend(analyse_command(argv, file.path))
    for call in file.by_name("setRemoteAutoTuningConfig"):
        args = t.arguments(call)
        literal = _path_value(file, args[0], t.enclosing_function(call)) if args else None
        if literal is not None:
            bad = remote_paths_outside_overlay(_string_value(literal))
            if bad:
                detail = "remote path(s) " + ", ".join(bad) + f" not under {OVERLAY}"
                facts.findings.append(
                    make_finding("remote-autotuning-overlay", file.path, st.line(literal), detail)
                )
    return facts


def _safety_evidence(file: SourceFile) -> bool:
    """True when the source uses the safety runtime or builds with the SAFETY capability."""
    for node in st.walk(file.root):
        if node.type == "identifier" and st.text(node) in _SAFETY_CAPABILITIES | {"createTRTGraph"}:
            return True
        if node.type == "namespace_identifier" and st.text(node) == "nvinfer2":
            return True
    return False


def analyse_cpp(source: bytes, path: str, macros: dict[str, bool] | None = None) -> CommandFacts:
    """All C/C++ findings for one source file (``path`` is what findings report).

    ``macros``: attribute-like macros to blank before parsing (see
    :mod:`trtsafe_lab.migrate.cpp_macros`; a scan passes those of all its sources), by default
    those the file defines itself.
    """
    if macros is None:
        macros = attribute_macros([source])
    file = SourceFile(blank_macros(source, macros), path)
    facts = CommandFacts(safety=_safety_evidence(file))
    error = st.first_error(file.root)
    if error is not None:
        language = "CUDA" if t.dialect_of(path) == "cuda" else "C++"
        facts.partial.append(PartialParse(path, error[0], error[1], language))
    for rule in (
        _create_graph,
        _safe_build,
        _safety_scope,
        _network_supported,
        aux_unregistered,
        aux_destroyed_early,
    ):
        facts.findings.extend(rule(file))
    facts.extend(_command_strings(file))
    return facts
