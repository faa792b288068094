"""Any bytes give tables, never a traceback; an unreadable file is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trtsafe_lab.logs import LogReadError, analyze_log, columns
from trtsafe_lab.logs.parser import LogParser
from trtsafe_lab.logs.scan import scan_failures
from trtsafe_lab.logs.source import iter_lines

# Fragments of real log lines, so that generated input reaches the rules and not only the
# "nothing matched" path.
FRAGMENTS = [
    b"[06/07/2022-19:05:53] ", b"[12:15:24] ", b"[E] ", b"[W] ", b"[I] ", b"[F] ", b"[!] ",
    b"[TRT] ", b"ERROR: ", b"WARNING: [TRT]: ", b"E] ", b"> ", b"\r", b"\x00", b"\xff\xfe",
    b"10: ", b"Error[10]: ", b"Error Code 10: Internal Error (", b")", b".)", b"{ForeignNode[",
    b"]}", b"...", b" + ", b"PWN(", b"(Unnamed Layer* 5) [Shuffle]", b"Could not find any "
    b"implementation for node ", b"While parsing node number 3 [Pad -> \"out\"]:",
    b"--- Begin node ---", b'name: "Pad_3"', b"--- End node ---", b"[6] Invalid Node - ",
    b"ERROR: ModelImporter.cpp:1 In function parseGraph:", b"In node 1 with name: ",
    b" and operator: X (f): INVALID_NODE: ", b"Default DLA is enabled but layer ",
    b" is not supported on DLA, falling back to GPU.", b"layers=[ONNX Layer: ",
    b"no tactics to implement operation", b"No tactic available for node ", b"Starting inference",
    b"Engine built in 1 sec.", b": IShuffleLayer applied to shape tensor",
    b" In computeCosts at /a.cpp:1",
    b"safety scope Layer '", b"'", b"[I] Local timing cache in use.",
    b"[I] Start parsing network model",
    b"[I] [TRT] Loaded engine size: 6 MiB", b"[TRT] [I] Starting inference", b"deserialize",
    b"NonZero_7 [NonZero] inputs: [a -> (-1)[INT32]], ", b"Parsing node: Pad_3 [Pad]",
    b"[I] No importer registered for op: NonZero. Attempting to import as plugin.",
    b"In node 2193 (importFallbackPluginImporter): UNSUPPORTED_NODE: x", b"Layer: ",
    b"'s output can not be used as shape tensor.", b"Unsupported ONNX data type: UINT8 (2)",
    b"DEBUG:torch_tensorrt.dynamo:", b"_to_copy converter rejected node ",
    b"\n", b"\n", b"\n", b"\r\n",
]
log_bytes = st.one_of(
    st.binary(max_size=2000),
    st.lists(st.sampled_from(FRAGMENTS) | st.binary(max_size=20), max_size=80).map(b"".join),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log_bytes)
def test_any_bytes_give_tables(data: bytes) -> None:
    analysis = analyze_log(data)
    assert list(analysis.failures.columns) == list(columns.FAILURE_COLUMNS)
    assert list(analysis.events.columns) == list(columns.EVENT_COLUMNS)
    assert list(analysis.summary().columns) == list(columns.SUMMARY_COLUMNS)
    assert analysis.failures["fatal"].dtype == bool


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=log_bytes, chunk=st.sampled_from([7, 64, 4096]))
def test_file_scan_matches_full_parse_on_any_bytes(tmp_path: Path, data: bytes, chunk: int) -> None:
    log = tmp_path / "any.log"
    log.write_bytes(data)
    parser = LogParser(keep_events=False)
    parser.feed_lines(iter_lines(log))
    parser.finish()
    assert scan_failures(log, chunk_bytes=chunk) == parser.failures


def test_crlf_nul_and_invalid_utf8(tmp_path: Path) -> None:
    log = tmp_path / "mixed.log"
    log.write_bytes(
        b"\xff\xfe[E] Error[10]: Error Code 10: Internal Error (Could not find any implementation "
        b"for node conv\x001.)\r\n[W] [TRT] Default DLA is enabled but layer pool is not supported "
        b"on DLA, falling back to GPU.\r\n"
    )
    failures = analyze_log(log).failures
    assert list(failures["layer"]) == ["conv\x001", "pool"]
    assert not any(message.endswith("\r") for message in failures["message"])


def test_ten_megabyte_line_and_truncated_file(tmp_path: Path) -> None:
    log = tmp_path / "long.log"
    log.write_bytes(
        b"[E] Error Code 10: Internal Error (Could not find any implementation for node a.)\n"
        + b"x" * (10 << 20)
        + b"\n[E] Error Code 10: Internal Error (Could not find any implementation for node b"
    )
    failures = analyze_log(log).failures
    assert list(failures["layer"]) == ["a", "b"]
    assert list(failures["line"]) == [1, 3]


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-build.log"
    with pytest.raises(LogReadError, match=r"no-such-build\.log"):
        analyze_log(missing)
    with pytest.raises(LogReadError, match="Is a directory"):
        analyze_log(tmp_path)


def test_text_and_bytes_sources_agree(corpus_dir: Path) -> None:
    log = corpus_dir / "build-logs" / "cases" / "060.log"
    from_path = analyze_log(log).failures
    from_bytes = analyze_log(log.read_bytes()).failures
    from_text = analyze_log(log.read_text(errors="replace"), text=True).failures
    assert from_path.equals(from_bytes) and from_path.equals(from_text)


@settings(max_examples=200, deadline=None)
@given(log_bytes)
def test_numpy_prefilter_keeps_every_trigger(data: bytes) -> None:
    """The vectorised 2/3-byte prefilter must never drop a position a trigger matches at."""
    import re

    from trtsafe_lab.logs.scan_bytes import candidates, trigger_offsets
    from trtsafe_lab.logs.triggers import TRIGGER_GROUPS

    found_first = set(candidates(data, len(data)))
    for _, pattern in TRIGGER_GROUPS:
        for hit in re.finditer(pattern, data):
            assert hit.start() in found_first
    lines_with_triggers = {
        data.rfind(b"\n", 0, hit.start())
        for _, pattern in TRIGGER_GROUPS
        for hit in re.finditer(pattern, data)
    }
    found = {data.rfind(b"\n", 0, pos) for pos in trigger_offsets(data)}
    assert found == lines_with_triggers


@settings(max_examples=300, deadline=None)
@given(log_bytes, st.floats(0, 1))
def test_small_file_regex_pass_equals_numpy_pass(data: bytes, where: float) -> None:
    """Small files find their trigger lines with one regular expression (no numpy import): the
    same offsets as the numpy pass, from any line start."""
    from trtsafe_lab.logs.scan_bytes import trigger_offsets
    from trtsafe_lab.logs.scan_chunks import small_trigger_offsets

    begin = data.rfind(b"\n", 0, round(where * len(data))) + 1
    assert small_trigger_offsets(data, len(data), begin) == trigger_offsets(data, begin=begin)


def _tail_start_by_rfind(chunk: bytes, end: int, lines: int) -> int:
    """The reference: one ``rfind`` per line back from ``chunk[end - 1]``."""
    pos = end - 1
    for _ in range(lines):
        previous = chunk.rfind(b"\n", 0, pos)
        if previous == -1:
            return 0
        pos = previous
    return pos + 1


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([b"\n", b"x", b"\n\n", b"y" * 300, b"z" * 70_000]), max_size=900),
    st.floats(0, 1),
)
def test_context_tail_found_with_numpy_matches_rfind(pieces: list[bytes], where: float) -> None:
    from trtsafe_lab.logs.scan_bytes import tail_start
    from trtsafe_lab.logs.scan_chunks import CONTEXT_LINES

    data = b"".join(pieces) or b"\n"
    end = max(1, round(where * len(data)))
    assert tail_start(data, end, CONTEXT_LINES) == _tail_start_by_rfind(data, end, CONTEXT_LINES)


def test_prefilter_same_for_any_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The prefilter works block by block: positions near a block's end (whose second and third
    bytes are in the next block) are found alike for any block size."""
    from trtsafe_lab.logs import scan_bytes

    cases = Path(__file__).parent / "data" / "logs" / "cases"
    data = b"".join(p.read_bytes() for p in sorted(cases.glob("*.log")))[:120_000]
    whole = scan_bytes.candidates(data, len(data))
    offsets = scan_bytes.trigger_offsets(data)
    for block in (3, 64, 4093):
        monkeypatch.setattr(scan_bytes, "BLOCK_BYTES", block)
        assert scan_bytes.candidates(data, len(data)) == whole
        assert scan_bytes.trigger_offsets(data, begin=0) == offsets


def test_every_trigger_match_begins_with_a_literal_head() -> None:
    """The prefilter drops positions whose bytes begin no literal head: on every corpus log and
    the fuzz fragments, each trigger match begins with one (and the prefilter keeps it)."""
    import re

    from trtsafe_lab.logs.scan_bytes import candidates
    from trtsafe_lab.logs.triggers import LITERAL_HEADS, TRIGGER_GROUPS

    heads = tuple(LITERAL_HEADS)
    logs = Path(__file__).parent / "data" / "logs" / "cases"
    shared = Path(__file__).parents[2] / "shared" / "corpus" / "build-logs"
    texts = [p.read_bytes() for p in sorted(logs.glob("*.log")) + sorted(shared.glob("*/*.log"))]
    texts.append(b"\n".join(FRAGMENTS))
    matched = 0
    for data in texts:
        kept = set(candidates(data, len(data)))
        for _, pattern in TRIGGER_GROUPS:
            for hit in re.finditer(pattern, data):
                assert data.startswith(heads, hit.start()), hit.group()
                assert hit.start() in kept
                matched += 1
    assert matched > 1000


def test_first_byte_ranges_cover_every_first_byte_and_no_frequent_one() -> None:
    from trtsafe_lab.logs import scan_bytes

    covered = {low + i for low, length in scan_bytes._TESTS for i in range(length)}
    assert set(scan_bytes._FIRST_BYTES) <= covered
    assert not covered & set(scan_bytes.FREQUENT_BYTES) - set(scan_bytes._FIRST_BYTES)
    assert scan_bytes.first_byte_tests((1, 4, 9), 3, b"\x02") == [(1, 1), (4, 1), (9, 1)]
    assert scan_bytes.first_byte_tests((1, 4, 9), 3) == [(1, 4), (9, 1)]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000), st.lists(st.floats(0, 1), max_size=40), st.floats(0, 1))
def test_line_numbers_of_offsets_match_counting(data: bytes, where: list[float], at: float) -> None:
    """The worker's line numbers (found with numpy at once) are the newlines before each offset
    counted one by one."""
    from trtsafe_lab.logs.scan_bytes import lines_of

    offsets = sorted(round(w * len(data)) for w in where)
    tail = round(at * len(data))
    lines, tail_line = lines_of(bytearray(data) + b"\n\n", offsets, 7, tail)
    assert lines == [7 + data.count(b"\n", 0, offset) for offset in offsets]
    assert tail_line == 7 + data.count(b"\n", 0, tail)


def test_first_bytes_of_a_pattern() -> None:
    from trtsafe_lab.logs.triggers import rest_first_bytes

    assert rest_first_bytes(rb"-?\d") == frozenset(b"-0123456789")
    assert rest_first_bytes(rb"(?:ab|c)?(?:d|e{2,3})x") == frozenset(b"acde")
    assert rest_first_bytes(rb"(?:|a)x") == frozenset(b"ax")
    assert rest_first_bytes(rb"(?:\[T\w{0,20}\] )?Go") == frozenset(b"[G")
    assert rest_first_bytes(rb"[a-c]") == frozenset(b"abc")
    assert rest_first_bytes(rb"\.x") == frozenset(b".")
    for anything in (b"", rb"x*", rb"[^a]", rb".", rb"\s", rb"(?:a|)", rb"(?=a)b", rb"a{0,3}"):
        assert rest_first_bytes(anything) is None


def test_bytes_after_each_head_read_from_the_triggers_own_patterns() -> None:
    """Drift test: every rest of ``HEAD_RESTS`` is read (none falls back to "any byte", which
    would keep every ``[I] `` line a candidate), and in every trigger match of the corpus logs
    and the fuzz fragments, the byte after the head is one its rest may begin with."""
    import re

    from trtsafe_lab.logs.triggers import HEAD_RESTS, TRIGGER_GROUPS, rest_first_bytes

    follows = {}
    for head, rest in HEAD_RESTS:
        if rest:
            assert rest_first_bytes(rest) is not None, rest
            assert all(re.match(rest, bytes([b]) + b" ") is None  # a sample of the others
                       for b in set(range(256)) - rest_first_bytes(rest))
        follows[head] = rest_first_bytes(rest)
    markers = next(rest for head, rest in HEAD_RESTS if head == b"I] ")
    assert rest_first_bytes(markers) == frozenset(b"[SLGFI")
    logs = Path(__file__).parent / "data" / "logs" / "cases"
    shared = Path(__file__).parents[2] / "shared" / "corpus" / "build-logs"
    texts = [p.read_bytes() for p in sorted(logs.glob("*.log")) + sorted(shared.glob("*/*.log"))]
    texts.append(b"\n".join(FRAGMENTS))
    checked = 0
    for data in texts:
        for _, pattern in TRIGGER_GROUPS:
            for hit in re.finditer(pattern, data):
                for head, allowed in follows.items():
                    after = hit.start() + len(head)
                    if allowed is not None and data.startswith(head, hit.start()) and \
                            re.match(dict(HEAD_RESTS)[head], data[after:hit.end()]):
                        assert data[after] in allowed, hit.group()
                        checked += 1
    assert checked > 100


def test_prefilter_drops_a_literal_followed_by_a_byte_no_trigger_goes_on_with() -> None:
    """``I] `` starts a trigger only before a phase marker (``[I] Starting inference``), ``Engine
    `` only before ``built``/``deserialized``/``loaded``: other bytes after them are no candidate
    (``[I] Device memory``, ``Engine generation``), and the trigger lines stay found."""
    from trtsafe_lab.logs.scan_bytes import candidates, trigger_offsets

    lines = [
        b"[I] Device memory is fine",
        b"[I] Starting inference",
        b"Engine generation completed",
        b"Engine built in 1.5 sec",
        b"[I] [TRT] Loaded engine size: 6 MiB",
    ]
    data = b"\n".join(lines) + b"\n"
    starts = [data.index(line) for line in lines]
    found = candidates(data, len(data))
    assert starts[0] + 1 not in found and starts[2] not in found
    assert {starts[1] + 1, starts[3], starts[4] + 1} <= set(found)
    assert trigger_offsets(data) == [starts[1] + 1, starts[3], starts[4] + 1]
