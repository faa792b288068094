"""trtexec_safe as NVIDIA's trtSafeExec.cpp defines it: the profile executor composes only flags the
real parsers accept, and the log parser reads lines generated from trtSafeExec.cpp's own print
statements (../shared/reference/tensorrt-oss/<version>/samples/trtSafeExec/trtSafeExec.cpp)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from test_flag_tables import reference  # noqa: F401  (session fixture)

from trtsafe_lab.profile.safe_summary import parse_safe_log
from trtsafe_lab.profile.trtexec_exec import trtexec_command
from trtsafe_lab.trtexec.flag_table import load_table
from trtsafe_lab.trtexec.rules import RuleViolation
from trtsafe_lab.trtexec.tool_parser import real_parse
from trtsafe_lab.trtexec.version import TrtVersion

VERSIONS = [TrtVersion(10, 16), TrtVersion(11, 1), TrtVersion(11, 3), TrtVersion(11, 4)]
STAMP = "[12/01/2026-15:09:15] "


def test_every_composed_command_passes_the_real_parser() -> None:
    composed = 0
    for version, tool, safe, graph, so in itertools.product(
            VERSIONS, ("trtexec", "/opt/bin/trtexec_safe"), (False, True), (False, True),
            (None, Path("/e/x.so"))):
        try:
            cmd = trtexec_command(Path("/e/a.engine"), version=version, executable=tool,
                                  safe=safe, use_graph=graph, companion_so=so,
                                  export_prefix=Path("/o/run"))
        except RuleViolation:
            # Refused before running (companion .so before 11.3): nothing reaches the tool.
            assert so is not None or safe
            continue
        composed += 1
        parsed = real_parse(load_table(cmd.tool_kind, version), cmd.argv()[1:])
        assert parsed.accepted, (version, tool, cmd.argv(), parsed.errors)
        if cmd.tool_kind == "trtexec_safe":
            assert not any(a.startswith("--export") for a in cmd.argv())
    assert composed >= 24


def _print_statements(source: str) -> list[list[str]]:
    """The ``ss << ... ;`` statements that trtSafeExec logs with safeLogInfo/Warning(ss.str())."""
    found = re.findall(r"ss << ([^;]*);\s*safeLog(?:Info|Warning)\(\*recorder, ss\.str\(\)\);",
                       source, re.S)
    return [[part.strip() for part in stmt.split("<<")] for stmt in found]


def _render(parts: list[str], values: dict[str, str]) -> str:
    out = []
    for part in parts:
        literal = re.fullmatch(r'"(.*)"', part, re.S)
        out.append(literal[1] if literal else values[part])
    return "".join(out)


@pytest.mark.parametrize("version", ["10.16", "11.1"])
def test_log_lines_generated_from_the_print_statements(reference: Path, version: str) -> None:  # noqa: F811
    source = (reference / version / "samples/trtSafeExec/trtSafeExec.cpp").read_text()
    statements = _print_statements(source)
    # C++ float formatting: 6 significant digits, exponents for small values.
    numbers = itertools.chain(["0.0123457", "1.5e-05"], (f"{i}.25" for i in itertools.count(2)))
    values: dict[str, str] = {}
    lines = []
    for parts in statements:
        for part in parts:
            if not part.startswith('"') and part not in values:
                values[part] = {"nbAvgRuns": "1", "args.percentile": "99"}.get(
                    part, next(numbers) if "coeffVar" not in part else "4.5")
        text = _render(parts, values)
        level = "[W] " if text.startswith("* GPU") else "[I] "
        lines.append(STAMP + level + text)
        if text.startswith("Total throughput"):
            lines.insert(-1, STAMP + "[I] === Performance summary ===")
    assert any(line.endswith("qps") for line in lines)
    log = "\n".join([*lines,
                     "&&&& PASSED TensorRT.trtexec_safe [TensorRT v110100] [b12] # trtexec_safe"])
    parsed = parse_safe_log(log)
    assert parsed.outcome == "PASSED" and parsed.summary is not None
    table = parsed.summary.table.set_index("metric")
    assert list(table.index) == ["host_time", "enqueue_time", "gpu_compute_time"]
    host = [v for k, v in values.items() if k.startswith("hostTimeResult")]
    assert table.loc["host_time", "min_ms"] == float(host[0])
    assert table.loc["gpu_compute_time", "p99_ms"] == float(
        values["gpuTimeResult.percentile"])
    assert parsed.summary.scalars["throughput_qps"] == float(
        values["nbAvgRuns * nbIterations / totalWallTime * 1000"])
    assert parsed.unstable_cv_pct == 4.5
    assert len(parsed.iterations) == 1 and parsed.avg_runs == 1
    assert parsed.iterations.loc[0, "compute_ms"] == float(values["avgGpuTime"])


def test_failed_banner_and_no_summary() -> None:
    parsed = parse_safe_log("[I] Parsing input arguments...\n"
                            "&&&& FAILED TensorRT.trtexec_safe [TensorRT v110100] [b1] # x\n")
    assert parsed.outcome == "FAILED" and parsed.summary is None and parsed.iterations.empty
