"""The shared staging of run directories: finished runs appear whole, failed ones stay partial."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trtsafe_lab.profile.rundir import read_manifest, write_run_dir
from trtsafe_lab.rundir import staged_run_dir


def test_completed_block_renames_to_the_final_name(tmp_path: Path) -> None:
    with staged_run_dir(tmp_path, "run1") as staging:
        assert staging.name == ".run1.partial"
        (staging / "a.txt").write_text("x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run1"]
    assert (tmp_path / "run1" / "a.txt").read_text() == "x"


def test_failed_block_keeps_everything_under_the_partial_name(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="No space"), staged_run_dir(tmp_path, "run2") as staging:
        (staging / "log.txt").write_text("half a log")
        raise OSError(28, "No space left on device")
    partial = tmp_path / ".run2.partial"
    assert not (tmp_path / "run2").exists()
    assert (partial / "log.txt").read_text() == "half a log"
    note = json.loads((partial / "INCOMPLETE.json").read_text())
    assert note["status"] == "OSError" and "No space" in note["detail"]


def test_existing_runs_are_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "done").mkdir()
    with pytest.raises(FileExistsError, match="already exists"), staged_run_dir(tmp_path, "done"):
        pass
    (tmp_path / ".stale.partial").mkdir()
    with pytest.raises(FileExistsError, match="incomplete run"), staged_run_dir(tmp_path, "stale"):
        pass


def test_profile_run_directory_goes_through_the_same_staging(tmp_path: Path) -> None:
    records = [{"latencyMs": 1.0, "computeMs": 0.9}]
    path = write_run_dir(tmp_path, "p", records=records, info={"executor": {"executor": "t"}})
    manifest = read_manifest(path)
    assert manifest is not None and manifest["kind"] == "profile"
    (timing,) = [e for e in manifest["files"] if e["path"] == "run.timing.json"]
    assert timing["size_bytes"] > 0 and len(timing["sha256"]) == 64
    with pytest.raises(ValueError, match="plain folder name"):
        write_run_dir(tmp_path, "../escape", records=records, info={})
