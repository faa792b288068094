"""Every tensorrt name the package touches exists in the TensorRT 11.4 Python bindings.

Scans every module of ``trtsafe_lab`` (all engineers' code) with ``ast`` for attribute access on
a name bound to the tensorrt module (``import tensorrt as trt``, ``trt = require("tensorrt",
...)``, or a parameter/variable named ``trt``), and checks each ``trt.X`` against
reference/tensorrt-11.4-python-names.txt. Members used on tensorrt *objects* are declared in
``trtsafe_lab.engine.builder.TENSORRT_MEMBERS_USED`` and checked the same way.

Known gaps of the names file: it was read from the compiled module's string table, and a few
real names are absent from it. Each exception below must (a) be absent from the file and
(b) be explained by how the table was read: shorter than 4 characters (the usual minimum of a
string scan) or the tail of a longer listed name (linkers merge a string into another that
ends with it). Enum *members* (``EngineCapability.SAFETY``) are not in the file at all and are
not checked; only the enum type is.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import corpus_root

import trtsafe_lab
from trtsafe_lab.engine.builder import TENSORRT_MEMBERS_USED

PACKAGE = Path(trtsafe_lab.__file__).parent
# beside the corpus: ../shared/reference (follows TRTSAFE_CORPUS when that is set)
NAMES_FILE = corpus_root().parent / "reference" / "tensorrt-11.4-python-names.txt"

# name -> why it is missing from the names file although the 11.4 bindings have it
KNOWN_GAPS = {
    "Builder": "tail of IExprBuilder (merged string); tensorrt.Builder is the builder class",
    "serialize": "tail of plugins_to_serialize; ITimingCache.serialize()",
    "log": "3 characters, below the string scan's minimum; ILogger.log is the override",
    "Logger": "tail of ILogger (merged string); tensorrt.Logger is the stock ILogger",
}
# Names the bindings must have although the file lacks them and no rule above explains it. Each is
# needed by a feature that has no alternative in the listed names (profile/trt_engine_executor.py:
# deserializing a plan file from Python needs tensorrt.Runtime(logger)). Never verified here.
UNLISTED_BUT_REQUIRED = {
    "Runtime": "the only way from Python to an IRuntime for deserialize_cuda_engine (listed)",
}


@pytest.fixture(scope="module")
def names() -> set[str]:
    path = NAMES_FILE
    if not path.is_file():
        pytest.fail(f"names file not found at {path}; ../shared/reference must be beside the repo")
    return {ln.strip() for ln in path.read_text().splitlines() if ln.strip() and ln[0] != "#"}


def tensorrt_aliases(tree: ast.AST) -> set[str]:
    """Names bound to the tensorrt module in this file (plus the conventional ``trt``)."""
    aliases = {"trt"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {a.asname or a.name for a in node.names if a.name == "tensorrt"}
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            args = node.value.args
            if args and isinstance(args[0], ast.Constant) and args[0].value == "tensorrt":
                aliases |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return aliases


def tensorrt_attributes() -> dict[str, list[str]]:
    """``X`` of every ``<alias>.X`` in the package -> where it is used."""
    used: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        aliases = tensorrt_aliases(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases):
                where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
                used.setdefault(node.attr, []).append(where)
    return used


def test_scan_finds_the_builder_path() -> None:
    used = tensorrt_attributes()
    assert {"OnnxParser", "EngineCapability", "ILogger", "IProgressMonitor"} <= set(used)


def test_every_trt_attribute_is_in_the_names_file(names: set[str]) -> None:
    unknown = {n: w for n, w in tensorrt_attributes().items()
               if n not in names and n not in KNOWN_GAPS and n not in UNLISTED_BUT_REQUIRED}
    assert unknown == {}, f"tensorrt names not in the 11.4 bindings: {unknown}"


def test_declared_object_members_are_in_the_names_file(names: set[str]) -> None:
    unknown = [n for n in TENSORRT_MEMBERS_USED if n not in names and n not in KNOWN_GAPS]
    assert unknown == []
    source = "\n".join(p.read_text() for p in (PACKAGE / "engine").rglob("*.py"))
    unused = [n for n in TENSORRT_MEMBERS_USED
              if f".{n}" not in source and f"def {n}(" not in source]
    assert unused == [], "declared but not used: keep TENSORRT_MEMBERS_USED accurate"


def test_known_gaps_are_really_gaps_of_the_file(names: set[str]) -> None:
    for name in KNOWN_GAPS:
        assert name not in names, f"{name} is in the file now: drop it from KNOWN_GAPS"
        explained = len(name) < 4 or any(n.endswith(name) and n != name for n in names)
        assert explained, f"{name}: not explained by how the names file was read"


def test_unlisted_but_required_are_absent_and_used(names: set[str]) -> None:
    used = tensorrt_attributes()
    for name in UNLISTED_BUT_REQUIRED:
        assert name not in names, f"{name} is in the file now: drop it from UNLISTED_BUT_REQUIRED"
        assert name in used, f"{name} is no longer used: drop it from UNLISTED_BUT_REQUIRED"


def test_scan_catches_a_made_up_name(names: set[str], tmp_path: Path) -> None:
    tree = ast.parse("trt = require('tensorrt', feature='x')\ntrt.build_serialized_safe_network\n")
    assert tensorrt_aliases(tree) >= {"trt"}
    attrs = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)]
    assert attrs == ["build_serialized_safe_network"]
    assert "build_serialized_safe_network" not in names  # the 11.4 bindings lack it
