"""Derive the trtexec / trtexec_safe flag tables from NVIDIA's sources (a build-time script).

    python -m trtsafe_lab.trtexec._tables.derive [REFERENCE_DIR] [--out DIR] [--check]

``REFERENCE_DIR`` is the folder holding NVIDIA's TensorRT OSS files per version
(``<dir>/10.16/...``, ``<dir>/11.1/...``; default ``../shared/reference/tensorrt-oss``). The script
reads, without compiling anything:

- trtexec: ``samples/common/sampleOptions.cpp`` (+ ``sampleOptions.h`` for member types and
  ``default*`` constants). Every ``"--flag"`` literal passed to a ``get*`` option call in the
  parse functions that ``AllOptions::parse`` runs (the safe-builder and task-inference parsers are
  other tools and are skipped). The value kind comes from the C++ type of the variable the value
  is read into (``bool`` -> a switch whose value is ignored, ``int32_t`` -> ``std::stoi``, ...);
  the help text and default from the ``help()`` functions; the status from the source
  (``[Deprecated]`` / ``no-op`` in the help, a ``dummyBool`` read, a "deprecated" warning).
- trtexec_safe: ``samples/trtSafeExec/trtSafeExec.cpp``: ``parseSafeExecArgs`` (each
  ``parseString``/``parseBool`` branch: a value flag needs ``--name=value``, a switch must be
  exactly ``--name``; anything else is ``Invalid Argument``), ``SafeExecArgs`` defaults and
  ``printHelpInfo``.
- ``--safetyPlugins`` (both tools): ``samples/common/safeCommon.h`` ``parseSafetyPluginArgument``
  (the ``lib[ns::name,...]`` syntax :func:`trtsafe_lab.trtexec.tool_parser.safety_plugin_problem`
  models; its stderr line) and the message each tool adds when it fails (trtexec: the
  ``stringToValue`` specialisation in ``sampleOptions.cpp``; trtexec_safe:
  ``parseSafetyPluginLibrary``). A source whose parser no longer has that shape stops the script.

Versions 10.16 and 11.1 come from the sources. A flag that a version's parser no longer reads but
the previous version's did is kept as a ``removed`` row (the real tool rejects it as unknown).
11.3 and 11.4 are 11.1 plus :data:`DELTAS` (NVIDIA's 10.x -> 11.x safety migration guide, as
recorded in reference/tensorrt-facts.md): each delta is written once here, with its source.

Output: one JSON file per tool and version (``trtexec-11.1.json``, ...) next to this script; the
package reads them with :mod:`trtsafe_lab.trtexec.flag_table`. ``--check`` compares instead of
writing and exits 1 on drift (the test suite does the same).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from trtsafe_lab.trtexec.flag_table import FlagSpec
from trtsafe_lab.trtexec.options import TOOLS

SOURCE_VERSIONS = ("10.16", "11.1")
DERIVED_VERSIONS = ("11.3", "11.4")
SAMPLE_OPTIONS = "samples/common/sampleOptions.cpp"
SAMPLE_OPTIONS_H = "samples/common/sampleOptions.h"
TRT_SAFE_EXEC = "samples/trtSafeExec/trtSafeExec.cpp"
SAFE_COMMON = "samples/common/safeCommon.h"
FACTS = "reference/tensorrt-facts.md (NVIDIA 10.x->11.x safety migration guide)"
SCHEMA = 1


# 11.3 / 11.4 changes that no public source shows (the sources stop at 11.1). Written once, each
# with its source; applied to the 11.1 tables in version order.
DELTAS: list[dict[str, Any]] = [
    {"since": "11.3", "tool": "trtexec", "op": "add", "source": FACTS,
     "row": FlagSpec("--saveEngineSo", True, "string", "<saveEngine>.so",
                    "Companion .so of a safe engine (requires --safe).",
                    note="11.3+: safe builds write a companion .so beside the engine; "
                    "requires --safe")},
    {"since": "11.3", "tool": "trtexec", "op": "add", "source": FACTS,
     "row": FlagSpec("--loadEngineSo", True, "string", "<loadEngine>.so",
                    "Companion .so of a safe engine to load (requires --safe).",
                    note="11.3+: requires --safe")},
    {"since": "11.3", "tool": "trtexec_safe", "op": "add", "source": FACTS,
     "row": FlagSpec("--loadEngineSo", True, "string", "<loadEngine>.so",
                    "Companion .so of the safe engine to load.",
                    note="11.3+: the companion .so matched with --loadEngine")},
]


# --------------------------------------------------------------------------- C++ text helpers

_STRING_RE = re.compile(r'R"\((?P<raw>.*?)\)"|"(?P<str>(?:[^"\\\n]|\\.)*)"', re.S)


def _unescape(text: str) -> str:
    return (text.replace("\\n", "\n").replace('\\"', '"').replace("\\'", "'")
            .replace("\\t", "\t").replace("\\\\", "\\"))


def _strip_comments(text: str) -> str:
    """Blank out // and /* */ comments, keeping line numbers and string literals."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith('R"(', i):
            end = text.find(')"', i + 3)
            end = n if end < 0 else end + 2
            out.append(text[i:end])
            i = end
        elif text[i] == '"':
            match = re.compile(r'"(?:[^"\\\n]|\\.)*"').match(text, i)
            end = match.end() if match else i + 1
            out.append(text[i:end])
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif text[i] == "'" and i + 2 < n:
            match = re.compile(r"'(?:[^'\\]|\\.)'").match(text, i)
            end = match.end() if match else i + 1
            out.append(text[i:end])
            i = end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _matching(text: str, start: int, open_ch: str = "{", close_ch: str = "}") -> int:
    """Index just past the bracket matching the one at ``start`` (strings skipped)."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch == '"':
            match = _STRING_RE.match(text, i)
            i = match.end() if match else i + 1
            continue
        if text.startswith('R"(', i):
            match = _STRING_RE.match(text, i)
            i = match.end() if match else i + 1
            continue
        if ch == open_ch:
            depth += 1
        elif ch == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError(f"unbalanced {open_ch}{close_ch} from offset {start}")


def _functions(text: str) -> Iterator[tuple[str, int, int]]:
    """(qualified name, body start, body end) of each top-level function definition."""
    head = re.compile(
        r"^[A-Za-z_][\w:<>,\s\*&]*?\b(?P<name>[A-Za-z_][\w:~]*)\s*\((?P<args>[^;{}]*)\)"
        r"\s*(?:const\s*)?(?:noexcept\s*)?\{", re.M)
    pos = 0
    while True:
        match = head.search(text, pos)
        if match is None:
            return
        brace = match.end() - 1
        end = _matching(text, brace)
        yield match["name"], brace, end
        pos = end


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _conditions(text: str) -> list[str]:
    """For each line (1-based index), the #if guard active there ('' when none)."""
    stack: list[str] = []
    per_line = [""]
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#if"):
            stack.append(stripped)
        elif stripped.startswith("#endif") and stack:
            stack.pop()
        per_line.append(" && ".join(stack))
    return per_line


# --------------------------------------------------------------------------- help text

def _expr_value(expr: str, constants: dict[str, str]) -> str:
    expr = expr.strip()
    if expr in constants:
        return constants[expr]
    joined = re.fullmatch(r"joinValuesToString\((\w+),\s*\"(.*)\"\)", expr)
    if joined and joined[1] in constants:
        return constants[joined[1]].replace(", ", joined[2]).replace(" ", "")
    return f"<{expr}>"


def help_lines(body: str, constants: dict[str, str]) -> list[str]:
    """The text a help function prints: its string literals joined, ``std::endl`` as newlines and
    ``<< expression <<`` replaced by the constant's value (``<expr>`` when not a constant)."""
    token = re.compile(
        r'R"\((?P<raw>.*?)\)"|"(?P<str>(?:[^"\\\n]|\\.)*)"|(?P<endl>std::endl)'
        r"|<<\s*(?P<expr>(?!std::endl)[A-Za-z_][\w:.]*(?:\([^;]*?\))?)\s*(?=<<|;)", re.S)
    out: list[str] = []
    for match in token.finditer(body):
        if match["raw"] is not None:
            out.append(match["raw"])
        elif match["str"] is not None:
            out.append(_unescape(match["str"]))
        elif match["endl"]:
            out.append("\n")
        elif match["expr"]:
            out.append(_expr_value(match["expr"], constants))
    return "".join(out).split("\n")


_SYN = r"-{1,2}[A-Za-z]\w*(?:\[?=(?:<[^>]*>|[^\s\]]*)\]?)?"
_ENTRY_RE = re.compile(rf"^\s{{1,6}}(?P<syn>{_SYN}(?:(?:,\s*| or ){_SYN})?)"
                       r"(?:\s{2,}(?P<text>.*))?$")


def help_entries(lines: list[str]) -> dict[str, tuple[str, str]]:
    """``{key: (synopsis, text)}`` for every help entry; continuation lines are appended."""
    entries: dict[str, tuple[str, str]] = {}
    current: list[str] = []
    for line in lines:
        match = _ENTRY_RE.match(line)
        if match:
            syn = match["syn"]
            current = re.findall(r"(?:^|,\s*| or )(-{1,2}[A-Za-z]\w*)", syn)
            text = (match["text"] or "").strip()
            for key in current:
                if key not in entries:
                    entries[key] = (syn, text)
        elif current and line.startswith(" " * 8) and line.strip():
            for key in current:
                if key in entries:
                    syn, text = entries[key]
                    entries[key] = (syn, f"{text} {line.strip()}".strip())
        else:
            current = []
    return entries


def default_from_help(text: str) -> str:
    match = re.search(r"default\s*(?:=|is)\s*([^)]*?)\s*(?:\)|$)", text, re.I)
    return match[1].strip().rstrip(".") if match else ""


def status_from_help(text: str) -> str:
    lowered = text.lower()
    if "no-op" in lowered:
        return "no-op"
    if "[deprecated]" in lowered:
        return "deprecated"
    return "active"


# --------------------------------------------------------------------------- --safetyPlugins

PLUGIN_KIND = "plugin_spec"
# The shape of safeCommon.h parseSafetyPluginArgument that tool_parser.safety_plugin_problem
# models: the first '[' and the first ']' both present, '[' before ']', a library name before it.
_PLUGIN_PARSER_SHAPE = (
    r"leftBracketIdx\s*=\s*option\.find\('\['\)",
    r"rightBracketIdx\s*=\s*option\.find\('\]'\)",
    r"leftBracketIdx\s*==\s*std::string::npos\s*\|\|\s*rightBracketIdx\s*==\s*std::string::npos"
    r"\s*\|\|\s*leftBracketIdx\s*>\s*rightBracketIdx",
    r"libraryName\s*=\s*option\.substr\(0,\s*leftBracketIdx\)",
    r"libraryName\.empty\(\)",
)


def _body_after(text: str, pattern: str, where: str) -> str:
    match = re.search(pattern, text)
    if match is None:
        raise ValueError(f"{where}: no match for {pattern!r}; the safety-plugin parser changed: "
                         "update derive.py and tool_parser.safety_plugin_problem")
    brace = text.index("{", match.end())
    return text[brace:_matching(text, brace)]


def plugin_parser_log(version_dir: Path) -> str:
    """The stderr line ``parseSafetyPluginArgument`` (safeCommon.h) prints for a value it
    rejects, without the value. Raises ValueError when the parser no longer has the shape that
    :func:`trtsafe_lab.trtexec.tool_parser.safety_plugin_problem` models."""
    where = f"{version_dir.name}/{SAFE_COMMON}"
    text = _strip_comments((version_dir / SAFE_COMMON).read_text(encoding="utf-8"))
    body = _body_after(text, r"\bbool\s+parseSafetyPluginArgument\s*\([^)]*\)", where)
    for part in _PLUGIN_PARSER_SHAPE:
        if re.search(part, body) is None:
            raise ValueError(f"{where}: parseSafetyPluginArgument no longer matches {part!r}; "
                             "update derive.py and tool_parser.safety_plugin_problem")
    logged = re.search(r'SAFE_LOG\s*<<\s*"([^"]*)"\s*<<\s*option\b', body)
    if logged is None:
        raise ValueError(f"{where}: parseSafetyPluginArgument logs no rejected option")
    return _unescape(logged[1])


def _plugin_error(body: str, calls: str, message: str, where: str) -> str:
    """The error literal of a caller of parseSafetyPluginArgument (``message`` names the
    variable the literal is joined with); raises ValueError when it is not there."""
    if "parseSafetyPluginArgument(" not in body:
        raise ValueError(f"{where}: {calls} no longer calls parseSafetyPluginArgument")
    found = re.search(r'"([^"]*)"\s*\+\s*' + message + r"\b", body)
    if found is None:
        raise ValueError(f"{where}: {calls} reports no message joined with {message}")
    return _unescape(found[1])


def _trtexec_plugin_messages(version_dir: Path, text: str) -> tuple[str, str]:
    """(error, log_line) of trtexec's ``--safetyPlugins`` value conversion: the
    ``stringToValue<SafetyPluginLibraryArgument>`` specialisation throws
    ``invalid_argument(<error> + option)`` after parseSafetyPluginArgument logged its line."""
    where = f"{version_dir.name}/{SAMPLE_OPTIONS}"
    body = _body_after(text, r"stringToValue<\s*[\w:]*SafetyPluginLibraryArgument\s*>\s*\("
                       r"\s*std::string\s+const\s*&\s*option\s*\)", where)
    error = _plugin_error(body, "stringToValue<SafetyPluginLibraryArgument>", "option", where)
    return error, plugin_parser_log(version_dir)


def _safe_plugin_messages(version_dir: Path, text: str, bodies: dict[str, tuple[int, int]],
                          name: str) -> tuple[str, str]:
    """(error, log_line) of trtexec_safe's ``--<name>=`` branch: ``parseSafetyPluginLibrary``
    logs ``<error> + arg`` (the whole ``--name=value``) when parseSafetyPluginArgument fails;
    the branch then falls through to ``Invalid Argument``."""
    where = f"{version_dir.name}/{TRT_SAFE_EXEC}"
    if "parseSafetyPluginLibrary" not in bodies:
        raise ValueError(f"{where}: no parseSafetyPluginLibrary; update derive.py")
    body = text[slice(*bodies["parseSafetyPluginLibrary"])]
    if re.search(r'"--"\s*\+\s*name\s*\+\s*"="', body) is None:
        raise ValueError(f"{where}: parseSafetyPluginLibrary no longer matches '--<name>='")
    error = _plugin_error(body, "parseSafetyPluginLibrary", "arg", where)
    return f"{error}--{name}=", plugin_parser_log(version_dir)


# --------------------------------------------------------------------------- trtexec

_GET_CALLS = {"getAndDelOption", "getAndDelNegOption", "getOption", "getAndDelOptionWithPosition",
              "getAndDelOptionBehind", "getAndDelRepeatedOption"}
_CONSUMING = _GET_CALLS - {"getOption"}
_LOOPED = {"getAndDelOptionWithPosition", "getAndDelOptionBehind", "getAndDelRepeatedOption"}
_SKIPPED_PARSERS = ("SafeBuilderOptions::parse", "TaskInferenceOptions::parse")
_TYPE_KINDS = {"bool": "switch", "int32_t": "int", "int": "int", "int64_t": "int",
               "size_t": "size", "float": "float", "double": "float_size",
               "std::string": "string"}


def _constants(header: str) -> dict[str, str]:
    consts: dict[str, str] = {}
    for match in re.finditer(r"constexpr\s+[\w:<>,\s]+?\s(\w+)\s*\{([^{}]*)\}", header):
        value = re.sub(r"(\d)\.?F\b", r"\1", match[2].strip()) or "0"
        consts[match[1]] = value
    return consts


def _struct_body(header: str, name: str) -> str:
    match = re.search(rf"\b(?:struct|class)\s+{name}\b[^;{{]*\{{", header)
    if match is None:
        return ""
    return header[match.end() - 1:_matching(header, match.end() - 1)]


def _declared_type(var: str, *scopes: str) -> str:
    decl = re.compile(rf"([A-Za-z_][\w:]*(?:<[^;>]*>)?)\s+{re.escape(var)}\s*(?:\{{|;|=|\[)")
    for scope in scopes:
        for match in decl.finditer(scope):
            if match[1] not in {"return", "auto", "const", "else"}:
                return match[1]
    return ""


def _call_at(body: str, literal_start: int) -> tuple[str, list[str]]:
    """The name of the call whose argument list holds the literal, and its arguments."""
    depth = 0
    i = literal_start
    while i > 0:
        i -= 1
        ch = body[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            if depth == 0:
                break
            depth -= 1
        elif ch in ";{}" and depth == 0:
            return "", []
    name = re.search(r"([A-Za-z_]\w*)\s*$", body[:i])
    end = _matching(body, i, "(", ")")
    args = [a.strip() for a in body[i + 1:end - 1].split(",")]
    return (name[1] if name else ""), args


def _string_choices(var: str, body: str) -> list[str]:
    found = re.findall(rf'\b{re.escape(var)}\s*==\s*"([^"]*)"', body)
    found += re.findall(rf'toLower\({re.escape(var)}\)\s*==\s*"([^"]*)"', body)
    return list(dict.fromkeys(c for c in found if c))


def header_for(version_dir: Path) -> Path:
    """``sampleOptions.h`` of this version, else of the newest source version that has one (10.16's
    header is not in the reference; member types and ``default*`` constants then come from it)."""
    own = version_dir / SAMPLE_OPTIONS_H
    if own.is_file():
        return own
    for version in reversed(SOURCE_VERSIONS):
        other = version_dir.parent / version / SAMPLE_OPTIONS_H
        if other.is_file():
            return other
    raise FileNotFoundError(f"no {SAMPLE_OPTIONS_H} under {version_dir.parent}")


def derive_trtexec(version_dir: Path) -> list[FlagSpec]:
    """Every flag trtexec's option parser (``AllOptions::parse``) reads, in source order."""
    raw = (version_dir / SAMPLE_OPTIONS).read_text(encoding="utf-8")
    text = _strip_comments(raw)
    header = _strip_comments(header_for(version_dir).read_text(encoding="utf-8"))
    constants = _constants(header)
    guards = _conditions(raw)
    rows: dict[str, FlagSpec] = {}
    helps: dict[str, tuple[str, str]] = {}
    # Helpers that read their ``argument`` in a loop (``--profile``): each occurrence is read.
    looping_helpers = {name.split("::")[-1] for name, start, end in _functions(text)
                       if re.search(r"while\s*\(\s*getAndDel\w*\(\s*arguments\s*,\s*argument\b",
                                    text[start:end])}
    for name, start, end in _functions(text):
        body = text[start:end]
        if name.endswith("::help") or name == "helpHelp":
            if not name.startswith(("SafeBuilderOptions", "TaskInferenceOptions")):
                for key, entry in help_entries(help_lines(body, constants)).items():
                    helps.setdefault(key, entry)
            continue
        if name in _SKIPPED_PARSERS or "arguments" not in body:
            continue
        struct = _struct_body(header, name.split("::")[0]) if "::" in name else ""
        for lit in re.finditer(r'"(-{1,2}[A-Za-z][A-Za-z0-9_]*)"', body):
            call, args = _call_at(body, lit.start())
            if not call.startswith("get") and call not in {"getFormats"}:
                continue
            key = lit[1]
            offset = start + lit.start()
            line = _line_of(text, offset)
            line_text = raw.splitlines()[line - 1]
            looped = (call in _LOOPED or line_text.lstrip().startswith("while")
                      or call in looping_helpers)
            if call in _GET_CALLS:
                var = args[3] if call == "getAndDelOptionBehind" else args[2]
                ctype = _declared_type(var, body[:lit.start()], struct, header)
                if var == "dummyBool" or ctype == "bool":
                    kind = "switch"
                elif ctype:
                    kind = _TYPE_KINDS.get(ctype, "spec")
                elif re.search(rf"\b{re.escape(var)}\s*(?:>=|<=|<|>)\s*\w|\[{re.escape(var)}\]",
                               body):
                    kind = "int"  # compared or indexed as a number; type not in the sources
                else:  # type not declared in the sources at hand: the help synopsis decides
                    kind = "unknown"
                choices = _string_choices(var, body) if kind == "string" else []
                error = log_line = ""
                if ctype.endswith("SafetyPluginLibraryArgument"):
                    kind, error, log_line = PLUGIN_KIND, *_trtexec_plugin_messages(
                        version_dir, text)
                if choices:
                    kind = "choice"
                    thrown = re.search(r'invalid_argument\(\s*std::string\("([^"]*)"\)\s*\+\s*'
                                       + re.escape(var) + r"\b", body)
                    error = thrown[1] if thrown else ""
            else:
                var, kind, choices, error, log_line = "", "spec", [], "", ""
            status = "no-op" if var == "dummyBool" else "active"
            consuming = call in _CONSUMING or call not in _GET_CALLS
            row = rows.get(key)
            if row is None:
                row = FlagSpec(key, kind != "switch", kind, choices=choices, error=error,
                              log_line=log_line,
                              choices_ignore_case=bool(re.search(
                                  rf"toLower\({re.escape(var)}\)", body)) if var else False,
                              condition=guards[line], source=f"{SAMPLE_OPTIONS}:{line}",
                              status=status, repeatable=looped, max_count=0)
                rows[key] = row
            if consuming:
                row.max_count += 1
            row.repeatable = row.repeatable or looped
            # A "deprecated" warning printed where the flag is read.
            block = (text[offset:text.find("}", offset)]
                     if re.search(r"\b(?:if|while) \(", line_text) else "")
            if row.status == "active" and re.search(r"deprecated", block, re.I):
                row.status = "deprecated"
    for row in rows.values():
        row.max_count = max(row.max_count, 1)
        syn, text_ = helps.get(row.key, ("", ""))
        row.help = text_
        row.default = default_from_help(text_)
        if row.value_kind == "unknown":
            valued = "=" in syn or not syn
            row.value_kind = "spec" if valued else "switch"
            row.takes_value = valued
            row.note = ("value kind from the --help synopsis (the variable's type is not in "
                        "the sources at hand)")
        from_help = status_from_help(text_)
        if from_help != "active" and row.status != "no-op":
            row.status = from_help
        if row.repeatable:
            row.max_count = 0
        if not row.help:
            row.note = "not in --help (hidden flag)"
    return list(rows.values())


# --------------------------------------------------------------------------- trtexec_safe

def derive_trtexec_safe(version_dir: Path) -> list[FlagSpec]:
    """Every flag trtexec_safe's ``parseSafeExecArgs`` accepts, in source order."""
    raw = (version_dir / TRT_SAFE_EXEC).read_text(encoding="utf-8")
    text = _strip_comments(raw)
    bodies = {name: (start, end) for name, start, end in _functions(text)}
    start, end = bodies["parseSafeExecArgs"]
    body = text[start:end]
    struct = _struct_body(text, "SafeExecArgs")
    defaults = {m[2]: re.sub(r"(\d)\.?F\b", r"\1", m[3].strip())
                for m in re.finditer(r"([\w:<>]+)\s+(\w+)\s*\{([^{}]*)\}\s*;", struct)}
    constants = {f"defArgs.{k}": v for k, v in defaults.items()}
    helps = help_entries(help_lines(text[slice(*bodies["printHelpInfo"])], constants))
    rows: list[FlagSpec] = []
    branch = re.compile(
        r'(?:loggedParseString|parseString)\((?:arg|argv\[i\]),\s*"(?P<str>\w+)"'
        r'|(?:loggedParseBool|parseBool)\((?:arg|argv\[i\]),\s*"(?P<bool>\w+)"'
        r'(?:,\s*(?P<short>\'\w\'|true))?'
        r'|parseSafetyPluginLibrary\([^,]+,\s*"(?P<plugin>\w+)"')
    matches = list(branch.finditer(body))
    for index, match in enumerate(matches):
        block_end = matches[index + 1].start() if index + 1 < len(matches) else len(body)
        block = body[match.end():block_end]
        line = _line_of(text, start + match.start())
        source = f"{TRT_SAFE_EXEC}:{line}"
        if match["bool"]:
            key = "-" + match["bool"] if match["short"] == "true" else "--" + match["bool"]
            if match["short"] == "true" and rows and rows[-1].key == "--help":
                key = "-h"
            row = FlagSpec(key, False, "switch", source=source)
            if match["short"] and match["short"] != "true":
                rows.append(row)
                row = FlagSpec("-" + match["short"].strip("'"), False, "switch", source=source)
        elif match["plugin"]:
            error, log_line = _safe_plugin_messages(version_dir, text, bodies, match["plugin"])
            row = FlagSpec("--" + match["plugin"], True, PLUGIN_KIND, repeatable=True,
                          max_count=0, error=error, log_line=log_line, source=source)
        else:
            kind = "string"
            if re.search(r"\bstd::stoll\(", block):
                kind = "int64"
            elif re.search(r"\bstoi\(", block):
                kind = "int"
            elif re.search(r"\bstof\(", block):
                kind = "float"
            row = FlagSpec("--" + match["str"], True, kind, source=source)
        member = re.search(r"args\.(\w+)\s*=", block)
        if member and member[1] in defaults and row.takes_value:
            row.default = defaults[member[1]].strip('"')
        if re.search(r"deprecated", block, re.I):
            row.status = "deprecated"
        rows.append(row)
    for row in rows:
        _syn, text_ = helps.get(row.key, ("", ""))
        row.help = text_
        if not row.default:
            row.default = default_from_help(text_)
        if status_from_help(text_) == "no-op":
            row.status = "no-op"
        if not row.help and row.key != "-h":
            row.note = "not in --help"
    # A repeat is never an error here: a value flag is overwritten (the last one wins), plugins
    # are appended (repeatable).
    for row in rows:
        if not row.repeatable:
            row.note = (row.note + "; " if row.note else "") + "a repeat overwrites: the last wins"
    return rows


# --------------------------------------------------------------------------- tables

def _with_removed(rows: list[FlagSpec], previous: list[FlagSpec] | None,
                  previous_version: str) -> list[FlagSpec]:
    if previous is None:
        return rows
    have = {r.key for r in rows}
    removed = [replace(r, status="removed", repeatable=False, max_count=1,
                       note=f"read by the {previous_version} parser, not by this one: the tool "
                       "rejects it as unknown")
               for r in previous if r.key not in have and r.status != "removed"]
    return rows + removed


def _apply_deltas(rows: list[FlagSpec], tool: str, version: str) -> tuple[list[FlagSpec], list]:
    applied = []
    rows = [replace(r) for r in rows]
    for delta in DELTAS:
        if delta["tool"] != tool or _vkey(delta["since"]) > _vkey(version):
            continue
        new = replace(delta["row"], source=delta["source"])
        rows = [r for r in rows if r.key != new.key] + [new]
        applied.append({"since": delta["since"], "op": delta["op"], "key": new.key,
                        "source": delta["source"]})
    return rows, applied


def _vkey(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def derive_all(reference: Path) -> dict[str, dict[str, Any]]:
    """``{file name: table}`` for every tool and version."""
    derive = {"trtexec": derive_trtexec, "trtexec_safe": derive_trtexec_safe}
    out: dict[str, dict[str, Any]] = {}
    for tool in TOOLS:
        previous: list[FlagSpec] | None = None
        previous_version = ""
        base: list[FlagSpec] = []
        for version in SOURCE_VERSIONS:
            rows = _with_removed(derive[tool](reference / version), previous, previous_version)
            out[f"{tool}-{version}.json"] = _table(
                tool, version, rows, _sources(reference, tool, version), [])
            previous, previous_version, base = rows, version, rows
        for version in DERIVED_VERSIONS:
            rows, applied = _apply_deltas(base, tool, version)
            out[f"{tool}-{version}.json"] = _table(
                tool, version, rows, _sources(reference, tool, SOURCE_VERSIONS[-1]), applied)
    return out


def _sources(reference: Path, tool: str, version: str) -> list[str]:
    common = f"tensorrt-oss/{version}/{SAFE_COMMON}"
    if tool == "trtexec_safe":
        return [f"tensorrt-oss/{version}/{TRT_SAFE_EXEC}", common]
    header = header_for(reference / version).relative_to(reference)
    return [f"tensorrt-oss/{version}/{SAMPLE_OPTIONS}", f"tensorrt-oss/{header.as_posix()}",
            common]


def _table(tool: str, version: str, rows: list[FlagSpec], sources: list[str],
           deltas: list[dict[str, Any]]) -> dict[str, Any]:
    return {"schema": SCHEMA, "tool": tool, "version": version, "derived_from": sources,
            "deltas": deltas, "generator": "python -m trtsafe_lab.trtexec._tables.derive",
            "flags": [asdict(r) for r in rows]}


def render(table: dict[str, Any]) -> str:
    return json.dumps(table, indent=1, ensure_ascii=False) + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The script's options. ``--out`` is None when omitted (then this package folder, where the
    tables ship): a Path default would put this checkout's absolute path into ``--help``."""
    from trtsafe_lab.help_format import HelpParser

    parser = HelpParser(prog="python -m trtsafe_lab.trtexec._tables.derive",
                        description=__doc__.split("\n")[0])
    parser.add_argument("reference", nargs="?", type=Path,
                        default=Path("../shared/reference/tensorrt-oss"),
                        help="folder of NVIDIA's TensorRT OSS files, <version>/samples/...")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="where to write the JSON tables (if omitted: trtsafe_lab/trtexec/"
                        "_tables, where they ship)")
    parser.add_argument("--check", action="store_true",
                        help="compare with the tables in --out; exit 1 when they differ")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = args.out or Path(__file__).resolve().parent
    tables = derive_all(args.reference)
    drift = []
    for name, table in tables.items():
        path = out / name
        text = render(table)
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                drift.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if drift:
        print(f"flag tables differ from the sources: {', '.join(drift)}; rerun "
              f"'python -m trtsafe_lab.trtexec._tables.derive {args.reference}'", file=sys.stderr)
        return 1
    print(f"{len(tables)} tables {'match' if args.check else 'written to ' + str(out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
