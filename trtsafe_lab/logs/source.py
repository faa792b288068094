"""Where log text comes from: a file path, bytes, or a string; read in bounded pieces."""

from __future__ import annotations

import os
from collections.abc import Iterator
from io import BufferedReader
from pathlib import Path

LogSource = str | os.PathLike[str] | bytes

MAX_LINE_BYTES = 4 << 20  # a longer line is cut here (its start is kept) before parsing


class LogReadError(OSError):
    """A log file could not be read; the message names the path and says what to check."""


def open_log(path: str | os.PathLike[str]) -> BufferedReader:
    """Open ``path`` for binary reading or raise :class:`LogReadError` naming it."""
    location = Path(path)
    try:
        if location.is_dir():
            raise IsADirectoryError(21, "Is a directory")
        return open(location, "rb")
    except OSError as err:
        reason = err.strerror or str(err)
        raise LogReadError(
            f"cannot read log file '{location}': {reason}. "
            "Check the path and its permissions (pass text=True to analyse a string)."
        ) from err


def iter_lines(source: LogSource, *, text: bool = False) -> Iterator[bytes | str]:
    """Yield the physical lines of a log, each with its newline when it had one."""
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        yield from (data[:-1] if data.endswith(b"\n") else data).split(b"\n")
        return
    if text:
        string = str(source)
        yield from (string[:-1] if string.endswith("\n") else string).split("\n")
        return
    handle = open_log(source)
    with handle:
        try:
            while True:
                line = handle.readline(MAX_LINE_BYTES)
                if not line:
                    return
                if not line.endswith(b"\n"):
                    # A line longer than MAX_LINE_BYTES: keep its start, skip the rest.
                    rest = line
                    while rest and not rest.endswith(b"\n"):
                        rest = handle.readline(MAX_LINE_BYTES)
                yield line
        except OSError as err:
            raise LogReadError(f"reading log file '{source}' failed: {err}") from err
