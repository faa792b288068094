"""Attribute-like macros: the one piece of preprocessing the C/C++ front end does.

tree-sitter parses C/C++ without a preprocessor, so a declaration such as NVIDIA's
``class TRT_DEPRECATED IPluginV2DynamicExt : public ...`` or
``extern "C" TENSORRTAPI int32_t getInferLibVersion() noexcept;`` is a syntax error to it. Such
macros expand to nothing or to an attribute (``[[deprecated]]``, ``__attribute__((...))``,
``__declspec(...)``). :func:`attribute_macros` finds them in the ``#define`` lines of the scanned
sources themselves (parsed with tree-sitter, never a hand list), and :func:`blank_macros` replaces
their uses outside preprocessor lines with spaces, so byte offsets and line numbers stay as they
were.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from trtsafe_lab.migrate import cpp_tree as t
from trtsafe_lab.migrate import syntax_tree as st

_ATTRIBUTE_STARTS = ("[[", "__attribute__", "__declspec", "alignas")
_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")


def define_lines(source: bytes) -> bytes:
    """Only the ``#define`` directives of ``source`` (with their continuation lines)."""
    out: list[bytes] = []
    keep = False
    for line in source.split(b"\n"):
        stripped = line.lstrip()
        if not keep:
            keep = stripped.startswith(b"#") and stripped[1:].lstrip().startswith(b"define")
        if keep:
            out.append(line)
            keep = line.rstrip().endswith(b"\\")
    return b"\n".join(out) + b"\n"


def _definitions(sources: Iterable[bytes]) -> dict[str, list[tuple[bool, str]]]:
    """Macro name -> [(function-like, body text)] for every ``#define`` in ``sources``."""
    found: dict[str, list[tuple[bool, str]]] = {}
    for source in sources:
        root = t.parse(define_lines(source))
        for node in st.walk(root):
            if node.type not in ("preproc_def", "preproc_function_def"):
                continue
            name = st.text(node.child_by_field_name("name"))
            body = " ".join(st.text(node.child_by_field_name("value")).split())
            found.setdefault(name, []).append((node.type == "preproc_function_def", body))
    return found


def attribute_macros(sources: Iterable[bytes]) -> dict[str, bool]:
    """Name -> function-like, for macros whose every definition in ``sources`` is empty, an
    attribute, or other such macros (``#define TRT_DEPRECATED_ENUM TRT_DEPRECATED``)."""
    definitions = _definitions(sources)
    found: dict[str, bool] = {}
    changed = True
    while changed:
        changed = False
        for name, bodies in definitions.items():
            if name in found:
                continue
            if all(_attribute_like(body, found) for _, body in bodies):
                found[name] = bodies[0][0]
                changed = True
    return {name: function for name, function in found.items() if definitions[name]}


def _attribute_like(body: str, known: dict[str, bool]) -> bool:
    if not body or body.startswith(_ATTRIBUTE_STARTS):
        return True
    words = body.split()
    return all(w in known or w.split("(")[0] in known for w in words)


def blank_macros(source: bytes, macros: dict[str, bool]) -> bytes:
    """``source`` with uses of ``macros`` (and a function-like macro's argument list) turned
    into spaces, outside preprocessor lines; same length, same lines."""
    if not macros:
        return source
    names = {name.encode() for name in macros}
    data = bytearray(source)
    directive = False
    start = 0
    for line in source.split(b"\n"):
        end = start + len(line)
        stripped = line.lstrip()
        if not directive:
            directive = stripped.startswith(b"#")
        if directive:
            directive = line.rstrip().endswith(b"\\")
        elif names & set(_IDENTIFIER.findall(line)):
            for match in _IDENTIFIER.finditer(line):
                if match.group() in names:
                    _blank(data, start + match.start(), start + match.end(), end, macros)
        start = end + 1
    return bytes(data)


def _blank(data: bytearray, begin: int, end: int, line_end: int, macros: dict[str, bool]) -> None:
    name = data[begin:end].decode()
    stop = end
    if macros.get(name):  # function-like: blank "(...)" too when it follows on the same line
        i = end
        while i < line_end and data[i : i + 1] in (b" ", b"\t"):
            i += 1
        if i < line_end and data[i : i + 1] == b"(":
            depth = 0
            while i < line_end:
                depth += {ord("("): 1, ord(")"): -1}.get(data[i], 0)
                i += 1
                if depth == 0:
                    stop = i
                    break
    for i in range(begin, stop):
        if data[i] not in (ord("\n"),):
            data[i] = ord(" ")
