"""CMake files -> findings.

A small CMake lexer (commands, quoted / bracket / unquoted arguments, comments, lines) feeds:
``set`` / ``list(APPEND)`` variables; ``execute_process``, ``add_custom_command`` and
``add_custom_target`` COMMAND lines (checked as command lines, including ``cmake -E copy``);
``install(FILES|PROGRAMS ...)`` and ``file(COPY|INSTALL ...)`` as ship steps.
"""

from __future__ import annotations

from dataclasses import dataclass

from trtsafe_lab.migrate.commands import CommandFacts, analyse_command, make_ship_step
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


class CMakeSyntaxError(ValueError):
    """The CMake text could not be split into commands."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


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


def _bracket_close(text: str, i: int) -> tuple[str, int] | None:
    """For ``[==[`` at ``i``: (closing ``]==]``, index after the opening), else None."""
    j = i + 1
    while j < len(text) and text[j] == "=":
        j += 1
    if j < len(text) and text[j] == "[":
        return "]" + "=" * (j - i - 1) + "]", j + 1
    return None


def _skip_blank(text: str, i: int, line: int) -> tuple[int, int]:
    """Skip whitespace, line comments and ``#[[...]]`` bracket comments from ``i``; return the
    next index and line. CMake allows both kinds of comment between commands and arguments."""
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch.isspace():
            i += 1
        elif ch == "#":
            bracket = _bracket_close(text, i + 1) if i + 1 < n and text[i + 1] == "[" else None
            if bracket:
                end = text.find(bracket[0], bracket[1])
                end = n if end < 0 else end + len(bracket[0])
                line += text.count("\n", i, end)
                i = end
            else:
                end = text.find("\n", i)
                i = n if end < 0 else end
        else:
            break
    return i, line


def lex(text: str) -> list[Invocation]:
    """Split CMake ``text`` into command invocations with their arguments and lines."""
    out: list[Invocation] = []
    i, line, n = 0, 1, len(text)
    while True:
        i, line = _skip_blank(text, i, line)
        if i >= n:
            break
        ch = text[i]
        if ch.isalpha() or ch == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            name, start_line = text[i:j].lower(), line
            while j < n and text[j] in " \t":
                j += 1
            if j >= n or text[j] != "(":
                raise CMakeSyntaxError(f"expected '(' after {text[i:j].strip()}", line)
            args, i, line = _arguments(text, j + 1, line)
            out.append(Invocation(name, start_line, tuple(args)))
        else:
            raise CMakeSyntaxError(f"unexpected character {ch!r}", line)
    return out


def _arguments(text: str, i: int, line: int) -> tuple[list[Argument], int, int]:
    args: list[Argument] = []
    depth, n = 0, len(text)
    while True:
        i, line = _skip_blank(text, i, line)
        if i >= n:
            break
        ch = text[i]
        if ch == ")":
            if depth == 0:
                return args, i + 1, line
            depth -= 1
            i += 1
        elif ch == "(":
            depth += 1
            i += 1
        elif ch == '"':
            j, start = i + 1, line
            buf: list[str] = []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    buf.append(text[j + 1] if text[j + 1] in '"\\$;' else text[j : j + 2])
                    j += 2
                    continue
                if text[j] == "\n":
                    line += 1
                buf.append(text[j])
                j += 1
            args.append(Argument("".join(buf), start, True))
            i = j + 1
        elif ch == "[" and (bracket := _bracket_close(text, i)):
            end = text.find(bracket[0], bracket[1])
            end = n if end < 0 else end
            args.append(Argument(text[bracket[1] : end], line, True))
            line += text.count("\n", i, end)
            i = end + len(bracket[0])
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in '()"#':
                j += 2 if text[j] == "\\" else 1
            args.append(Argument(text[i:j], line, False))
            i = j
    raise CMakeSyntaxError("unclosed '(' at end of file", line)


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
    """Findings for a CMakeLists.txt or ``*.cmake`` file (raises :class:`CMakeSyntaxError`)."""
    variables = Variables({"CMAKE_COMMAND": [Word("cmake", 0)]})
    facts = CommandFacts()
    for call in lex(text):
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
            for argv in _groups(words, "COMMAND", _COMMAND_END):
                facts.extend(analyse_command(argv, path))
        elif call.name in ("install", "file") and words:
            mode = words[0].text
            if mode in ("FILES", "PROGRAMS", "COPY", "INSTALL"):
                shipped = _groups(words, mode, _INSTALL_END)[0]
                step = make_ship_step(shipped, f"{call.name}({mode})")
                if step:
                    facts.ship_steps.append(step)
    return facts
