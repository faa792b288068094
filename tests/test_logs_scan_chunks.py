"""The scan's chunk buffer read ahead (:meth:`Chunks.successor`) equals the same buffer advanced
and read in turn: any chunk size, any tail, a long line being cut across the chunk end."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from trtsafe_lab.logs.scan_chunks import Chunks
from trtsafe_lab.logs.scan_worker import PreadReader
from trtsafe_lab.logs.source import MAX_LINE_BYTES

STATE = ("filled", "context_end", "end", "eof", "cutting", "number")


def _state(chunks: Chunks) -> tuple[object, ...]:
    return (bytes(chunks.buf[: chunks.filled]), *(getattr(chunks, name) for name in STATE))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from([b"a\n", b"bb", b"\n", b"c" * 50, b"\n\n"]), max_size=300),
    st.sampled_from([3, 16, 100]),
    st.floats(0, 1),
)
def test_successor_equals_advance_then_read(
    tmp_path_factory: object, pieces: list[bytes], chunk: int, where: float
) -> None:
    data = b"".join(pieces) + b"x\n"
    folder = tmp_path_factory.mktemp("chunks")  # type: ignore[attr-defined]
    log = Path(folder) / "log"
    log.write_bytes(data)
    fd = os.open(log, os.O_RDONLY)
    try:
        chunks = Chunks(PreadReader(fd, 0), chunk, log)
        while True:
            chunks.read()
            if chunks.eof:
                break
            tail = round(where * chunks.end)
            ahead = chunks.successor(tail)
            chunks.advance(tail, 0)
            chunks.read()
            assert _state(ahead) == _state(chunks)
            assert chunks.handle.offset == ahead.handle.offset
            if chunks.eof:
                break
            chunks.advance(chunks.end, 0)
    finally:
        os.close(fd)


def test_successor_while_a_long_line_is_cut(tmp_path: Path) -> None:
    log = tmp_path / "long.log"
    log.write_bytes(b"first\n" + b"y" * (MAX_LINE_BYTES + 5000) + b"\nlast\n")
    fd = os.open(log, os.O_RDONLY)
    try:
        chunks = Chunks(PreadReader(fd, 0), 1 << 20, log)
        chunks.read()
        tail = chunks.end
        ahead = chunks.successor(tail)
        chunks.advance(tail, 0)
        chunks.read()
        assert _state(ahead) == _state(chunks)
        assert bytes(chunks.buf[: chunks.end]).endswith(b"last\n")
    finally:
        os.close(fd)
