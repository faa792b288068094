"""Makefiles and shell scripts -> commands -> findings.

Makefile variables (``=``, ``:=``, ``::=``, ``?=``, ``+=``) are remembered with their lines and
expanded in recipes (``$(VAR)`` / ``${VAR}``); ``$$`` becomes the shell's ``$``. Each recipe line
(with its continuations) is shell text parsed by :mod:`trtsafe_lab.migrate.shell`.
"""

from __future__ import annotations

import re

from trtsafe_lab.migrate.commands import CommandFacts, analyse_commands
from trtsafe_lab.migrate.shell import parse_shell
from trtsafe_lab.migrate.words import Variables, Word, expand_make, expand_shell, split_value

_MAKE_ASSIGN = re.compile(
    r"^(?:override\s+|export\s+)?(?P<name>[A-Za-z_][\w.-]*)\s*(?P<op>::?=|\?=|\+=|=)\s*(?P<value>.*)$",
    re.DOTALL,
)
_DIRECTIVES = ("ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "-include", "define")


def analyse_shell(text: str, path: str, first_line: int = 1) -> CommandFacts:
    """Findings for a shell script (or any shell snippet starting at ``first_line``)."""
    variables = Variables()
    facts = analyse_commands(parse_shell(text, first_line, variables), path)
    facts.findings.extend(variables.budget.findings(path))
    return facts


def _logical_make_lines(text: str) -> list[tuple[int, str]]:
    """(first line, text with continuations kept as newlines) for each logical Makefile line."""
    out: list[tuple[int, str]] = []
    buffer: list[str] = []
    start = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        if not buffer:
            start = number
        buffer.append(raw)
        if raw.endswith("\\") and not raw.endswith("\\\\"):
            continue
        out.append((start, "\n".join(buffer)))
        buffer = []
    if buffer:
        out.append((start, "\n".join(buffer)))
    return out


_AUTOMATIC = {"@": "_MAKE_TARGET", "<": "_MAKE_PREREQ", "^": "_MAKE_PREREQS", "*": "_MAKE_STEM"}


def protect_make_refs(text: str) -> str:
    """Rewrite make references so shell tokenising keeps them whole: ``$(X)`` -> ``${X}``,
    ``$@``/``$<``/``$^`` -> ``${_MAKE_TARGET}``/... and function calls such as ``$(dir $@)`` ->
    ``${_MAKE_FUNCTION}``; ``$$`` is kept for the shell."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch != "$" or not nxt:
            out.append(ch)
            i += 1
        elif nxt == "$":
            out.append("$$")
            i += 2
        elif nxt in _AUTOMATIC:
            out.append("${" + _AUTOMATIC[nxt] + "}")
            i += 2
        elif nxt in "({":
            close = ")" if nxt == "(" else "}"
            depth, j = 1, i + 2
            while j < len(text) and depth:
                depth += {nxt: 1, close: -1}.get(text[j], 0)
                j += 1
            inner = text[i + 2 : j - 1]
            name = inner if re.fullmatch(r"[A-Za-z_][\w.-]*", inner) else "_MAKE_FUNCTION"
            out.append("${" + name + "}")
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _rule_variables(rule: str, line: int, make_vars: Variables) -> Variables:
    """Make variables plus the automatic ones ($@, $<, $^) of the rule ``targets: prereqs``."""
    variables = make_vars.copy()
    targets, _, prereqs = rule.partition(":")
    target_words = [w for t in split_value(targets, line) for w in expand_make(t, make_vars)]
    prereq_words = [
        w for t in split_value(prereqs.split(";")[0], line) for w in expand_make(t, make_vars)
    ]
    variables.set("_MAKE_TARGET", target_words[:1])
    variables.set("_MAKE_PREREQ", prereq_words[:1])
    variables.set("_MAKE_PREREQS", prereq_words)
    return variables


def analyse_makefile(text: str, path: str) -> CommandFacts:
    """Findings for a Makefile: recipe lines run through the shell front end."""
    make_vars = Variables()
    rule_vars = make_vars
    facts = CommandFacts()
    in_rule = False

    def expand(word: Word, shell_vars: Variables) -> list[Word]:
        out: list[Word] = []
        for made in expand_make(word, rule_vars):
            out.extend(expand_shell(made, shell_vars))
        return out

    for start, logical in _logical_make_lines(text):
        if logical.startswith("\t"):
            if in_rule:
                recipe = "\n".join(part.lstrip("\t") for part in logical.split("\n"))
                recipe = protect_make_refs(recipe.lstrip("@-+ "))
                commands = parse_shell(recipe, start, Variables(budget=make_vars.budget), expand)
                facts.extend(analyse_commands(commands, path))
            continue
        stripped = "\n".join(part.split("#", 1)[0] for part in logical.split("\n")).strip()
        if not stripped:
            continue
        if stripped.startswith(_DIRECTIVES):
            continue
        match = _MAKE_ASSIGN.match(stripped)
        if match and ":" not in match.group("name"):
            words: list[Word] = []
            for offset, part in enumerate(match.group("value").split("\\\n")):
                words.extend(split_value(part, start + offset))
            name, op = match.group("name"), match.group("op")
            if op == "+=":
                make_vars.append(name, words)
            elif op != "?=" or make_vars.get(name) is None:
                make_vars.set(name, words)
            in_rule = False
            continue
        in_rule = ":" in stripped
        if in_rule:
            rule_vars = _rule_variables(protect_make_refs(stripped), start, make_vars)
    facts.findings.extend(make_vars.budget.findings(path))
    return facts
