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


def _first_trigger_of_each_line(data: bytes, begin: int = 0) -> list[int]:
    """The reference: per line of ``data[begin:]``, the lowest position where any trigger
    group's regular expression (Python's ``re``) matches."""
    import re

    from trtsafe_lab.logs.triggers import TRIGGER_GROUPS

    first: dict[int, int] = {}
    for _, pattern in TRIGGER_GROUPS:
        for hit in re.compile(pattern).finditer(data, begin):
            line = data.rfind(b"\n", 0, hit.start())
            first[line] = min(first.get(line, hit.start()), hit.start())
    return sorted(first.values())


@settings(max_examples=300, deadline=None)
@given(log_bytes, st.floats(0, 1))
def test_hyperscan_pass_finds_the_first_trigger_of_each_line(data: bytes, where: float) -> None:
    """Hyperscan (PCRE syntax) reads the trigger groups as Python's ``re`` does: the same
    first trigger in every line, from any line start."""
    from trtsafe_lab.logs.scan_bytes import trigger_offsets

    begin = data.rfind(b"\n", 0, round(where * len(data))) + 1
    assert trigger_offsets(data, begin=begin) == _first_trigger_of_each_line(data, begin)
    assert trigger_offsets(bytearray(data) + b"tail", len(data), begin=begin) == (
        _first_trigger_of_each_line(data, begin)
    )


@settings(max_examples=300, deadline=None)
@given(log_bytes, st.floats(0, 1))
def test_small_file_regex_pass_equals_hyperscan_pass(data: bytes, where: float) -> None:
    """Small files find their trigger lines with one regular expression (no numpy or Hyperscan
    import): the same offsets as the Hyperscan pass, from any line start."""
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
    expected = _tail_start_by_rfind(data, end, CONTEXT_LINES)
    assert tail_start(data, end, CONTEXT_LINES) == expected
    assert tail_start(data, end, CONTEXT_LINES, plain=True) == expected


def test_hyperscan_pass_equals_re_on_every_corpus_log() -> None:
    """On every corpus log and the fuzz fragments, the same first trigger of each line as
    Python's ``re``."""
    from trtsafe_lab.logs.scan_bytes import trigger_offsets

    logs = Path(__file__).parent / "data" / "logs" / "cases"
    shared = Path(__file__).parents[2] / "shared" / "corpus" / "build-logs"
    texts = [p.read_bytes() for p in sorted(logs.glob("*.log")) + sorted(shared.glob("*/*.log"))]
    texts.append(b"\n".join(FRAGMENTS))
    found = 0
    for data in texts:
        offsets = trigger_offsets(data)
        assert offsets == _first_trigger_of_each_line(data)
        found += len(offsets)
    assert found > 1000


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000), st.lists(st.floats(0, 1), max_size=40), st.floats(0, 1))
def test_line_numbers_of_offsets_match_counting(data: bytes, where: list[float], at: float) -> None:
    """The worker's line numbers (found with numpy at once) are the newlines before each offset
    counted one by one."""
    from trtsafe_lab.logs.scan_bytes import lines_of

    offsets = sorted(round(w * len(data)) for w in where)
    tail = round(at * len(data))
    for plain in (False, True):  # numpy's count; bytes.count (the worker's first chunk)
        lines, tail_line = lines_of(bytearray(data) + b"\n\n", offsets, 7, tail, plain)
        assert lines == [7 + data.count(b"\n", 0, offset) for offset in offsets]
        assert tail_line == 7 + data.count(b"\n", 0, tail)


def test_a_trigger_hyperscan_cannot_compile_is_refused_by_name() -> None:
    """Hyperscan refuses a whole database for one pattern it cannot read (a lookbehind): the
    error names the pattern and what to do, and no trigger is dropped silently."""
    from trtsafe_lab.logs.scan_bytes import _database

    with pytest.raises(ValueError, match=r"pattern\(s\) \[b'a\(\?<=b\)c'\] \(.*triggers\.py"):
        _database([b"abc", b"a(?<=b)c"])


def _trigger_match_strategy() -> st.SearchStrategy[bytes]:
    from trtsafe_lab.logs.triggers import TRIGGER_GROUPS

    return st.one_of([st.from_regex(pattern, fullmatch=True) for _, pattern in TRIGGER_GROUPS])


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_every_text_re_reads_as_a_trigger_hyperscan_reads_so(data: st.DataObject) -> None:
    """Texts generated from each trigger group's own syntax (every alternative, repeat count
    and class, not only those in the corpus or FRAGMENTS): Hyperscan finds the trigger Python's
    ``re`` finds, alone and between other bytes."""
    from trtsafe_lab.logs.scan_bytes import trigger_offsets

    trigger = data.draw(_trigger_match_strategy())
    assert trigger_offsets(trigger) == [0] == _first_trigger_of_each_line(trigger)
    around = data.draw(st.tuples(st.binary(max_size=40), st.binary(max_size=40)))
    text = around[0] + trigger + around[1]
    assert trigger_offsets(text) == _first_trigger_of_each_line(text)


@pytest.mark.parametrize("line", [
    "E0\u0663\u0664\u0665 \u0666 conv.cc:1] failed",  # glog's E0123 4 in Arabic-Indic digits
    "W\uff11\uff12\uff13\uff14 \uff15 x.cc:2] warn",  # fullwidth digits after a glog W
    "[I] [T\u00e9\u00e8] Loaded engine size: 3 MiB",  # non-ASCII letters in a \w run
    "E0123 4 conv.cc:1] failed",  # controls: ASCII, a trigger for both
    "[I] [TRT] Loaded engine size: 3 MiB",
])
def test_text_and_bytes_triggers_read_digits_and_letters_alike(line: str) -> None:
    """The full parse reads lines as text, the scan reads bytes: a non-ASCII digit or letter
    where a trigger has ``\\d``/``\\w`` must be a trigger for both or for neither (text patterns
    are ASCII-only, as bytes patterns are), so the scan and the parse never disagree on a line."""
    from trtsafe_lab.logs.scan_bytes import trigger_offsets
    from trtsafe_lab.logs.triggers import has_trigger

    data = line.encode("utf-8") + b"\n"
    assert has_trigger(line) == bool(trigger_offsets(data)), line
    assert has_trigger(line) == line.isascii()
