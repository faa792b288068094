"""One answer per log (issue 15 #2): the streaming file scan equals the full in-memory parse.

``trtsafe-lab failures FILE`` reads files with :func:`scan_failures` (chunks, windows around
triggers); ``analyze_log(bytes)`` feeds every line to the parser. They must give the same rows
for every input, wherever the chunks split.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_logs_robust import log_bytes

from trtsafe_lab.logs.parser import LogParser
from trtsafe_lab.logs.scan import scan_failures
from trtsafe_lab.logs.scan_chunks import CHUNK_BYTES
from trtsafe_lab.logs.source import iter_lines

# Reduced from the disagreements issue 15 reported and from a differential run (a marker on a
# tagged line without severity, a getBestTactic / DLA line with a marker on it, a kept context
# line whose marker was applied again in the next chunk).
REDUCED = [
    b"\n[TRT] Validation failed for DLA layer: c3. Switching to GPU[I] Local timing cache in use.",
    b"[V] [TRT] [I] Starting inferencePWN(\n[TRT] GPU error during getBestTactic: conv1 : invalid"
    b" argument[TRT] [I] Starting inferenceNo tactic available for node [I] Start parsing network"
    b" model",
    b"[I] [TRT] Loaded engine size: 6 MiB\n[12:15:24] Validation failed for DLA layer: c3. "
    b"Switching to GPU[TRT] [I] Starting inferenceEngine built in 1 sec.\n",
    b"[06/07/2022-19:05:53] Default DLA is enabled but layer Layer 'a' (CONVOLUTION): Unsupported"
    b" on DLA[I] Local timing cache in use.10: [I] [TRT] Could not find any implementation for "
    b"node x",
    b"[I] Starting inference\xff\xfe\n[I] Start parsing network model and operator: X (f): "
    b"INVALID_NODE: \n[I] [TRT] ERROR: In node 1 with name: ",
    b"[I] Local timing cache in use.\n--- Begin node ---\n[E] In node 3 (f): INVALID_NODE: x",
    # the importer line three records before the parser error (classify.CONTEXT_RECORDS)
    b"[V] [TRT] ModelImporter.cpp:1: NonZero_7 [NonZero] inputs: [a -> (-1)[INT32]], \n"
    b"[I] [TRT] No importer registered for op: NonZero. Attempting to import as plugin.\n"
    b"[I] [TRT] Searching for plugin: NonZero, plugin_version: 1, plugin_namespace: \n\n"
    b"In node 7 (importFallbackPluginImporter): UNSUPPORTED_NODE: Assertion failed: creator\n",
    # no final newline: the last record is still in the runtime phase
    b"[I] [TRT] Loaded engine size: 6 MiB\n[E] [TRT] 1: [runner.cpp::execute::1] Error Code 1: "
    b"Cuda Runtime (illegal memory access)",
]


def full_parse(data: bytes) -> list[dict[str, object]]:
    parser = LogParser(keep_events=False)
    parser.feed_lines(iter_lines(data))
    parser.finish()
    return parser.failures


def scanned(tmp_path: Path, data: bytes, chunk: int) -> list[dict[str, object]]:
    log = tmp_path / "scan.log"
    log.write_bytes(data)
    return scan_failures(log, chunk_bytes=chunk)


@pytest.mark.parametrize("case", range(len(REDUCED)))
def test_reduced_disagreements(tmp_path: Path, case: int) -> None:
    data = REDUCED[case]
    expected = full_parse(data)
    assert expected  # each case has rows: "no failures found" was the wrong answer
    for chunk in (CHUNK_BYTES, 1, 7, 40, 4096):
        assert scanned(tmp_path, data, chunk) == expected, chunk


def _real_log(corpus_dir: Path) -> bytes:
    """Real failing logs with DLA, getBestTactic and ONNX node dumps, one after the other."""
    cases = corpus_dir / "build-logs" / "cases"
    return b"".join((cases / name).read_bytes() for name in ("036.log", "039.log", "060.log"))


def test_every_split_offset_of_a_real_log(corpus_dir: Path, tmp_path: Path) -> None:
    """Pad the log by 0..299 bytes so the chunk boundaries land at every offset class."""
    body = _real_log(corpus_dir)
    expected_rows = full_parse(body)
    assert len(expected_rows) >= 5
    for pad in range(300):
        data = b"[V] " + b"x" * pad + b"\n" + body
        expected = full_parse(data)
        assert len(expected) == len(expected_rows)
        assert scanned(tmp_path, data, 509) == expected, pad


def test_a_file_over_four_mebibytes_with_the_default_chunk(
    corpus_dir: Path, tmp_path: Path
) -> None:
    body = _real_log(corpus_dir)
    filler = b"[06/07/2022-19:05:53] [V] [TRT] Tactic: 0x0000000000000000 Time: 0.1\n"
    lead = filler * (CHUNK_BYTES // len(filler) - body.count(b"\n") // 2)
    for shift in (0, 1, 17, 333):
        data = b"x" * shift + b"\n" + lead + body + filler * 3
        assert len(data) > CHUNK_BYTES
        assert scanned(tmp_path, data, CHUNK_BYTES) == full_parse(data), shift


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=log_bytes, chunk=st.integers(min_value=1, max_value=3000))
def test_scan_equals_parse_at_random_split_points(
    tmp_path: Path, data: bytes, chunk: int
) -> None:
    assert scanned(tmp_path, data, chunk) == full_parse(data)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cut=st.integers(min_value=0, max_value=20_000),
    chunk=st.integers(min_value=16, max_value=5000),
    keep_newline=st.booleans(),
)
def test_scan_equals_parse_on_cut_real_logs(
    corpus_dir: Path, tmp_path: Path, cut: int, chunk: int, keep_newline: bool
) -> None:
    """A real log cut anywhere (a copy that stops mid-line), read with any chunk size."""
    data = _real_log(corpus_dir)
    data = data[: cut % (len(data) + 1)]
    if not keep_newline:
        data = data.rstrip(b"\n")
    assert scanned(tmp_path, data, chunk) == full_parse(data)
