"""Where a record's error comes from: its TensorRT error code, the source location and function
that raised it, and the tool that printed it (the ONNX parser, trtexec, ...)."""

from __future__ import annotations

import re

from trtsafe_lab.logs.name_tokens import ERROR_CODE_WRAPPER, NATIVE_SOURCE_EXTENSION
from trtsafe_lab.logs.records import Record

_ERROR_CODE = re.compile(
    ERROR_CODE_WRAPPER
    + r"|Error Code:? (?P<bare>\d{1,9}): (?=Skipping)|Error\[(?P<bracket>\d+)\]: "
)
_LOCATIONS = (
    re.compile(
        rf"ERROR: (?P<loc>\S{{1,300}}\.{NATIVE_SOURCE_EXTENSION}:\d+)"
        r" In function (?P<func>\w{1,200}):"
    ),
    re.compile(
        rf"\[(?P<loc>[\w./\\-]{{1,300}}\.{NATIVE_SOURCE_EXTENSION}::(?P<func>[\w:~]{{1,300}})::\d+)\]"
    ),
    re.compile(rf"\[(?P<loc>[\w./\\-]{{1,300}}\.{NATIVE_SOURCE_EXTENSION}:(?P<func>\w{{1,200}}):\d+)\]"),
    re.compile(r"In (?P<func>[\w:~]{1,300}) at (?P<loc>\S{1,300}:\d+)"),
)
# A bare "file.cpp:NN" / "file.cpp (NN)" location: found from its extension, then walked back.
_EXTENSION = re.compile(
    rf"\.{NATIVE_SOURCE_EXTENSION}(?::\d+| \(\d+\))(?:[: ]+In function (\w{{1,200}}))?"
)
_PATH_TAIL = re.compile(r"[\w./\\:-]{1,300}$")
_API = re.compile(r"(?P<func>I[A-Z]\w{0,80}::\w{1,80}): ")


def error_code(record: Record, message: str) -> tuple[int | None, str]:
    """TensorRT's error code and the name it prints with it (``Error Code 4: Internal Error
    (...)`` -> ``(4, "Internal Error")``; ``Error[N]:`` of trtexec), else the prefix's number."""
    match = _ERROR_CODE.search(message)
    if match is not None:
        code = match.group("code") or match.group("bare") or match.group("bracket")
        name = match.group("kind") or ""
        if match.group("bracket") and not name:
            inner = _ERROR_CODE.search(message, match.end())
            if inner is not None and inner.group("kind"):
                name = inner.group("kind")
        return int(code), name.strip()
    return record.prefix.error_number, ""


def location(message: str) -> tuple[str, str]:
    """(source location such as ``builder.cpp::buildSerializedNetwork::609``, function) the
    message names, ("", "") when none; an ``IBuilder::method: `` API prefix gives the function."""
    for pattern in _LOCATIONS:
        match = pattern.search(message)
        if match is not None:
            return match.group("loc"), match.group("func") or ""
    extension = _EXTENSION.search(message)
    if extension is not None:
        head = _PATH_TAIL.search(message, max(0, extension.start() - 300), extension.start())
        if head is not None:
            found = message[head.start() : extension.end()]
            function = extension.group(1) or ""
            if function:
                found = found[: found.rfind(" In function")].rstrip(": ")
            return found, function
    api = _API.search(message)
    return ("", api.group("func")) if api else ("", "")


_PARSER_SOURCE = re.compile(
    r"ModelImporter|builtin_op_importers|onnxOpCheckers|onnx2trt|While parsing node|In node -?\d"
)


def source(prefix_source: str, message: str) -> str:
    """The tool that printed the message: the prefix's source, or ``onnx-parser`` when the
    wording is the ONNX parser's."""
    if _PARSER_SOURCE.search(message):
        return "onnx-parser"
    if message.startswith("Error[") and prefix_source in ("", "polygraphy"):
        return "trtexec"  # trtexec's "Error[N]:" on a line whose timestamp was cut off
    return prefix_source
