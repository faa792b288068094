"""Comparable or refused: runs record their workload; mixed workloads are refused or labelled."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

from trtsafe_lab.cli import main
from trtsafe_lab.demo.profile import example_runs, examples_dir
from trtsafe_lab.profile.compare import compare_runs
from trtsafe_lab.profile.loaders import load_profile_run
from trtsafe_lab.profile.workload import (
    MixedWorkloadError,
    engine_record,
    group_runs,
    workload_of,
)

EXPORTS = "trtexec-exports"


@pytest.fixture(scope="module")
def bundled():
    return [run for runs in example_runs().values() for run in runs]


def test_bundled_runs_of_different_workloads_are_refused(bundled) -> None:
    assert len(group_runs(bundled)) == 3
    with pytest.raises(MixedWorkloadError, match=r"depth: 4 vs 8; blocks: 33 vs 4224; "
                       r"iters: 4096 vs 1024; timing_mode: batched vs per-iteration"):
        compare_runs(bundled)
    for runs in example_runs().values():  # each bundled pair is one workload
        assert len(compare_runs(runs)) == 2


def test_cli_refuses_mixed_with_exit_2_and_names_the_difference(
        capsys: pytest.CaptureFixture[str]) -> None:
    paths = sorted(str(p) for p in examples_dir().iterdir())
    assert main(["profile", "compare", *paths]) == 2
    err = capsys.readouterr().err
    assert "different workloads" in err and "--allow-mixed" in err and "blocks:" in err


def test_allow_mixed_compares_within_each_workload_and_labels_rows(
        capsys: pytest.CaptureFixture[str], bundled) -> None:
    paths = [str(r.path) for r in bundled]
    assert main(["profile", "compare", *paths, "--allow-mixed", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    labels = {r["run"]: r["workload"] for r in rows}
    assert len(set(labels.values())) == 3
    table = compare_runs(bundled, allow_mixed=True)
    for row in table.itertuples():
        assert labels[row.baseline] == row.workload  # never a cross-workload speedup
    fill = table.set_index("run").loc["ref-b4-d8-g4224x128-i1024-aux4-graph"]
    assert fill["baseline"] == "ref-b4-d8-g4224x128-i1024-aux0-graph"
    assert fill["speedup_vs_baseline"] < 1.2


def test_mixed_figures_label_every_workload(bundled) -> None:
    from trtsafe_lab.profile.plots import comparison_figure, plot_speedup

    table = compare_runs(bundled, allow_mixed=True)
    fig = comparison_figure(bundled, table)
    title = fig.get_suptitle()
    assert "3 workloads" in title and "NVIDIA H200" in title and "2026-" in title
    ticks = [t.get_text() for t in plot_speedup(table).axes[0].get_yticklabels()]
    assert len(ticks) == 3 and all("[reference b4 d" in t and "\nvs ref-" in t for t in ticks)


def test_trtexec_exports_are_grouped_by_model_and_gpu(corpus_dir: Path) -> None:
    fp32, fp16, r18 = (load_profile_run(corpus_dir / EXPORTS / n) for n in (
        "trt8-resnet50-a100-fp32", "trt8-resnet50-a100-fp16", "trt10-resnet18-fp16"))
    assert workload_of(fp32) == workload_of(fp16)  # precision is what is being compared
    assert workload_of(fp32).as_dict()["gpu"] == "NVIDIA A100 80GB PCIe"
    assert len(compare_runs([fp32, fp16])) == 2
    with pytest.raises(MixedWorkloadError, match=r"model: resnet\.onnx vs resnet18_fp16\.onnx"):
        compare_runs([fp32, r18])


def test_exports_without_metadata_record_nothing_and_compare_with_nothing(
        corpus_dir: Path, tmp_path: Path) -> None:
    src = corpus_dir / EXPORTS / "trt10-resnet18-fp16" / "resnet18_fp16.timing.json"
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        shutil.copy(src, tmp_path / name / "x.timing.json")
    a, b = load_profile_run(tmp_path / "a"), load_profile_run(tmp_path / "b")
    assert workload_of(a).as_dict()["workload"] == "unrecorded"
    with pytest.raises(MixedWorkloadError, match="unrecorded"):
        compare_runs([a, b])
    assert len(compare_runs([a, b], allow_mixed=True)["workload"].unique()) == 2


def _copy_run(src: Path, dst: Path, **changes: object) -> Path:
    shutil.copytree(src, dst)
    manifest = json.loads((dst / "manifest.json").read_text())
    manifest.update({"name": dst.name, **changes})
    (dst / "manifest.json").write_text(json.dumps(manifest))
    return dst


def test_timing_mode_and_gpu_are_part_of_the_workload(tmp_path: Path) -> None:
    src = examples_dir() / "ref-b4-d4-g33x128-i4096-aux0-graph"
    base = load_profile_run(src)
    assert base.info["timing"]["mode"] == "batched"
    manifest = json.loads((src / "manifest.json").read_text())
    other_mode = _copy_run(src, tmp_path / "per-iter",
                           timing={**manifest["timing"], "mode": "per-iteration"})
    with pytest.raises(MixedWorkloadError, match="timing_mode: batched vs per-iteration"):
        compare_runs([base, load_profile_run(other_mode)])
    other_gpu = _copy_run(src, tmp_path / "h100", gpu={"gpu_name": "NVIDIA H100"})
    with pytest.raises(MixedWorkloadError, match="gpu: NVIDIA H200 vs NVIDIA H100"):
        compare_runs([base, load_profile_run(other_gpu)])
    legacy = load_profile_run(examples_dir() / "ref-b4-d8-g4x128-i4096-aux0-graph")
    assert workload_of(legacy).as_dict()["timing_mode"] == "per-iteration"  # before modes


def test_engine_runs_compare_by_source_network(tmp_path: Path) -> None:
    onnx, e0, e4 = tmp_path / "net.onnx", tmp_path / "a0.engine", tmp_path / "a4.engine"
    onnx.write_bytes(b"onnx")
    e0.write_bytes(b"engine 0")
    e4.write_bytes(b"engine 4")
    rec = engine_record(e0, shapes={"input": [1, 3, 224, 224]}, trt_version="11.4",
                        tool="trtexec", network=onnx)
    assert rec["shapes"] == "input:1x3x224x224" and len(rec["engine_sha256"]) == 64
    src = examples_dir() / "ref-b4-d4-g33x128-i4096-aux0-graph"
    runs = []
    for engine in (e0, e4):
        record = engine_record(engine, shapes={"input": [1, 3, 224, 224]}, trt_version="11.4",
                               tool="trtexec", network=onnx)
        runs.append(load_profile_run(_copy_run(src, tmp_path / engine.stem, workload=record,
                                       executor={"executor": "trtexec"})))
    assert len(compare_runs(runs)) == 2  # two engines of one network: comparable
    alone = engine_record(e4, shapes={"input": [1, 3, 224, 224]}, trt_version="11.4",
                          tool="trtexec")
    runs[1] = load_profile_run(_copy_run(src, tmp_path / "alone", workload=alone,
                                 executor={"executor": "trtexec"}))
    with pytest.raises(MixedWorkloadError, match="network:"):
        compare_runs(runs)  # without the network, each engine is its own workload


def test_run_names_reach_figures_literally(tmp_path: Path) -> None:
    from trtsafe_lab.profile.plots import plot_memory_vs_latency, plot_speedup
    from trtsafe_lab.text import for_matplotlib

    src = examples_dir() / "ref-b4-d4-g33x128-i4096-aux0-graph"
    odd = load_profile_run(_copy_run(src, tmp_path / "odd", name="aux $x^2$"))
    table = compare_runs([load_profile_run(src), odd])
    ticks = [t.get_text() for t in plot_speedup(table).axes[0].get_yticklabels()]
    assert ticks[0].startswith(for_matplotlib("aux $x^2$")) and "\\$" in ticks[0]
    notes = [t.get_text() for t in plot_memory_vs_latency(table).axes[0].texts]
    assert for_matplotlib("aux $x^2$") in notes
