"""Reference-workload pieces that need no GPU: spec checks, ideal speedup, numpy reference,
overlap arithmetic, run directories."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from trtsafe_lab.profile.loaders import load_profile_run
from trtsafe_lab.profile.reference import WorkloadSpec, expected_outputs, ideal_speedup
from trtsafe_lab.profile.rundir import write_run_dir
from trtsafe_lab.profile.timeline import overlap_summary


def test_spec_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="branches"):
        WorkloadSpec(branches=0)
    with pytest.raises(ValueError, match="1024"):
        WorkloadSpec(threads=2048)


@pytest.mark.parametrize(("branches", "aux", "ideal"),
                         [(4, 0, 1.0), (4, 4, 4.0), (4, 3, 2.0), (4, 2, 2.0), (8, 3, 8 / 3)])
def test_ideal_speedup_is_work_over_critical_path(branches: int, aux: int, ideal: float) -> None:
    assert ideal_speedup(WorkloadSpec(branches=branches), aux) == pytest.approx(ideal)


def test_expected_outputs_differ_per_branch_and_depend_on_work() -> None:
    spec = WorkloadSpec(branches=2, depth=2, blocks=1, threads=32, iters=5)
    out = expected_outputs(spec)
    assert out.shape == (2, 32) and out.dtype == np.uint32
    assert not np.array_equal(out[0], out[1])
    # depth 2 x 5 iterations is the same chain as depth 1 x 10 iterations
    np.testing.assert_array_equal(out, expected_outputs(WorkloadSpec(2, 1, 1, 32, 10)))


def test_overlap_counts_only_cross_stream_time() -> None:
    kernels = pd.DataFrame({"stream_id": [7, 7, 9], "start_ns": [0, 100, 50],
                            "end_ns": [100, 200, 150]})
    summary = overlap_summary(kernels)
    assert summary["busy_ns"] == 200
    assert summary["cross_stream_overlap_ns"] == 100  # 50..150 on both streams
    assert summary["max_concurrent_streams"] == 2
    serial = overlap_summary(kernels.assign(stream_id=7))
    assert serial["cross_stream_overlap_ns"] == 0 and serial["max_concurrent_streams"] == 1


def test_run_dir_is_atomic_and_loadable(tmp_path: Path) -> None:
    records = [{"startEnqMs": 0.0, "endEnqMs": 0.01, "startH2dMs": 1.0, "endH2dMs": 1.0,
                "startComputeMs": 1.0, "endComputeMs": 1.5, "startD2hMs": 1.5, "endD2hMs": 1.5,
                "h2dMs": 0.0, "computeMs": 0.5, "d2hMs": 0.0, "latencyMs": 0.5}]
    path = write_run_dir(tmp_path, "r1", records=records, info={"num_aux_streams": 2})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r1"]
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["kind"] == "profile" and manifest["files"][0]["path"] == "run.timing.json"
    assert manifest["files"][0]["size_bytes"] > 0
    run = load_profile_run(path)
    assert run.name == "r1" and run.info["num_aux_streams"] == 2
    assert run.times["compute_ms"].tolist() == [0.5]
    with pytest.raises(FileExistsError):
        write_run_dir(tmp_path, "r1", records=records, info={})


def test_cli_reference_rejects_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    from trtsafe_lab.cli import main

    assert main(["profile", "reference", "--branches", "2", "--aux", "0,4"]) == 2
    assert "more aux streams than --branches" in capsys.readouterr().err
    assert main(["profile", "reference", "--timing", "events-in-graph"]) == 2  # needs --graph
    assert "needs use_graph" in capsys.readouterr().err
    assert main(["profile", "reference", "--timing", "per-iteration",
                 "--passes-per-sample", "5"]) == 2
    assert "needs mode 'batched'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["profile", "reference", "--aux", "0,x"])


def test_engine_executor_names_are_checked_against_the_names_file(corpus_dir: Path) -> None:
    """Every tensorrt attribute trt_engine_executor.py touches is in the 11.4 names file, except
    the ones trt_api documents as missing there (and probes for at run time)."""
    import re

    from trtsafe_lab import trt_api
    from trtsafe_lab.profile import trt_engine_executor as engine

    names_file = corpus_dir.parent / "reference" / "tensorrt-11.4-python-names.txt"
    names = set(names_file.read_text().split())
    source = Path(engine.__file__).read_text()
    used = set(re.findall(r"(?:self\.engine|self\.context|trt|Logger)\.([A-Za-z_]+)", source))
    used |= set(trt_api.EXECUTE_NAMES) | set(trt_api.DEVICE_MEMORY_NAMES)
    assert used - names == set(trt_api.NOT_IN_NAMES_FILE)
    assert {"execute_async", "set_aux_streams", "num_aux_streams"} <= names


def test_timing_modes_and_their_defaults() -> None:
    from trtsafe_lab.profile.harness import TimingConfig

    assert TimingConfig().mode == "batched" and TimingConfig().passes_per_sample == 10
    assert TimingConfig(iterations=20).passes == 200
    assert TimingConfig(mode="per-iteration").passes_per_sample == 1
    assert TimingConfig(mode="batched", passes_per_sample=1).passes == 200
    with pytest.raises(ValueError, match="needs use_graph"):
        TimingConfig(use_graph=False, mode="events-in-graph")
    with pytest.raises(ValueError, match="one pass per sample"):
        TimingConfig(mode="per-iteration", passes_per_sample=4)
    with pytest.raises(ValueError, match="timing mode must be one of"):
        TimingConfig(mode="cupti")
