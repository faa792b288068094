"""Fuzz harness, CI-sized (issue 15): any bytes give a table or the package's own clear error.

Targets: ``analyze_log``, ``LogParser.feed``/``finish`` (fed in random pieces, bytes and str),
the profile loaders (``load_times``, ``load_profile_run``, ``parse_summary``,
``summary_from_metadata``) and the manifest readers (``rundir.load_run``,
``artifacts.load_manifest``). The streaming scan against the full parse is fuzzed in
tests/test_logs_scan_equals_parse.py. Inputs are random bytes, random JSON, and real corpus
files mutated (bytes flipped, cut, spliced, fields replaced). The long run of the same targets
(>= 1M inputs) is benchmarks/fuzz_long_run.py.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_logs_robust import log_bytes

from trtsafe_lab import artifacts, rundir
from trtsafe_lab.logs import analyze_log, columns
from trtsafe_lab.logs.parser import LogParser
from trtsafe_lab.profile.loaders import ExportError, load_profile_run, load_times
from trtsafe_lab.profile.summary import parse_summary, summary_from_metadata

FIXTURES = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner,
                                                              max_size=5),
    max_leaves=20,
)


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    """A real file with a few random edits: flips, cuts, inserted bytes, a spliced copy."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(0, 6))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        edit = draw(st.sampled_from(["flip", "cut", "insert", "splice", "truncate"]))
        if edit == "flip":
            data[at] = draw(st.integers(0, 255))
        elif edit == "cut":
            del data[at : at + draw(st.integers(1, 64))]
        elif edit == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif edit == "splice":
            start = draw(st.integers(0, len(data) - 1))
            data[at:at] = data[start : start + draw(st.integers(1, 256))]
        else:
            del data[at:]
    return bytes(data)


def _corpus_file(*parts: str) -> bytes:
    from conftest import corpus_root

    return corpus_root().joinpath(*parts).read_bytes()[:20_000]


LOG_SEEDS = [
    _corpus_file("build-logs", "cases", name) for name in ("036.log", "060.log", "068.log")
]
TIMING_SEED = _corpus_file("trtexec-exports", "trt10-resnet18-fp16", "resnet18_fp16.timing.json")
METADATA_SEED = _corpus_file(
    "trtexec-exports", "trt10-resnet18-fp16", "resnet18_fp16.profile.metadata.json"
)
any_log = log_bytes | st.sampled_from(LOG_SEEDS).flatmap(mutated)


@settings(max_examples=150, deadline=None)
@given(any_log)
def test_analyze_log_gives_tables(data: bytes) -> None:
    analysis = analyze_log(data)
    assert list(analysis.failures.columns) == list(columns.FAILURE_COLUMNS)
    assert list(analysis.events.columns) == list(columns.EVENT_COLUMNS)


@settings(max_examples=150, deadline=None)
@given(data=any_log, cuts=st.lists(st.integers(0, 20_000), max_size=12), as_text=st.booleans())
def test_parser_fed_in_random_pieces(data: bytes, cuts: list[int], as_text: bool) -> None:
    """Pieces that are not lines (cut anywhere, even inside a UTF-8 character) never raise;
    lines fed as bytes or as str give the same rows."""
    parser = LogParser()
    points = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    for start, end in itertools.pairwise(points):
        piece = data[start:end]
        parser.feed(piece.decode("utf-8", "replace") if as_text else piece)
    parser.finish()
    assert parser.lines_read == max(len(points) - 1, 0)
    as_bytes, as_str = LogParser(), LogParser()
    for line in data.split(b"\n"):
        as_bytes.feed(line)
        as_str.feed(line.decode("utf-8", "replace"))
    assert as_bytes.finish() == as_str.finish()
    assert as_bytes.failures == as_str.failures


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


timing_bytes = (
    st.binary(max_size=300)
    | st.builds(lambda value: json.dumps(value).encode(), json_values)
    | mutated(TIMING_SEED)
    | st.builds(
        lambda rows: json.dumps(rows).encode(),
        st.lists(
            st.dictionaries(
                st.sampled_from(["computeMs", "latencyMs", "h2dMs", "startEnqMs", "x"]),
                json_values,
            ),
            max_size=4,
        ),
    )
)


@settings(max_examples=200, **FIXTURES)
@given(data=timing_bytes)
def test_profile_loaders_give_a_table_or_export_error(tmp_path: Path, data: bytes) -> None:
    timing = _write(tmp_path / "exports" / "net.timing.json", data)
    for load in (lambda: load_times(timing), lambda: load_profile_run(timing.parent)):
        try:
            run: Any = load()
        except ExportError as err:
            assert str(timing) in str(err)
            continue
        times = run if hasattr(run, "columns") else run.times
        assert all(str(times[column].dtype) == "float64" for column in times.columns)


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=400) | st.sampled_from(LOG_SEEDS).flatmap(mutated).map(
    lambda data: data.decode("utf-8", "replace")))
def test_parse_summary_gives_a_summary_or_value_error(text: str) -> None:
    try:
        summary = parse_summary(text)
    except ValueError as err:
        assert "performance summary" in str(err)
        return
    assert len(summary.table) > 0


def _json_or_none(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None


@settings(max_examples=200, deadline=None)
@given(meta=json_values | mutated(METADATA_SEED).map(_json_or_none))
def test_summary_from_metadata_gives_a_summary_or_value_error(meta: Any) -> None:
    try:
        summary_from_metadata(meta)
    except ValueError as err:
        assert "performance_summary" in str(err) or "metadata" in str(err)


def _real_manifest(tmp_path: Path) -> bytes:
    run = tmp_path / "seed-run"
    if not (run / rundir.MANIFEST_NAME).is_file():
        run.mkdir(parents=True, exist_ok=True)
        (run / "a.txt").write_text("x")
        rundir.write_run_manifest(run, "report", "seed-run")
    return (run / rundir.MANIFEST_NAME).read_bytes()


manifest_edits = st.dictionaries(
    st.sampled_from(["schema", "kind", "name", "files", "created_utc", "format", "engine"]),
    json_values,
    max_size=3,
)


@settings(max_examples=200, **FIXTURES)
@given(raw=st.binary(max_size=200) | st.builds(lambda v: json.dumps(v).encode(), json_values),
       edits=manifest_edits, use_raw=st.booleans())
def test_run_manifests_load_or_raise_run_dir_error(
    tmp_path: Path, raw: bytes, edits: dict[str, Any], use_raw: bool
) -> None:
    data = raw
    if not use_raw:
        manifest = json.loads(_real_manifest(tmp_path))
        manifest.update(edits)
        data = json.dumps(manifest).encode()
    run = tmp_path / "fuzzed-run"
    _write(run / rundir.MANIFEST_NAME, data)
    try:
        record = rundir.load_run(run)
    except rundir.RunDirError as err:
        assert str(run) in str(err)
        return
    assert record.manifest["kind"] in rundir.KINDS


@settings(max_examples=200, **FIXTURES)
@given(raw=st.binary(max_size=200) | st.builds(lambda v: json.dumps(v).encode(), json_values),
       edits=st.dictionaries(st.text(max_size=10), json_values, max_size=4))
def test_pair_manifests_load_or_raise_pair_error(
    tmp_path: Path, raw: bytes, edits: dict[str, Any]
) -> None:
    for data in (raw, json.dumps({"format": artifacts.MANIFEST_FORMAT, **edits}).encode()):
        path = _write(tmp_path / "pair.manifest.json", data)
        try:
            loaded = artifacts.load_manifest(path)
        except artifacts.PairError as err:
            assert str(path) in str(err)
            continue
        assert loaded["format"] == artifacts.MANIFEST_FORMAT
