"""One run record for every kind: build, profile, trtexec-profile, pair, report.

Each kind is written by its real writer (the build through :class:`RunWriter`, profile runs
through ``write_run_dir``, trtexec profile runs through ``run_trtexec`` driven by the TEST DOUBLE
of test_profile_trtexec.py, pairs through ``SafeEnginePair.package``, reports through
``record_report`` on a stand-in notebook), then read back by the one ``load_run`` and listed by
``list_runs`` / ``trtsafe-lab runs``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from builds_support import build_shared_object
from test_profile_trtexec import DOUBLE

from trtsafe_lab import rundir
from trtsafe_lab.artifacts import SafeEnginePair
from trtsafe_lab.cli import main
from trtsafe_lab.examples import example_path
from trtsafe_lab.profile.loaders import load_profile_run
from trtsafe_lab.profile.rundir import write_run_dir
from trtsafe_lab.profile.trtexec_exec import run_trtexec
from trtsafe_lab.rundir import (
    KINDS,
    RUN_SCHEMA,
    BuildRun,
    PairRun,
    RunDirError,
    RunRecord,
    RunWriter,
    load_run,
    read_run_manifest,
    upgrade_manifest,
)
from trtsafe_lab.runs_table import RUN_COLUMNS, list_runs

RECORDS = [{"startEnqMs": 0.0, "endEnqMs": 0.1, "startComputeMs": 0.0, "endComputeMs": 0.5,
            "h2dMs": 0.0, "computeMs": 0.5, "d2hMs": 0.0, "latencyMs": 0.5}]


def write_build(runs: Path) -> Path:
    writer = RunWriter(runs, "unit")
    writer.write_line("&&&& PASSED TensorRT.trtexec")
    writer.write_json("command.json", {"argv": ["trtexec"], "tool_kind": "trtexec",
                                       "trt_version": "11.4.0"})
    writer.write_json("environment.json", {"trt_version": "11.4.0"})
    return writer.finish({"status": "passed", "exit_code": 0, "duration_s": 1.5,
                          "started_utc": writer.started_utc, "artifacts": [],
                          "missing_artifacts": []}, external=[])


def write_trtexec_profile(runs: Path, corpus_dir: Path, tmp_path: Path) -> Path:
    script = tmp_path / "trtexec"  # the TEST DOUBLE (replays real exports; NOT trtexec)
    script.write_text(DOUBLE.format(
        python=sys.executable,
        src=str(corpus_dir / "trtexec-exports" / "trt8-resnet50-a100-fp16"),
        log=str(corpus_dir / "build-logs" / "cases" / "070.log")))
    script.chmod(0o755)
    engine = tmp_path / "resnet.engine"  # test data standing in for an engine (not TensorRT's)
    engine.write_bytes(bytes(range(256)))
    return run_trtexec(engine, runs, "resnet-trtexec", executable=str(script))


def write_pair(runs: Path, tmp_path: Path) -> Path:
    engine = tmp_path / "net.engine"
    engine.write_bytes(bytes(range(256)) * 4)  # binary, like a serialized engine
    build_shared_object(tmp_path / "net.engine.so")
    pair = SafeEnginePair.of(engine)
    pair.write_manifest("11.4.0", ["trtexec", "--safe", f"--saveEngine={engine}"])
    return pair.package(runs / "net-pair")


def write_report(runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 log: Path) -> Path:
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    from trtsafe_lab.report import record_report

    books = tmp_path / "books"
    books.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("inputs = []", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("print('INPUTS', len(inputs))")]
    nbformat.write(nb, books / "02_failure_triage.ipynb")  # a stand-in, not the project's
    monkeypatch.setenv("TRTSAFE_NOTEBOOKS", str(books))
    return record_report([log], runs, name="triage-report")


@pytest.fixture
def every_kind(tmp_path: Path, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch
               ) -> dict[str, Path]:
    runs = tmp_path / "runs"
    runs.mkdir()
    log = tmp_path / "build.log"
    log.write_text("[E] Error[10]: Could not find any implementation for node conv1.\n")
    return {
        "build": write_build(runs),
        "profile": write_run_dir(runs, "ref-aux0", records=RECORDS,
                                 info={"executor": {"executor": "reference"},
                                       "num_aux_streams": 0}),
        "trtexec-profile": write_trtexec_profile(runs, corpus_dir, tmp_path),
        "pair": write_pair(runs, tmp_path),
        "report": write_report(runs, tmp_path, monkeypatch, log),
    }


def test_every_kind_has_one_manifest_schema(every_kind: dict[str, Path]) -> None:
    assert set(every_kind) == set(KINDS)
    for kind, path in every_kind.items():
        manifest = json.loads((path / "manifest.json").read_text())
        assert manifest["schema"] == RUN_SCHEMA and manifest["kind"] == kind
        assert manifest["name"] == path.name and manifest["created_utc"]
        listed = {e["path"] for e in manifest["files"] if e["inside_run"]}
        on_disk = {p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file()}
        assert listed == on_disk - {"manifest.json"}, kind
        assert all(len(e["sha256"]) == 64 and e["size_bytes"] >= 0 for e in manifest["files"])
        assert not list(path.parent.glob(".*.partial")), "staging left behind"


def test_load_run_dispatches_on_kind(every_kind: dict[str, Path]) -> None:
    records = {kind: load_run(path) for kind, path in every_kind.items()}
    assert {k: r.kind for k, r in records.items()} == {k: k for k in KINDS}
    assert isinstance(records["build"], BuildRun)
    assert records["build"].result["status"] == "passed"
    assert isinstance(records["pair"], PairRun)
    assert records["pair"].engine.read_bytes() == bytes(range(256)) * 4
    assert type(records["profile"]) is RunRecord
    assert "INPUTS 1" in records["report"].file("report.html").read_text()
    assert records["report"].manifest["inputs"][0]["kind"] == "log"
    for record in records.values():
        assert record.verify() == []
    # the profile loaders read both profile kinds through the same record
    assert load_profile_run(every_kind["profile"]).info["num_aux_streams"] == 0
    assert len(load_profile_run(every_kind["trtexec-profile"]).times) == 3698
    # tampering shows for any kind
    (every_kind["profile"] / "run.timing.json").write_text("[]")
    assert any("changed since the run" in p for p in load_run(every_kind["profile"]).verify())


def test_list_runs_lists_every_kind_and_filters(every_kind: dict[str, Path]) -> None:
    runs = every_kind["build"].parent
    table = list_runs(runs)
    assert list(table.columns) == list(RUN_COLUMNS)
    assert sorted(table["kind"]) == sorted(KINDS)
    build = table[table["kind"] == "build"].iloc[0]
    assert build["status"] == "passed" and build["exit_code"] == 0
    assert set(table[table["kind"] != "build"]["status"]) == {"complete"}
    assert list_runs(runs, kind="pair")["path"].tolist() == [str(every_kind["pair"])]
    with pytest.raises(ValueError, match="unknown run kind"):
        list_runs(runs, kind="nope")


def test_list_runs_survives_anything_in_the_folder(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_run_dir(runs, "ok", records=RECORDS, info={})
    (runs / "stray.txt").write_text("not a run")
    (runs / "exports").mkdir()  # a folder without a manifest
    broken = runs / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_bytes(b"\xff\xfe not json")
    alien = runs / "alien"
    alien.mkdir()
    (alien / "manifest.json").write_text('{"schema": "someone-else/1"}')
    wrong = runs / "wrong-types"
    wrong.mkdir()
    (wrong / "manifest.json").write_text(json.dumps(
        {"schema": RUN_SCHEMA, "kind": "profile", "name": "w", "files": "all of them"}))
    partial = rundir.partial_path(runs, "cut")
    partial.mkdir()
    rundir.mark_incomplete(partial, "KeyboardInterrupt", "cancelled by the user")
    table = list_runs(runs)
    status = dict(zip(table["run_name"], table["status"], strict=True))
    assert status == {"alien": "unreadable", "broken": "unreadable", "ok": "complete",
                      "wrong-types": "unreadable"}
    notes = dict(zip(table["run_name"], table["note"], strict=True))
    assert "not a trtsafe-lab run manifest" in notes["alien"]
    assert "'files' must be a list" in notes["wrong-types"]
    everything = list_runs(runs, include_partial=True)
    extra = dict(zip(everything["run_name"], everything["status"], strict=True))
    assert extra[".cut.partial"] == "KeyboardInterrupt" and extra["exports"] == "no manifest"
    with pytest.raises(TypeError):  # a profile run that dies while writing its files
        write_run_dir(runs, "half", records=[{"latencyMs": object()}], info={})
    half = list_runs(runs, include_partial=True, kind="profile")
    assert half[half["status"] == "TypeError"]["run_name"].tolist() == [".half.partial"]
    assert list_runs(runs, include_partial=True, kind="build").empty
    with pytest.raises(RunDirError, match="not a trtsafe-lab run manifest"):
        load_run(alien)
    with pytest.raises(RunDirError, match=r"incomplete run \(cancelled by the user"):
        load_run(partial)
    with pytest.raises(RunDirError, match=r"no manifest\.json"):
        load_run(runs / "exports")


def test_runs_command_lists_a_profile_run_and_filters_by_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 15: `runs` died on a folder holding a profile run."""
    runs = tmp_path / "runs"
    write_run_dir(runs, "ref-aux2", records=RECORDS, info={"executor": {"executor": "reference"}})
    write_build(runs)
    assert main(["runs", "--runs", str(runs)]) == 0
    out = capsys.readouterr().out
    assert "ref-aux2" in out and "profile" in out and "build" in out
    assert main(["runs", "--runs", str(runs), "--kind", "profile"]) == 0
    out = capsys.readouterr().out
    assert "ref-aux2" in out and "unit" not in out
    assert main(["runs", "--runs", str(runs), "--kind", "pair"]) == 0
    assert "no finished pair runs" in capsys.readouterr().out


def test_legacy_manifests_are_read_and_upgraded(tmp_path: Path) -> None:
    build = write_build(tmp_path / "runs")
    manifest = json.loads((build / "manifest.json").read_text())
    legacy_build = {"run_name": build.name, "complete": True, "written_utc": "2026-11-01",
                    "files": manifest["files"]}
    (build / "manifest.json").write_text(json.dumps(legacy_build))
    profile = write_run_dir(tmp_path / "runs", "old-profile", records=RECORDS,
                            info={"num_aux_streams": 1})
    (timing,) = json.loads((profile / "manifest.json").read_text())["files"]
    (profile / "manifest.json").write_text(json.dumps({
        "schema": "trtsafe-lab/profile-run/1", "name": "old-profile", "num_aux_streams": 1,
        "files": {"run.timing.json": {"bytes": timing["size_bytes"],
                                      "sha256": timing["sha256"]}}}))
    for path, kind in ((build, "build"), (profile, "profile")):
        assert load_run(path).kind == kind and load_run(path).verify() == []
        assert upgrade_manifest(path) is True and upgrade_manifest(path) is False
        assert json.loads((path / "manifest.json").read_text())["schema"] == RUN_SCHEMA
        assert load_run(path).verify() == []
    assert load_profile_run(profile).info["num_aux_streams"] == 1


def test_bundled_runs_are_in_the_current_schema() -> None:
    runs = sorted(p for p in example_path("profile", "runs").iterdir() if p.is_dir())
    assert len(runs) == 6  # 3 workloads x (single stream, aux streams)
    for path in runs:
        assert json.loads((path / "manifest.json").read_text())["schema"] == RUN_SCHEMA
        record = load_run(path)
        assert record.kind == "profile" and record.verify() == []


def test_report_input_kind_comes_from_the_manifest(every_kind: dict[str, Path]) -> None:
    from trtsafe_lab.errors import UsageError
    from trtsafe_lab.report import input_kind

    assert input_kind(every_kind["build"]) == "build"
    assert input_kind(every_kind["profile"]) == "profile"
    assert input_kind(every_kind["trtexec-profile"]) == "profile"
    with pytest.raises(UsageError, match="is a pair run"):
        input_kind(every_kind["pair"])
    # file names do not decide: a build run holding a trtexec export is still a build run
    (every_kind["build"] / "x.timing.json").write_text("[]")
    assert input_kind(every_kind["build"]) == "build"
    assert read_run_manifest(every_kind["build"])["kind"] == "build"


def test_write_run_manifest_refuses_unknown_kinds_and_clashing_info(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown run kind"):
        rundir.write_run_manifest(tmp_path, "benchmark", "x")
    with pytest.raises(ValueError, match="own keys"):
        rundir.write_run_manifest(tmp_path, "profile", "x", {"files": []})


def test_runs_without_a_runs_folder_says_there_are_none_yet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """qa: a new user's first `trtsafe-lab runs` failed with "--runs runs: no such file or
    folder" (exit 2) although nothing was wrong; a --runs DIR that is missing is still refused."""
    monkeypatch.chdir(tmp_path)
    assert main(["runs"]) == 0
    assert "no runs yet" in capsys.readouterr().out
    assert main(["runs", "--runs", "elsewhere"]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    (tmp_path / "runs").mkdir()
    assert main(["runs"]) == 0
    assert "no finished runs under runs" in capsys.readouterr().out


def test_runs_command_prints_counts_as_integers_and_gaps_blank(
        every_kind: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """qa: with a run of another kind (or an unreadable one) beside a build, the build's
    exit code and counts printed as 1.0 / 2.0 and every gap as NaN."""
    runs = every_kind["build"].parent
    broken = runs / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text('{"schema": 5')
    assert main(["runs", "--runs", str(runs)]) == 0
    out = capsys.readouterr().out
    assert "NaN" not in out and "<NA>" not in out, out
    build_line = next(line for line in out.splitlines() if every_kind["build"].name in line)
    assert " 0.0 " not in build_line and " 0 " in build_line, build_line  # exit_code 0
