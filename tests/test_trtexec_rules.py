"""The trtexec command model: versions, flags -> argv, every 11.x rule, expected artifacts."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtsafe_lab.trtexec.options import Flag, TrtexecCommand, TrtexecOptions, parse_flags
from trtsafe_lab.trtexec.rules import (
    REMOVED_PRECISION_FLAGS,
    RuleViolation,
    check_command,
    enforce,
    expected_artifacts,
)
from trtsafe_lab.trtexec.version import TrtVersion, find_banner

V114 = TrtVersion(11, 4)
V1016 = TrtVersion(10, 16, 1)


def cmd(args: str, version: TrtVersion = V114, tool: str = "trtexec") -> TrtexecCommand:
    return TrtexecCommand(tool, tuple(parse_flags(args.split())), version)


def rules_of(c: TrtexecCommand, severity: str = "refusal") -> list[tuple[str, str]]:
    return [(f.rule, f.flag) for f in check_command(c) if f.severity == severity]


@pytest.mark.parametrize(
    ("code", "expected"),
    [("100200", (10, 2, 0)), ("101601", (10, 16, 1)), ("8205", (8, 2, 5)), ("8600", (8, 6, 0)),
     ("110400", (11, 4, 0))],
)
def test_banner_codes_decode(code: str, expected: tuple[int, int, int]) -> None:
    assert TrtVersion.from_code(int(code)) == TrtVersion(*expected)


def test_banner_found_in_real_corpus_logs(corpus_dir: Path) -> None:
    text = (corpus_dir / "build-logs/cases/068.log").read_text(errors="replace")
    banner = find_banner(text)
    assert banner is not None
    assert (banner.state, banner.tool, banner.version) == ("PASSED", "trtexec", V1016)
    assert find_banner("[I] no banner here") is None


def test_version_parse_and_order() -> None:
    assert TrtVersion.parse("11.4") == V114
    assert TrtVersion.parse("11.4.0.106") == V114
    assert TrtVersion.parse("v110400") == V114
    assert TrtVersion.parse("11.3") > TrtVersion.parse("10.16")
    assert TrtVersion(11, 3).has_companion_so and not TrtVersion(11, 2).has_companion_so
    with pytest.raises(ValueError, match=r"MAJOR\.MINOR"):
        TrtVersion.parse("eleven")


def test_typed_options_to_argv() -> None:
    opts = TrtexecOptions(onnx=Path("m.onnx"), save_engine=Path("m.engine"), safe=True,
                          max_aux_streams=0, skip_inference=True, extra=["--noCudaGraph"])
    assert opts.to_command(V114).argv() == [
        "trtexec", "--onnx=m.onnx", "--saveEngine=m.engine", "--maxAuxStreams=0", "--safe",
        "--skipInference", "--noCudaGraph",
    ]


def test_flag_parse_refuses_positional_and_keeps_equals_in_values() -> None:
    assert Flag.parse("--shapes=x:1x3=y") == Flag("shapes", "x:1x3=y")
    with pytest.raises(ValueError, match="--name=value"):
        Flag.parse("model.onnx")


def test_clean_safe_build_passes() -> None:
    assert check_command(cmd("--onnx=m.onnx --safe --saveEngine=a.engine --maxAuxStreams=2")) == []


def test_restricted_refused_on_11x_with_explanation() -> None:
    findings = check_command(cmd("--onnx=m.onnx --restricted"))
    assert [(f.rule, f.flag) for f in findings] == [("restricted-removed-11x", "restricted")]
    assert "enforced by the safe build" in findings[0].message
    assert "--safe" in findings[0].fix
    assert rules_of(cmd("--onnx=m.onnx --restricted", V1016)) == []


@pytest.mark.parametrize("flag", sorted(REMOVED_PRECISION_FLAGS))
def test_removed_precision_flags_refused_on_11x_valid_on_10x(flag: str) -> None:
    arg = f"--{flag}=calib.cache" if flag == "calib" else f"--{flag}"  # 10.16: --calib=<file>
    refused = check_command(cmd(f"--onnx=m.onnx {arg}"))
    assert [(f.rule, f.flag) for f in refused] == [("precision-flags-removed-11x", flag)]
    assert "strongly" in refused[0].message and "ONNX" in refused[0].fix + refused[0].message
    assert check_command(cmd(f"--onnx=m.onnx {arg}", V1016)) == []


@pytest.mark.parametrize("flag", ["saveEngineSo=x.so", "loadEngineSo=x.so"])
def test_companion_so_flags_need_safe_in_trtexec(flag: str) -> None:
    name = flag.split("=")[0]
    assert rules_of(cmd(f"--onnx=m.onnx --{flag}")) == [("companion-so-needs-safe", name)]
    assert rules_of(cmd(f"--onnx=m.onnx --safe --saveEngine=a --{flag}")) == []


def test_load_engine_so_accepted_by_trtexec_safe() -> None:
    c = cmd("--loadEngine=a.engine --loadEngineSo=/opt/a.so", tool="trtexec_safe")
    assert rules_of(c) == []


def test_companion_so_flags_refused_before_11_3() -> None:
    c = cmd("--onnx=m.onnx --safe --saveEngine=a --saveEngineSo=a.so", TrtVersion(11, 2))
    assert rules_of(c) == [("companion-so-needs-11.3", "saveEngineSo")]


@pytest.mark.parametrize("flag", ["useCudaGraph", "separateProfileRun"])
def test_deprecated_trtexec_safe_flags_pass_with_warning(flag: str) -> None:
    c = cmd(f"--loadEngine=a.engine --{flag}", tool="trtexec_safe")
    assert rules_of(c) == []
    assert rules_of(c, "warning") == [("no-op-flag", flag)]  # trtSafeExec.cpp 11.1 help
    assert enforce(c)[0].flag == flag  # enforce returns warnings instead of raising


def test_no_op_flags_warn_on_trtexec_11x_only() -> None:
    assert rules_of(cmd("--onnx=m.onnx --useSpinWait"), "warning") == [
        ("no-op-flag", "useSpinWait")]
    assert rules_of(cmd("--onnx=m.onnx --useSpinWait", V1016), "warning") == []


@pytest.mark.parametrize("value", ["-1", "two", "1.5", ""])
def test_max_aux_streams_must_be_non_negative_integer(value: str) -> None:
    assert rules_of(cmd(f"--onnx=m.onnx --maxAuxStreams={value}")) == [
        ("max-aux-streams-integer", "maxAuxStreams")]


def test_max_aux_streams_without_value_refused() -> None:
    assert rules_of(cmd("--onnx=m.onnx --maxAuxStreams")) == [
        ("max-aux-streams-integer", "maxAuxStreams")]


@pytest.mark.parametrize("flag", ["remoteAutoTuningConfig=/nvidia_overlay/cfg", "cpuOnly"])
def test_safe_only_flags_need_safe(flag: str) -> None:
    name = flag.split("=")[0]
    assert rules_of(cmd(f"--onnx=m.onnx --{flag}")) == [("safe-only-flag", name)]
    assert rules_of(cmd(f"--onnx=m.onnx --safe --saveEngine=a --{flag}")) == []


def test_safe_build_without_save_engine_warns() -> None:
    assert rules_of(cmd("--onnx=m.onnx --safe"), "warning") == [("safe-build-not-saved", "safe")]


def test_enforce_lists_every_refusal_with_rule_flag_and_fix() -> None:
    with pytest.raises(RuleViolation) as info:
        enforce(cmd("--onnx=m.onnx --fp16 --int8 --restricted --cpuOnly"))
    text = str(info.value)
    assert "4 trtexec rule violation(s)" in text
    for part in ("[precision-flags-removed-11x] --fp16", "--int8", "[restricted-removed-11x]",
                 "[safe-only-flag] --cpuOnly", "Fix:"):
        assert part in text


def test_expected_artifacts_default_companion_so() -> None:
    arts = expected_artifacts(cmd("--onnx=m.onnx --safe --saveEngine=out/a.engine"))
    assert [(a.kind, str(a.path), a.role) for a in arts] == [
        ("engine", "out/a.engine", "output"), ("companion_so", "out/a.engine.so", "output")]
    explicit = expected_artifacts(cmd("--onnx=m --safe --saveEngine=a.engine --saveEngineSo=b.so"))
    assert str(explicit[1].path) == "b.so"


def test_expected_artifacts_load_side_and_no_so_for_10x_or_standard() -> None:
    arts = expected_artifacts(cmd("--loadEngine=a.engine", tool="trtexec_safe"))
    assert [(a.kind, str(a.path), a.role) for a in arts] == [
        ("engine", "a.engine", "input"), ("companion_so", "a.engine.so", "input")]
    assert [a.kind for a in expected_artifacts(cmd("--onnx=m --saveEngine=a"))] == ["engine"]
    assert [a.kind for a in expected_artifacts(cmd("--onnx=m --safe --saveEngine=a", V1016))] == [
        "engine"]


def test_expected_artifacts_exports_and_timing_cache() -> None:
    arts = expected_artifacts(cmd("--onnx=m --exportTimes=t.json --timingCacheFile=c.cache"))
    assert [(a.kind, a.role) for a in arts] == [("export", "output"), ("timing_cache", "cache")]
