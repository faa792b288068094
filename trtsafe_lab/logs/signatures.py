"""Failure signatures: the same failure across many logs, whatever its names and numbers.

:func:`signature` normalises one finding's message: the layer, its members and tensors, quoted
strings and names standing where TensorRT's grammar puts names become ``<name>``; timestamps
``<time>``; file paths ``<path>``; hexadecimal ids (tactics, addresses) ``<hex>``; sizes with a
unit ``<size>``; dimension lists ``<dims>``; other numbers ``<n>``. ``Error Code N`` and
``Error[N]`` keep their number (it is TensorRT's error family), and source locations keep the
file and function (``[optimizer.cpp::computeCosts::<n>]``). Whitespace runs become one space.

:func:`failure_signatures` groups the failure rows of many logs by (signature, category):
    signature, category, count (failure rows), log_count, logs (tuple of log names, in order of
    first appearance), layers (tuple of distinct named layers), first_example (the first row's
    message as printed), explanation_id (see :mod:`trtsafe_lab.logs.explanations`).
Sorted by log_count, then count, most widespread first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pandas as pd

from trtsafe_lab.logs import columns as C
from trtsafe_lab.logs.name_grammar import leading_name, positional_names

if TYPE_CHECKING:
    from trtsafe_lab.logs.analysis import LogAnalysis

MAX_SIGNATURE_CHARS = 600  # a signature keeps the start of a long message

_PATH = re.compile(r"(?<![\w:])(?:[A-Za-z]:)?(?:[\w.~-]{0,200}[/\\]){1,64}(?P<base>[\w.~-]{1,200})")
_BRACKET_LOCATION = re.compile(r"\[[^\]\s]{1,300}\]:? ")
_WRAPPER = re.compile(r"Error Code:? \d{1,9}: (?:[A-Za-z][\w ]{0,60}? (?P<paren>\())?")
_SUFFIX_LOCATION = re.compile(r"\.? In [\w:~<>]{1,200} at [\w./\\-]{1,300}:\d{1,9}")
_SOURCE_FILE = re.compile(r"\.(?:cpp|cc|cu|h|hpp|py)$")
# What loggers put in front of the message: the ONNX parser's "ModelImporter.cpp:776: ",
# "ERROR: ", trtexec's "Error[10]: " before TensorRT's own "[loc] Error Code 10: ...".
_LEADING_NOISE = re.compile(
    r"(?:[\w./\\-]{1,300}\.(?:cpp|cc|h|hpp):\d{1,9}: |ERROR: |Error\[\d{1,9}\]: |\d{1,3}: ){1,8}"
)


def _reason(message: str) -> str:
    """The reason inside the wrappers that differ between tools and versions.

    ``Error[10]: [optimizer.cpp::computeCosts::2011] Error Code 10: Internal Error (X.)`` and
    ``10: Could not find ... X. In computeCosts at optimizer.cpp:3601`` both give ``X``: the
    logger's prefix, the source location, the ``Error Code N: Category ( ... )`` wrapper and
    TensorRT 10.16's `` In <function> at <file>:<line>`` suffix are dropped.
    """
    text = message
    for _ in range(3):
        noise = _LEADING_NOISE.match(text)
        if noise is not None:
            text = text[noise.end() :]
        location = _BRACKET_LOCATION.match(text)
        if location is not None:
            text = text[location.end() :]
        wrapper = _WRAPPER.match(text)
        if wrapper is None:
            break
        text = text[wrapper.end() :]
        if wrapper.group("paren"):
            closing = text.rfind(")")
            text = text[:closing] if closing >= 0 else text
    text = _SUFFIX_LOCATION.sub("", text)
    return text.strip().rstrip(".").strip()


def _path(match: re.Match[str]) -> str:
    """A source file keeps its base name (it says which part of TensorRT); others: <path>."""
    base = match.group("base")
    return base if _SOURCE_FILE.search(base) else "<path>"


_KEEP = re.compile(r"Error Code \d{1,9}|Error\[\d{1,9}\]")
_RULES: tuple[tuple[re.Pattern[str], Any], ...] = (
    (re.compile(r"'[^'\n]{0,512}'|\"[^\"\n]{0,512}\""), "<name>"),
    (
        re.compile(
            r"\d{1,4}[/-]\d{1,2}[/-]\d{1,4}[-T ]\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,9})?"
            r"|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d{1,9})?"
        ),
        "<time>",
    ),
    (_PATH, _path),
    (re.compile(r"\b0x[0-9a-fA-F]{1,32}\b"), "<hex>"),
    (
        re.compile(r"\b\d{1,20}(?:\.\d{1,12})? ?(?:bytes|[KMGT]i?B|B)\b"),
        "<size>",
    ),
    (re.compile(r"\b\d{1,20}(?:\.\d{1,12})?(?:e[+-]?\d{1,3})?\b"), "<n>"),
    (re.compile(r"\[(?:-?<n>|\?)(?:, ?(?:-?<n>|\?)){0,64}\]|\(<n>(?:, ?<n>){0,64}\)"), "<dims>"),
)


def signature(message: str, names: Iterable[str] = ()) -> str:
    """The message's reason with names, numbers, sizes, paths and times as placeholders."""
    text = message[: MAX_SIGNATURE_CHARS * 4]
    text = _reason(text)
    known = {name for name in names if name}
    for line in text.split("\n"):
        known.update(positional_names(line))
        leading = leading_name(line)
        if leading:
            known.add(leading)
    for name in sorted(known, key=len, reverse=True):
        text = text.replace(name, "\x00")
    text = text.replace("\x01", " ")
    kept = _KEEP.findall(text)
    text = _KEEP.sub("\x01", text)
    for pattern, placeholder in _RULES:
        text = pattern.sub(placeholder, text)
    text = " ".join(text.split())  # whitespace runs -> one space (linear, no regex)
    parts = text.replace("\x00", "<name>").split("\x01")
    text = "".join(part + (kept[i] if i < len(kept) else "") for i, part in enumerate(parts))
    return text.strip()[:MAX_SIGNATURE_CHARS]


def _row_names(row: Any) -> list[str]:
    names = [row[C.LAYER], *row[C.MEMBERS]] if C.MEMBERS in row else [row[C.LAYER]]
    if C.TENSORS in row and isinstance(row[C.TENSORS], tuple):
        names.extend(row[C.TENSORS])
    return [name for name in names if isinstance(name, str) and name]


def add_signatures(failures: pd.DataFrame) -> pd.DataFrame:
    """Copy of a failures table with a ``signature`` column."""
    out = failures.copy()
    cache: dict[tuple[str, tuple[str, ...]], str] = {}
    values = []
    for _, row in failures.iterrows():
        names = tuple(_row_names(row))
        key = (row[C.MESSAGE], names)
        if key not in cache:
            cache[key] = signature(row[C.MESSAGE], names)
        values.append(cache[key])
    out[C.SIGNATURE] = pd.Series(values, index=failures.index, dtype=object)
    return out


def _frames(logs: Iterable[str | os.PathLike[str] | LogAnalysis]) -> pd.DataFrame:
    from trtsafe_lab.logs.analysis import LogAnalysis, analyze_log

    frames = []
    for log in logs:
        analysis = log if isinstance(log, LogAnalysis) else analyze_log(log)
        frame = analysis.failures.copy()
        frame.insert(0, C.LOG, analysis.name)
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=[C.LOG, *C.FAILURE_COLUMNS])
    return pd.concat(frames, ignore_index=True)


def failure_signatures(
    logs: Iterable[str | os.PathLike[str] | LogAnalysis] | pd.DataFrame,
) -> pd.DataFrame:
    """Group the failure rows of many logs by signature (columns in the module docstring).

    ``logs`` is paths, :class:`~trtsafe_lab.logs.analysis.LogAnalysis` objects, or one failures
    table with a ``log`` column (e.g. the CLI's concatenated table).
    """
    failures = logs if isinstance(logs, pd.DataFrame) else _frames(logs)
    if failures.empty:
        return pd.DataFrame(
            {c: pd.Series(dtype="int64" if c in (C.COUNT, C.LOG_COUNT) else object)
             for c in C.SIGNATURE_COLUMNS}
        )
    signed = add_signatures(failures)
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for _, row in signed.iterrows():
        key = (row[C.SIGNATURE], row[C.CATEGORY])
        group = groups.get(key)
        if group is None:
            group = groups[key] = {
                C.SIGNATURE: key[0],
                C.CATEGORY: key[1],
                C.COUNT: 0,
                C.LOGS: {},
                C.LAYERS: {},
                C.FIRST_EXAMPLE: row[C.MESSAGE],
                C.EXPLANATION_ID: row.get(C.EXPLANATION_ID, ""),
            }
        group[C.COUNT] += 1
        group[C.LOGS][row.get(C.LOG, "")] = None
        if row[C.LAYER]:
            group[C.LAYERS][row[C.LAYER]] = None
    rows = []
    for group in groups.values():
        logs_seen = tuple(group[C.LOGS])
        rows.append({**group, C.LOGS: logs_seen, C.LOG_COUNT: len(logs_seen),
                     C.LAYERS: tuple(group[C.LAYERS])})
    frame = pd.DataFrame(rows, columns=list(C.SIGNATURE_COLUMNS))
    frame[C.COUNT] = frame[C.COUNT].astype("int64")
    frame[C.LOG_COUNT] = frame[C.LOG_COUNT].astype("int64")
    return frame.sort_values(
        [C.LOG_COUNT, C.COUNT], ascending=False, kind="stable"
    ).reset_index(drop=True)
