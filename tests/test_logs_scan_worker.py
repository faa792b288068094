"""The scan's second process (``logs/scan_worker.py``) changes who reads the back of the file,
never the rows: the scan with a worker equals the scan without one, wherever the worker starts
and cuts its stretches, whether it finished first or not, and whichever of its stretches the
parent refuses (their state fields differ from its own: it reads those itself)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_logs_robust import log_bytes

from trtsafe_lab.logs import scan
from trtsafe_lab.logs.parser import LogParser
from trtsafe_lab.logs.scan import scan_failures
from trtsafe_lab.logs.scan_worker import can_fork_worker
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
    """Counts the worker's stretches the parent took: a test that never takes one would prove
    nothing."""
    count = [0]
    original = LogParser.adopt

    def adopt(self: LogParser, *args: object) -> None:
        count[0] += 1
        original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(LogParser, "adopt", adopt)
    return count


def _corpus_log(corpus_dir: Path) -> bytes:
    """The verbose build logs with every failing case log after each: real shapes, ~3 MB."""
    logs = corpus_dir / "build-logs"
    cases = b"".join(p.read_bytes().rstrip(b"\n") + b"\n" for p in sorted(logs.glob("cases/*")))
    return b"".join(p.read_bytes() + cases for p in sorted(logs.glob("verbose/*.log")))


@pytest.mark.parametrize("stretch", [4096, 65536, 1 << 20])
@pytest.mark.parametrize("chunk", [scan.CHUNK_BYTES, 100_003])
@pytest.mark.parametrize("share", [0.5, 0.93])
def test_worker_gives_the_same_rows(
    corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[int],
    stretch: int, chunk: int, share: float, alone: bool,
) -> None:
    if alone:
        return
    log = tmp_path / "big.log"
    log.write_bytes(_corpus_log(corpus_dir))
    expected = scan_failures(log, chunk_bytes=chunk, worker=False)
    assert len(expected) > 100
    options = {"chunk_bytes": chunk, "stretch_bytes": stretch, "worker_share": share}
    monkeypatch.setattr(scan, "WAIT_FOR_WORKER", True)  # the worker sends everything first
    assert scan_failures(log, worker=True, **options) == expected  # type: ignore[arg-type]
    assert served[0] > 0
    monkeypatch.setattr(scan, "WAIT_FOR_WORKER", False)  # the parent waits where it must
    assert scan_failures(log, worker=True, **options) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("refuse", ["every other", "the first of each run", "all"])
def test_refused_stretches_are_read_by_the_parent(
    corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[int],
    refuse: str, alone: bool,
) -> None:
    """Stretches whose state fields differ are read by the parent itself, from where the last
    one taken ended: refusing some (as a wrong guess of the state would) changes no row."""
    if alone:
        return
    log = tmp_path / "big.log"
    log.write_bytes(_corpus_log(corpus_dir))
    expected = scan_failures(log, chunk_bytes=100_003, worker=False)
    asked = [0]
    original = LogParser.state_matches

    def state_matches(self: LogParser, reads: dict, offset: int) -> bool:  # type: ignore[type-arg]
        asked[0] += 1
        if refuse == "all" or (refuse == "every other" and asked[0] % 2):
            return False
        if refuse == "the first of each run" and not getattr(self, "_taking", False):
            self._taking = True  # type: ignore[attr-defined]
            return False
        return original(self, reads, offset)

    monkeypatch.setattr(LogParser, "state_matches", state_matches)
    monkeypatch.setattr(scan, "WAIT_FOR_WORKER", True)
    rows = scan_failures(log, chunk_bytes=100_003, worker=True, stretch_bytes=8192)
    assert rows == expected
    assert asked[0] > 2
    assert (served[0] == 0) == (refuse == "all")


def test_byte_order_mark_and_a_cut_line(
    corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[int],
    alone: bool,
) -> None:
    """A UTF-8 mark shifts the file offsets by 3; a line longer than MAX_LINE_BYTES is cut in the
    scan's buffer (which then no longer maps onto the file: the worker is stopped there, before
    it served anything here, as it gave up at that line)."""
    if alone:
        return
    body = _corpus_log(corpus_dir)
    monkeypatch.setattr(scan, "WAIT_FOR_WORKER", True)
    log = tmp_path / "bom.log"
    log.write_bytes(b"\xef\xbb\xbf" + body)
    expected = scan_failures(log, worker=False)
    (tmp_path / "plain.log").write_bytes(body)
    assert expected == scan_failures(tmp_path / "plain.log", worker=False)  # the mark is skipped
    assert scan_failures(log, worker=True, stretch_bytes=65536) == expected
    assert served[0] > 0
    log = tmp_path / "long.log"
    for long_line_at in (len(body) // 2, len(body) + len(body) // 2):  # before, in its part
        body_with = body + body
        log.write_bytes(
            body_with[:long_line_at] + b"x" * (3 * MAX_LINE_BYTES) + b"\n"
            + body_with[long_line_at:]
        )
        expected = scan_failures(log, worker=False)
        assert scan_failures(log, worker=True, stretch_bytes=65536) == expected


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=log_bytes,
    stretch=st.sampled_from([16, 64, 256]),
    chunk=st.sampled_from([7, 4096]),
    share=st.sampled_from([0.3, 0.5, 0.9]),
)
def test_worker_on_any_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data: bytes, stretch: int, chunk: int,
    share: float, alone: bool,
) -> None:
    if alone:
        return
    log = tmp_path / "any.log"
    log.write_bytes(data)
    expected = scan_failures(log, chunk_bytes=chunk, worker=False)
    monkeypatch.setattr(scan, "WAIT_FOR_WORKER", True)
    rows = scan_failures(
        log, chunk_bytes=chunk, worker=True, stretch_bytes=stretch, worker_share=share
    )
    assert rows == expected


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
    assert scan_failures(log, worker=True, stretch_bytes=65536) == expected
    assert served[0] == 0
