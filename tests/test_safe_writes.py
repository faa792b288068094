"""Safe writes (issue 15 #9): unique temporaries, atomic replacement, claims on shared outputs.

The build part drives the trtexec TEST DOUBLE (replays a real corpus log; NOT TensorRT).
"""

from __future__ import annotations

import json
import multiprocessing
import threading
from pathlib import Path

import pytest
from builds_support import build_shared_object, double_environment

from trtsafe_lab.files import OutputClaim, OutputInUseError, write_json_atomic
from trtsafe_lab.trtexec.build import TrtexecBuild
from trtsafe_lab.trtexec.options import TrtexecCommand, parse_flags
from trtsafe_lab.trtexec.version import TrtVersion

WRITES = 400


def _writer(path: str, tag: int, errors: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    try:
        for i in range(WRITES):
            write_json_atomic(Path(path), {"writer": tag, "i": i, "pad": "x" * 2000})
    except OSError as err:  # the fixed temporary name raced: FileNotFoundError
        errors.put(repr(err))


def test_two_processes_writing_one_json_file_never_collide_or_tear(tmp_path: Path) -> None:
    target = tmp_path / "result.json"
    write_json_atomic(target, {"writer": -1, "i": -1, "pad": ""})
    errors: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    procs = [multiprocessing.Process(target=_writer, args=(str(target), n, errors))
             for n in range(2)]
    for proc in procs:
        proc.start()
    torn = reads = 0
    while any(p.is_alive() for p in procs):
        try:
            json.loads(target.read_text())
        except json.JSONDecodeError:
            torn += 1
        reads += 1
    for proc in procs:
        proc.join()
    failures = [errors.get() for _ in range(errors.qsize())]
    assert failures == [] and torn == 0, (failures[:3], torn, reads)
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]  # no temporaries left


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "a.json"
    write_json_atomic(target, {"v": 1})
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        write_json_atomic(target, {"v": 2, "loop": loop})
    assert json.loads(target.read_text()) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_claims_exclude_each_other_and_name_the_holder(tmp_path: Path) -> None:
    engine = tmp_path / "net.engine"
    with OutputClaim([engine], "run A"):
        with pytest.raises(OutputInUseError, match=r"net.engine is being written by run A"):
            OutputClaim([engine, tmp_path / "other"], "run B").acquire()
        assert not (tmp_path / ".other.claim").exists()  # all or nothing
    with OutputClaim([engine], "run B"):  # released: free again
        pass
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_two_builds_naming_the_same_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           corpus_dir: Path) -> None:
    """The second build is refused while the first holds the engine; its record says why."""
    so = build_shared_object(tmp_path / "companion.so")
    pidfile = tmp_path / "pids"
    env = double_environment(tmp_path, so, corpus_dir / "build-logs/cases/068.log")
    for name, value in {**env, "TRTEXEC_DOUBLE_MODE": "hang",
                        "TRTEXEC_DOUBLE_PIDFILE": str(pidfile)}.items():
        monkeypatch.setenv(name, value)
    work = tmp_path / "work"
    work.mkdir()
    (work / "model.onnx").write_bytes(b"not a real onnx model")
    shared = tmp_path / "shared out" / "net.engine"
    shared.parent.mkdir()
    args = [f"--onnx={work / 'model.onnx'}", "--safe", f"--saveEngine={shared}"]
    command = TrtexecCommand("trtexec", tuple(parse_flags(args)), TrtVersion(11, 4))
    first = TrtexecBuild(command, work / "runs", cwd=work)
    thread = threading.Thread(target=first.run)
    thread.start()
    try:
        while not pidfile.exists():  # the first build's tool is running: it holds the claim
            thread.join(0.05)
        with pytest.raises(OutputInUseError, match="is being written by run"):
            TrtexecBuild(command, work / "runs", cwd=work).run()
    finally:
        first.cancel()
        thread.join(30)
    refused = [p for p in (work / "runs").iterdir()
               if (p / "INCOMPLETE.json").is_file()
               and json.loads((p / "INCOMPLETE.json").read_text())["status"] == "refused"]
    assert len(refused) == 1
    assert not (shared.parent / ".net.engine.claim").exists()
