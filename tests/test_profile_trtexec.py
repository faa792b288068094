"""The trtexec executor's flags and run directory, driven by a TEST DOUBLE of trtexec.

The double is a small Python script that replays real corpus material (a TensorRT 8.4 log with
its performance summary, and real ResNet-50 exports): it proves the plumbing (argv, exports
found, run directory, loaders), not that a real trtexec accepts these flags.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

from trtsafe_lab.profile.compare import compare_runs
from trtsafe_lab.profile.loaders import load_profile_run
from trtsafe_lab.profile.trtexec_exec import run_trtexec, trtexec_command
from trtsafe_lab.profile.workload import MixedWorkloadError
from trtsafe_lab.trtexec.rules import RuleViolation
from trtsafe_lab.trtexec.version import TrtVersion

V84, V1016, V114 = TrtVersion(8, 4, 1), TrtVersion(10, 16, 1), TrtVersion(11, 4)


def trtexec_argv(engine: Path, *, version: TrtVersion, **kw) -> list[str]:
    return trtexec_command(engine, version=version, **kw).argv()

DOUBLE = """#!{python}
import shutil, sys
args = dict(a.lstrip("-").split("=", 1) for a in sys.argv[1:] if "=" in a)
src = {src!r}
if "--help" in sys.argv:
    print("&&&& RUNNING TensorRT.trtexec [TensorRT v8401] # trtexec --help")
    sys.exit(0)
for kind in ("timing", "profile", "graph"):
    shutil.copy(f"{{src}}/resnet.onnx.engine.{{kind}}.json", args["export" + {{
        "timing": "Times", "profile": "Profile", "graph": "LayerInfo"}}[kind]])
sys.stdout.write(open({log!r}).read())
"""


def test_flags_follow_the_version() -> None:
    prefix = Path("/o/run")
    v10 = trtexec_argv(Path("/e/a.engine"), version=V1016, export_prefix=prefix)
    assert v10[:2] == ["trtexec", "--loadEngine=/e/a.engine"]
    assert "--separateProfileRun" in v10 and "--useCudaGraph" in v10
    assert "--exportTimes=/o/run.timing.json" in v10
    v11 = trtexec_argv(Path("/e/a.engine"), version=V114, export_prefix=prefix,
                       use_graph=False)
    assert "--useCudaGraph" not in v11 and "--noCudaGraph" in v11
    safe = trtexec_argv(Path("/e/a.engine"), version=V114, export_prefix=prefix, safe=True)
    assert "--safe" in safe and "--loadEngineSo=/e/a.engine.so" in safe
    tool = trtexec_argv(Path("/e/a.engine"), version=V114, export_prefix=prefix,
                        executable="/opt/trtexec_safe", companion_so=Path("/e/b.so"))
    assert "--safe" not in tool and "--loadEngineSo=/e/b.so" in tool
    assert "--separateProfileRun" not in tool  # deprecated in trtexec_safe (always on)
    with pytest.raises(RuleViolation, match=r"11\.3"):  # the builds job's safety rule
        trtexec_argv(Path("/e/a"), version=V1016, export_prefix=prefix, safe=True)


def test_run_directory_from_the_double(corpus_dir: Path, tmp_path: Path) -> None:
    script = tmp_path / "trtexec"
    script.write_text(DOUBLE.format(
        python=sys.executable,
        src=str(corpus_dir / "trtexec-exports" / "trt8-resnet50-a100-fp16"),
        log=str(corpus_dir / "build-logs" / "cases" / "070.log")))
    script.chmod(0o755)
    out = tmp_path / "runs"
    engine = tmp_path / "resnet.engine"  # test data standing in for an engine (not TensorRT's)
    engine.write_bytes(b"engine A\0")
    path = run_trtexec(engine, out, "resnet-fp16",
                       executable=str(script))  # version read from the double's --help banner
    run = load_profile_run(path)
    assert len(run.times) == 3698 and set(run.files) == {"timing", "graph", "profile"}
    assert run.info["performance_summary"]["throughput_qps"] == 6175.47
    assert "--exportTimes=" + str(path / "run.timing.json") in run.info["command"]
    assert run.info["trt_version"] == "8.4.1" and run.info["rule_warnings"] == []
    assert [p.name for p in out.iterdir()] == ["resnet-fp16"]
    assert run.info["workload"]["engine_sha256"] == hashlib.sha256(b"engine A\0").hexdigest()
    other = tmp_path / "other.engine"  # another engine: its run measures another workload
    other.write_bytes(b"engine B\0")
    second = load_profile_run(run_trtexec(other, out, "other", executable=str(script)))
    with pytest.raises(MixedWorkloadError, match="differ in network"):
        compare_runs([run, second])


def test_failed_trtexec_leaves_only_a_partial_run_with_its_log(tmp_path: Path) -> None:
    false = shutil.which("false")
    assert false
    with pytest.raises(RuntimeError, match="ended with 1"):
        run_trtexec(Path("/m.engine"), tmp_path, "r", version=V1016, executable=false)
    # Nothing that looks finished, but the log and the reason are kept.
    assert [p.name for p in tmp_path.iterdir()] == [".r.partial"]
    partial = tmp_path / ".r.partial"
    assert (partial / "trtexec.log").is_file()
    note = json.loads((partial / "INCOMPLETE.json").read_text())
    assert note["status"] == "RuntimeError" and "ended with 1" in note["detail"]


def test_failed_trtexec_safe_run_is_a_partial_trtexec_profile_run(tmp_path: Path) -> None:
    # A TEST DOUBLE named trtexec_safe that prints the FAILED banner and exits 0, as the real
    # tool does; the partial run's INCOMPLETE note names its kind, so `runs --all` can show it.
    tool = tmp_path / "bin" / "trtexec_safe"
    tool.parent.mkdir()
    tool.write_text(f"#!{sys.executable}\n"
                    "print('&&&& FAILED TensorRT.trtexec_safe [TensorRT v110400] # x')\n")
    tool.chmod(0o755)
    out = tmp_path / "runs"
    with pytest.raises(RuntimeError, match="banner FAILED"):
        run_trtexec(Path("/m.engine"), out, "s", version=V114, executable=str(tool))
    note = json.loads((out / ".s.partial" / "INCOMPLETE.json").read_text())
    assert note["kind"] == "trtexec-profile" and note["status"] == "RuntimeError"
