"""The scan's second process (``logs/scan_worker.py``) changes who finds the trigger lines, never
the rows: the scan with a worker equals the scan without one, whichever chunks the worker sent
and which the parent took over (the worker slow, the parent slow, the worker finished first)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_logs_robust import log_bytes

from trtsafe_lab.logs import scan, scan_bytes, scan_chunks
from trtsafe_lab.logs.scan import scan_failures
from trtsafe_lab.logs.scan_worker import TriggerWorker, can_fork_worker
from trtsafe_lab.logs.source import MAX_LINE_BYTES

pytestmark = pytest.mark.skipif(not can_fork_worker(), reason="no fork or one CPU here")
CHILD = "TRTSAFE_SCAN_WORKER_TEST_CHILD"


@pytest.fixture
def alone(request: pytest.FixtureRequest) -> bool:
    """The worker is forked only from a process with one thread (``can_fork_worker``). Earlier
    tests of a whole run (a Jupyter server, a runner's watchdog) can leave threads behind, so a
    test that needs the worker then runs again, by itself, in a fresh interpreter, which must
    pass; True tells the test it already ran there."""
    if threading.active_count() == 1 or os.environ.get(CHILD):
        return False
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", request.node.nodeid],
        cwd=request.config.rootpath, env={**os.environ, CHILD: "1"},
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and "skipped" not in result.stdout, result.stdout[-2000:]
    return True


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the chunks whose trigger lines the worker gave, and those the parent found itself
    while the worker ran: a test that never takes the worker's answers would prove nothing."""
    count = [0, 0]
    original = TriggerWorker.triggers

    def triggers(self: TriggerWorker, number: int, begin: int, end: int, *more: object) -> object:
        found = original(self, number, begin, end, *more)  # type: ignore[arg-type]
        count[found is None] += 1
        return found

    monkeypatch.setattr(TriggerWorker, "triggers", triggers)
    return count


def _corpus_log(corpus_dir: Path) -> bytes:
    """The verbose build logs with every failing case log after each: real shapes, ~3 MB."""
    logs = corpus_dir / "build-logs"
    cases = b"".join(p.read_bytes().rstrip(b"\n") + b"\n" for p in sorted(logs.glob("cases/*")))
    return b"".join(p.read_bytes() + cases for p in sorted(logs.glob("verbose/*.log")))


@pytest.mark.parametrize("chunk", [scan_chunks.CHUNK_BYTES, 100_003, 4099])
@pytest.mark.parametrize("first", [True, False])
def test_worker_gives_the_same_rows(
    corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[int],
    chunk: int, first: bool, alone: bool,
) -> None:
    if alone:
        return
    log = tmp_path / "big.log"
    log.write_bytes(_corpus_log(corpus_dir))
    expected = scan_failures(log, chunk_bytes=chunk, worker=False)
    assert len(expected) > 100
    monkeypatch.setattr(scan_chunks, "WAIT_FOR_WORKER", first)  # True: it sends everything first
    assert scan_failures(log, chunk_bytes=chunk, worker=True) == expected
    if first:
        assert served[0] > 0 and served[1] == 0  # all from the worker, nothing taken over


@pytest.mark.parametrize("slow", ["worker", "parent"])
def test_chunks_taken_over_or_waited_for(
    corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[int],
    slow: str, alone: bool,
) -> None:
    """A slow worker: the parent takes over the chunks it has not begun (it skips them); a slow
    parent: the worker runs ahead. Either way the same rows."""
    if alone:
        return
    log = tmp_path / "big.log"
    log.write_bytes(_corpus_log(corpus_dir))
    expected = scan_failures(log, chunk_bytes=65_536, worker=False)
    target = (scan_bytes, "tail_start") if slow == "worker" else (scan._Window, "run")
    original = getattr(*target)

    def slowly(*args: object) -> object:
        time.sleep(0.002)
        return original(*args)

    monkeypatch.setattr(*target, slowly)  # the worker is forked with it
    own_before = served[1]
    assert scan_failures(log, chunk_bytes=65_536, worker=True) == expected
    if slow == "worker":
        assert served[1] > own_before  # taken over (how many the worker sent: timing)
    else:
        assert served[0] > 0


def test_the_parent_reads_ahead_while_the_worker_reads(
    corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[int],
    alone: bool,
) -> None:
    """When the parent catches up with the worker inside a chunk, it reads the next chunk and
    finds its triggers meanwhile (the worker skips that one) instead of waiting idle; it parses
    that chunk from what it read ahead. The same rows. (Not the first chunk: that one it waits
    for while the worker loads its modules; the worker is slowed enough here to be caught up
    with later.)"""
    if alone:
        return
    from trtsafe_lab.logs.scan_chunks import Chunks

    log = tmp_path / "big.log"
    log.write_bytes(_corpus_log(corpus_dir))
    expected = scan_failures(log, chunk_bytes=65_536, worker=False)
    original = scan_bytes.trigger_offsets

    def slowly(*args: object, **kwargs: object) -> object:
        time.sleep(0.03)  # the worker (and the parent's own pass): slower than the parsing
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(scan_bytes, "trigger_offsets", slowly)
    read_ahead: list[int] = []
    successor = Chunks.successor

    def counted(self: Chunks, tail: int, spare: bytearray | None = None) -> Chunks:
        read_ahead.append(tail)
        return successor(self, tail, spare)

    monkeypatch.setattr(Chunks, "successor", counted)
    assert scan_failures(log, chunk_bytes=65_536, worker=True) == expected
    assert read_ahead and served[0] > 0


def test_byte_order_mark_and_a_cut_line(
    corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[int],
    alone: bool,
) -> None:
    """A UTF-8 mark shifts the file offsets by 3; a line longer than MAX_LINE_BYTES is cut in the
    scan's buffer, and in the worker's (its chunks are the same)."""
    if alone:
        return
    body = _corpus_log(corpus_dir)
    monkeypatch.setattr(scan_chunks, "WAIT_FOR_WORKER", True)
    log = tmp_path / "bom.log"
    log.write_bytes(b"\xef\xbb\xbf" + body)
    expected = scan_failures(log, worker=False)
    (tmp_path / "plain.log").write_bytes(body)
    assert expected == scan_failures(tmp_path / "plain.log", worker=False)  # the mark is skipped
    assert scan_failures(log, worker=True, chunk_bytes=65_536) == expected
    assert served[0] > 0
    log = tmp_path / "long.log"
    log.write_bytes(body[: len(body) // 2] + b"x" * (3 * MAX_LINE_BYTES) + b"\n" + body)
    expected = scan_failures(log, worker=False)
    assert scan_failures(log, worker=True, chunk_bytes=65_536) == expected


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=log_bytes, chunk=st.sampled_from([7, 64, 4096]), first=st.booleans())
def test_worker_on_any_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, chunk: int, first: bool,
    alone: bool,
) -> None:
    if alone:
        return
    log = tmp_path / "any.log"
    log.write_bytes(data)
    expected = scan_failures(log, chunk_bytes=chunk, worker=False)
    monkeypatch.setattr(scan_chunks, "WAIT_FOR_WORKER", first)
    assert scan_failures(log, chunk_bytes=chunk, worker=True) == expected


def test_spare_cpu_counts_running_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process is one of /proc/loadavg's running ones: with one CPU none is spare."""
    from trtsafe_lab.logs import scan_worker

    monkeypatch.setattr(scan_worker.os, "sched_getaffinity", lambda pid: {0})
    assert not scan_worker.spare_cpu()
    monkeypatch.setattr(scan_worker.os, "sched_getaffinity", lambda pid: set(range(1 << 16)))
    assert scan_worker.spare_cpu()


def test_a_pipe_is_scanned_without_a_worker(corpus_dir: Path, tmp_path: Path) -> None:
    """A named pipe cannot be read at offsets (nor told its position): one process reads it."""
    import os
    import threading

    data = (corpus_dir / "build-logs" / "cases" / "036.log").read_bytes()
    plain = tmp_path / "plain.log"
    plain.write_bytes(data)
    fifo = tmp_path / "pipe.log"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_bytes, args=(data,))
    writer.start()
    try:
        rows = scan_failures(fifo, worker=True)
    finally:
        writer.join()
    assert rows == scan_failures(plain, worker=False)
    assert rows


def test_a_refused_fork_leaves_the_work_to_one_process(
    corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[int],
    alone: bool,
) -> None:
    if alone:
        return
    from trtsafe_lab.logs import scan_worker

    def refuse() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    log = tmp_path / "big.log"
    log.write_bytes(_corpus_log(corpus_dir))
    expected = scan_failures(log, worker=False)
    monkeypatch.setattr(scan_worker.os, "fork", refuse)
    assert scan_failures(log, worker=True, chunk_bytes=65_536) == expected
    assert served == [0, 0]


def test_a_worker_that_fails_leaves_the_rest_to_the_parent(
    corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[int],
    capfd: pytest.CaptureFixture[str], alone: bool,
) -> None:
    """A bug in the worker (here: an error at its fifth chunk) is printed, not hidden, and the
    parent finds the triggers of the chunks it did not send."""
    if alone:
        return
    log = tmp_path / "big.log"
    log.write_bytes(_corpus_log(corpus_dir))
    expected = scan_failures(log, chunk_bytes=65_536, worker=False)
    parent = os.getpid()
    calls = [0]
    original = scan_bytes.tail_start

    def failing(*args: object) -> int:
        calls[0] += 1
        if os.getpid() != parent and calls[0] == 5:
            raise RuntimeError("worker bug for the test")
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(scan_bytes, "tail_start", failing)
    monkeypatch.setattr(scan_chunks, "WAIT_FOR_WORKER", True)
    assert scan_failures(log, chunk_bytes=65_536, worker=True) == expected
    assert served[0] > 0 and served[1] > 0
    assert "worker bug for the test" in capfd.readouterr().err


def test_the_parent_loads_no_bytes_pass_when_the_worker_sends_every_chunk(
    corpus_dir: Path, tmp_path: Path, alone: bool
) -> None:
    """The worker is forked before numpy and Hyperscan load: a parent whose worker sends every
    chunk (it waits for all of them here) loads neither; the rows are those of the scan without
    a worker."""
    if alone:
        return
    log = tmp_path / "big.log"
    data = _corpus_log(corpus_dir)
    log.write_bytes(data * (1 + (scan_chunks.SMALL_FILE_BYTES // len(data))))  # not "small"
    code = (
        "import sys\n"
        "from trtsafe_lab.logs import scan_chunks\n"
        "from trtsafe_lab.logs.scan import scan_failures\n"
        "scan_chunks.WAIT_FOR_WORKER = True\n"
        f"rows = scan_failures({str(log)!r}, chunk_bytes=1 << 20, worker=True)\n"
        "print(len(rows), hash(repr(rows)))\n"
        "print(sorted(m for m in ('numpy', 'hyperscan', 'trtsafe_lab.logs.scan_bytes')"
        " if m in sys.modules))\n"
        f"rows = scan_failures({str(log)!r}, chunk_bytes=1 << 20, worker=False)\n"
        "print(len(rows), hash(repr(rows)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    assert result.returncode == 0, result.stderr
    with_worker, loaded, without = result.stdout.splitlines()
    assert with_worker == without and int(with_worker.split()[0]) > 100
    assert loaded == "[]"


def test_the_parent_waits_for_a_first_chunk_the_worker_claimed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, alone: bool
) -> None:
    """The worker claims its first chunk before loading its modules (slow: 0.3 s here): the
    parent waits for that chunk's answer, without reading ahead meanwhile, and takes it; the
    chunks after it are waited for at most MAX_WAIT_SECONDS as before."""
    if alone:
        return
    from trtsafe_lab.logs import scan_worker
    from trtsafe_lab.logs.scan_worker import ChunkTriggers

    monkeypatch.setattr(scan_worker, "FIRST_WAIT_SECONDS", 60.0)
    log = tmp_path / "x.log"
    log.write_bytes(b"[E] x\n" * 1000)

    def work(fd: int, start: int, send: object, progress: scan_worker.Progress) -> None:
        progress.begin(0)
        time.sleep(0.3)  # loading its modules
        send(ChunkTriggers(0, 0, 6000, [0, 6], [0, 1], 0, 0))  # type: ignore[operator]

    with open(log, "rb") as handle:
        helper = TriggerWorker.start(handle.fileno(), 0, work)
        assert helper is not None
        read_ahead: list[int] = []
        try:
            waited = 0.0  # the parent asks once the worker has claimed the chunk (as the CLI
            while scan_worker._POSITION.unpack_from(helper._shared, scan_worker._AT)[0] < 0:
                time.sleep(0.001)  # does: it loads the parser's modules first)
                waited += 0.001
                assert waited < 30
            found = helper.triggers(0, 0, 6000, lambda: read_ahead.append(0))
        finally:
            helper.close()
    assert found is not None and found.offsets == [0, 6] and read_ahead == []


@pytest.mark.parametrize("change", ["truncate-half", "truncate-empty", "grow", "rewrite"])
def test_a_log_changed_during_the_scan_gives_rows_or_a_clear_error(
    corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[int],
    change: str, alone: bool,
) -> None:
    """A log rewritten while it is scanned (a build re-run overwriting it): shrunk, emptied,
    grown or its bytes replaced after the third chunk, while the worker reads ahead. Both
    processes read with ``preadv`` into their own buffers (no file mapping, nothing that a
    shorter file could fault), so the scan ends with rows (or a LogReadError, a clear one);
    the worker is reaped either way."""
    if alone:
        return
    from trtsafe_lab.logs.source import LogReadError

    log = tmp_path / "big.log"
    data = _corpus_log(corpus_dir)
    data = data * (1 + (scan_chunks.SMALL_FILE_BYTES // len(data)))  # the Hyperscan path
    log.write_bytes(data)
    original = TriggerWorker.triggers  # the served fixture's count of the worker's answers

    def changing(self: TriggerWorker, number: int, *more: object) -> object:
        if number == 3:
            if change == "truncate-half":
                os.truncate(log, len(data) // 2)
            elif change == "truncate-empty":
                os.truncate(log, 0)
            elif change == "grow":
                with open(log, "ab") as out:
                    out.write(data[: len(data) // 3])
            else:
                with open(log, "r+b") as out:
                    out.write(bytes(reversed(data)))
        return original(self, number, *more)  # type: ignore[arg-type]

    monkeypatch.setattr(TriggerWorker, "triggers", changing)
    try:
        rows = scan_failures(log, chunk_bytes=1 << 20, worker=True)
    except LogReadError as err:
        assert str(log) in str(err)
    else:
        assert all(isinstance(row, dict) and row["line"] >= 1 for row in rows)
    assert served[0] + served[1] > 3  # the worker ran: its chunks were asked for
    with pytest.raises(ChildProcessError):  # no child left behind (reaped)
        os.waitpid(-1, os.WNOHANG)
