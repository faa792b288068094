"""Where log text comes from: a file path, bytes, or a string; read in bounded pieces.

Logs are read as UTF-8 (invalid bytes replaced), except where the first bytes say otherwise:
a UTF-32 or UTF-16 byte-order mark, or no mark but the NUL pattern of ASCII text in UTF-16 or
UTF-32 (Windows PowerShell's ``>`` writes UTF-16 LE with a mark). Such logs are decoded and
handed on as UTF-8, so every reader (full parse and streaming scan) sees the same text. A
UTF-8 byte-order mark is skipped.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

LogSource = str | os.PathLike[str] | bytes

MAX_LINE_BYTES = 4 << 20  # a longer line is cut here (its start is kept) before parsing


SNIFF_BYTES = 4096  # bytes read from the start of a log to tell its encoding
_UTF8_BOM = b"\xef\xbb\xbf"


class LogReadError(OSError):
    """A log file could not be read; the message names the path and says what to check."""


def sniff_encoding(head: bytes) -> str:
    """The encoding of a log from its first bytes: ``"utf-8"`` (also for unknown bytes),
    ``"utf-8-sig"``, or a UTF-16 / UTF-32 codec name (``"utf-16"``/``"utf-32"`` when a
    byte-order mark says which, ``"utf-16-le"`` etc. when only the NUL pattern does)."""
    if head.startswith(_UTF8_BOM):
        return "utf-8-sig"
    bom = ""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        bom, head = "utf-32", head[4:]
    elif head.startswith((b"\xff\xfe", b"\xfe\xff")):
        bom, head = "utf-16", head[2:]
    nul_pattern = _nul_pattern(head[: SNIFF_BYTES - SNIFF_BYTES % 4])
    if bom:
        # A mark followed by text that is not in that shape (random bytes that happen to start
        # with FF FE, a UTF-8 log glued behind one) is read as UTF-8: the mark alone is weak
        # evidence, the NUL pattern of the text after it is strong.
        return bom if nul_pattern.startswith(bom) or not _utf8_like(head) else "utf-8"
    return nul_pattern or "utf-8"


def _nul_pattern(head: bytes) -> str:
    """``utf-16-le`` etc. when ``head`` has the NULs of mostly-ASCII text in that encoding."""
    if len(head) < 8:
        return ""
    lanes = [head[index::4].count(0) / len(head[index::4]) for index in range(4)]
    if lanes[1] > 0.7 and lanes[2] > 0.7 and lanes[3] > 0.7 and lanes[0] < 0.3:
        return "utf-32-le"
    if lanes[0] > 0.7 and lanes[1] > 0.7 and lanes[2] > 0.7 and lanes[3] < 0.3:
        return "utf-32-be"
    even = (lanes[0] + lanes[2]) / 2
    odd = (lanes[1] + lanes[3]) / 2
    if odd > 0.7 and even < 0.3:
        return "utf-16-le"
    if even > 0.7 and odd < 0.3:
        return "utf-16-be"
    return ""


def _utf8_like(data: bytes) -> bool:
    """True when ``data`` (possibly cut mid-character at its end) is valid UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        return err.start >= len(data) - 3 and err.reason == "unexpected end of data"
    return True


def decode_log_bytes(data: bytes) -> bytes:
    """``data`` as UTF-8 bytes: transcoded when :func:`sniff_encoding` says it is not."""
    encoding = sniff_encoding(data[:SNIFF_BYTES])
    if encoding == "utf-8":
        return data
    if encoding == "utf-8-sig":
        return data[len(_UTF8_BOM) :]
    return data.decode(encoding, errors="replace").encode("utf-8")


class _Utf8Stream(io.RawIOBase):
    """A UTF-16/UTF-32 file read as UTF-8 bytes (decoded a piece at a time)."""

    def __init__(self, raw: io.BufferedReader, encoding: str) -> None:
        super().__init__()
        self._text = io.TextIOWrapper(raw, encoding=encoding, errors="replace", newline="\n")
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        while not self._pending:
            text = self._text.read(max(len(view) // 2, 1))
            if not text:
                return 0
            self._pending = text.encode("utf-8", errors="replace")
        count = min(len(view), len(self._pending))
        view[:count] = self._pending[:count]
        self._pending = self._pending[count:]
        return count

    def close(self) -> None:
        self._text.close()
        super().close()


def open_log(path: str | os.PathLike[str]) -> io.BufferedIOBase:
    """Open ``path`` for reading as UTF-8 bytes (see :func:`sniff_encoding`) or raise
    :class:`LogReadError` naming it."""
    location = Path(path)
    try:
        if location.is_dir():
            raise IsADirectoryError(21, "Is a directory")
        handle = open(location, "rb")  # noqa: SIM115 - returned open; the caller closes it
        try:
            encoding = sniff_encoding(handle.peek(SNIFF_BYTES)[:SNIFF_BYTES])
            if encoding == "utf-8-sig":
                handle.read(len(_UTF8_BOM))
            elif encoding != "utf-8":
                return io.BufferedReader(_Utf8Stream(handle, encoding), 1 << 16)
        except BaseException:
            handle.close()
            raise
        return handle
    except OSError as err:
        reason = err.strerror or str(err)
        raise LogReadError(
            f"cannot read log file '{location}': {reason}. "
            "Check the path and its permissions (pass text=True to analyse a string)."
        ) from err


def iter_lines(source: LogSource, *, text: bool = False) -> Iterator[bytes | str]:
    """Yield the physical lines of a log, each with its newline when it had one."""
    if isinstance(source, bytes | bytearray | memoryview):
        data = decode_log_bytes(bytes(source))
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
