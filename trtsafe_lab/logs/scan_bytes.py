"""The streaming scan's bytes-level pass: where in a chunk of log bytes the lines holding a
trigger of :mod:`trtsafe_lab.logs.triggers` are, without decoding the chunk.

The positions where a trigger can start are found with a few vectorised numpy operations (first
byte, then the first two or three bytes against the known trigger prefixes), and the survivors
are checked with the triggers' regular expressions (the first match of each line). Also the
newline counting the scan's line numbers need.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from trtsafe_lab.logs.triggers import PREFIXES2, PREFIXES3, TRIGGER_GROUPS, TRIGGER_SPAN

_PATTERNS = {first[0]: re.compile(pattern) for first, pattern in TRIGGER_GROUPS}
_FIRST_BYTES = tuple(_PATTERNS)
_MATCH: list[Any] = [_PATTERNS[byte].match if byte in _PATTERNS else None for byte in range(256)]
# 0: no trigger starts with these two bytes; 1: a trigger may; 2: look at the third byte too.
_LUT2 = np.zeros(1 << 16, dtype=np.uint8)
for _prefix in PREFIXES3:
    _LUT2[_prefix[0] << 8 | _prefix[1]] = 2
for _prefix in PREFIXES2:
    _LUT2[_prefix[0] << 8 | _prefix[1]] = 1
_SET3 = np.array(sorted(p[0] << 16 | p[1] << 8 | p[2] for p in PREFIXES3), dtype=np.uint32)


BLOCK_BYTES = 256 << 10  # the first-byte pass works on blocks this size (they stay in cache)


class Scratch:
    """Boolean work arrays reused from block to block (fresh arrays per chunk would cost page
    faults that take longer than the comparisons themselves)."""

    def __init__(self) -> None:
        self.mask = np.empty(BLOCK_BYTES, dtype=bool)
        self.other = np.empty(BLOCK_BYTES, dtype=bool)
        self.shifted = np.empty(BLOCK_BYTES, dtype=np.uint8)


FIRST_BYTE_GAP = 3  # first bytes at most this far apart share one range test (see below)


def first_byte_tests(firsts: tuple[int, ...], gap: int) -> list[tuple[int, int]]:
    """The first-byte pass as (start, length) byte ranges: sorted first bytes at most ``gap``
    apart share one range (a subtract and a compare find all of it, instead of one compare and
    one OR per byte; the bytes between them become candidates the two-byte table drops)."""
    ranges: list[list[int]] = []
    for first in sorted(firsts):
        if ranges and first - ranges[-1][1] <= gap:
            ranges[-1][1] = first
        else:
            ranges.append([first, first])
    return [(low, high - low + 1) for low, high in ranges]


_TESTS = first_byte_tests(_FIRST_BYTES, FIRST_BYTE_GAP)


def candidates(
    data: bytes | bytearray, size: int, scratch: Scratch | None = None, begin: int = 0
) -> list[int]:
    """Positions in ``data[begin:size]`` whose first two or three bytes can start a trigger."""
    body = size - 2  # positions with two bytes after them; the last two are checked apart
    found: list[int] = []
    if body > begin:
        work = scratch or Scratch()
        window = np.frombuffer(data, dtype=np.uint8, count=size)
        blocks = []
        # The first-byte comparisons over one block while it is in the cache: over the whole
        # chunk at once each pass would read it from memory again.
        for start in range(begin, body, BLOCK_BYTES):
            head = window[start : min(start + BLOCK_BYTES, body)]
            mask, other = work.mask[: head.size], work.other[: head.size]
            shifted = work.shifted[: head.size]
            for number, (low, length) in enumerate(_TESTS):
                out = other if number else mask
                if length == 1:
                    np.equal(head, low, out=out)
                else:
                    np.subtract(head, low, out=shifted)
                    np.less(shifted, length, out=out)
                if number:
                    mask |= other
            hits = np.flatnonzero(mask)
            if hits.size:
                blocks.append(hits + start if start else hits)
        index = np.concatenate(blocks) if blocks else np.empty(0, dtype=np.intp)
        pairs = window[index].astype(np.uint32) << 8 | window[index + 1]
        flags = _LUT2[pairs]
        keep = flags == 1
        third = np.flatnonzero(flags == 2)
        if third.size:
            triples = pairs[third] << 8 | window[index[third] + 2]
            keep[third] = np.isin(triples, _SET3)
        found = index[keep].tolist()
        del window, head, mask, other
    found.extend(pos for pos in range(max(body, begin, 0), size) if data[pos] in _PATTERNS)
    return found


def trigger_offsets(
    data: bytes | bytearray,
    end: int | None = None,
    scratch: Scratch | None = None,
    begin: int = 0,
) -> list[int]:
    """Offsets in ``data[begin:end]`` of lines holding a trigger (one per line, in order);
    ``begin``: a line start."""
    size = len(data) if end is None else end
    found: list[int] = []
    line_end = -1
    match = _MATCH  # per first byte (the loop runs once per candidate: ~1 in 1,300 bytes)
    near_end = size - TRIGGER_SPAN
    for pos in candidates(data, size, scratch, begin):
        if pos < line_end:
            continue
        if match[data[pos]](data, pos, pos + TRIGGER_SPAN if pos < near_end else size):
            found.append(pos)
            line_end = data.find(b"\n", pos, size)
            if line_end == -1:
                line_end = size
    return found


def lines_of(
    data: bytes | bytearray, offsets: list[int], first_line: int, tail: int
) -> tuple[list[int], int]:
    """Line numbers of ``offsets`` (ascending) in ``data``, whose first line is
    ``first_line``, and the line number at offset ``tail`` (each byte counted about once)."""
    lines = []
    line = first_line
    cursor = 0
    for offset in offsets:
        if offset - cursor < 4096:
            line += data.count(b"\n", cursor, offset)
        else:
            line += count_newlines(data, cursor, offset)
        cursor = offset
        lines.append(line)
    if tail >= cursor:
        return lines, line + count_newlines(data, cursor, tail)
    return lines, line - count_newlines(data, tail, cursor)


def count_newlines(data: bytes | bytearray, start: int, end: int) -> int:
    """Number of newlines in ``data[start:end]`` (numpy counts long ranges ~3x faster)."""
    if end - start < 4096:
        return data.count(b"\n", start, end)
    view = np.frombuffer(data, dtype=np.uint8, count=end - start, offset=start)
    return int(np.count_nonzero(view == 10))


def tail_start(chunk: bytes | bytearray, end: int, lines: int) -> int:
    """Offset of the last ``lines`` complete lines of ``chunk[:end]``: just after the
    ``lines``-th newline before ``chunk[end - 1]`` (0 when there are fewer), found with numpy
    on growing pieces from the end (one ``rfind`` per line cost more than that)."""
    high = end - 1
    need = lines
    piece = 1 << 16
    while high > 0:
        low = max(0, high - piece)
        view = np.frombuffer(chunk, dtype=np.uint8, count=high - low, offset=low)
        newlines = np.flatnonzero(view == 10)
        del view
        if newlines.size >= need:
            return low + int(newlines[-need]) + 1
        need -= newlines.size
        high = low
        piece *= 2
    return 0
