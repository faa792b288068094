"""Shell text -> simple commands (argv as :class:`Word` lists), with lines and variables.

The syntax tree comes from the maintained ``tree-sitter-bash`` grammar (the ``migrate`` extra):
comments, line continuations, quoting, here-documents (their bodies are data, not commands),
``;`` ``&&`` ``||`` ``|`` lists, redirections, ``if``/``for``/``while`` bodies, ``$(...)``
substitutions and functions are the grammar's business. This module only turns the tree into
what the rules need: ``VAR=value`` / ``ARR=(...)`` / ``export``/``local`` assignments (remembered
and expanded in later commands), command wrappers (``sudo``, ``env``, ``timeout``...) stripped,
and commands run through ``ssh host '...'``, ``adb shell '...'`` or ``bash -c '...'`` parsed in
turn.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator

from trtsafe_lab.migrate.limits import MAX_NESTING
from trtsafe_lab.migrate.syntax_tree import Node, parser
from trtsafe_lab.migrate.syntax_tree import text as _source
from trtsafe_lab.migrate.words import Variables, Word, expand_shell, split_value

Expander = Callable[[Word, Variables], list[Word]]

FEATURE = "Checking shell scripts for 10.x -> 11.x migration"
_WRAPPERS_WITH_ARG = {"timeout": 1, "taskset": 1, "nice": 0, "ionice": 0, "stdbuf": 0}
_WRAPPERS = {"sudo", "env", "time", "nohup", "exec", "command", "builtin", *_WRAPPERS_WITH_ARG}
_SSH_OPTS_WITH_ARG = set("bcDEeFIiJLlmOopQRSWw")
# Children of a command that are not its words.
_NOT_WORDS = {"file_redirect", "heredoc_redirect", "herestring_redirect", "variable_assignment"}
# Word-like nodes whose source text is kept as it is (expanded later, or opaque).
_VERBATIM = {
    "simple_expansion",
    "expansion",
    "command_substitution",
    "arithmetic_expansion",
    "process_substitution",
}


def _unescape(text: str, special: str | None = None) -> str:
    """Drop the backslash of ``\\x`` (outside quotes: any x; in double quotes: only ``special``)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and (special is None or text[i + 1] in special):
            if text[i + 1] != "\n":  # a line continuation joins
                out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def word_text(node: Node) -> str:
    """The text a shell word stands for, quotes removed and ``$X`` references kept for
    expansion (single-quoted text included, as shlex did)."""
    kind = node.type
    if kind in _VERBATIM:
        return _source(node)
    if kind == "raw_string":
        return _source(node)[1:-1]
    if kind == "ansi_c_string":
        return _source(node)[2:-1]
    if kind in ("string", "translated_string"):
        inner = node.named_children
        if kind == "translated_string":
            inner = [c for n in inner for c in n.named_children]
        return "".join(
            _unescape(_source(c), '"\\$`') if c.type == "string_content" else word_text(c)
            for c in inner
        )
    if kind == "concatenation":
        return "".join(word_text(c) for c in node.children)
    if kind == "command_name":
        return "".join(word_text(c) for c in node.children)
    return _unescape(_source(node))


def _word(node: Node) -> Word:
    return Word(word_text(node), int(node.start_point[0]) + 1)


def _assign(node: Node, variables: Variables, expand: Expander) -> None:
    """Record one ``variable_assignment`` (``X=v``, ``X+=v``, ``X=(a b)``)."""
    name_node = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    if name_node is None or name_node.type != "variable_name":
        return  # X[i]=v: a subscript assignment, not tracked
    appending = any(c.type == "+=" for c in node.children)
    words: list[Word] = []
    if value is not None and value.type == "array":
        for item in value.named_children:
            if item.type != "comment":
                words.extend(expand(_word(item), variables))
    elif value is not None:
        line = int(value.start_point[0]) + 1
        for part in split_value(word_text(value), line):
            words.extend(expand(part, variables))
    name = _source(name_node)
    if appending:
        variables.append(name, words)
    else:
        variables.set(name, words)


def _strip_wrappers(argv: list[Word]) -> list[Word]:
    i = 0
    while i < len(argv):
        text = argv[i].text
        if text in _WRAPPERS:
            i += 1 + _WRAPPERS_WITH_ARG.get(text, 0)
            while i < len(argv) and argv[i].text.startswith("-"):
                i += 1
            while i < len(argv) and "=" in argv[i].text and argv[i].text[0].isalpha():
                i += 1  # env NAME=value ...
        else:
            break
    return argv[i:]


def _remote_command(argv: list[Word]) -> list[Word] | None:
    """The command string given to ``ssh host CMD``, ``adb shell CMD`` or ``bash -c CMD``."""
    name = argv[0].text.rsplit("/", 1)[-1]
    if name == "ssh":
        i = 1
        while i < len(argv) and argv[i].text.startswith("-"):
            flag = argv[i].text
            i += 2 if len(flag) == 2 and flag[1] in _SSH_OPTS_WITH_ARG else 1
        return argv[i + 1 :] if i + 1 < len(argv) else None
    if name == "adb" and len(argv) > 2 and argv[1].text == "shell":
        return argv[2:]
    if name in {"bash", "sh", "zsh"} and len(argv) > 2 and argv[1].text == "-c":
        return argv[2:3]
    return None


def _statements(root: Node) -> Iterator[Node]:
    """Commands and assignments in source order (pre-order; here-document bodies skipped)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("command", "variable_assignment", "declaration_command"):
            yield node
        if node.type != "heredoc_body":
            stack.extend(reversed(node.children))


def parse_shell(
    text: str,
    first_line: int = 1,
    variables: Variables | None = None,
    expand: Expander = expand_shell,
    _depth: int = 0,
) -> list[list[Word]]:
    """Simple commands in shell ``text``, variables expanded, wrappers stripped.

    ``variables`` (changed in place) carries assignments from earlier text, e.g. earlier lines of
    the same CI job. Each command is a list of words; ``argv[0]`` is the program. Lines are
    counted from ``first_line``.
    """
    variables = variables if variables is not None else Variables()
    root = parser("tree_sitter_bash", FEATURE).parse(text.encode("utf-8")).root_node
    offset = first_line - 1
    commands: list[list[Word]] = []
    for node in _statements(root):
        if node.type == "variable_assignment":
            if node.parent is not None and node.parent.type != "command":
                _assign(node, variables, _shifted(expand, offset))
            continue
        if node.type == "declaration_command":
            for child in node.named_children:
                if child.type == "variable_assignment":
                    _assign(child, variables, _shifted(expand, offset))
            continue
        words = [
            _moved(_word(child), offset)
            for child in node.named_children
            if child.type not in _NOT_WORDS and child.type != "comment"
        ]
        argv: list[Word] = []
        for word in _strip_wrappers(words):
            argv.extend(expand(word, variables))
        if not argv:
            continue
        remote = _remote_command(argv)
        if remote and _depth < MAX_NESTING:
            inner = " ".join(w.text if " " in w.text else shlex.quote(w.text) for w in remote)
            for sub in parse_shell(inner, remote[0].line, variables, expand, _depth + 1):
                commands.append([Word(w.text, remote[0].line) for w in sub])
            continue
        commands.append(argv)
    return commands


def _moved(word: Word, offset: int) -> Word:
    return Word(word.text, word.line + offset, None if word.at is None else word.at + offset)


def _shifted(expand: Expander, offset: int) -> Expander:
    """``expand`` for words whose lines are still relative to the parsed text."""

    def shifted(word: Word, variables: Variables) -> list[Word]:
        return expand(_moved(word, offset), variables)

    return shifted
