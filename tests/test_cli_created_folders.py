"""A command that fails after its output folder was created up front leaves no empty folders
behind; a folder it wrote into, or one that existed before, is kept."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from trtsafe_lab import paths
from trtsafe_lab.cli import main

needs_no_tensorrt = pytest.mark.skipif(
    importlib.util.find_spec("tensorrt") is not None,
    reason="the failing command here is 'profile engine' without the tensorrt package",
)


@needs_no_tensorrt
def test_failed_command_removes_the_empty_folders_it_created(tmp_path: Path) -> None:
    engine = tmp_path / "model.engine"
    engine.write_bytes(b"not an engine")
    out = tmp_path / "new" / "deeper" / "runs"
    code = main(["profile", "engine", str(engine), "--out", str(out)])
    assert code != 0
    assert not (tmp_path / "new").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.engine"]


@needs_no_tensorrt
def test_existing_folders_are_kept(tmp_path: Path) -> None:
    engine = tmp_path / "model.engine"
    engine.write_bytes(b"not an engine")
    (tmp_path / "kept").mkdir()
    code = main(["profile", "engine", str(engine), "--out", str(tmp_path / "kept" / "runs")])
    assert code != 0
    assert (tmp_path / "kept").is_dir() and not (tmp_path / "kept" / "runs").exists()


def test_only_empty_created_folders_are_removed(tmp_path: Path) -> None:
    mark = paths.created_mark()  # earlier commands in this process (other tests) made some
    made = paths.created_output_dir(str(tmp_path / "a" / "b"))
    (tmp_path / "a" / "note.txt").write_text("written by the command")
    assert paths.remove_empty_created(mark) == [made]
    assert (tmp_path / "a" / "note.txt").is_file() and not made.exists()
    assert paths.remove_empty_created(mark) == []  # each folder is considered once


@needs_no_tensorrt
def test_folders_made_before_the_command_are_not_touched(tmp_path: Path) -> None:
    """A notebook process that made an (empty) output folder earlier, then runs a failing
    command: only the command's own folders are removed."""
    earlier = paths.created_output_dir(str(tmp_path / "earlier"))
    engine = tmp_path / "model.engine"
    engine.write_bytes(b"not an engine")
    assert main(["profile", "engine", str(engine), "--out", str(tmp_path / "new")]) != 0
    assert earlier.is_dir() and not (tmp_path / "new").exists()
    paths.remove_empty_created()
