"""Failure signature of one message: the same failure whatever its names, numbers and logger.

:func:`signature` normalises one finding's message. First the record that holds the finding
is picked (a message holds several when the log's logger was not recognised) and what differs
between loggers, tools and TensorRT versions is dropped: logger prefixes, the ``Error Code N:
Kind (...)`` wrapper (TensorRT 5-7: ``file.cpp (N) - Kind Error in f: N (...)``), the ONNX
parser's wrapper of each parser version (``In <importer>: <reason>``), TensorRT 10's ``In f at
file:line``. Then the layer, its members and tensors, quoted strings and names standing where
TensorRT's grammar puts names become ``<name>``; timestamps ``<time>``; file paths ``<path>``;
tactic ids (hex or decimal) ``<tactic>``; other hexadecimal ids ``<hex>``; sizes with a unit
``<size>``; TensorRT's data type names (``Int32``, ``Float``, ``kHALF``, ...) ``<type>``;
dimension lists ``<dims>`` (symbolic extents count as numbers); other numbers ``<n>``.
``Error Code N`` and ``Error[N]`` keep their number (it is TensorRT's error family),
and source locations keep file and function (``[optimizer.cpp::computeCosts::<n>]``, MSVC's
namespaces dropped). Whitespace runs become one space. Logs whose wordings of one failure differ
share the row's ``explanation_id`` instead (tests/test_logs_signatures.py states the rule).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from trtsafe_lab.logs.categories import rule_category
from trtsafe_lab.logs.name_grammar import leading_name, positional_names
from trtsafe_lab.logs.name_tokens import (
    ERROR_CODE_WRAPPER,
    NATIVE_SOURCE_EXTENSION,
    SOURCE_EXTENSION,
    name_token,
)

MAX_SIGNATURE_CHARS = 600  # a signature keeps the start of a long message

_PATH = re.compile(r"(?<![\w:])(?:[A-Za-z]:)?(?:[\w.~-]{0,200}[/\\]){1,64}(?P<base>[\w.~-]{1,200})")
# "Error Code N: Kind (" (group ``kind``: the reason is in parentheses), or a bare "Error Code N: "
_WRAPPER = re.compile(ERROR_CODE_WRAPPER + r"|Error Code:? \d{1,9}: ")
_SUFFIX_LOCATION = re.compile(r"\.? In [\w:~<>]{1,200} at [\w./\\-]{1,300}:\d{1,9}")
_SOURCE_FILE = re.compile(rf"\.{SOURCE_EXTENSION}$")
_TIME = r"(?:\d{1,4}[/-]\d{1,2}[/-]\d{1,4}[-T ])?\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,9})?"
_SEVERITY = (
    r"(?:ERROR|WARNING|WARN|INFO|VERBOSE|DEBUG|FATAL|INTERNAL_ERROR"
    r"|error|warning|info|verbose|internal_error)"
)
# What loggers put in front of a message, one token at a time (whatever the record splitter of
# :mod:`trtsafe_lab.logs.records` left on the message). Seen in the train logs: timestamps
# ("19:54:12.555<TAB>ERROR<TAB>TRT: 10: ", n194), bracketed tags and source locations
# ("[TRT ERROR] ", n224; "[error][trt_builder.cpp:30]:NVInfer: 9: ", n287;
# "[ERROR] ultra_infer/.../trt_backend.cc(239)::log<TAB>10: ", n311), glog/absl and TensorFlow
# ("E0312 10:11:12.123456 1234 trt_engine_op.cc:123] ", "2021-03-04 10:11:12.1: E tensorflow/..."),
# Torch-TensorRT's "[... Conversion Context] - 4: ", TF-TRT's "TF-TRT Warning: ", "DefaultLogger ",
# the ONNX parser's "ModelImporter.cpp:776: ", trtexec's "Error[10]: ", TensorRT 10's API prefix
# "IBuilder::buildSerializedNetwork: ".
_LOGGER_TOKEN = re.compile(
    r"\s{1,64}"
    r"|" + _TIME + r"\]?(?=[:\t ]|$):?"
    r"|[\w-]{1,40} {1,40}\| "
    r"|\[[^\[\]\n]{1,300}\]:?"
    r"|" + _SEVERITY + r"(?: - |:? |:(?=\[))"
    r"|[*_>]{1,4}(?=\S)"
    r"|[EWIF]\d{4} (?=\d)"
    r"|[EWIF] (?=[\w./-]{1,300}\.\w{1,4}:\d{1,9}\] )"
    r"|\d{1,9} (?=[\w./-]{1,300}\.\w{1,4}:\d{1,9}\] )"
    r"|[\w./\\-]{1,300}\." + SOURCE_EXTENSION
    + r"(?::\d{1,9}|\(\d{1,9}\))(?:::\w{1,100})?[\]:]?(?=\s)"
    r"|(?:TRT|TensorRT|NVInfer|TRTLLM|TRT-LLM|TF-TRT(?: Warning| Error| Info)?): "
    r"|DefaultLogger "
    r"|- "
    r"|\d{1,3}: "
    r"|Error\[\d{1,9}\]: "
    r"|I[A-Z]\w{0,60}::\w{1,60}: "
)
MAX_PREFIX_TOKENS = 24
# A line of the message that starts another logger record (the record splitter did not know the
# logger): a timestamp, a bracketed severity, a glog letter+date, "ERROR:"/"ERROR<TAB>", after a
# markdown mark ("**_[08/14/2025-19:33:23] [E] ...", n116); a compose service's prefix ("http | ",
# n088; alone on a line in n131).
_RECORD_START = re.compile(
    r"[\w-]{1,40} {1,40}\|(?: (?=\S)|\s*$)"
    r"|[*_>\s]{0,4}\[?(?:"
    + _TIME + r"\]?(?=[:\t ]|$)"
    r"|\[(?:[\w -]{0,40} )?(?:" + _SEVERITY + r"|[EWIVF])\]"
    r"|[EWIF]\d{4} \d"
    r"|" + _SEVERITY + r"[:\t])"
)


# The ONNX parser's wrapper, worded differently by each parser version: 7.x/8.x
# "In function importResize: [8] Assertion failed: ...", 8.x "In node 3 (importTopK):
# UNSUPPORTED_NODE: ...", 10.x "In node 3 with name: X and operator: ScatterND (importScatterND):
# UNSUPPORTED_NODE_ATTR: ..."; all become "In <importer function>: <reason>". A (wrapped or not)
# "Invalid Node - X" is dropped when a reason follows it (the builder's error about the node).
_PARSER_WRAPPER = re.compile(
    r"In function (?P<function>\w{1,100}):? ?(?:> ?)?(?:\[\d{1,3}\] )?"
    r"|In node -?\d{1,9} (?:with name:(?: [^\n]{0,4096}?)? and operator: \S{1,200} )?"
    r"\((?P<node_function>\w{1,100})\): (?:[A-Z_]{1,40}: )?"
)
_INVALID_NODE_TEXT = "Invalid Node - "
# TensorRT 5-7's wrapper of the same reasons TensorRT 8+ puts in "Error Code N: Kind (...)":
# "tacticOptimizer.cpp (N) - TRTInternal Error in computeCosts: 0 (Could not find any ...)",
# "safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)" (the reason is kept)
_LEGACY_WRAPPER = re.compile(
    r"(?:[A-Za-z]:)?(?:[\w./\\-]{0,300}[/\\])?[\w.]{1,200}\."
    + NATIVE_SOURCE_EXTENSION
    + r" \(\d{1,9}\) - "
    r"[\w ]{0,60}?"
    r"(?:Error|Assertion Error) in \S{1,300}?: (?P<paren>-?\d{1,9} \()?"
)


def _closing(text: str) -> int:
    """Index of the ``)`` that closes a ``(`` just before ``text`` (-1 when it is never closed)."""
    depth = 1
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _reason(message: str) -> str:
    """The reason inside the wrappers that differ between tools and versions.

    ``Error[10]: [optimizer.cpp::computeCosts::2011] Error Code 10: Internal Error (X.)`` and
    ``10: Could not find ... X. In computeCosts at optimizer.cpp:3601`` both give ``X``: the
    logger's tokens (timestamps, severity tags, logger names, source locations, error numbers),
    the ``Error Code N: Category ( ... )`` wrapper (and TensorRT 5-7's ``file.cpp (N) - Kind
    Error in function: N ( ... )``) and what follows its closing parenthesis, the ONNX parser's
    wrapper (see ``_PARSER_WRAPPER``) and TensorRT 10's `` In <function> at <file>:<line>``
    suffix are dropped. ``message`` is one record with its whitespace runs made single spaces.
    """
    text = message
    for _ in range(4):
        for _ in range(MAX_PREFIX_TOKENS):
            token = _LOGGER_TOKEN.match(text)
            if token is None or not token.group():
                break
            text = text[token.end() :]
        parser = _PARSER_WRAPPER.match(text)
        if parser is not None:
            text = text[parser.end() :]
            if not text.startswith(_INVALID_NODE_TEXT):
                text = f"In {parser.group('function') or parser.group('node_function')}: {text}"
                break
        if text.startswith(_INVALID_NODE_TEXT):
            node = name_token(text, len(_INVALID_NODE_TEXT))
            rest = text[len(_INVALID_NODE_TEXT) + len(node) :].lstrip(" >")
            if not rest:
                break
            text = rest  # the builder's (or importer's) own message about the node
            continue
        legacy = _LEGACY_WRAPPER.match(text)
        if legacy is not None:
            text = text[legacy.end() :]
            if legacy.group("paren"):
                closing = _closing(text)
                text = text[:closing] if closing >= 0 else text
            continue
        wrapper = _WRAPPER.match(text) or _labelled_wrapper(text)
        if wrapper is None:
            break
        text = text[wrapper.end() :]
        if wrapper.group("kind"):
            closing = _closing(text)
            text = text[:closing] if closing >= 0 else text
    text = _SUFFIX_LOCATION.sub("", text).strip()
    unmatched = text.count(")") - text.count("(")
    while unmatched > 0 and text.endswith(")"):  # a quoted fragment kept its wrapper's ")"
        text = text[:-1].rstrip()
        unmatched -= 1
    return text.rstrip(".*_ ").strip()


# An app's own label before TensorRT's message ("TensorRT backend: 2: [helpers.h::f::694] Error
# Code 2: Internal Error (...)", KataGo): a short text without parentheses before the wrapper
_LABEL_BEFORE_WRAPPER = re.compile(r"[^()\n]{1,160}?[:\]] ")


def _labelled_wrapper(text: str) -> re.Match[str] | None:
    """The ``Error Code N: Kind (`` wrapper after an app's label (see above), else None."""
    label = _LABEL_BEFORE_WRAPPER.match(text)
    for _ in range(MAX_PREFIX_TOKENS):  # "label: 2: [loc] Error Code ...": a few labels at most
        if label is None:
            break
        wrapper = _WRAPPER.match(text, label.end())
        if wrapper is not None and wrapper.group("kind"):
            return wrapper
        label = _LABEL_BEFORE_WRAPPER.match(text, label.end())
    return None


def _records(message: str) -> list[str]:
    """The logger records inside one message: a line that starts another record splits it, and
    so does an unindented capitalised line after a finished sentence (loggers that print no
    prefix at all: "Layer: X's output can not be used as shape tensor.\nNetwork validation
    failed.", n098)."""
    records: list[str] = []
    for line in message.split("\n"):
        after_sentence = bool(records) and records[-1].rstrip().endswith(".") and line[:1].isupper()
        starts = not line[:1].isspace() and (
            after_sentence or _RECORD_START.match(line) is not None
        )
        if records and starts:
            records.append(line)
        elif records:
            records[-1] += "\n" + line
        else:
            records.append(line)
    return records


def _finding_record(message: str, names: list[str], category: str) -> str:
    """The record of a message that holds its finding, whitespace runs made single spaces.

    A message holds several records when the log's logger was not recognised (n194's tab
    separated lines, n224's ``[TRT ERROR]``): the finding's record is the first that names
    ``names[0]`` (the layer), else the first naming ``names[1]``, ..., else the first whose own
    wording gives ``category``, else the first.
    """
    records = _records(message)
    if len(records) > 1:
        chosen = next((r for name in names if name for r in records if name in r), "")
        if not chosen and category:
            chosen = next((r for r in records if rule_category(r) == category), "")
        message = chosen or records[0]
    return " ".join(message.split())


# TensorRT's symbolic extents, S-expressions such as (+ (CEIL_DIV (+ (# 3 (SHAPE input_0)) -4) 4) 1)
_EXPRESSION_START = re.compile(r"\((?:[+\-*/#]|[A-Z][A-Z_]{1,20}) ")


def _expressions(text: str) -> str:
    """Each symbolic extent (balanced parentheses) becomes one number, ``0``; linear in the text
    (an unclosed expression ends the scan)."""
    parts = []
    position = 0
    while (start := _EXPRESSION_START.search(text, position)) is not None:
        closing = _closing(text[start.end() :])
        if closing < 0:
            break
        parts.append(text[position : start.start()] + "0")
        position = start.end() + closing + 1
    return "".join(parts) + text[position:]


def _path(match: re.Match[str]) -> str:
    """A source file keeps its base name (it says which part of TensorRT); others: <path>."""
    base = match.group("base")
    return base if _SOURCE_FILE.search(base) else "<path>"


_INVALID_NODE = re.compile(re.escape(_INVALID_NODE_TEXT))  # the ONNX parser's node name follows
_KEEP = re.compile(r"Error Code \d{1,9}|Error\[\d{1,9}\]")
_RULES: tuple[tuple[re.Pattern[str], Any], ...] = (
    # a source location keeps file and function, not the namespaces (MSVC prints them) or line
    (
        re.compile(
            rf"\[(\w{{1,100}}\.{NATIVE_SOURCE_EXTENSION})::(?:[^\]\s]{{0,300}}::)?(\w{{1,100}})::\d{{1,9}}\]"
        ),
        r"[\1::\2::<n>]",
    ),
    (re.compile(r"'[^'\n]{0,512}'|\"[^\"\n]{0,512}\""), "<name>"),
    (
        re.compile(
            r"\d{1,4}[/-]\d{1,2}[/-]\d{1,4}[-T ]\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,9})?"
            r"|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,9})?"
        ),
        "<time>",
    ),
    (_PATH, _path),
    # tactic ids: hexadecimal in TensorRT 8.x+, decimal before; one placeholder for both
    (re.compile(r"(?<=\b[Tt]actic)(?: ?0x[0-9a-fA-F]{1,32}| -?\d{1,20})\b"), " <tactic>"),
    (re.compile(r"\b0x[0-9a-fA-F]{1,32}\b"), "<hex>"),
    (
        re.compile(r"\b\d{1,20}(?:\.\d{1,12})? ?(?:bytes|[KMGT]i?B|B)\b"),
        "<size>",
    ),
    # TensorRT's data type names: the model's types, like its numbers ("cannot use precision
    # Int32 with weights of type Float", "elementwise inputs must not be Bool")
    (
        re.compile(
            r"\bk?(?:U?Int(?:4|8|32|64)|U?INT(?:4|8|32|64)|Float|FLOAT|Half|HALF|Bool|BOOL"
            r"|BFloat16|BF16|FP(?:4|8|16|32))\b"
        ),
        "<type>",
    ),
    (re.compile(r"\b\d{1,20}(?:\.\d{1,12})?(?:e[+-]?\d{1,3})?\b"), "<n>"),
    (re.compile(r"\[(?:-?<n>|\?)(?:, ?(?:-?<n>|\?)){0,64}\]|\(<n>(?:, ?<n>){0,64}\)"), "<dims>"),
)


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _replace_name(text: str, name: str, mark: str) -> str:
    """``text`` with ``name`` replaced by ``mark``: a plain-word name ("Cast") only where it is
    a word of its own (not in the op "_Cast", not in "Broadcast"), other names wherever they
    stand ("for<name>" glued by TF-TRT, "<name>_normalizationBiased"); one pass."""
    if not name.isalpha():
        return text.replace(name, mark)
    parts: list[str] = []
    position = 0
    found = text.find(name)
    while found != -1:
        end = found + len(name)
        if not (found > 0 and _is_word(text[found - 1])) and not (
            end < len(text) and _is_word(text[end])
        ):
            parts.append(text[position:found] + mark)
            position = end
            found = text.find(name, end)
        else:
            found = text.find(name, found + 1)
    parts.append(text[position:])
    return "".join(parts)


def signature(message: str, names: Iterable[str] = (), category: str = "") -> str:
    """The message's reason with names, numbers, sizes, paths and times as placeholders.

    ``names`` (the row's layer, members, tensors) and ``category`` pick the record that holds
    the finding when the message holds several (see :func:`_finding_record`).
    """
    names = [" ".join(name.split()) for name in names if name]
    text = _finding_record(message[: MAX_SIGNATURE_CHARS * 4], names, category)
    text = _reason(text)
    known = {name for name in names if name}
    known.update(positional_names(text))
    known.update(name_token(text, m.end()) for m in _INVALID_NODE.finditer(text))
    leading = leading_name(text)
    if leading:
        known.add(leading)
    known.discard("")
    for name in sorted(known, key=len, reverse=True):
        text = _replace_name(text, name, "\x00")
    text = text.replace("\x01", " ")
    text = _expressions(text)
    kept = _KEEP.findall(text)
    text = _KEEP.sub("\x01", text)
    for pattern, placeholder in _RULES:
        text = pattern.sub(placeholder, text)
    text = " ".join(text.split())  # whitespace runs -> one space (linear, no regex)
    parts = text.replace("\x00", "<name>").split("\x01")
    text = "".join(part + (kept[i] if i < len(kept) else "") for i, part in enumerate(parts))
    return text.strip()[:MAX_SIGNATURE_CHARS]
