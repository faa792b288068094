"""The tensorrt Python API as NVIDIA's bindings source defines it (derived table, for the tests).

    python tests/tensorrt_api.py [REFERENCE_DIR]    # rewrites tests/fixtures/tensorrt_api_11.1.json

Reads ``<reference>/tensorrt-oss/11.1/python/src/infer/pyCore.cpp`` and ``pyGraph.cpp`` (no
compiling): every ``py::class_<T, Bases...>(m, "Name")`` / ``py::enum_<T>(scope, "Name")``
statement with its chained ``.def("method", ..., "kw"_a / py::arg("kw"))``, ``.def_static``,
``.def_property[_readonly]``, ``.def_readwrite``/``_readonly`` and enum ``.value("MEMBER")``, and
module functions ``m.def``. Base classes (template arguments that are bound classes) are
recorded so members are inherited. The table lists names and keyword names, not types.
``tests/test_tensorrt_names.py`` re-derives it and fails on drift; the TEST DOUBLE of tensorrt
(:mod:`tensorrt_double`) accepts only what it lists (plus the 11.4 names list for the parser
module, which is not in these two files).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TABLE = HERE / "fixtures" / "tensorrt_api_11.1.json"
SOURCES = ("11.1/python/src/infer/pyCore.cpp", "11.1/python/src/infer/pyGraph.cpp")
DEFAULT_REFERENCE = HERE.parent.parent / "shared" / "reference"

_HEAD = re.compile(r"py::(class_|enum_)<(?P<targs>[^;{(]*?)>\s*(?P<var>\w+)?\s*[({]\s*"
                   r"(?P<scope>\w+)\s*,\s*\"(?P<name>\w+)\"")
_MEMBER = re.compile(r"\.(?P<kind>def|def_static|def_property|def_property_readonly|def_readwrite|"
                     r"def_readonly|value)\(\s*\"(?P<name>\w+)\"")
_KWARG = re.compile(r"\"(\w+)\"_a|py::arg\(\"(\w+)\"\)")


def _statement_end(text: str, start: int) -> int:
    """Index of the ``;`` ending the statement that starts at ``start`` (strings, brackets)."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < len(text) and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == ";" and depth <= 0:
            return i
        i += 1
    return len(text)


def _call_args(text: str, open_paren: int) -> str:
    depth = 0
    for i in range(open_paren, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[open_paren + 1:i]
    return text[open_paren + 1:]


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", text)


def _members(chain: str, entry: dict[str, Any]) -> None:
    for match in _MEMBER.finditer(chain):
        kind, name = match["kind"], match["name"]
        args = _call_args(chain, match.end("kind"))
        if kind == "value":
            entry["values"].append(name)
        elif kind in ("def", "def_static"):
            kwargs = [a or b for a, b in _KWARG.findall(args)]
            kwargs = [k for k in kwargs if k != "self"]
            entry["methods"].setdefault(name, [])
            if kwargs not in entry["methods"][name]:
                entry["methods"][name].append(kwargs)
        else:
            entry["properties"][name] = {"writable": kind in ("def_property", "def_readwrite")
                                         and not _read_only_property(args)}


def _read_only_property(args: str) -> bool:
    """``def_property("x", getter, nullptr)``: a property without a setter."""
    parts = [p.strip() for p in args.split(",")]
    return len(parts) >= 3 and parts[2] == "nullptr"


def derive(reference: Path) -> dict[str, Any]:
    """``{"classes": {Name: {kind, bases, methods: {name: [kwarg lists]}, properties, values}},
    "functions": {name: [kwarg lists]}, "sources": [...]}``."""
    classes: dict[str, dict[str, Any]] = {}
    cpp_to_py: dict[str, str] = {}
    pending_bases: dict[str, list[str]] = {}
    functions: dict[str, list[list[str]]] = {}
    for rel in SOURCES:
        text = _strip_comments((reference / "tensorrt-oss" / rel).read_text(encoding="utf-8"))
        variables: dict[str, str] = {}
        for head in _HEAD.finditer(text):
            targs = [t.strip() for t in re.split(r",(?![^<]*>)", head["targs"])]
            name = head["name"]
            entry = classes.setdefault(name, {"kind": "enum" if head[1] == "enum_" else "class",
                                              "bases": [], "methods": {}, "properties": {},
                                              "values": [], "scope": ""})
            if head["scope"] != "m":
                entry["scope"] = variables.get(head["scope"], head["scope"])
            cpp_to_py[targs[0]] = name
            cpp_to_py[targs[0].split("::")[-1]] = name
            pending_bases[name] = targs[1:]
            if head["var"]:
                variables[head["var"]] = name
            _members(text[head.end():_statement_end(text, head.end())], entry)
        for var, name in variables.items():
            for stmt in re.finditer(rf"\b{var}\s*\.\s*(?=def|value)", text):
                _members(text[stmt.end() - 1:_statement_end(text, stmt.end())], classes[name])
        for fn in re.finditer(r"\bm\.def\(\s*\"(\w+)\"", text):
            args = _call_args(text, fn.start() + len("m.def"))
            kwargs = [a or b for a, b in _KWARG.findall(args)]
            functions.setdefault(fn[1], [])
            if kwargs not in functions[fn[1]]:
                functions[fn[1]].append(kwargs)
    for name, targs in pending_bases.items():
        classes[name]["bases"] = [cpp_to_py[t] for t in targs if t in cpp_to_py
                                  and cpp_to_py[t] != name]
    return {"sources": [f"tensorrt-oss/{s}" for s in SOURCES], "classes": classes,
            "functions": functions,
            "generator": "python tests/tensorrt_api.py (reads NVIDIA's pybind11 sources)"}


def render(table: dict[str, Any]) -> str:
    return json.dumps(table, indent=1, sort_keys=True) + "\n"


def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(TABLE.read_text(encoding="utf-8"))
    return data


def members(table: dict[str, Any], cls: str) -> set[str]:
    """Every member name of binding class ``cls``, inherited ones and nested enums included."""
    entry = table["classes"][cls]
    names = set(entry["methods"]) | set(entry["properties"]) | set(entry["values"])
    nested = {n: e for n, e in table["classes"].items() if e.get("scope") == cls}
    names |= set(nested)
    for e in nested.values():  # .export_values() puts an enum's values in its scope too
        names |= set(e["values"])
    for base in entry["bases"]:
        names |= members(table, base)
    return names


def method_kwargs(table: dict[str, Any], cls: str, method: str) -> list[list[str]] | None:
    """The keyword-name lists of ``cls.method``'s overloads (inherited too), or None."""
    entry = table["classes"][cls]
    if method in entry["methods"]:
        return list(entry["methods"][method])
    for base in entry["bases"]:
        found = method_kwargs(table, base, method)
        if found is not None:
            return found
    return None


if __name__ == "__main__":
    ref = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_REFERENCE
    TABLE.write_text(render(derive(ref)), encoding="utf-8")
    print(f"wrote {TABLE}")
