"""CMake files -> findings.

The maintained ``tree-sitter-cmake`` grammar (the ``migrate`` extra) gives commands with quoted /
bracket / unquoted arguments, comments of both kinds and lines; this module feeds:
``set`` / ``list(APPEND)`` variables; ``execute_process``, ``add_custom_command`` and
``add_custom_target`` COMMAND lines (checked as command lines, including ``cmake -E copy``);
``install(FILES|PROGRAMS ...)`` and ``file(COPY|INSTALL ...)`` as ship steps.
"""

from __future__ import annotations

from dataclasses import dataclass

from trtsafe_lab.migrate.commands import (
    CommandFacts,
    PartialParse,
    analyse_commands,
    make_ship_step,
)
from trtsafe_lab.migrate.syntax_tree import Node, first_error, parser
from trtsafe_lab.migrate.syntax_tree import line as _line
from trtsafe_lab.migrate.syntax_tree import text as _source
from trtsafe_lab.migrate.words import Variables, Word, expand_cmake

_COMMAND_END = {
    "COMMAND", "DEPENDS", "WORKING_DIRECTORY", "OUTPUT", "BYPRODUCTS", "COMMENT", "VERBATIM",
    "USES_TERMINAL", "MAIN_DEPENDENCY", "IMPLICIT_DEPENDS", "DEPFILE", "JOB_POOL", "APPEND",
    "COMMAND_EXPAND_LISTS", "CODEGEN", "SOURCES", "ALL", "RESULT_VARIABLE", "RESULTS_VARIABLE",
    "OUTPUT_VARIABLE", "ERROR_VARIABLE", "INPUT_FILE", "OUTPUT_FILE", "ERROR_FILE", "OUTPUT_QUIET",
    "ERROR_QUIET", "TIMEOUT", "COMMAND_ECHO", "OUTPUT_STRIP_TRAILING_WHITESPACE",
    "ERROR_STRIP_TRAILING_WHITESPACE", "ENCODING", "ECHO_OUTPUT_VARIABLE", "ECHO_ERROR_VARIABLE",
    "COMMAND_ERROR_IS_FATAL", "TARGET", "PRE_BUILD", "PRE_LINK", "POST_BUILD", "JOB_SERVER_AWARE",
}  # fmt: skip
_INSTALL_END = {
    "DESTINATION", "PERMISSIONS", "CONFIGURATIONS", "COMPONENT", "RENAME", "OPTIONAL",
    "EXCLUDE_FROM_ALL", "TYPE", "FILES_MATCHING", "PATTERN", "REGEX", "USE_SOURCE_PERMISSIONS",
    "FILE_PERMISSIONS", "NO_SOURCE_PERMISSIONS", "FOLLOW_SYMLINK_CHAIN",
}  # fmt: skip
FEATURE = "Checking CMake files for 10.x -> 11.x migration"


@dataclass(frozen=True)
class Argument:
    text: str
    line: int
    quoted: bool


@dataclass(frozen=True)
class Invocation:
    name: str
    line: int
    args: tuple[Argument, ...]


def _unescape_quoted(text: str) -> str:
    """A quoted argument's text: a backslash before a double quote, a backslash, a dollar or a
    semicolon is dropped (the checker reads the list-separator escape as text); a backslash before
    a newline joins the lines."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "\n":
                i += 2  # a line continuation inside quotes
                continue
            out.append(nxt if nxt in '"\\$;' else text[i : i + 2])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _argument(node: Node) -> Argument | None:
    (inner,) = node.named_children or (None,)
    if inner is None:
        return None
    if inner.type == "quoted_argument":
        element = next((c for c in inner.named_children if c.type == "quoted_element"), None)
        text = _unescape_quoted(_source(element)) if element is not None else ""
        return Argument(text, _line(inner), True)
    if inner.type == "bracket_argument":
        content = next((c for c in inner.named_children if c.type.endswith("_content")), None)
        return Argument(_source(content) if content is not None else "", _line(inner), True)
    return Argument(_source(inner), _line(inner), False)


def lex(text: str) -> tuple[list[Invocation], tuple[int, int] | None]:
    """CMake ``text`` as command invocations (lower-case names) with their arguments and lines,
    from the ``tree-sitter-cmake`` grammar; commands inside ``if``/``foreach``/``function``/...
    bodies included, in source order. The second item is (line of the first syntax error,
    number of error nodes) where the grammar had to recover (None for a clean parse); the rest
    is still returned."""
    root = parser("tree_sitter_cmake", FEATURE).parse(text.encode("utf-8")).root_node
    out: list[Invocation] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "normal_command":
            name = next((c for c in node.children if c.type == "identifier"), None)
            arg_list = next((c for c in node.children if c.type == "argument_list"), None)
            args = [] if arg_list is None else arg_list.named_children
            parsed = [a for a in (_argument(n) for n in args if n.type == "argument") if a]
            if name is not None:
                out.append(Invocation(_source(name).lower(), _line(node), tuple(parsed)))
            continue
        stack.extend(reversed(node.children))
    return out, first_error(root)


def _expand(arg: Argument, variables: Variables) -> list[Word]:
    words = expand_cmake(Word(arg.text, arg.line), variables)
    if arg.quoted:
        return [Word(";".join(w.text for w in words), arg.line)] if words else []
    return words


def _groups(words: list[Word], start: str, end: set[str]) -> list[list[Word]]:
    """Word runs that follow each ``start`` keyword, up to the next keyword in ``end``."""
    groups: list[list[Word]] = []
    current: list[Word] | None = None
    for word in words:
        if word.text == start:
            current = []
            groups.append(current)
        elif word.text in end:
            current = None
        elif current is not None:
            current.append(word)
    return groups


def analyse_cmake(text: str, path: str) -> CommandFacts:
    """Findings for a CMakeLists.txt or ``*.cmake`` file; a syntax error is noted in
    ``CommandFacts.partial`` and the rest of the file is still checked."""
    variables = Variables({"CMAKE_COMMAND": [Word("cmake", 0)]})
    facts = CommandFacts()
    calls, error = lex(text)
    if error is not None:
        facts.partial.append(PartialParse(path, error[0], error[1], "CMake"))
    for call in calls:
        words = [w for arg in call.args for w in _expand(arg, variables)]
        if call.name == "set" and words:
            values = [w for w in words[1:] if w.text not in ("PARENT_SCOPE", "CACHE")]
            if "CACHE" in [w.text for w in words]:
                values = values[:1]
            variables.set(words[0].text, values)
        elif call.name == "find_program" and len(words) > 1:
            names = [w for w in words[1:] if w.text != "NAMES"]
            variables.set(words[0].text, names[:1])
        elif call.name == "list" and len(words) > 2 and words[0].text == "APPEND":
            variables.append(words[1].text, words[2:])
        elif call.name in ("execute_process", "add_custom_command", "add_custom_target"):
            facts.extend(analyse_commands(_groups(words, "COMMAND", _COMMAND_END), path))
        elif call.name in ("install", "file") and words:
            mode = words[0].text
            if mode in ("FILES", "PROGRAMS", "COPY", "INSTALL"):
                shipped = _groups(words, mode, _INSTALL_END)[0]
                step = make_ship_step(shipped, f"{call.name}({mode})")
                if step:
                    facts.ship_steps.append(step)
    facts.findings.extend(variables.budget.findings(path))
    return facts
