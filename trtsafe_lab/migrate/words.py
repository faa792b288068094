"""Words with line numbers, variable tables and variable expansion for command lines.

Shell scripts, Makefiles, CMake and CI YAML all hand the checker command lines whose words may
come from variables (``$FLAGS``, ``$(TRTEXEC_FLAGS)``, ``${ENGINE}``). A :class:`Word` keeps the
line it came from, so a flag that lives in a variable definition is reported at that definition.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from trtsafe_lab.migrate.limits import MAX_VARIABLE_WORDS, ExpansionBudget

_MAX_DEPTH = 8
_MAX_WORDS = 2000

# Variable references by syntax. Group "name" is the variable; "default" a shell ${X:-default}.
_SHELL_REF = re.compile(
    r"\$\{(?P<name>[A-Za-z_]\w*)(?:\[[@*]\])?(?::?[-=](?P<default>[^}]*))?\}|\$(?P<bare>[A-Za-z_]\w*)"
)
_MAKE_REF = re.compile(r"\$[({](?P<name>[A-Za-z_][\w.-]*)[)}]")
_CMAKE_REF = re.compile(r"\$\{(?P<name>[A-Za-z_][\w.+-]*)\}")
_MAKE_DOLLAR = "\x00DOLLAR\x00"


@dataclass(frozen=True)
class Word:
    """One word of a command line: ``line`` is where its text was written (a variable's
    definition for an expanded word), ``at`` where the command used it (None: same line)."""

    text: str
    line: int
    at: int | None = None

    @property
    def site(self) -> int:
        """The line of the command that used this word."""
        return self.at if self.at is not None else self.line


class Variables:
    """Variable name -> list of words (each with its definition line).

    ``budget`` bounds what expansion may produce in one file; copies share it. A variable holds
    at most :data:`~trtsafe_lab.migrate.limits.MAX_VARIABLE_WORDS` words (the budget records a cut).
    """

    def __init__(
        self, values: dict[str, list[Word]] | None = None, budget: ExpansionBudget | None = None
    ) -> None:
        self._values: dict[str, list[Word]] = dict(values or {})
        self.budget = budget if budget is not None else ExpansionBudget()

    def _capped(self, name: str, words: list[Word]) -> list[Word]:
        if len(words) <= MAX_VARIABLE_WORDS:
            return words
        line = words[MAX_VARIABLE_WORDS].site
        self.budget.stop(f"variable {name} would hold over {MAX_VARIABLE_WORDS:,} words", line)
        return words[:MAX_VARIABLE_WORDS]

    def set(self, name: str, words: list[Word]) -> None:
        self._values[name] = self._capped(name, list(words))

    def append(self, name: str, words: list[Word]) -> None:
        self._values[name] = self._capped(name, self._values.get(name, []) + list(words))

    def get(self, name: str) -> list[Word] | None:
        return self._values.get(name)

    def copy(self) -> Variables:
        return Variables(self._values, self.budget)


def split_value(text: str, line: int) -> list[Word]:
    """Split a variable's value into words the way an unquoted expansion would."""
    try:
        parts = shlex.split(text, comments=False)
    except ValueError:
        parts = text.split()
    return [Word(part, line) for part in parts]


def _expand_with(
    word: Word,
    variables: Variables,
    pattern: re.Pattern[str],
    depth: int,
    active: frozenset[str] = frozenset(),
) -> list[Word]:
    """Expand ``word``; names in ``active`` (being expanded) stay literal, so ``X=$X more``
    cannot recurse, and the result is capped at :data:`_MAX_WORDS` words. Every character
    produced is charged to ``variables.budget``; once it is spent, words stay unexpanded."""
    budget = variables.budget
    if depth > _MAX_DEPTH or "$" not in word.text or budget.exceeded:
        return [word]

    def lookup(match: re.Match[str]) -> tuple[str, list[Word] | None]:
        name = match.group("name") or match.groupdict().get("bare") or ""
        value = variables.get(name) if name not in active else None
        return name, value

    whole = pattern.fullmatch(word.text)
    if whole:
        name, value = lookup(whole)
        if value is None and whole.groupdict().get("default"):
            value = split_value(whole.group("default"), word.line)
        if value is None:
            return [word]
        out: list[Word] = []
        for part in value:
            if not budget.charge(len(part.text) + 1, word.site):
                break
            out.extend(_expand_with(part, variables, pattern, depth + 1, active | {name}))
            if len(out) >= _MAX_WORDS:
                break
        return [Word(w.text, w.line, word.site) for w in out[:_MAX_WORDS]]

    names: set[str] = set()

    def substitute(match: re.Match[str]) -> str:
        name, value = lookup(match)
        if value is None:
            default = match.groupdict().get("default")
            return default if default else match.group(0)
        parts = value[:_MAX_WORDS]
        if not budget.charge(sum(len(part.text) + 1 for part in parts), word.site):
            return match.group(0)
        names.add(name)
        return " ".join(part.text for part in parts)

    text = pattern.sub(substitute, word.text)
    if text == word.text:
        return [word]
    return _expand_with(
        Word(text, word.line, word.at), variables, pattern, depth + 1, active | names
    )


def expand_shell(word: Word, variables: Variables) -> list[Word]:
    """Expand ``$X``, ``${X}``, ``${X[@]}`` and ``${X:-default}`` with known shell variables."""
    return _expand_with(word, variables, _SHELL_REF, 0)


def expand_make(word: Word, variables: Variables) -> list[Word]:
    """Expand make's ``$(X)`` / ``${X}``; ``$$`` becomes the shell's ``$``."""
    protected = Word(word.text.replace("$$", _MAKE_DOLLAR), word.line, word.at)
    out = _expand_with(protected, variables, _MAKE_REF, 0)
    return [Word(w.text.replace(_MAKE_DOLLAR, "$"), w.line, w.at) for w in out]


def expand_cmake(word: Word, variables: Variables) -> list[Word]:
    """Expand CMake's ``${X}``; an unquoted list value becomes several words."""
    out = _expand_with(word, variables, _CMAKE_REF, 0)
    result: list[Word] = []
    for item in out:
        result.extend(Word(part, item.line, item.at) for part in item.text.split(";") if part)
    return result
