"""Every tensorrt name the package touches exists in the TensorRT Python bindings.

References: NVIDIA's bindings source of TensorRT 11.1 (pyCore.cpp/pyGraph.cpp), as the derived
table tests/fixtures/tensorrt_api_11.1.json (classes with their methods, properties, enum
values and keyword names; re-derived here and checked for drift), and
reference/tensorrt-11.4-python-names.txt (names read from the 11.4 wheel's string table: no
class context, and a few real names such as ``Builder``, ``Runtime``, ``Logger``,
``execute_async_v3`` are missing from it).

Checked: every ``trt.X`` in the package (``ast`` scan of names bound to the tensorrt module);
every member used on tensorrt *objects*: the engine builder's declared
``TENSORRT_MEMBERS_USED`` (per class) and, by ``ast`` scan, every attribute the TensorRT
executors use on their engine / execution context / runtime objects, plus the member names they
look up by string (``EXECUTE_NAMES``, ``DEVICE_MEMORY_NAMES``), each against its binding class.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
import tensorrt_api
from conftest import corpus_root
from tensorrt_double import make_double

import trtsafe_lab
from trtsafe_lab.engine.builder import TENSORRT_MEMBERS_USED

PACKAGE = Path(trtsafe_lab.__file__).parent
REFERENCE = corpus_root().parent / "reference"
NAMES_FILE = REFERENCE / "tensorrt-11.4-python-names.txt"
# The executors and the objects they hold: receiver (as written) -> binding class.
EXECUTOR_MODULES = ("profile/trt_engine_executor.py", "runtime/trt_executor.py", "trt_api.py")
RECEIVERS = {"self.engine": "ICudaEngine", "engine": "ICudaEngine",
             "self.context": "IExecutionContext", "context": "IExecutionContext",
             "self._runtime": "Runtime", "runtime": "Runtime"}
# Classes whose binding file (pyOnnx.cpp) is not in the reference: checked by name only.
UNSOURCED = {"OnnxParser"}


@pytest.fixture(scope="module")
def names() -> set[str]:
    if not NAMES_FILE.is_file():
        pytest.fail(f"names file not found at {NAMES_FILE}; ../shared/reference must be beside "
                    "the repo")
    return {ln.strip() for ln in NAMES_FILE.read_text().splitlines()
            if ln.strip() and ln[0] != "#"}


@pytest.fixture(scope="module")
def api() -> dict:
    return tensorrt_api.load()


def test_bindings_table_matches_the_source() -> None:
    if not (REFERENCE / "tensorrt-oss" / tensorrt_api.SOURCES[0]).is_file():
        pytest.fail(f"NVIDIA bindings source not found under {REFERENCE}")
    assert tensorrt_api.render(tensorrt_api.derive(REFERENCE)) == \
        tensorrt_api.TABLE.read_text(encoding="utf-8"), (
            "tests/fixtures/tensorrt_api_11.1.json drifted: run python tests/tensorrt_api.py")


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
        if "examples" in path.relative_to(PACKAGE).parts:
            continue  # bundled 10.x-era example projects are data, not the package
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


def test_every_trt_attribute_is_in_the_bindings(names: set[str], api: dict) -> None:
    known = names | set(api["classes"]) | set(api["functions"])
    unknown = {n: w for n, w in tensorrt_attributes().items() if n not in known}
    assert unknown == {}, f"in neither the 11.1 bindings nor the 11.4 list: {unknown}"


def member_ok(api: dict, names: set[str], cls: str, member: str) -> bool:
    if cls in UNSOURCED:
        return member in names
    return member in tensorrt_api.members(api, cls)


def test_builder_members_exist_on_their_classes(names: set[str], api: dict) -> None:
    wrong = [(c, m) for c, ms in TENSORRT_MEMBERS_USED.items() for m in ms
             if not member_ok(api, names, c, m)]
    assert wrong == []
    source = "\n".join(p.read_text() for p in (PACKAGE / "engine").rglob("*.py"))
    unused = [m for ms in TENSORRT_MEMBERS_USED.values() for m in ms
              if f".{m}" not in source and f"def {m}(" not in source]
    assert unused == [], "declared but not used: keep TENSORRT_MEMBERS_USED accurate"


def executor_member_uses() -> list[tuple[str, str, str]]:
    """(binding class, member, where) of every attribute used on an executor's TensorRT
    objects (receivers in :data:`RECEIVERS`)."""
    found = []
    for rel in EXECUTOR_MODULES:
        path = PACKAGE / rel
        if not path.is_file():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                receiver = ast.unparse(node.value)
                if receiver in RECEIVERS:
                    found.append((RECEIVERS[receiver], node.attr, f"{rel}:{node.lineno}"))
    return found


def test_executor_members_exist_on_their_classes(names: set[str], api: dict) -> None:
    uses = executor_member_uses()
    assert {("IExecutionContext", "set_aux_streams"), ("Runtime", "deserialize_cuda_engine"),
            ("ICudaEngine", "num_aux_streams")} <= {(c, m) for c, m, _ in uses}
    wrong = [(c, m, w) for c, m, w in uses if not member_ok(api, names, c, m)]
    assert wrong == [], f"members the bindings do not define on that class: {wrong}"


def test_members_looked_up_by_string_exist(api: dict) -> None:
    helpers = importlib.import_module("trtsafe_lab.trt_api")
    for name in helpers.EXECUTE_NAMES:
        assert name in tensorrt_api.members(api, "IExecutionContext"), name
    for name in helpers.DEVICE_MEMORY_NAMES:
        assert name in tensorrt_api.members(api, "ICudaEngine"), name


def test_stand_in_rejects_what_pybind11_would() -> None:
    trt = make_double([], succeed=True)
    with pytest.raises(AttributeError):
        trt.build_serialized_safe_network  # noqa: B018  (11.4 Python has none)
    with pytest.raises(NotImplementedError):
        trt.Runtime  # noqa: B018  (real, not modelled here)
    builder = trt.Builder(trt.ILogger())
    config = builder.create_builder_config()
    config.max_aux_streams = 2
    with pytest.raises(AttributeError):
        config.max_aux_stream = 2  # a typo is not a new attribute
    with pytest.raises(AttributeError):
        config.set_aux_streams  # noqa: B018  (IExecutionContext's, not the config's)
    cache = config.create_timing_cache(serialized_timing_cache=b"")
    with pytest.raises(TypeError):
        config.set_timing_cache(cache, ignore=False)
    with pytest.raises(TypeError):
        builder.create_network(0, 1)


def test_scan_catches_a_made_up_name(names: set[str], api: dict) -> None:
    tree = ast.parse("trt = require('tensorrt', feature='x')\ntrt.build_serialized_safe_network\n")
    assert tensorrt_aliases(tree) >= {"trt"}
    attrs = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)]
    assert attrs == ["build_serialized_safe_network"]
    assert "build_serialized_safe_network" not in names | set(api["functions"])
    assert "build_serialized_safe_network" not in tensorrt_api.members(api, "Builder")
