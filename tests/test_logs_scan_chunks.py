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
    st.sampled_from([None, 0, 5, 1000]),
)
def test_successor_equals_advance_then_read(
    tmp_path_factory: object, pieces: list[bytes], chunk: int, where: float, spare: int | None
) -> None:
    """``spare``: the size of a used buffer (junk bytes) it may read into, or none."""
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
            junk = None if spare is None else bytearray(b"\xff" * spare)
            ahead = chunks.successor(tail, junk)
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


def test_context_lines_written_out_match_the_rules() -> None:
    """The chunk module writes the context's length out (it imports neither of these, so the
    worker is forked before they load): it must equal what they give."""
    from trtsafe_lab.logs.classify import CONTEXT_RECORDS
    from trtsafe_lab.logs.records import MAX_CONTINUATION
    from trtsafe_lab.logs.scan_chunks import CONTEXT_LINES

    assert CONTEXT_LINES == (CONTEXT_RECORDS + 1) * MAX_CONTINUATION + 2


def test_the_worker_is_forked_before_the_parser_modules_load(tmp_path: Path) -> None:
    """``open_scan`` (the CLI's first log) forks the worker with only the chunk, bytes-pass and
    worker modules (and numpy) loaded: the parser's modules load in the parent afterwards."""
    import subprocess
    import sys

    log = tmp_path / "big.log"
    log.write_bytes(b"[E] [TRT] 1: [x.cpp::f::1] Error Code 1: Cuda Runtime (bad)\n" * 50_000)
    code = (
        "import sys\n"
        "from trtsafe_lab.logs import scan_worker\n"
        "from trtsafe_lab.logs.scan_chunks import open_scan\n"
        "loaded = []\n"
        "start = scan_worker.TriggerWorker.start.__func__\n"
        "def spy(cls, *args):\n"
        "    loaded.extend(m for m in ('trtsafe_lab.logs.classify', 'trtsafe_lab.logs.parser',\n"
        "                               'trtsafe_lab.logs.records') if m in sys.modules)\n"
        "    return start(cls, *args)\n"
        "scan_worker.TriggerWorker.start = classmethod(spy)\n"
        f"started = open_scan({str(log)!r}, worker=True)\n"
        "assert started.helper is not None, 'no worker'\n"
        "from trtsafe_lab.logs.scan import iter_failures\n"
        f"rows = list(iter_failures({str(log)!r}, started=started))\n"
        f"assert rows == list(iter_failures({str(log)!r}, worker=False)) and len(rows) == 50_000\n"
        "print('loaded before the fork:', loaded)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "loaded before the fork: []" in result.stdout
