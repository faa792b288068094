"""`build --dry-run` (and every composed command) checks each flag against the source-derived
table of the tool and version: unknown -> exit 2 with the closest flags, wrong value kind ->
exit 2, repeats, no-op flags; and the model of the real parsers (used by the test doubles)."""

from __future__ import annotations

import pytest

from trtsafe_lab.cli import main
from trtsafe_lab.trtexec.flag_check import check_flags
from trtsafe_lab.trtexec.flag_table import load_table
from trtsafe_lab.trtexec.tool_parser import real_parse
from trtsafe_lab.trtexec.version import TrtVersion

V111, V114, V1016 = TrtVersion(11, 1), TrtVersion(11, 4), TrtVersion(10, 16)


def dry_run(capsys: pytest.CaptureFixture[str], *flags: str, tool: str = "trtexec",
            version: str = "11.4") -> tuple[int, str]:
    code = main(["build", "--dry-run", "--trt-version", version, "--tool", tool, "--", *flags])
    return code, capsys.readouterr().out


def test_unknown_flag_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = dry_run(capsys, "--onnx=m.onnx", "--frobnicate")
    assert code == 2
    assert "refusal: [unknown-flag] --frobnicate" in out and "Unknown option" in out


def test_typo_names_the_closest_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = dry_run(capsys, "--onnx=m.onnx", "--saveEngin=m.engine")
    assert code == 2
    assert "did you mean --saveEngine" in out


def test_wrong_value_kind_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = dry_run(capsys, "--onnx=m.onnx", "--maxAuxStreams=abc")
    assert code == 2 and "maxAuxStreams" in out
    code, out = dry_run(capsys, "--onnx=m.onnx", "--iterations=ten")
    assert code == 2 and "[flag-value-kind] --iterations" in out and "not an integer" in out
    assert "needs an int value" in out, out  # qa: read "needs a int value"
    code, out = dry_run(capsys, "--onnx=m.onnx", "--profilingVerbosity=loud")
    assert code == 2 and "not one of layer_names_only" in out


def test_repeated_flag_names_both(capsys: pytest.CaptureFixture[str]) -> None:
    # trtexec reads a non-repeatable flag once and rejects the other as "Unknown option".
    code, out = dry_run(capsys, "--onnx=m.onnx", "--saveEngine=a.engine", "--saveEngine=b.engine")
    assert code == 2
    assert "--saveEngine=a.engine, --saveEngine=b.engine" in out
    # trtexec_safe keeps the last one: a warning naming both.
    code, out = dry_run(capsys, "--loadEngine=a.engine", "--iterations=5", "--iterations=9",
                        tool="trtexec_safe")
    assert code == 0
    assert "warning: [repeated-flag] --iterations" in out
    assert "--iterations=5, --iterations=9" in out
    # Flags read in a loop may repeat.
    code, _ = dry_run(capsys, "--onnx=m.onnx", "--staticPlugins=a.so",
                      "--staticPlugins=b.so")
    assert code == 0


def test_no_op_flag_warns(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = dry_run(capsys, "--onnx=m.onnx", "--useSpinWait")
    assert code == 0 and "warning: [no-op-flag] --useSpinWait" in out


def test_safe_tool_rejects_export_flags_and_switch_values(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = dry_run(capsys, "--loadEngine=a.engine", "--exportTimes=t.json",
                        tool="trtexec_safe")
    assert code == 2 and "Invalid Argument" in out
    code, out = dry_run(capsys, "--loadEngine=a.engine", "--noCudaGraph=1", tool="trtexec_safe")
    assert code == 2 and "[switch-takes-no-value]" in out


def test_switch_value_is_ignored_by_trtexec() -> None:
    issues = check_flags(load_table("trtexec", V114), ["--onnx=m", "--safe=false"])
    assert [(i.rule, i.severity) for i in issues] == [("switch-value-ignored", "warning")]


@pytest.mark.parametrize(("argv", "exit_code", "error"), [
    (["--onnx=m.onnx", "--frobnicate"], 1, "Unknown option: --frobnicate "),
    (["--onnx=m.onnx", "--saveEngine=a", "--saveEngine=b"], 1, "Unknown option: --saveEngine "),
    (["--onnx=m.onnx", "--maxAuxStreams=abc"], 1, "stoi"),
    (["--onnx=m.onnx", "--fp16"], 1, "Unknown option: --fp16 "),
    (["--saveEngine=a"], 1, "Model missing or format not recognized"),
])
def test_real_trtexec_parser_model(argv: list[str], exit_code: int, error: str) -> None:
    result = real_parse(load_table("trtexec", V111), argv)
    assert not result.accepted and result.exit_code == exit_code
    assert any(e.startswith(error) for e in result.errors)


def test_real_trtexec_safe_parser_model() -> None:
    table = load_table("trtexec_safe", V111)
    assert real_parse(table, ["--loadEngine=a", "--iterations=5", "--iterations=6"]).accepted
    bad = real_parse(table, ["--loadEngine=a", "--exportTimes=t.json"])
    assert bad.errors == ["Invalid Argument: --exportTimes=t.json"] and bad.exit_code == 1
    assert real_parse(table, ["--iterations=5"]).errors == ["Engine file is required."]
    crash = real_parse(table, ["--loadEngine=a", "--iterations=abc"])
    assert crash.exit_code == -6 and "what():  stoi" in crash.stderr_extra[-1]
    assert not real_parse(load_table("trtexec_safe", V1016), ["--loadEngine=a",
                                                              "--noCudaGraph"]).accepted
    # trtSafeExec.cpp 11.1 parseSafeExecArgs: an empty engine name is no engine (the last
    # --loadEngine wins); 10.16 counted any --loadEngine (hasRequired). Both reject a
    # --loadInputs with no "name:file" pair ("Invalid loadInputs format: ...").
    assert real_parse(table, ["--loadEngine=a", "--loadEngine="]).errors == [
        "Engine file is required."]
    assert real_parse(load_table("trtexec_safe", V1016), ["--loadEngine="]).accepted
    for version in (V1016, V111):
        inputs = real_parse(load_table("trtexec_safe", version),
                            ["--loadEngine=a", "--loadInputs=x.bin"])
        assert inputs.errors == ["Invalid loadInputs format: x.bin"] and inputs.exit_code == 1
    assert real_parse(table, ["--loadEngine=a", "--loadInputs=x.bin,'in:0':y.bin"]).accepted


def test_build_form_runs_the_same_flag_checks(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("ipywidgets")
    from trtsafe_lab.widgets import BuildForm

    monkeypatch.setenv("PATH", str(tmp_path))  # no trtexec here
    form = BuildForm(tmp_path / "runs")
    form.extra.value = "--verbos"
    assert "unknown-flag" in form.preview.value and "did you mean --verbose" in form.preview.value
    assert not form.can_run
    form.extra.value = "--iterations=ten"
    assert "flag-value-kind" in form.preview.value


# --safetyPlugins (both tools) goes through samples/common/safeCommon.h parseSafetyPluginArgument:
# the first '[' and ']' must both be there, '[' first, with a library name before it.
BAD_PLUGIN_SPECS = ["libp.so", "libp.so[ns::P", "libp.so]ns::P[", "[ns::P]", ""]


@pytest.mark.parametrize("value", BAD_PLUGIN_SPECS)
@pytest.mark.parametrize("version", [V1016, V111, V114])
def test_real_parsers_reject_bad_safety_plugin_values(value: str, version: TrtVersion) -> None:
    safe = real_parse(load_table("trtexec_safe", version),
                      ["--loadEngine=a", f"--safetyPlugins={value}"])
    assert not safe.accepted and safe.exit_code == 1 and safe.print_help
    assert safe.stderr_extra == [f"Invalid safety plugin argument: {value}"]
    assert safe.errors == [
        f"Unable to parse safety plugin library argument: --safetyPlugins={value}",
        f"Invalid Argument: --safetyPlugins={value}"]
    build = real_parse(load_table("trtexec", version),
                       ["--onnx=m.onnx", f"--safetyPlugins={value}"])
    assert not build.accepted and build.exit_code == 1
    assert build.errors == [f"Invalid Safety plugin library option: {value}"]
    assert build.stderr_extra == [f"Invalid safety plugin argument: {value}"]


@pytest.mark.parametrize("value", ["myPlugin.so[MyNamespace::MyPlugin]", "/p/lib.so[a,ns::b]",
                                   "lib.so[]", "lib.so[x],other.so[y]"])
def test_real_parsers_accept_what_safeCommon_accepts(value: str) -> None:
    assert real_parse(load_table("trtexec_safe", V114),
                      ["--loadEngine=a", f"--safetyPlugins={value}"]).accepted
    assert real_parse(load_table("trtexec", V114),
                      ["--onnx=m.onnx", f"--safetyPlugins={value}"]).accepted


def test_dry_run_refuses_bad_safety_plugins_with_the_real_message(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out = dry_run(capsys, "--loadEngine=a.engine", "--safetyPlugins=libp.so",
                        tool="trtexec_safe")
    assert code == 2 and "refusal: [flag-value-kind] --safetyPlugins" in out
    assert ("'Unable to parse safety plugin library argument: --safetyPlugins=libp.so'"
            in out), out
    code, out = dry_run(capsys, "--onnx=m.onnx", "--safe", "--safetyPlugins=[ns::P]")
    assert code == 2 and "'Invalid Safety plugin library option: [ns::P]'" in out
    assert "no library name before '['" in out
    code, out = dry_run(capsys, "--loadEngine=a.engine", "--safetyPlugins=a.so[ns::P]",
                        tool="trtexec_safe")
    assert code == 0 and "safetyPlugins" not in out.split("rule checks:")[1].split("\n")[0]
    # Accepted, but the tool drops the second library and an empty list silently: warnings.
    code, out = dry_run(capsys, "--loadEngine=a.engine", "--safetyPlugins=a.so[x],b.so[y]",
                        tool="trtexec_safe")
    assert code == 0 and "warning: [plugin-spec-ignored] --safetyPlugins" in out
    assert "(',b.so[y]')" in out
    issues = check_flags(load_table("trtexec", V114), ["--onnx=m", "--safetyPlugins=a.so[ns::]"])
    assert [(i.rule, i.severity) for i in issues] == [("plugin-spec-ignored", "warning")]
    assert "names no plugin" in issues[0].message


def test_build_form_refuses_a_bad_safety_plugin_value(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("ipywidgets")
    from trtsafe_lab.widgets import BuildForm

    monkeypatch.setenv("PATH", str(tmp_path))
    form = BuildForm(tmp_path / "runs")
    form.extra.value = "--safetyPlugins=libp.so"
    assert "flag-value-kind" in form.preview.value
    assert "Invalid Safety plugin library option: libp.so" in form.preview.value
    assert not form.can_run
