"""The flag tables are derived from NVIDIA's sources and stay in step with them (drift test).

Sources: ../shared/reference/tensorrt-oss/{10.16,11.1}/samples/common/sampleOptions.cpp (trtexec)
and samples/trtSafeExec/trtSafeExec.cpp (trtexec_safe); 11.3/11.4 add the migration guide's
companion-.so flags (derive.DELTAS).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from trtsafe_lab.trtexec._tables import derive
from trtsafe_lab.trtexec.flag_table import load_table
from trtsafe_lab.trtexec.version import TrtVersion

REPO_ROOT = Path(__file__).resolve().parents[1]
TABLES = REPO_ROOT / "trtsafe_lab" / "trtexec" / "_tables"


@pytest.fixture(scope="session")
def reference() -> Path:
    root = Path(os.environ.get("TRTSAFE_REFERENCE",
                               REPO_ROOT.parent / "shared" / "reference" / "tensorrt-oss"))
    if not (root / "README.md").is_file():
        pytest.fail(f"NVIDIA reference sources not found at {root}; set TRTSAFE_REFERENCE")
    return root


def _copy(reference: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "tensorrt-oss"
    for version in derive.SOURCE_VERSIONS:
        for rel in (derive.SAMPLE_OPTIONS, derive.SAMPLE_OPTIONS_H, derive.TRT_SAFE_EXEC,
                    derive.SAFE_COMMON):
            src = reference / version / rel
            if src.is_file():
                (copy / version / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, copy / version / rel)
    return copy


def test_committed_tables_match_the_sources(reference: Path) -> None:
    tables = derive.derive_all(reference)
    assert sorted(tables) == sorted(p.name for p in TABLES.glob("*.json"))
    for name, table in tables.items():
        assert (TABLES / name).read_text(encoding="utf-8") == derive.render(table), (
            f"{name} drifted from the sources: run python -m trtsafe_lab.trtexec._tables.derive")


def _parser_literals(source: str) -> set[str]:
    """Every "--flag" read by a get*Option call outside the safe-builder/task parsers."""
    for other in ("SafeBuilderOptions::parse", "TaskInferenceOptions::parse"):
        start = source.index(f"void {other}(")
        end = source.index("\n}\n", start)
        source = source[:start] + source[end:]
    return set(re.findall(r'get\w*\(\s*arguments\s*,\s*(?:[^;()]*?,\s*)?"(-{1,2}[A-Za-z]\w*)"',
                          source))


@pytest.mark.parametrize("version", derive.SOURCE_VERSIONS)
def test_tables_cover_every_flag_the_parsers_read(reference: Path, version: str) -> None:
    trtexec = load_table("trtexec", TrtVersion.parse(version))
    source = (reference / version / derive.SAMPLE_OPTIONS).read_text(encoding="utf-8")
    literals = _parser_literals(source)
    assert len(literals) > 100
    assert literals <= set(trtexec.accepted_keys())
    safe = load_table("trtexec_safe", TrtVersion.parse(version))
    safe_src = (reference / version / derive.TRT_SAFE_EXEC).read_text(encoding="utf-8")
    names = set(re.findall(r'[pP]arse\w*\((?:arg|argv\[i\]),\s*"(\w+)"', safe_src))
    names.discard("h")  # 10.16: parseBool(argv[i], "h", true) is the single-dash -h
    assert {f"--{n}" for n in names} | {"-h"} == set(safe.accepted_keys())


def test_facts_read_from_the_sources() -> None:
    v1016, v111, v114 = TrtVersion(10, 16), TrtVersion(11, 1), TrtVersion(11, 4)
    t111 = load_table("trtexec", v111)
    assert t111.get("--maxAuxStreams").value_kind == "int"
    assert t111.get("--safe").value_kind == "switch"
    assert t111.get("--threads").value_kind == "switch"  # trtexec: a switch ...
    assert load_table("trtexec_safe", v111).get("--threads").value_kind == "int"  # ... safe: N
    assert t111.get("--warmUp").value_kind == "float"  # ms in trtexec, iterations in safe
    assert load_table("trtexec_safe", v111).get("--warmUp").value_kind == "int"
    assert t111.get("--fp16").status == "removed" and t111.get("--restricted").status == "removed"
    assert load_table("trtexec", v1016).get("--fp16").status == "active"
    assert t111.get("--useSpinWait").status == "no-op"
    assert t111.get("--plugins").repeatable and not t111.get("--saveEngine").repeatable
    assert t111.get("--profilingVerbosity").choices[:3] == ("layer_names_only", "none", "detailed")
    assert load_table("trtexec_safe", v1016).get("--noCudaGraph") is None
    assert load_table("trtexec_safe", v111).get("--useCudaGraph").status == "no-op"
    for tool in ("trtexec_safe", "trtexec_safe"):
        assert load_table(tool, v111).get("--exportTimes") is None
    so = load_table("trtexec_safe", v114).get("--loadEngineSo")
    assert so is not None and "migration guide" in so.source
    assert load_table("trtexec_safe", v111).get("--loadEngineSo") is None
    assert load_table("trtexec", TrtVersion(11, 2)).version == v111  # nearest table below


def test_removing_a_flag_from_a_copy_of_the_source_is_detected(
        reference: Path, tmp_path: Path) -> None:
    copy = _copy(reference, tmp_path)
    options = copy / "11.1" / derive.SAMPLE_OPTIONS
    text = options.read_text(encoding="utf-8")
    line = '    getAndDelOption(arguments, "--maxAuxStreams", maxAuxStreams);\n'
    assert line in text
    options.write_text(text.replace(line, ""), encoding="utf-8")
    safe = copy / "11.1" / derive.TRT_SAFE_EXEC
    safe_text = safe.read_text(encoding="utf-8")
    branch = 'else if (loggedParseBool(arg, "noCudaGraph"))'
    assert branch in safe_text
    safe.write_text(safe_text.replace(branch, 'else if (loggedParseBool(arg, "noCudaGraphX"))'),
                    encoding="utf-8")
    assert derive.main([str(copy), "--out", str(TABLES), "--check"]) == 1
    tables = derive.derive_all(copy)
    rows = {r["key"]: r for r in tables["trtexec-11.1.json"]["flags"]}
    assert rows["--maxAuxStreams"]["status"] == "removed"  # 10.16 still reads it
    safe_rows = {r["key"] for r in tables["trtexec_safe-11.1.json"]["flags"]}
    assert "--noCudaGraph" not in safe_rows and "--noCudaGraphX" in safe_rows
    assert derive.main([str(reference), "--out", str(TABLES), "--check"]) == 0


def test_safety_plugin_syntax_is_read_from_the_sources(reference: Path, tmp_path: Path) -> None:
    """--safetyPlugins: the value kind and messages come from safeCommon.h
    parseSafetyPluginArgument and each tool's caller; a parser of another shape stops the
    script (the model in tool_parser would no longer follow it)."""
    for version in (TrtVersion(10, 16), TrtVersion(11, 1), TrtVersion(11, 4)):
        safe = load_table("trtexec_safe", version).get("--safetyPlugins")
        build = load_table("trtexec", version).get("--safetyPlugins")
        assert safe is not None and build is not None
        assert safe.value_kind == build.value_kind == derive.PLUGIN_KIND
        assert safe.error == ("Unable to parse safety plugin library argument: "
                              "--safetyPlugins=")
        assert build.error == "Invalid Safety plugin library option: "
        assert safe.log_line == build.log_line == "Invalid safety plugin argument: "
    copy = _copy(reference, tmp_path)
    common = copy / "11.1" / derive.SAFE_COMMON
    original = common.read_text(encoding="utf-8")
    for old, new in (("leftBracketIdx > rightBracketIdx", "false"),
                     ('"Invalid safety plugin argument: "', '"Bad plugin argument: "')):
        assert old in original
        common.write_text(original.replace(old, new), encoding="utf-8")
        if new == "false":  # the order check is gone: tool_parser no longer models the parser
            with pytest.raises(ValueError, match="parseSafetyPluginArgument no longer matches"):
                derive.derive_all(copy)
    rows = {r["key"]: r for r in derive.derive_all(copy)["trtexec_safe-11.1.json"]["flags"]}
    assert rows["--safetyPlugins"]["log_line"] == "Bad plugin argument: "
