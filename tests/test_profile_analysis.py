"""Loaders, statistics, comparison and CLI of the profiler on the real trtexec corpus."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trtsafe_lab.cli import main
from trtsafe_lab.profile.compare import JSON_KEYS, SPEEDUP_KEYS, compare_runs
from trtsafe_lab.profile.layers import (
    io_tensors,
    join_layers,
    load_graph,
    load_profile,
    streams_in,
    total_layer_time_ms,
)
from trtsafe_lab.profile.loaders import ExportError, load_profile_run, load_times
from trtsafe_lab.profile.reference import WorkloadSpec, layer_info
from trtsafe_lab.profile.stats import latency_summary, mann_whitney, speedup_ci
from trtsafe_lab.profile.summary import parse_summary, summary_from_metadata
from trtsafe_lab.profile.timeline import kernel_layer_profile, layer_timeline

EXPORTS = "trtexec-exports"


@pytest.fixture(scope="module")
def resnet18(corpus_dir: Path):
    return load_profile_run(corpus_dir / EXPORTS / "trt10-resnet18-fp16")


def test_timing_json_loads_with_snake_case_columns(resnet18) -> None:
    t = resnet18.times
    assert len(t) == 10742
    assert list(t.columns)[:2] == ["start_enq_ms", "end_enq_ms"]
    assert t["latency_ms"].iloc[0] == pytest.approx(0.27832)
    assert resnet18.files["graph"].name == "resnet18_fp16.graph.json"


@pytest.mark.parametrize("stem", ["trt10-resnet18-fp16/resnet18_fp16",
                                  "trt10-mobilenet_v2-fp16/mobilenet_v2_fp16"])
def test_stats_reproduce_trtexecs_own_summary(corpus_dir: Path, stem: str) -> None:
    """Our statistics over the exported iterations equal what trtexec printed (TRT 10.x).
    (The 8.x exports of the corpus were written by a different trtexec run than the summary
    beside them, so they cannot match.)"""
    meta = json.loads((corpus_dir / EXPORTS / f"{stem}.profile.metadata.json").read_text())
    printed = summary_from_metadata(meta)
    t = load_times(corpus_dir / EXPORTS / f"{stem}.timing.json")
    ours = latency_summary(t["latency_ms"],
                     span_ms=t["end_compute_ms"].max() - t["start_compute_ms"].min())
    for key in ("min_ms", "max_ms", "median_ms", "p90_ms", "p95_ms", "p99_ms"):
        assert ours[key] == pytest.approx(printed.stat("latency", key), rel=1e-6), key
    assert ours["mean_ms"] == pytest.approx(printed.stat("latency", "mean_ms"), rel=1e-5)
    assert ours["throughput_qps"] == pytest.approx(printed.scalars["throughput_qps"], rel=1e-3)


@pytest.mark.parametrize(("case", "layout", "metric", "median", "p99", "p90"), [
    ("070", "modern", "gpu_compute_time", 0.153595, 0.159912, None),
    ("071", "modern", "latency", 0.0440674, 0.0512695, 0.0450439),
    ("087", "pre-8", "end_to_end", 3.01636, 3.03931, None),
])
def test_performance_summary_layouts(corpus_dir: Path, case: str, layout: str, metric: str,
                                     median: float, p99: float, p90: float | None) -> None:
    text = (corpus_dir / "build-logs" / "cases" / f"{case}.log").read_text()
    summary = parse_summary(text)
    assert summary.layout == layout
    assert summary.stat(metric, "median_ms") == pytest.approx(median)
    assert summary.stat(metric, "p99_ms") == pytest.approx(p99)
    if p90 is None:
        assert math.isnan(summary.stat(metric, "p90_ms"))
    else:
        assert summary.stat(metric, "p90_ms") == pytest.approx(p90)


def test_summary_keeps_warnings_and_totals(corpus_dir: Path) -> None:
    s = parse_summary((corpus_dir / "build-logs" / "cases" / "071.log").read_text())
    assert s.scalars == {"throughput_qps": 15374.3, "total_host_walltime_s": 3.00013,
                         "total_gpu_compute_time_s": 1.6586}
    assert any("coefficient of variance" in w for w in s.warnings)
    with pytest.raises(ValueError, match="no trtexec performance summary"):
        parse_summary("[I] nothing here\n")


def test_graph_schemas(corpus_dir: Path) -> None:
    g10 = load_graph(corpus_dir / EXPORTS / "trt10-resnet18-fp16" / "resnet18_fp16.graph.json")
    assert set(g10["schema"]) == {"10.x"} and set(g10["stream_id"]) == {0}
    assert g10.loc[1, "onnx_layers"] == "/conv1/Conv | /relu/Relu"
    g8 = load_graph(corpus_dir / EXPORTS / "trt8-resnet50-a100-fp16" /
                    "resnet.onnx.engine.graph.json")
    assert set(g8["schema"]) == {"8.x"} and g8["stream_id"].isna().all()
    assert streams_in(g8) == 1


def test_graph_11x_schema_with_sync_layers(tmp_path: Path) -> None:
    """A hand-written file in the 11.x shape (I/O Tensors, split Format/Datatype): no real 11.x
    export is public, so this documents the fields the loader relies on."""
    data = {"Layers": [
        {"Name": "a", "LayerType": "CaskConvolution", "StreamId": 0, "Metadata": "[ONNX Layer: x]",
         "Inputs": [{"Name": "in", "Format": "Row major linear", "Datatype": "FP16"}]},
        {"Name": "sig", "LayerType": "signal", "StreamId": 0, "Metadata": ""},
        {"Name": "wt", "LayerType": "wait", "StreamId": 1, "Metadata": ""},
        {"Name": "b", "LayerType": "CaskConvolution", "StreamId": 1, "Metadata": ""}],
        "I/O Tensors": [{"Name": "in"}, {"Name": "out"}]}
    path = tmp_path / "e.graph.json"
    path.write_text(json.dumps(data))
    graph = load_graph(path)
    assert set(graph["schema"]) == {"11.x"}
    assert graph["is_sync"].tolist() == [False, True, True, False]
    assert io_tensors(path) == ["in", "out"]
    assert streams_in(graph) == 2
    profile = pd.DataFrame({"layer_name": ["a", "b", "__myl_internal"], "total_ms": [1, 1, 1],
                            "average_ms": [0.5, 0.25, 0.1], "median_ms": [0.5, 0.25, 0.1],
                            "percentage": [40, 40, 20], "count": [2, 2, 2]})
    joined = join_layers(profile, graph)
    assert joined["in_graph"].tolist() == [True, True, False]  # Myelin extra kept, marked
    with pytest.raises(ValueError, match="overlap"):
        total_layer_time_ms(profile, streams_in(graph))


def test_profile_json_joins_graph_by_name(corpus_dir: Path) -> None:
    folder = corpus_dir / EXPORTS / "trt10-mobilenet_v2-fp16"
    prof = load_profile(folder / "mobilenet_v2_fp16.profile.json")
    joined = join_layers(prof, load_graph(folder / "mobilenet_v2_fp16.graph.json"))
    assert joined["in_graph"].all() and len(joined) == len(prof) == 57
    assert total_layer_time_ms(prof, 1) == pytest.approx(prof["average_ms"].sum())


def test_bad_exports_say_what_is_wrong(tmp_path: Path) -> None:
    bad = tmp_path / "x.timing.json"
    bad.write_text('[{"a": 1}]')
    with pytest.raises(ExportError, match="--exportTimes"):
        load_times(bad)
    bad.write_text("[{")
    with pytest.raises(ExportError, match="cut short"):
        load_times(bad)
    with pytest.raises(FileNotFoundError):
        load_profile_run(tmp_path / "missing")


def test_speedup_ci_brackets_the_truth_and_is_reproducible() -> None:
    rng = np.random.default_rng(7)
    base, fast = rng.normal(2.0, 0.05, 400), rng.normal(1.0, 0.025, 400)
    s = speedup_ci(base, fast)
    assert s.ci_low < 2.0 < s.ci_high and s.ci_low < s.speedup < s.ci_high
    assert speedup_ci(base, fast) == s
    same = mann_whitney(base, rng.normal(2.0, 0.05, 400))
    assert not same.significant(0.001)


def test_compare_two_engines_from_corpus(corpus_dir: Path) -> None:
    runs = [load_profile_run(corpus_dir / EXPORTS / n) for n in
            ("trt8-resnet50-a100-fp32", "trt8-resnet50-a100-fp16")]
    table = compare_runs(runs, metric="compute")
    fp16 = table.iloc[1]
    assert fp16["speedup_vs_baseline"] == pytest.approx(
        table.iloc[0]["median_ms"] / fp16["median_ms"])
    assert fp16["speedup_ci_low"] <= fp16["speedup_vs_baseline"] <= fp16["speedup_ci_high"]
    assert fp16["significant"]
    with pytest.raises(ValueError, match="baseline 'nope'"):
        compare_runs(runs, baseline="nope")


def test_cli_compare_json_keys(corpus_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = corpus_dir / EXPORTS / "trt8-resnet50-a100-fp32"
    b = corpus_dir / EXPORTS / "trt8-resnet50-a100-fp16"
    assert main(["profile", "compare", str(a), str(b), "--format", "json",
                 "--baseline", "trt8-resnet50-a100-fp16"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out[0]) == [*JSON_KEYS, *SPEEDUP_KEYS]
    assert list(out[1]) == list(JSON_KEYS)  # the baseline has no speedup keys
    assert out[0]["speedup_vs_baseline"] < 1  # fp32 is slower than the fp16 baseline


def test_cli_compare_bad_input_exits_2(corpus_dir: Path, tmp_path: Path) -> None:
    assert main(["profile", "compare", str(tmp_path)]) == 2  # no *.timing.json
    assert main(["profile", "compare", str(corpus_dir / EXPORTS / "trt8-mobilenet-qat")]) == 2


def test_layer_timeline_places_waits_after_signals() -> None:
    info = layer_info(WorkloadSpec(branches=2, depth=2), 2)
    path_graph = pd.DataFrame([{"layer_name": x["Name"], "layer_type": x["LayerType"],
                                "stream_id": x["StreamId"],
                                "is_sync": x["LayerType"] in ("signal", "wait")}
                               for x in info["Layers"]])
    timeline = layer_timeline(path_graph)
    join_wait = timeline.set_index("layer_name").loc["join.wait"]
    assert join_wait["stream_id"] == 0 and join_wait["start_ms"] == 2.0  # after 2 layers
    assert sorted(timeline.loc[~timeline["is_sync"], "stream_id"].unique()) == [1, 2]


def test_kernel_layer_profile_from_graph_replays() -> None:
    """Graph replays share a correlation id; graph_node_id orders the layers."""
    rows = []
    for it in range(3):
        for node, (stream, dur) in enumerate([(5, 10), (6, 20), (5, 30)]):
            start = it * 1000 + node * 5
            rows.append({"kernel_name": "k", "stream_id": stream, "start_ns": start,
                         "end_ns": start + dur, "correlation_id": 100 + it, "graph_id": 9,
                         "graph_node_id": 40 + 3 * node})  # capture order, with gaps
    rows.append({**rows[0], "graph_id": 0, "graph_node_id": 0, "correlation_id": 1})  # eager
    prof = kernel_layer_profile(pd.DataFrame(rows), ["a", "b", "c"])
    assert prof["layer_name"].tolist() == ["a", "b", "c"]
    assert prof["median_ms"].tolist() == pytest.approx([10e-6, 20e-6, 30e-6])
    assert prof["count"].tolist() == [3, 3, 3] and prof["stream_id"].tolist() == ["5", "6", "5"]
