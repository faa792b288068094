"""``trtsafe-lab migrate``: output formats, exit codes, the findings DataFrame."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from import_check import loaded_after

from trtsafe_lab.cli import main
from trtsafe_lab.migrate import FINDING_COLUMNS, migration_findings, rules_frame

FIXTURES = Path(__file__).parent / "fixtures" / "migrate"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["migrate", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_is_an_array_of_findings_and_errors_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(FIXTURES / "v10"), "--format", "json")
    assert code == 1
    findings = json.loads(out)
    assert isinstance(findings, list) and findings
    assert all(list(item) == list(FINDING_COLUMNS) for item in findings)
    first = findings[0]
    assert isinstance(first["line"], int) and first["severity"] in ("error", "warning")
    assert first["file"].startswith(str(FIXTURES / "v10"))


def test_clean_11x_tree_exits_0_with_an_empty_array(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(FIXTURES / "v11"), "--format", "json")
    assert (code, json.loads(out)) == (0, [])


def test_warnings_alone_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "smoke.sh"
    script.write_text("trtexec_safe --loadEngine=/opt/a.engine --useCudaGraph\n")
    code, out, _ = run(capsys, str(script))
    assert code == 0
    assert f"{script}:1  warning  no-op-flag" in out
    assert "fix: Drop the flag" in out


def test_table_lists_file_line_rule_and_fix(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(FIXTURES / "v10" / "safe_infer.cpp"))
    assert code == 1
    assert f"{FIXTURES / 'v10' / 'safe_infer.cpp'}:54  error  companion-so-missing" in out
    assert "3 finding(s): 3 error(s), 0 warning(s) in 1 file(s)" in out


def test_missing_path_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, str(tmp_path / "nope"))
    assert code == 2
    assert "no such file" in err.lower()


def test_unreadable_file_exits_2_and_is_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "blob.cpp").write_bytes(b"\x00\x01\x02")
    (tmp_path / "build.sh").write_text("trtexec --fp16\n")
    code, out, _ = run(capsys, str(tmp_path), "--format", "json")
    assert code == 2
    assert {f["rule"] for f in json.loads(out)} == {
        "file-unreadable",
        "precision-flags-removed-11x",
    }


def test_findings_frame_matches_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    frame = migration_findings(FIXTURES / "v10")
    _, out, _ = run(capsys, str(FIXTURES / "v10"), "--format", "json")
    assert list(frame.columns) == list(FINDING_COLUMNS)
    assert frame.to_dict("records") == json.loads(out)
    assert str(frame["line"].dtype) == "int64"


def test_rules_frame_lists_the_issue_rule_ids() -> None:
    ids = set(rules_frame()["rule"])
    assert {
        "companion-so-missing",
        "companion-so-relative",
        "companion-so-not-shipped",
        "restricted-removed-11x",
        "companion-so-needs-safe",
        "precision-flags-removed-11x",
        "safe-build-api",
        "safety-scope-noop",
        "network-supported-not-a-gate",
        "no-op-flag",
        "aux-streams-unregistered",
        "aux-streams-destroyed-early",
        "remote-autotuning-overlay",
    } <= ids


def test_demo_writes_the_example_findings(tmp_path: Path) -> None:
    import pandas as pd

    from trtsafe_lab.demo.migrate import run_demo

    written = run_demo(tmp_path)
    assert [p.name for p in written] == [
        "migrate_findings.csv",
        "migrate_findings.json",
        "migrate_rules.csv",
    ]
    table = pd.read_csv(written[0])
    records = json.loads(written[1].read_text())
    assert len(table) == len(records) >= 10
    assert list(table.columns) == list(FINDING_COLUMNS)
    assert not any(Path(f).is_absolute() for f in table["file"])
    # The example is a 10.x project: most rule families show up in it.
    assert {
        "companion-so-missing",
        "companion-so-not-shipped",
        "precision-flags-removed-11x",
        "safe-build-api",
        "aux-streams-unregistered",
    } <= set(table["rule"])


def test_importing_the_checker_does_not_load_parsers_or_pandas() -> None:
    heavy = ("tree_sitter", "tree_sitter_cpp", "yaml", "matplotlib", "tensorrt")
    assert loaded_after("import trtsafe_lab.migrate, trtsafe_lab.migrate.cli", heavy) == []


def test_missing_tree_sitter_names_the_migrate_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    from trtsafe_lab.migrate import syntax_tree

    syntax_tree.parser.cache_clear()
    monkeypatch.setitem(sys.modules, "tree_sitter", None)  # import now raises ImportError
    (tmp_path / "a.cpp").write_text("int main() { return 0; }\n")
    try:
        code, _, err = run(capsys, str(tmp_path))
    finally:
        syntax_tree.parser.cache_clear()
    assert code == 2
    assert "trtsafe-lab[migrate]" in err


def test_a_file_name_that_is_not_utf8_is_printed_escaped(tmp_path: Path) -> None:
    import io
    import os

    from trtsafe_lab.migrate import check_paths
    from trtsafe_lab.migrate.cli import write_table

    (tmp_path / os.fsdecode(b"bad\xff.sh")).write_text("trtexec --fp16\n")
    findings = check_paths([tmp_path])
    assert [Path(f.file).name for f in findings] == ["bad\\xff.sh"]
    strict = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    write_table(findings, strict)  # a strict UTF-8 stdout must not raise
    strict.flush()


def test_each_file_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The C/C++ files' #define lines are read for the scan's macros and the same bytes are
    then checked: one read per file (two before)."""
    from trtsafe_lab.migrate import check

    (tmp_path / "defs.h").write_text("#define TRT_DEPRECATED [[deprecated]]\n")
    (tmp_path / "use.cpp").write_text(
        '#include "defs.h"\nclass TRT_DEPRECATED IOld {};\n'
        "void f(nvinfer1::IBuilderConfig* c) { c->setFlag(BuilderFlag::kSAFETY_SCOPE); }\n")
    (tmp_path / "build.sh").write_text("trtexec --fp16 --onnx=m.onnx\n")
    reads: list[str] = []
    real_read = check._read

    def counting_read(path: Path, shown: str):  # type: ignore[no-untyped-def]
        reads.append(Path(path).name)
        return real_read(path, shown)

    monkeypatch.setattr(check, "_read", counting_read)
    findings = check.check_paths([tmp_path])
    assert sorted(reads) == ["build.sh", "defs.h", "use.cpp"]
    rules = {(Path(f.file).name, f.line, f.rule) for f in findings}
    assert ("use.cpp", 3, "safety-scope-noop") in rules
    assert not any(r == "file-unparsable" for _, _, r in rules), rules  # the macro was blanked


def test_syntax_tree_helpers_are_imported_from_syntax_tree() -> None:
    """cpp_tree offers the C/C++ helpers only; text/line/walk/first_error/Node are
    syntax_tree's, and no module reaches them through cpp_tree."""
    import ast

    import trtsafe_lab
    from trtsafe_lab.migrate import cpp_tree, syntax_tree

    shared = {"text", "line", "walk", "first_error", "Node", "parser"}
    assert not shared & set(cpp_tree.__all__)
    assert {"text", "line", "walk", "first_error"} <= set(dir(syntax_tree))
    offenders = []
    roots = [Path(trtsafe_lab.__file__).parent, Path(__file__).parent]
    for path in (p for root in roots for p in root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "trtsafe_lab.migrate.cpp_tree":
                offenders += [f"{path.name}: from cpp_tree import {a.name}"
                              for a in node.names if a.name in shared]
            if isinstance(node, ast.ImportFrom) and node.module == "trtsafe_lab.migrate":
                aliases |= {a.asname or a.name for a in node.names if a.name == "cpp_tree"}
        offenders += [f"{path.name}: {n.value.id}.{n.attr}" for n in ast.walk(tree)
                      if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                      and n.value.id in aliases and n.attr in shared]
    assert offenders == []
