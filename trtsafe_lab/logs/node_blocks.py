"""The ONNX parser's node blocks: what a record says about the node being imported.

The parser prints a node's block only when the node fails: a ``While parsing node number N
[Op -> "out"]`` header, then (TensorRT 7-8) the NodeProto dump between ``--- Begin node ---``
and ``--- End node ---`` whose top-level ``name:`` is the node's name; verbose logs name the
node before that in ``X [Op] inputs: [...]`` / ``Parsing node: X [Op]`` lines
(onnx-tensorrt ModelImporter.cpp ``parseNode``). :data:`PARSER_ERROR` is the wording of the
parser's own errors, which close a block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trtsafe_lab.logs.name_tokens import MAX_NAME_CHARS
from trtsafe_lab.logs.parse_state import (
    ParseState,
    recent_error_category,
    recent_unsupported_reason,
)

# ``While parsing node number N [Op -> "out"]``: the head by a pattern, the quoted output (at
# most MAX_HEADER_OUTPUT characters, no newline, up to the last '"]') by str.rfind. As one
# pattern, ``(?: -> "(?P<out>.{0,4096})")?\]``, it backtracked 4096 characters at every head
# of a line that repeats the head without a closing '"]' (0.25 MB/s); see search_header.
_PARSE_HEADER_HEAD = re.compile(r"While parsing node number (?P<index>-?\d+) \[(?P<op>[^\]\s]*)")
MAX_HEADER_OUTPUT = 4096
_DUMP_NAME = re.compile(r'^name: "(?P<name>.{0,4096})"\s*$')
# "X [Op] inputs: [...]" (every version) and "Parsing node: X [Op]" (onnx-tensorrt 8.6+)
# (matched after the "ModelImporter.cpp:NNN: " location when the line has one, else at its start)
IMPORTER_NODE = re.compile(
    rf"(?:(?P<name>[^\s\[][^\n]{{0,{MAX_NAME_CHARS - 1}}}?) \[(?P<op>\w{{1,64}})\] inputs: "
    rf"|(?:Static check for )?[Pp]arsing node: (?P<parsing>[^\n]{{1,{MAX_NAME_CHARS}}}?)"
    r" \[\w{1,64}\]\s*$)"
)
IMPORTER_LOCATION = re.compile(r"ModelImporter\.cpp:\d{1,9}: ")
PARSER_ERROR = re.compile(
    r"(?:ModelImporter|importers?|onnxOpCheckers|onnx2trt\w{0,40})\.cpp:\d{1,9}"
    r" In function \w{1,200}:"
    r"|(?:^|\s)In function import\w+:|In node -?\d+ \(\w+\): [A-Z_]+:|INVALID_NODE|UNSUPPORTED_NODE"
    # (the parser's error code may lead: "[6] Invalid Node - X")
    r"|^(?:\[\d{1,3}\] )?(?:Invalid Node - |Exception occurred in - )"
)


@dataclass(frozen=True)
class BlockFinding:
    """The node of an ONNX-parser block (``While parsing node number N [Op -> "out"]`` and its
    NodeProto dump) that no parser error followed: the parser prints the block only when the
    node fails, so the block alone blames it."""

    layer: str
    line: int
    message: str
    category: str = "parser-error"  # parser-unsupported when an unsupported-op error led to it


@dataclass(frozen=True)
class HeaderMatch:
    """What the single pattern ``While parsing node number (?P<index>-?\\d+)
    \\[(?P<op>[^\\]\\s]*)(?: -> "(?P<out>.{0,4096})")?\\]`` finds with ``re.search``:
    ``whole`` (its group 0), ``index``, ``op`` and ``out`` (None without an output)."""

    whole: str
    index: str
    op: str
    out: str | None


def search_header(text: str) -> HeaderMatch | None:
    """The first ONNX-parser node header in ``text`` (see :class:`HeaderMatch`).

    Heads are tried at each occurrence of the literal in turn (one may start inside the
    previous head's op run, which holds no space); a head ends before the next occurrence's
    first space, so each is handed only the text up to there (linear in all)."""
    literal = "While parsing node number "
    position = text.find(literal)
    while position != -1:
        following = text.find(literal, position + 1)
        endpos = len(text) if following == -1 else following + 5  # "While" then a space
        head = _PARSE_HEADER_HEAD.match(text, position, endpos)
        if head is not None:
            index, op, end = head.group("index"), head.group("op"), head.end()
            if text.startswith(' -> "', end):
                start = end + 5
                limit = min(len(text), start + MAX_HEADER_OUTPUT + 2)
                newline = text.find("\n", start, limit)
                close = text.rfind('"]', start, limit if newline == -1 else newline)
                if close != -1:
                    return HeaderMatch(text[position : close + 2], index, op, text[start:close])
            if text.startswith("]", end):
                return HeaderMatch(text[position : end + 1], index, op, None)
        position = following
    return None


def update_block(state: ParseState, text: str, line_no: int) -> None:
    """Follow the open block through one line: a header opens one, a dump gives its name."""
    header = search_header(text)
    if header is not None:
        state.header_seen = True
        state.header_output = header.out or ""
        state.header_line = line_no
        state.header_text = header.whole
        state.header_category = recent_error_category(state) or state.last_error_category
        state.header_reason = recent_unsupported_reason(state)
        state.dump_name = ""
        state.in_dump = False
        return
    stripped = text.strip()
    if stripped.endswith("--- Begin node ---"):
        state.in_dump = True
        state.dump_depth = 0
        state.dump_name = ""
        return
    if stripped.endswith("--- End node ---"):
        state.in_dump = False
        return
    if state.in_dump:
        if state.dump_depth == 0 and not state.dump_name:
            dump = _DUMP_NAME.match(stripped)
            if dump is not None:
                state.dump_name = dump.group("name")
        state.dump_depth += stripped.count("{") - stripped.count("}")
        state.dump_depth = max(state.dump_depth, 0)


def open_block(state: ParseState) -> BlockFinding | None:
    """The open node block's finding: its dump's node name, else the header's output tensor."""
    name = state.dump_name or state.header_output
    if not state.header_seen or not name:
        return None
    if state.header_category == "parser-unsupported":
        # the row says why: the importer's words before the header, then the header
        reason = state.header_reason
        text = f"{reason}\n{state.header_text}" if reason else state.header_text
        return BlockFinding(name, state.header_line, text, "parser-unsupported")
    return BlockFinding(name, state.header_line, state.header_text, "parser-error")


def reset_block(state: ParseState) -> None:
    """Close the open block (a parser error ended it, or it was abandoned)."""
    state.header_seen = False
    state.header_output = ""
    state.dump_name = ""
    state.in_dump = False


def dump_text(text: str) -> str:
    """The NodeProto text on an ``ModelImporter.cpp:NNN: input: "x"`` head line."""
    head, sep, rest = text.partition(".cpp:")
    if sep and "ModelImporter" in head:
        _, _, after = rest.partition(": ")
        return after
    return text
