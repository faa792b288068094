"""The parser's record cache (error-dense logs repeat records) changes no result: every corpus
log, and the corpus logs repeated and interleaved, give the same rows and events with the
cache as without it, and the repeats are served from the cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtsafe_lab.logs.parser import LogParser
from trtsafe_lab.logs.record_cache import RecordCache
from trtsafe_lab.logs.source import iter_lines


def _logs(corpus_dir: Path, data_dir: Path) -> list[Path]:
    return sorted((corpus_dir / "build-logs" / "cases").glob("*.log")) + sorted(
        (data_dir / "logs" / "cases").glob("*.log")
    )


def _parse(source: bytes, cache: bool) -> tuple[list[dict], list[dict]]:
    parser = LogParser(keep_events=True, cache=cache)
    parser.feed_lines(iter_lines(source))
    parser.finish()
    return parser.failures, parser.events


@pytest.fixture
def data_dir() -> Path:
    return Path(__file__).parent / "data"


def test_each_log_same_with_and_without_cache(corpus_dir: Path, data_dir: Path) -> None:
    logs = _logs(corpus_dir, data_dir)
    assert len(logs) > 100
    for log in logs:
        data = log.read_bytes()
        assert _parse(data, True) == _parse(data, False), log.name


def test_repeated_and_interleaved_logs_hit_the_cache(
    corpus_dir: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs = [p.read_bytes() for p in _logs(corpus_dir, data_dir)]
    logs = [d if d.endswith(b"\n") else d + b"\n" for d in logs]
    # each log twice, the second time after a different one: the state a record meets differs
    data = b"".join(logs) + b"".join(reversed(logs)) + b"".join(logs[::3])
    hits = []
    lookup = RecordCache.lookup

    def counting(self: RecordCache, *args: object) -> object:
        found = lookup(self, *args)  # type: ignore[arg-type]
        hits.append(found is not None)
        return found

    monkeypatch.setattr(RecordCache, "lookup", counting)
    cached = _parse(data, True)
    # many repeats are served from the cache (not all: a record whose result depends on the
    # names blamed just before it meets other names the second time)
    assert sum(hits) > len(logs)
    monkeypatch.undo()
    assert cached == _parse(data, False)
    assert len(cached[0]) > 1000


def test_scan_of_a_repeating_log_same_with_and_without_cache(
    corpus_dir: Path, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The streaming scan feeds runs of lines through the segment cache (windows repeat in an
    error-dense log): same rows as without any cache and as the full parse."""
    from trtsafe_lab.logs import parser as parser_module
    from trtsafe_lab.logs.scan import scan_failures

    logs = [p.read_bytes() for p in _logs(corpus_dir, data_dir)]
    logs = [d if d.endswith(b"\n") else d + b"\n" for d in logs]
    verbose = next((corpus_dir / "build-logs" / "verbose").glob("*.log")).read_bytes()
    pieces = []
    for copy in range(3):
        pieces.append(verbose[: 200_000 * (copy + 1)].rpartition(b"\n")[0] + b"\n")
        pieces.extend(logs)
    log = tmp_path / "dense.log"
    log.write_bytes(b"".join(pieces))
    segment_hits = []
    lookup = RecordCache.lookup

    def counting(self: RecordCache, key: object, *args: object) -> object:
        found = lookup(self, key, *args)  # type: ignore[arg-type]
        if isinstance(key, bytes):  # a run of lines (records are keyed on tuples)
            segment_hits.append(found is not None)
        return found

    monkeypatch.setattr(RecordCache, "lookup", counting)
    cached = scan_failures(log, chunk_bytes=1 << 16)
    assert sum(segment_hits) > 100
    monkeypatch.setattr(parser_module, "RECORD_CACHE", False)
    assert cached == scan_failures(log, chunk_bytes=1 << 16)
    assert cached == _parse(log.read_bytes(), False)[0]
    assert len(cached) > 1000


def test_state_fields_of_any_kind_are_keyed_and_restored() -> None:
    """Line-number fields are kept relative to the record; lists, sets and dicts (changed in
    place) as snapshots, restored as fresh objects of their own type."""
    from dataclasses import dataclass, field

    from trtsafe_lab.logs.record_cache import TrackedState

    @dataclass
    class State:
        phase: str = "build"
        header_line: int = 0
        names: list[str] = field(default_factory=list)
        seen: set[str] = field(default_factory=set)
        counts: dict[str, int] = field(default_factory=dict)

    def read(state: object) -> None:  # what a reading of a record at line 100 does
        assert state.phase == "build"  # type: ignore[attr-defined]
        state.header_line = 100 + 2  # type: ignore[attr-defined]
        state.names.insert(0, "conv")  # type: ignore[attr-defined]
        state.seen.add("conv")  # type: ignore[attr-defined]
        state.counts["conv"] = state.counts.get("conv", 0) + 1  # type: ignore[attr-defined]

    cache = RecordCache()
    first = State(names=["a"], seen={"a"}, counts={"a": 1})
    tracked = TrackedState(first)  # type: ignore[arg-type]
    read(tracked)
    cache.store("key", tracked, "payload", 100, 3)
    again = State(names=["a"], seen={"a"}, counts={"a": 1})
    assert cache.lookup("key", again, 500) == "payload"  # type: ignore[arg-type]
    assert again == State("build", 502, ["conv", "a"], {"a", "conv"}, {"a": 1, "conv": 1})
    again.names.append("z")  # a restored list is its own object
    assert cache.lookup("key", again, 600) is None  # type: ignore[arg-type]  # names differ
    other = State(phase="runtime", names=["a"], seen={"a"}, counts={"a": 1})
    assert cache.lookup("key", other, 500) is None  # type: ignore[arg-type]


def test_a_field_without_snapshot_is_not_cached() -> None:
    from dataclasses import dataclass, field

    from trtsafe_lab.logs.record_cache import TrackedState

    @dataclass
    class State:
        blocks: dict[str, list[int]] = field(default_factory=dict)  # values are lists

    cache = RecordCache()
    tracked = TrackedState(State({"a": [1]}))  # type: ignore[arg-type]
    tracked.blocks["a"].append(2)  # type: ignore[attr-defined]
    cache.store("key", tracked, "payload", 1, 3)
    assert cache.lookup("key", State({"a": [1, 2]}), 1) is None  # type: ignore[arg-type]
