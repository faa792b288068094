"""Tiny hostile inputs must not exhaust the checker (issue 15 #3): each bomb is written here and
must end in a ``file-over-limit`` (or ``file-unreadable``) finding, never a crash, a hang or
gigabytes of memory. Before the limits, each of these ran > 300 s, raised MemoryError or
RecursionError, or blocked forever. Boundedness is shown by the finding (a counter ran out) and
by sizes, never by a clock; the timeout marker only stops a regression from hanging the suite.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from trtsafe_lab.errors import UsageError
from trtsafe_lab.migrate import check_paths
from trtsafe_lab.migrate.cli import exit_code
from trtsafe_lab.migrate.limits import (
    MAX_FILE_BYTES,
    MAX_NESTING,
    MAX_VARIABLE_WORDS,
    MAX_YAML_NODES,
)
from trtsafe_lab.migrate.words import Variables, Word

pytestmark = pytest.mark.timeout(120)
pytest.importorskip("yaml")


def findings(tmp_path: Path, name: str, text: str) -> list[tuple[int, str, str]]:
    path = tmp_path / name
    path.write_text(text)
    return [(f.line, f.rule, f.message) for f in check_paths([path])]


def over_limit(found: list[tuple[int, str, str]], words: str) -> tuple[int, str, str]:
    hits = [f for f in found if f[1] == "file-over-limit"]
    assert len(hits) == 1, found
    assert words in hits[0][2], hits[0]
    return hits[0]


def yaml_laughs() -> str:
    """The 478-byte sequence form of the billion laughs (9 ** 9 'lol's once expanded)."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def yaml_laughs_mapping() -> str:
    """The mapping form: each level a mapping of nine aliases to the level below (~860 B)."""
    lines = ['a: &a {run: "trtexec --fp16", x1: 1, x2: 2, x3: 3, x4: 4, x5: 5, x6: 6, x7: 7}']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} {{" + ", ".join(f"k{i}: *{prev}" for i in range(9)) + "}")
    return "\n".join(lines) + "\n"


def test_yaml_billion_laughs_is_refused(tmp_path: Path) -> None:
    text = yaml_laughs()
    assert len(text.encode()) < 500
    line, _, _ = over_limit(findings(tmp_path, "ci.yml", text), f"{MAX_YAML_NODES:,} nodes")
    assert line > 1


def test_yaml_billion_laughs_mapping_form_is_refused(tmp_path: Path) -> None:
    text = yaml_laughs_mapping()
    assert len(text.encode()) < 900
    over_limit(findings(tmp_path, "ci.yml", text), "YAML aliases expand")


def test_yaml_alias_count_is_capped(tmp_path: Path) -> None:
    text = "a: &a x\nb: [" + ", ".join(["*a"] * 2000) + "]\n"
    over_limit(findings(tmp_path, "ci.yml", text), "alias references")


def test_yaml_self_referencing_anchor_is_refused(tmp_path: Path) -> None:
    over_limit(findings(tmp_path, "ci.yml", "a: &a [x, *a]\n"), "cycle")


def test_deep_yaml_is_refused_before_composing(tmp_path: Path) -> None:
    over_limit(findings(tmp_path, "ci.yml", "a: " + "[" * 50_000 + "]" * 50_000 + "\n"), "nested")
    deep = "a: " + "{a: " * 5_000 + "1" + "}" * 5_000 + "\n"
    over_limit(findings(tmp_path, "ci2.yml", deep), f"over {MAX_NESTING} deep")


def test_yaml_alias_chain_depth_is_capped(tmp_path: Path) -> None:
    # each level one alias deeper: shallow as written, deep once expanded
    lines = ["l0: &l0 [x]"] + [f"l{i}: &l{i} [*l{i - 1}]" for i in range(1, 400)]
    over_limit(findings(tmp_path, "ci.yml", "\n".join(lines) + "\n"), "nest over")


def test_real_yaml_with_anchors_is_still_checked(tmp_path: Path) -> None:
    text = (
        "defaults: &build\n  script:\n    - trtexec --onnx=m.onnx --fp16\n"
        "job1: *build\njob2: *build\n"
    )
    rules = {rule for _, rule, _ in findings(tmp_path, "ci.yml", text)}
    assert rules == {"precision-flags-removed-11x"}


def test_cmake_string_bomb_is_capped(tmp_path: Path) -> None:
    lines = ['set(a "' + "x" * 50 + '")']
    for prev, name in zip("abcdefghij", "bcdefghijk", strict=True):
        lines.append(f'set({name} "' + ("${" + prev + "}") * 10 + '")')
    lines.append("add_custom_command(OUTPUT x COMMAND trtexec --fp16 ${k})")
    text = "\n".join(lines) + "\n"
    assert len(text) < 700
    found = findings(tmp_path, "CMakeLists.txt", text)
    over_limit(found, "characters")
    assert any(rule == "precision-flags-removed-11x" for _, rule, _ in found)  # rest still checked


def test_cmake_list_bomb_is_capped(tmp_path: Path) -> None:
    lines = ["set(x a b)"] + ["list(APPEND x ${x} ${x})"] * 3000
    lines.append("add_custom_target(t COMMAND trtexec --fp16 ${x})")
    found = findings(tmp_path, "x.cmake", "\n".join(lines) + "\n")
    over_limit(found, f"would hold over {MAX_VARIABLE_WORDS:,} words")


def test_variables_never_hold_more_than_the_cap() -> None:
    variables = Variables()
    for _ in range(40):  # doubling: 2 ** 40 words without the cap
        variables.append("x", (variables.get("x") or [Word("a", 1)]) * 2)
    assert len(variables.get("x") or []) == MAX_VARIABLE_WORDS
    assert variables.budget.exceeded


def test_makefile_bomb_is_capped(tmp_path: Path) -> None:
    lines = ["A0 = trtexec --fp16 xxxxxxxxxx"]
    for i in range(1, 12):
        lines.append(f"A{i} = " + f"$(A{i - 1})" * 8)
    lines += ["all:", "\t$(A11)"]
    over_limit(findings(tmp_path, "Makefile", "\n".join(lines) + "\n"), "characters")


def test_shell_variable_bomb_is_capped(tmp_path: Path) -> None:
    lines = ["A0='trtexec --fp16 xxxxxxxxxx'"]
    lines += [f'A{i}="' + f"$A{i - 1}" * 8 + '"' for i in range(1, 12)]
    over_limit(findings(tmp_path, "b.sh", "\n".join(lines) + "\n$A11\n"), "characters")


def test_python_list_doubling_is_capped(tmp_path: Path) -> None:
    lines = ["import subprocess", 'x0 = ["--fp16"]']
    lines += [f"x{i} = x{i - 1} + x{i - 1}" for i in range(1, 40)]
    lines.append('subprocess.run(["trtexec"] + x39)')
    over_limit(findings(tmp_path, "b.py", "\n".join(lines) + "\n"), "words")


def test_deeply_nested_python_is_a_finding_not_a_recursion_error(tmp_path: Path) -> None:
    text = "x = " + "+".join(["'a'"] * 100_000) + "\n"
    over_limit(findings(tmp_path, "deep.py", text), "recursion limit")


def test_deeply_nested_cpp_does_not_recurse(tmp_path: Path) -> None:
    # tree-sitter bounds its own stack; the checker's name helpers are loops
    depth = 100_000
    text = "void f() { createTRTGraph(g, b, n, " + "(" * depth + "rec" + ")" * depth + "); }\n"
    found = findings(tmp_path, "deep.cpp", text)
    assert all(rule != "file-over-limit" for _, rule, _ in found), found


def test_a_file_over_the_size_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.cpp"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: no memory or disk needed
    (finding,) = check_paths([path])
    assert finding.rule == "file-over-limit" and "MiB limit" in finding.message
    assert exit_code([finding]) == 2


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_device_files_are_refused(device: str) -> None:
    if not Path(device).exists():
        pytest.skip(f"{device} not present")
    (finding,) = check_paths([device])
    assert finding.rule == "file-unreadable" and "not a regular file" in finding.message


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "run.sh"
    os.mkfifo(fifo)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    (finding,) = check_paths([fifo])
    assert finding.rule == "file-unreadable"
    # a folder walk skips it (only regular files are walked)
    assert check_paths([tmp_path]) == []


def test_an_empty_path_is_refused_not_the_current_folder() -> None:
    with pytest.raises(UsageError, match="empty path"):
        check_paths([""])


def test_paths_the_system_cannot_look_up_are_refused(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(UsageError, match="cannot be looked up"):
        check_paths([loop])
    with pytest.raises(UsageError, match="cannot be looked up"):
        check_paths([tmp_path / ("a" * 300)])  # longer than NAME_MAX
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "self").symlink_to(tmp_path / "d")  # a folder walk does not follow it
    assert check_paths([tmp_path / "d"]) == []
