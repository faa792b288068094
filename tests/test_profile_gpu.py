"""The reference workload and the harness on a real GPU (marker ``gpu``: skipped without one)."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

SPEC_KW = dict(branches=3, depth=4, blocks=2, threads=64, iters=37)


@pytest.fixture(scope="module")
def expected() -> np.ndarray:
    from trtsafe_lab.profile.reference import WorkloadSpec, expected_outputs

    return expected_outputs(WorkloadSpec(**SPEC_KW))


@pytest.mark.parametrize("aux", [0, 1, 3])
@pytest.mark.parametrize("use_graph", [False, True])
def test_outputs_match_numpy(aux: int, use_graph: bool, expected: np.ndarray) -> None:
    from trtsafe_lab.cuda_api import synchronize
    from trtsafe_lab.profile.harness import forward_pass, registered_streams
    from trtsafe_lab.profile.reference import ReferenceWorkload, WorkloadSpec

    with ReferenceWorkload(WorkloadSpec(**SPEC_KW), aux_streams=aux) as w, \
            registered_streams(w) as main, forward_pass(w, main, use_graph) as enqueue:
        enqueue()
        enqueue()  # a second pass starts from the seeds again: same result
        synchronize(main)
        np.testing.assert_array_equal(w.outputs(), expected)


def test_aux_streams_must_be_registered_first() -> None:
    from trtsafe_lab.cuda_api import cuda_streams
    from trtsafe_lab.profile.reference import ReferenceWorkload, WorkloadSpec

    with ReferenceWorkload(WorkloadSpec(**SPEC_KW), aux_streams=2) as w, \
            cuda_streams(3) as (main, a, b):
        with pytest.raises(RuntimeError, match="set_aux_streams"):
            w.execute_async(main)
        with pytest.raises(ValueError, match="exactly num_aux_streams=2"):
            w.set_aux_streams([a])
        with pytest.raises(ValueError, match="distinct"):
            w.set_aux_streams([a, a])
        with pytest.raises(ValueError, match="default"):
            w.set_aux_streams([0, a])
        w.set_aux_streams([a, b])
        with pytest.raises(ValueError, match="also registered"):
            w.execute_async(a)


@pytest.mark.parametrize("mode", ["batched", "per-iteration", "events-in-graph"])
def test_profile_records_and_releases_everything(mode: str) -> None:
    from trtsafe_lab.cuda_api import ResourceLedger, device_memory_used
    from trtsafe_lab.profile.harness import TIMING_KEYS, TimingConfig, profile
    from trtsafe_lab.profile.reference import ReferenceWorkload, WorkloadSpec

    ledger = ResourceLedger()
    with ReferenceWorkload(WorkloadSpec(**SPEC_KW), aux_streams=3) as w:
        profile(w, TimingConfig(1, 2), ledger)  # first run may allocate lazily
        before = device_memory_used(0)
        for _ in range(20):
            run = profile(w, TimingConfig(1, 5, True, mode), ledger)
        assert device_memory_used(0) == before
    assert set(ledger.live().values()) == {0}
    assert ledger.created["stream"] == 21 * 4
    assert len(run.records) == 5 and list(run.records[0]) == list(TIMING_KEYS)
    assert all(r["computeMs"] > 0 for r in run.records)
    starts = [r["startComputeMs"] for r in run.records]
    assert starts == sorted(starts)
    passes = run.config.passes_per_sample
    assert passes == (10 if mode == "batched" else 1)
    for r in run.records:  # computeMs is the per-pass mean of the sample's window
        assert r["computeMs"] == pytest.approx((r["endComputeMs"] - r["startComputeMs"]) / passes)


def test_run_reference_writes_run_dirs(tmp_path) -> None:
    from trtsafe_lab.profile.harness import TimingConfig
    from trtsafe_lab.profile.loaders import load_profile_run
    from trtsafe_lab.profile.reference import WorkloadSpec
    from trtsafe_lab.profile.runner import run_reference

    paths = run_reference(WorkloadSpec(**SPEC_KW), [0, 3], TimingConfig(2, 10), tmp_path)
    assert [p.name for p in paths] == ["ref-b3-d4-g2x64-i37-aux0-graph",
                                       "ref-b3-d4-g2x64-i37-aux3-graph"]
    run = load_profile_run(paths[1])
    assert len(run.times) == 10
    assert run.info["num_aux_streams"] == 3
    assert run.info["timing"]["mode"] == "batched"
    assert run.info["workload"] == {"kind": "reference", **SPEC_KW, "threads": 64}
    from trtsafe_lab.profile.compare import compare_runs
    from trtsafe_lab.profile.workload import MixedWorkloadError

    other = run_reference(WorkloadSpec(**{**SPEC_KW, "blocks": 3}), [0], TimingConfig(2, 10),
                          tmp_path)
    with pytest.raises(MixedWorkloadError, match="blocks: 2 vs 3"):
        compare_runs([load_profile_run(p) for p in [*paths, *other]])
