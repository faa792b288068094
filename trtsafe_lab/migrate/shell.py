"""Shell text -> simple commands (argv as :class:`Word` lists), with lines and variables.

Handles what build and CI scripts use around ``trtexec``: comments, ``\\`` line continuations,
quotes that span lines, here-documents (skipped), ``;`` ``&&`` ``||`` ``|`` lists, redirections,
``if/then/do`` keywords, ``VAR=value`` and ``ARR=(...)`` assignments (remembered and expanded in
later commands), ``export``/``local``, command wrappers (``sudo``, ``env``, ``timeout``...) and
commands run through ``ssh host '...'``, ``adb shell '...'`` or ``bash -c '...'``.
Tokenising is :mod:`shlex`; this is not a full shell.
"""

from __future__ import annotations

import io
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from trtsafe_lab.migrate.words import Variables, Word, expand_shell, split_value

Expander = Callable[[Word, Variables], list[Word]]

_SEPARATORS = {";", "&&", "||", "|", "&", ";;", "|&", "(", ")", "{", "}", "\n"}
_KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "esac"}
_ASSIGN = re.compile(r"^(?P<name>[A-Za-z_]\w*)(?P<op>\+?=)(?P<value>.*)$", re.DOTALL)
_DECLARERS = {"export", "local", "readonly", "declare", "typeset"}
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(?P<tag>[A-Za-z_]\w*)\1")
_WRAPPERS_WITH_ARG = {"timeout": 1, "taskset": 1, "nice": 0, "ionice": 0, "stdbuf": 0}
_WRAPPERS = {"sudo", "env", "time", "nohup", "exec", "command", "builtin", *_WRAPPERS_WITH_ARG}
_SSH_OPTS_WITH_ARG = set("bcDEeFIiJLlmOopQRSWw")


@dataclass(frozen=True)
class LogicalLine:
    """One logical shell line: continuations joined, comments removed; ``lines[i]`` is the
    source line of ``text[i]``."""

    text: str
    lines: tuple[int, ...]

    def line_at(self, index: int) -> int:
        index = max(0, min(index, len(self.text) - 1))
        while index > 0 and self.text[index].isspace():
            index -= 1
        return self.lines[index] if self.lines else 0


def logical_lines(text: str, first_line: int = 1) -> Iterator[LogicalLine]:
    """Yield logical lines of shell ``text`` whose first physical line is ``first_line``."""
    chars: list[str] = []
    lines: list[int] = []
    quote = ""
    depth = 0
    heredoc: str | None = None
    for offset, raw in enumerate(text.split("\n")):
        number = first_line + offset
        if heredoc is not None:
            if raw.strip() == heredoc:
                heredoc = None
            continue
        i = 0
        continued = False
        while i < len(raw):
            ch = raw[i]
            if quote:
                if ch == "\\" and quote == '"' and i + 1 < len(raw):
                    chars += [ch, raw[i + 1]]
                    lines += [number, number]
                    i += 2
                    continue
                if ch == quote:
                    quote = ""
            elif ch in "'\"":
                quote = ch
            elif ch == "\\":
                if i + 1 == len(raw):
                    continued = True
                    chars.append(" ")
                    lines.append(number)
                    break
                chars += [ch, raw[i + 1]]
                lines += [number, number]
                i += 2
                continue
            elif ch == "#" and (i == 0 or raw[i - 1].isspace() or raw[i - 1] in ";&|("):
                break
            elif ch == "(" and i > 0 and raw[i - 1] == "=":
                depth += 1
            elif ch == ")" and depth:
                depth -= 1
            chars.append(ch)
            lines.append(number)
            i += 1
        if continued:
            continue
        if quote or depth:
            chars.append("\n" if quote else " ")
            lines.append(number)
            continue
        match = _HEREDOC.search("".join(chars))
        if match:
            heredoc = match.group("tag")
        if "".join(chars).strip():
            yield LogicalLine("".join(chars), tuple(lines))
        chars, lines = [], []
    if "".join(chars).strip():
        yield LogicalLine("".join(chars), tuple(lines))


def _tokens(logical: LogicalLine) -> list[Word]:
    """shlex tokens of one logical line, each with the line its last character is on."""
    stream = io.StringIO(logical.text)
    lexer = shlex.shlex(stream, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    out: list[Word] = []
    while True:
        token = lexer.get_token()
        if token is None or token == lexer.eof:
            break
        position = stream.tell()  # just past the token (and maybe one separator)
        out.append(Word(token, logical.line_at(position - 1)))
    return out


def _split_commands(tokens: list[Word]) -> Iterator[list[Word]]:
    current: list[Word] = []
    i = 0
    while i < len(tokens):
        word = tokens[i]
        text = word.text
        # ARR=( a b c ) assignment: keep the parenthesised words with the assignment.
        if (
            text.endswith("=")
            and _ASSIGN.match(text)
            and i + 1 < len(tokens)
            and tokens[i + 1].text == "("
        ):
            j = i + 2
            members = [Word(text + "(", word.line)]
            while j < len(tokens) and tokens[j].text != ")":
                members.append(tokens[j])
                j += 1
            current.extend([*members, Word(")", word.line)])
            i = j + 1
            continue
        if text in _SEPARATORS:
            if current:
                yield current
            current = []
        elif set(text) <= set("<>&|") and ("<" in text or ">" in text):
            if current and current[-1].text.isdigit():
                current.pop()
            i += 2  # the redirection and its target
            continue
        elif not current and text in _KEYWORDS:
            pass
        else:
            current.append(word)
        i += 1
    if current:
        yield current


def _assignment(command: list[Word], variables: Variables, expand: Expander) -> bool:
    """Record ``VAR=value`` / ``ARR=(...)`` commands; True when the command only assigns.

    ``VAR=value program ...`` (an environment prefix) records nothing and returns False.
    """
    if command[0].text in _DECLARERS:
        words = [w for w in command[1:] if not w.text.startswith("-")]
    elif _ASSIGN.match(command[0].text):
        words = command
    else:
        return False
    pending: list[tuple[str, str, list[Word]]] = []
    i = 0
    while i < len(words):
        match = _ASSIGN.match(words[i].text)
        if not match:
            return False
        name, op, value = match.group("name"), match.group("op"), match.group("value")
        new: list[Word] = []
        if value == "(":
            j = i + 1
            while j < len(words) and words[j].text != ")":
                new.extend(expand(words[j], variables))
                j += 1
            i = j + 1
        else:
            for part in split_value(value, words[i].line) if value else []:
                new.extend(expand(part, variables))
            i += 1
        pending.append((name, op, new))
    for name, op, new in pending:
        if op == "+=":
            variables.append(name, new)
        else:
            variables.set(name, new)
    return bool(pending)


def _strip_wrappers(argv: list[Word]) -> list[Word]:
    i = 0
    while i < len(argv):
        text = argv[i].text
        if _ASSIGN.match(text):
            i += 1
        elif text in _WRAPPERS:
            i += 1 + _WRAPPERS_WITH_ARG.get(text, 0)
            while i < len(argv) and argv[i].text.startswith("-"):
                i += 1
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


def parse_shell(
    text: str,
    first_line: int = 1,
    variables: Variables | None = None,
    expand: Expander = expand_shell,
) -> list[list[Word]]:
    """Simple commands in shell ``text``, variables expanded, wrappers stripped.

    ``variables`` (changed in place) carries assignments from earlier text, e.g. earlier lines of
    the same CI job. Each command is a list of words; ``argv[0]`` is the program.
    """
    variables = variables if variables is not None else Variables()
    commands: list[list[Word]] = []
    for logical in logical_lines(text, first_line):
        try:
            tokens = _tokens(logical)
        except ValueError:  # unbalanced quote: shlex cannot split it
            tokens = [Word(part, logical.line_at(0)) for part in logical.text.split()]
        for command in _split_commands(tokens):
            if _assignment(command, variables, expand):
                continue
            argv: list[Word] = []
            for word in _strip_wrappers(command):
                argv.extend(expand(word, variables))
            if not argv:
                continue
            remote = _remote_command(argv)
            if remote:
                inner = " ".join(w.text if " " in w.text else shlex.quote(w.text) for w in remote)
                for sub in parse_shell(inner, remote[0].line, variables, expand):
                    commands.append([Word(w.text, remote[0].line) for w in sub])
                continue
            commands.append(argv)
    return commands
