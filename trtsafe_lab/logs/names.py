"""Layer and node names exactly as TensorRT prints them.

TensorRT names are free text: they contain spaces, dots, colons, brackets and nested braces
(``{ForeignNode[177...Reshape_81 + (Unnamed Layer* 146) [Shuffle]]}``), fused names join members
with `` + `` and wrap pointwise groups in ``PWN(...)``. The helpers here cut a name out of the
sentence around it (the sentence's closing period is not part of the name; ``. In computeCosts at
file:line`` locations added by TensorRT 10.16 are not either) and split fused names into members.
"""

from __future__ import annotations

import re

# TensorRT 10.16+ appends " In <function> at <path>:<line>" inside messages (found from its
# "In ", then the whitespace and period before it are dropped: a regex starting with "\s+"
# re-scanned a run of spaces from each of its positions, quadratic time).
_SOURCE_SUFFIX = re.compile(r"In [\w:~<>]{1,300} at \S{1,1024}:\d{1,9}\s*$")
# Clauses that follow a name in a sentence.
_TRAILING_CLAUSES = (" due to ", ", try ", ". See ", ". Try ")
_FOREIGN = re.compile(r"^\{ForeignNode\[(?P<body>.*)\]\}$", re.DOTALL)
_PWN = re.compile(r"^PWN\((?P<body>.*)\)$", re.DOTALL)
_INTERFACE_PREFIX = re.compile(r"^I[A-Z][A-Za-z]{0,60}Layer ")
_MAX_SENTENCE = 16384  # characters after "... for node " read to find where the name ends


def balanced_end(text: str, start: int) -> int:
    """Index just past the brace group that opens at ``text[start] == '{'`` (or -1)."""
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return -1


def name_at(text: str, start: int) -> str:
    """The name that starts at ``text[start]`` and runs to the end of its sentence."""
    rest = text[start : start + _MAX_SENTENCE].lstrip()
    if rest.startswith("{"):
        end = balanced_end(rest, 0)
        if end > 0:
            return rest[:end]
    return clean_name(rest)


def clean_name(rest: str) -> str:
    """Strip what follows a name printed at the end of a sentence or inside ``( ... )``."""
    rest = rest.strip().rstrip("*`").rstrip()  # a markdown "**" / "`" closing the pasted line
    tab = rest.find("\t")
    if tab > 0:  # a tab ends the message's field (a logger's "message<TAB>file.cpp:253")
        rest = rest[:tab].rstrip()
    # The message may sit inside "Error Code N: Category ( ... )": drop the unmatched ")" (and
    # the sentence's period after it: "... for node X.).")
    if rest.endswith(").") and not rest.endswith("..)."):
        rest = rest[:-1]
    unmatched = rest.count(")") - rest.count("(")
    end = len(rest)
    while unmatched > 0 and end > 0 and rest[end - 1] == ")":
        end -= 1
        unmatched -= 1
        while end > 0 and rest[end - 1].isspace():
            end -= 1
    rest = rest[:end]
    suffix = _SOURCE_SUFFIX.search(rest)
    if suffix is not None and suffix.start() > 0 and rest[suffix.start() - 1].isspace():
        rest = rest[: suffix.start()].rstrip()
        rest = rest[:-1] if rest.endswith(".") else rest
    for clause in _TRAILING_CLAUSES:
        cut = rest.find(clause)
        if cut > 0:
            rest = rest[:cut]
    rest = rest.rstrip()
    if rest.endswith(".") and not rest.endswith(".."):
        rest = rest[:-1]
    return rest.strip()


def strip_interface(name: str) -> str:
    """``IElementWiseLayer Mul_1384`` -> ``Mul_1384`` (TensorRT names the interface first)."""
    return _INTERFACE_PREFIX.sub("", name, count=1)


# Brackets and the separators _split_top splits at: the loop jumps from one to the next (a
# character-by-character loop cost ~1 ms per 4 KB name, once per row and nesting level).
_SPLIT_STOPS = {
    separator: re.compile(r"[()\[\]{}]|" + re.escape(separator))
    for separator in ("...", ", ", " + ")
}


def _split_top(text: str, separator: str) -> list[str]:
    """Split at ``separator`` where no (), [] or {} is open."""
    parts: list[str] = []
    depth = 0
    last = 0
    for stop in _SPLIT_STOPS[separator].finditer(text):
        char = stop.group()
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0:
            parts.append(text[last : stop.start()])
            last = stop.end()
    parts.append(text[last:])
    return [part.strip() for part in parts if part.strip()]


def members(name: str) -> tuple[str, ...]:
    """The member names of a fused layer, in printed order; ``()`` for a plain layer.

    ``a + b + PWN(PWN(c), d)`` -> ``(a, b, c, d)``; ``{ForeignNode[x...y + z]}`` -> ``(x, y, z)``
    (a ForeignNode prints only the first and last node of the range it fused; the ONNX model,
    when given, expands the range).
    """
    found = _members(name)
    return tuple(found) if found != [name] else ()


_MAX_NESTING = 32  # deeper PWN(...) / ForeignNode nesting is kept as one member


def _members(name: str, depth: int = 0) -> list[str]:
    name = name.strip()
    if depth >= _MAX_NESTING:
        return [name]
    foreign = _FOREIGN.match(name)
    if foreign:
        ends = _split_top(foreign.group("body"), "...")
        return [member for end in ends for member in _members(end, depth + 1)]
    pwn = _PWN.match(name)
    if pwn:
        parts = _split_top(pwn.group("body"), ", ")
        return [member for part in parts for member in _members(part, depth + 1)]
    parts = _split_top(name, " + ")
    if len(parts) > 1:
        return [member for part in parts for member in _members(part, depth + 1)]
    return [name]


def foreign_range(name: str) -> tuple[str, str] | None:
    """``{ForeignNode[first...last]}`` -> the first and last names of the fused range."""
    foreign = _FOREIGN.match(name.strip())
    if not foreign:
        return None
    ends = _split_top(foreign.group("body"), "...")
    if len(ends) != 2:
        return None
    first = _members(ends[0])
    last = _members(ends[1])
    return first[0], last[-1]
