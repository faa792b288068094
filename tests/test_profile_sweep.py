"""Aux-stream sweeps: build-log facts, the sweep table and Pareto plot, the engine family.

The engine-family sweep runs a TEST DOUBLE of trtexec (not TensorRT): builds replay a real corpus
log (tests/doubles/trtexec_double.py: a TensorRT 10.16 build that says multi-stream was disabled
and prints its activation memory); ``--loadEngine`` runs copy real corpus exports (ResNet-50 on
an A100). It proves the plumbing - one build and one profile run directory per setting, one
timing cache, facts read from each build log - not what a real trtexec would measure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

from builds_support import DOUBLE_SOURCE, build_shared_object

from trtsafe_lab.cli import main
from trtsafe_lab.demo.profile import example_runs
from trtsafe_lab.profile.sweep import (
    ENGINE_SWEEP_COLUMNS,
    SWEEP_TABLE_COLUMNS,
    build_log_facts,
    pareto_front,
    sweep_engine_family,
    sweep_table,
)
from trtsafe_lab.profile.workload import MixedWorkloadError
from trtsafe_lab.rundir import load_run
from trtsafe_lab.trtexec.options import TrtexecCommand, parse_flags
from trtsafe_lab.trtexec.version import TrtVersion

CASES = "build-logs/cases"


def test_build_log_facts_from_real_logs(corpus_dir: Path) -> None:
    v10 = build_log_facts((corpus_dir / CASES / "068.log").read_text())
    assert v10 == {"activation_memory_bytes": 2007552, "aux_streams": 0}  # "[MS] ... disabled"
    v86 = build_log_facts((corpus_dir / CASES / "067.log").read_text())
    assert v86["activation_memory_bytes"] == 1004032  # 8.6 prints no unit
    assert v86["aux_streams"] is None  # the log does not say: not guessed
    said = build_log_facts("[I] [TRT] Number of aux streams is 3\n")
    assert said == {"activation_memory_bytes": None, "aux_streams": 3}


def test_pareto_front() -> None:
    assert pareto_front([1.0, 0.5, 0.25, 1.0], [10, 12, 16, 12]) == [True, True, True, False]


def test_sweep_table_from_recorded_runs() -> None:
    runs = example_runs()["ref-b4-d8-g4x128-i4096"]
    table = sweep_table(runs)
    assert list(table.columns) == list(SWEEP_TABLE_COLUMNS)
    assert table["setting"].tolist() == [0, 4] and table["aux_streams_used"].tolist() == [0, 4]
    aux = table.iloc[1]
    assert aux["speedup_ci_low"] < aux["speedup"] < aux["speedup_ci_high"] and aux["speedup"] > 3
    assert table["memory_source"].tolist() == ["workload buffers"] * 2
    assert table["memory_bytes"].tolist() == [10240, 16384]
    assert table["on_pareto_front"].all()  # faster costs memory: both are on the front
    with pytest.raises(MixedWorkloadError):
        sweep_table([*runs, *example_runs()["ref-b4-d8-g4224x128-i1024"]])


def test_pareto_plot_units_and_axes() -> None:
    from trtsafe_lab.profile.plots_analysis import plot_pareto

    table = sweep_table(example_runs()["ref-b4-d4-g33x128-i4096"])
    fig = plot_pareto(table, where="NVIDIA H200, 2026-12-01")
    ax = fig.axes[0]
    assert ax.get_ylim()[0] == 0 and ax.get_xlim()[0] == 0
    assert ax.get_ylabel() == "memory (KiB)"
    assert "NVIDIA H200, 2026-12-01" in ax.get_title()
    legend = ax.get_legend()
    assert legend is not None and legend.get_bbox_to_anchor().x0 > ax.bbox.x1 - 1  # outside


WRAPPER = """#!{python}
# TEST DOUBLE (not TensorRT): builds replay a corpus log through tests/doubles/trtexec_double.py;
# --loadEngine runs copy real corpus exports and print a real trtexec log.
import runpy, shutil, sys
if any(a.startswith("--loadEngine=") for a in sys.argv[1:]):
    args = dict(a.lstrip("-").split("=", 1) for a in sys.argv[1:] if "=" in a)
    for kind, flag in (("timing", "exportTimes"), ("profile", "exportProfile"),
                       ("graph", "exportLayerInfo")):
        shutil.copy({src!r} + "/resnet.onnx.engine." + kind + ".json", args[flag])
    sys.stdout.write(open({log!r}).read())
    sys.exit(0)
runpy.run_path({double!r}, run_name="__main__")
"""


@pytest.fixture
def double_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, corpus_dir: Path) -> Path:
    folder = tmp_path / "TEST DOUBLE bin"
    folder.mkdir()
    tool = folder / "trtexec"
    tool.write_text(WRAPPER.format(
        python=sys.executable, src=str(corpus_dir / "trtexec-exports/trt8-resnet50-a100-fp16"),
        log=str(corpus_dir / CASES / "071.log"), double=str(DOUBLE_SOURCE)))
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("TRTEXEC_DOUBLE_CASE", str(corpus_dir / CASES / "068.log"))
    monkeypatch.setenv("TRTEXEC_DOUBLE_SO", str(build_shared_object(tmp_path / "c.so")))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.onnx").write_bytes(b"the network")
    return tmp_path


def test_engine_family_sweep_through_the_builds_job(double_on_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from trtsafe_lab.profile import identity

    hashed: list[str] = []  # the workload record hashes each engine once (not again after)
    real_sha256 = identity.sha256_file

    def counting_sha256(path: Path) -> str:
        hashed.append(Path(path).name)
        return real_sha256(path)

    monkeypatch.setattr(identity, "sha256_file", counting_sha256)
    flags = ["--onnx=model.onnx", "--saveEngine=net.engine", "--shapes=x:1x1x28x28"]
    command = TrtexecCommand("trtexec", tuple(parse_flags(flags)), TrtVersion(10, 16, 1))
    table, builds = sweep_engine_family(command, double_on_path / "sweep",
                                        values=(0, 1, 4, -1))
    engines = [n for n in hashed if n.endswith(".engine")]
    assert sorted(engines) == sorted(Path(p).name for p in builds["engine_path"]), hashed
    assert list(builds.columns) == list(ENGINE_SWEEP_COLUMNS)
    assert builds["setting"].tolist() == [0, 1, 4, -1]
    assert builds["build_status"].tolist() == ["passed"] * 4
    assert [Path(p).name for p in builds["engine_path"]] == [
        "net-aux0.engine", "net-aux1.engine", "net-aux4.engine", "net-auxheuristic.engine"]
    argv = [json.loads((Path(d) / "command.json").read_text()) for d in builds["build_run_dir"]]
    assert "--maxAuxStreams=4" in json.dumps(argv[2]) and "maxAuxStreams" not in json.dumps(
        argv[3])  # -1: the flag is left out (trtexec's default: heuristics)
    cache = (double_on_path / "sweep" / "sweep.timing.cache").read_bytes()
    assert cache.count(b"double-timing-cache-entry") == 4  # one cache shared by every build
    profiles = [Path(p) for p in builds["profile_run_dir"]]
    assert len(set(profiles)) == 4 and all((p / "build.log").is_file() for p in profiles)
    assert table["setting"].tolist() == [0, 1, 4, -1]
    assert table["memory_bytes"].tolist() == [2007552] * 4  # from each build log
    assert table["memory_source"].unique().tolist() == ["build log: Total Activation Memory"]
    assert table["aux_streams_used"].tolist() == [0] * 4  # the replayed log disabled them
    assert table["workload"].nunique() == 1 and "model.onnx" in table["workload"].iloc[0]
    manifest = json.loads((profiles[0] / "manifest.json").read_text())
    assert manifest["sweep_setting"] == 0 and manifest["workload"]["shapes"] == "x:1x1x28x28"
    assert manifest["workload"]["network_name"] == "model.onnx"
    assert manifest["workload"]["tool"] == "trtexec"
    # The build log added to each profile run is in its manifest, which still matches the folder.
    assert "build.log" in {e["path"] for e in manifest["files"]}
    assert all(load_run(p).verify() == [] for p in profiles)


def test_cli_engine_sweep_and_runs_sweep(double_on_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = double_on_path / "cli"
    assert main(["profile", "sweep", "engines", "--values", "0,2", "--trt-version", "10.16",
                 "--out", str(out), "--format", "json", "--plot", "p.png", "--",
                 "--onnx=model.onnx", "--saveEngine=n.engine"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["setting"] for r in rows] == [0, 2] and (double_on_path / "p.png").is_file()
    runs = sorted(str(p) for p in (out / "profiles").iterdir())
    assert main(["profile", "sweep", "runs", *runs, "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("setting,run,workload,aux_streams_used")
    with pytest.raises(SystemExit) as bad:  # argparse: -2 is no setting
        main(["profile", "sweep", "engines", "--values", "0,-2", "--", "--onnx=model.onnx"])
    assert bad.value.code == 2
    assert main(["profile", "sweep", "engines", "--trt-version", "10.16", "--",
                 "--saveEngine=n.engine"]) == 2  # no --onnx: nothing to compare engines by


def test_runs_sweep_without_a_plot_needs_no_matplotlib() -> None:
    # The table path of `profile sweep runs` reads the runs once and imports no view module.
    runs = [str(r.path) for r in example_runs()["ref-b4-d8-g4x128-i4096"]]
    code = ("import sys\nfrom trtsafe_lab.cli import main\n"
            f"assert main(['profile', 'sweep', 'runs', *{runs!r}, '--format', 'csv']) == 0\n"
            "assert 'matplotlib' not in sys.modules, 'matplotlib imported'\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("setting,run,workload")
