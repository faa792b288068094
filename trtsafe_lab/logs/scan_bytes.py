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
from numpy.lib.stride_tricks import sliding_window_view

from trtsafe_lab.logs.triggers import (
    HEAD_RESTS,
    LITERAL_HEADS,
    PREFIXES2,
    PREFIXES3,
    TRIGGER_GROUPS,
    TRIGGER_SPAN,
    rest_first_bytes,
)

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

ALL_BYTES = frozenset(range(256))


def literal_checks() -> tuple[Any, Any, Any, Any, Any]:
    """The second step of the prefilter, as arrays: three-byte prefixes (``b0 << 16 | b1 << 8 |
    b2``, sorted) all of whose triggers begin with a longer literal (``Lay``: every trigger
    starting so begins ``Layer: ``; verbose logs hold many ``Layer(`` lines), or whose literal
    can be followed by a few bytes only (``I] `` by the first bytes of a phase marker: ``[I] ``
    starts most INFO lines); that literal's first 8 bytes as a little-endian word, the mask of
    its bytes, its length when shorter than 8 (else 0), and per prefix which bytes may follow
    the literal (256 booleans; all true where any may or the literal fills the 8 bytes).
    Prefixes whose first two bytes already decide (``PREFIXES2``) have none."""
    rows = []
    for key in sorted(PREFIXES3):
        if key[:2] in PREFIXES2:
            continue
        heads = [h for h in LITERAL_HEADS if h.startswith(key)]
        common = min(heads)[:8]  # the sorted first and last share what all share
        while not max(heads).startswith(common):
            common = common[:-1]
        # a literal filling the 8 bytes checked: the byte after it is not checked
        follow: frozenset[int] = ALL_BYTES if len(common) == 8 else frozenset()
        for head, rest in HEAD_RESTS:
            if follow == ALL_BYTES:
                break
            if head.startswith(common):
                follow |= (
                    frozenset((head[len(common)],)) if len(head) > len(common)
                    else rest_first_bytes(rest) or ALL_BYTES
                )
        if len(common) > len(key) or follow != ALL_BYTES:
            word = int.from_bytes(common.ljust(8, b"\0"), "little")
            allowed = np.zeros(256, dtype=bool)
            allowed[sorted(follow)] = True
            rows.append((
                key[0] << 16 | key[1] << 8 | key[2], word, (1 << 8 * len(common)) - 1,
                len(common) % 8, allowed,
            ))
    keys, words, masks, lengths, follows = zip(*rows, strict=True) if rows else ((),) * 5
    return (
        np.array(keys, dtype=np.uint32),
        np.array(words, dtype=np.uint64),
        np.array(masks, dtype=np.uint64),
        np.array(lengths, dtype=np.intp),
        np.array(follows, dtype=bool).reshape(len(keys), 256),
    )


_CHECK_KEYS, _CHECK_WORDS, _CHECK_MASKS, _CHECK_LENGTHS, _CHECK_FOLLOWS = literal_checks()


BLOCK_BYTES = 1 << 20  # the first-byte pass works on blocks this size (they stay in the 1 MB L2
# cache of the machine measured: 256 KB blocks took ~8% longer, more per-block steps)


class Scratch:
    """Boolean work arrays reused from block to block (fresh arrays per chunk would cost page
    faults that take longer than the comparisons themselves)."""

    def __init__(self) -> None:
        self.mask = np.empty(BLOCK_BYTES, dtype=bool)
        self.other = np.empty(BLOCK_BYTES, dtype=bool)
        self.shifted = np.empty(BLOCK_BYTES, dtype=np.uint8)


FIRST_BYTE_GAP = 3  # first bytes at most this far apart share one range test (see below)
# ... unless a byte between them is one of these: 'T' and 'S' start many words of a verbose log
# ("Tactic", "Timing", "Setting": ~2% of its bytes), 'V' its "[V]" tags (~0.6%); a range over
# them makes every one a candidate for the later steps, which cost more than one more test
FREQUENT_BYTES = b"STV"


def first_byte_tests(
    firsts: tuple[int, ...], gap: int, frequent: bytes = b""
) -> list[tuple[int, int]]:
    """The first-byte pass as (start, length) byte ranges: sorted first bytes at most ``gap``
    apart share one range (a subtract and a compare find all of it, instead of one compare and
    one OR per byte; the bytes between them become candidates the two-byte table drops), unless
    a byte of ``frequent`` lies between them."""
    ranges: list[list[int]] = []
    for first in sorted(firsts):
        between = range(ranges[-1][1] + 1, first) if ranges else range(0)
        if ranges and first - ranges[-1][1] <= gap and not any(b in frequent for b in between):
            ranges[-1][1] = first
        else:
            ranges.append([first, first])
    return [(low, high - low + 1) for low, high in ranges]


_TESTS = first_byte_tests(_FIRST_BYTES, FIRST_BYTE_GAP, FREQUENT_BYTES)


def candidates(
    data: bytes | bytearray, size: int, scratch: Scratch | None = None, begin: int = 0
) -> list[int]:
    """Positions in ``data[begin:size]`` where a trigger can start: their first two or three
    bytes begin one of the triggers' literal heads, and where all heads so beginning share a
    longer literal (:func:`literal_checks`) and 8 bytes remain, their first 8 bytes match it."""
    body = size - 2  # positions with two bytes after them; the last two are checked apart
    found: list[int] = []
    if body > begin:
        work = scratch or Scratch()
        window = np.frombuffer(data, dtype=np.uint8, count=size)
        blocks = []
        # Each block goes through every step while it is in the cache (over the whole chunk at
        # once each pass would read it from memory again), and every array made per block is
        # small: the chunk-sized index arrays this once built came from fresh pages each time
        # (their page faults cost as much system time as the comparisons took).
        for start in range(begin, body, BLOCK_BYTES):
            stop = min(start + BLOCK_BYTES, body)
            head = window[start:stop]
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
            if not hits.size:
                continue
            pairs = head[hits].astype(np.uint32) << 8 | window[start + 1 : stop + 1][hits]
            flags = _LUT2[pairs]
            keep = flags == 1
            third = np.flatnonzero(flags == 2)
            if third.size:
                triples = pairs[third] << 8 | window[start + 2 : stop + 2][hits[third]]
                at = np.searchsorted(_SET3, triples)  # np.isin costs more on small arrays
                np.minimum(at, _SET3.size - 1, out=at)
                keep[third] = _SET3[at] == triples
            kept = hits[keep]
            if start:
                kept += start
            blocks.append(kept)
        if blocks:
            found = _literal_filter(window, np.concatenate(blocks), size).tolist()
        del window, head, mask, other
    found.extend(pos for pos in range(max(body, begin, 0), size) if data[pos] in _PATTERNS)
    return found


def _literal_filter(window: Any, found: Any, size: int) -> Any:
    """``found`` (ascending positions in ``window[:size]``) less those whose 8 bytes do not
    begin the literal :func:`literal_checks` gives for their first three bytes, or go on after
    it with a byte that cannot follow it."""
    if size < 8:
        return found
    full = found <= size - 8
    where = found[full]
    triples = (
        window[where].astype(np.uint32) << 16
        | window[where + 1].astype(np.uint32) << 8
        | window[where + 2]
    )
    at = np.searchsorted(_CHECK_KEYS, triples)
    np.minimum(at, _CHECK_KEYS.size - 1, out=at)
    checked = _CHECK_KEYS[at] == triples
    words = sliding_window_view(window[:size], 8)[where].view("<u8").ravel()
    matches = (words & _CHECK_MASKS[at]) == _CHECK_WORDS[at]
    # the byte after the literal (its length is 0 where it fills the 8 bytes: any byte passes)
    matches &= _CHECK_FOLLOWS[at, window[where + _CHECK_LENGTHS[at]]]
    keep = np.ones(found.size, dtype=bool)
    keep[full] = matches | ~checked
    return found[keep]


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
