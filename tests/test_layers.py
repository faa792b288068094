"""Imports point one way: no cycles, no import from a lower layer to a higher one, no reaching
into another package's private module.

Every module of ``trtsafe_lab`` is parsed with ``ast`` and every import is followed, including
imports inside functions and under ``TYPE_CHECKING`` and ``importlib.import_module("...")`` with
a literal name. ``from package import name`` counts as an import of ``package.name`` when that
is a module, else of the package's ``__init__``.

The layers (lowest first) are defined below by module name; every module must be in exactly one.
A module may import from its own layer and the layers below it. Within a layer, the top-level
packages must not import each other in a circle either (``engine`` <-> ``trtexec`` was one).
"""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Iterable
from pathlib import Path

import pytest

import trtsafe_lab

PACKAGE = Path(trtsafe_lab.__file__).parent

# (layer, module-name patterns), lowest first. Patterns are fnmatch patterns on dotted names.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # Shared pieces with no domain: errors, text escaping, optional imports, CUDA and TensorRT
    # access, ELF headers, column names, the bundled-data loader.
    ("low", (
        "trtsafe_lab", "trtsafe_lab.errors", "trtsafe_lab.text", "trtsafe_lab._optional",
        "trtsafe_lab.cuda_api", "trtsafe_lab.trt_api", "trtsafe_lab._elf", "trtsafe_lab.files",
        "trtsafe_lab.paths", "trtsafe_lab.companion", "trtsafe_lab.help_format",
        "trtsafe_lab.examples", "trtsafe_lab.logs.columns",
    )),
    # Sources and their readers: the log reader (text -> records -> failure table), the trtexec
    # command model, rules, version probe and process runner, the migration front ends, the
    # safety-runtime model, the profiling workloads, harness and statistics.
    ("sources", (
        "trtsafe_lab.replay",
        "trtsafe_lab.logs.source", "trtsafe_lab.logs.triggers", "trtsafe_lab.logs.records",
        "trtsafe_lab.logs.names", "trtsafe_lab.logs.layer_names", "trtsafe_lab.logs.classify",
        "trtsafe_lab.logs.record_names",
        "trtsafe_lab.logs.categories", "trtsafe_lab.logs.error_sites",
        "trtsafe_lab.logs.parse_state", "trtsafe_lab.logs.node_blocks",
        "trtsafe_lab.logs.parser", "trtsafe_lab.logs.record_cache", "trtsafe_lab.logs.scan",
        "trtsafe_lab.logs.scan_worker", "trtsafe_lab.logs.scan_bytes",
        "trtsafe_lab.logs.scan_chunks",
        "trtsafe_lab.logs.tables",
        "trtsafe_lab.logs.onnx", "trtsafe_lab.logs.name_grammar", "trtsafe_lab.logs.explanations",
        "trtsafe_lab.logs.name_tokens",
        "trtsafe_lab.logs.signature_text",
        "trtsafe_lab.logs.build_summary",
        "trtsafe_lab.trtexec.version", "trtsafe_lab.trtexec.options", "trtsafe_lab.trtexec.rules",
        "trtsafe_lab.trtexec.progress", "trtsafe_lab.trtexec.runner", "trtsafe_lab.trtexec.dry_run",
        "trtsafe_lab.trtexec.flag_table", "trtsafe_lab.trtexec.flag_check",
        "trtsafe_lab.trtexec.tool_parser",
        "trtsafe_lab.trtexec._tables", "trtsafe_lab.trtexec._tables.derive",
        "trtsafe_lab.profile.safe_summary",
        "trtsafe_lab.engine.monitor",
        "trtsafe_lab.migrate.words", "trtsafe_lab.migrate.shell", "trtsafe_lab.migrate.rules",
        "trtsafe_lab.migrate.commands", "trtsafe_lab.migrate.makefile",
        "trtsafe_lab.migrate.cmake", "trtsafe_lab.migrate.ci_yaml", "trtsafe_lab.migrate.cpp*",
        "trtsafe_lab.migrate.python_ast", "trtsafe_lab.migrate.walker",
        "trtsafe_lab.migrate.check", "trtsafe_lab.migrate.limits",
        "trtsafe_lab.migrate.syntax_tree",
        "trtsafe_lab.runtime.status", "trtsafe_lab.runtime.states", "trtsafe_lab.runtime.executors",
        "trtsafe_lab.runtime.spec", "trtsafe_lab.runtime.backends", "trtsafe_lab.runtime.trace",
        "trtsafe_lab.runtime.lifecycle", "trtsafe_lab.runtime.cuda_backend",
        "trtsafe_lab.runtime.cuda_faults", "trtsafe_lab.runtime.trt_executor",
        "trtsafe_lab.runtime.pipeline", "trtsafe_lab.runtime.safe_api*",
        "trtsafe_lab.profile.reference", "trtsafe_lab.profile.harness",
        "trtsafe_lab.profile.timeline", "trtsafe_lab.profile.stats", "trtsafe_lab.profile.summary",
        "trtsafe_lab.profile.cupti_trace",
    )),
    # Run records: run directories of every kind, engine + companion .so pairs.
    ("records", (
        "trtsafe_lab.rundir", "trtsafe_lab.profile.rundir", "trtsafe_lab.artifacts",
        "trtsafe_lab.profile.identity",
    )),
    # Runs: drive a source and write a run record (builds, sweeps, profile runs).
    ("runs", (
        "trtsafe_lab.trtexec.build", "trtsafe_lab.engine.builder", "trtsafe_lab.sweep",
        "trtsafe_lab.profile.runner", "trtsafe_lab.profile.trt_engine_executor",
        "trtsafe_lab.profile.trtexec_exec",
    )),
    # Tables over run records.
    ("tables", (
        "trtsafe_lab.runs_table",
        "trtsafe_lab.profile.loaders", "trtsafe_lab.profile.compare", "trtsafe_lab.profile.layers",
        "trtsafe_lab.profile.workload", "trtsafe_lab.profile.critical",
        "trtsafe_lab.profile.sweep", "trtsafe_lab.logs.scoring",
    )),
    # Views: matplotlib Figures and ipywidgets panels built from tables.
    ("views", (
        "trtsafe_lab.logs.plots", "trtsafe_lab.logs.text_views", "trtsafe_lab.profile.plots",
        "trtsafe_lab.report_html",
        "trtsafe_lab.profile.plots_analysis",
        "trtsafe_lab.runtime.view",
        "trtsafe_lab.trtexec.panel", "trtsafe_lab.widgets", "trtsafe_lab.widgets.*",
    )),
    # Facades: one object per workflow whose methods return tables and figures, and the package
    # namespaces that re-export them.
    ("facades", (
        "trtsafe_lab.logs.analysis", "trtsafe_lab.logs.signatures", "trtsafe_lab.profile.session",
        "trtsafe_lab.logs", "trtsafe_lab.trtexec", "trtsafe_lab.engine", "trtsafe_lab.profile",
        "trtsafe_lab.runtime", "trtsafe_lab.migrate",
    )),
    # Commands: the CLI, demos and reports.
    ("commands", (
        "trtsafe_lab.cli", "trtsafe_lab.__main__", "trtsafe_lab.*.cli", "trtsafe_lab.*_cli",
        "trtsafe_lab.report", "trtsafe_lab.demo", "trtsafe_lab.demo.*",
    )),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules() -> dict[str, Path]:
    """Every Python module of the package (bundled example projects are data, not modules)."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))
            if "examples" not in p.relative_to(PACKAGE).parts[:-1]}


def _resolve(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = here.split(".") if is_package else here.split(".")[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, *([node.module] if node.module else [])])


def imports_of(path: Path, here: str, known: Iterable[str]) -> set[str]:
    """Package modules ``path`` imports (anywhere in the file)."""
    known = set(known)
    out: set[str] = set()

    def add(name: str) -> None:
        while name and name not in known:  # trtsafe_lab.x.func -> trtsafe_lab.x
            name = name.rpartition(".")[0]
        if name.startswith("trtsafe_lab"):
            out.add(name)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(node, here, path.name == "__init__.py")
            for alias in node.names:
                full = f"{base}.{alias.name}"
                add(full if full in known else base)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            add(node.args[0].value)
    out.discard(here)
    return out


def layer_of(name: str) -> int:
    found = [i for i, (_, patterns) in enumerate(LAYERS)
             if any(fnmatch.fnmatchcase(name, p) for p in patterns)]
    if len(found) != 1:
        where = [LAYERS[i][0] for i in found] or "no layer"
        raise AssertionError(f"{name} is in {where}: put it in exactly one layer of LAYERS")
    return found[0]


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = package_modules()
    return {name: imports_of(path, name, modules) for name, path in modules.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``edges`` as [a, b, ..., a], or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def top_package(name: str) -> str:
    """``trtsafe_lab.logs.parser`` -> ``trtsafe_lab.logs``; root modules stand for themselves."""
    return ".".join(name.split(".")[:2])


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} ({LAYERS[layer_of(a)][0]}) imports {b} ({LAYERS[layer_of(b)][0]})"
                  for a, targets in edges.items() for b in targets
                  if layer_of(b) > layer_of(a))


def private_imports(edges: dict[str, set[str]]) -> list[str]:
    """Imports of a ``_private`` module from outside the package that holds it."""
    bad = []
    for a, targets in edges.items():
        for b in targets:
            parts = b.split(".")
            for i, part in enumerate(parts):
                owner = ".".join(parts[:i])
                if (part.startswith("_") and not part.startswith("__")
                        and not (a == owner or a.startswith(owner + "."))):
                    bad.append(f"{a} imports {b}")
    return sorted(bad)


def package_edges(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for a, targets in edges.items():
        for b in targets:
            if top_package(a) != top_package(b) and b != "trtsafe_lab":
                out.setdefault(top_package(a), set()).add(top_package(b))
    return out


def test_every_module_is_in_exactly_one_layer(graph: dict[str, set[str]]) -> None:
    for name in graph:
        layer_of(name)


def test_no_import_cycle_between_modules(graph: dict[str, set[str]]) -> None:
    assert find_cycle(graph) is None, f"import cycle: {' -> '.join(find_cycle(graph) or [])}"


def test_no_import_cycle_between_packages(graph: dict[str, set[str]]) -> None:
    cycle = find_cycle(package_edges(graph))
    assert cycle is None, f"packages import each other in a circle: {' -> '.join(cycle or [])}"


def test_imports_point_down(graph: dict[str, set[str]]) -> None:
    assert upward_imports(graph) == []


def test_no_import_of_another_packages_private_module(graph: dict[str, set[str]]) -> None:
    assert private_imports(graph) == []


def is_demo(name: str) -> bool:
    return name == "trtsafe_lab.demo" or name.startswith("trtsafe_lab.demo.")


def is_cli(name: str) -> bool:
    return name == "trtsafe_lab.cli" or name.endswith((".cli", "_cli"))


def test_demos_live_in_one_package_and_the_library_never_imports_them(
        graph: dict[str, set[str]]) -> None:
    """(The CLI registers ``trtsafe_lab.demo`` by name, like every subcommand.)"""
    importers = sorted(a for a, targets in graph.items() if not is_demo(a) and
                       any(is_demo(b) for b in targets))
    assert importers == []
    stray = sorted(n for n in graph if n.rsplit(".", 1)[-1].endswith("demo") and not is_demo(n))
    assert stray == [], "demo modules belong in trtsafe_lab/demo/"


def test_no_demo_imports_a_cli_module(graph: dict[str, set[str]]) -> None:
    bad = sorted(f"{a} imports {b}" for a, targets in graph.items() if is_demo(a)
                 for b in targets if is_cli(b))
    assert bad == []


# The checks themselves catch what they are for.
def test_checks_catch_a_cycle_an_upward_and_a_private_import() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    up = upward_imports({"trtsafe_lab.errors": {"trtsafe_lab.cli"}})
    assert up == ["trtsafe_lab.errors (low) imports trtsafe_lab.cli (commands)"]
    assert upward_imports({"trtsafe_lab.cli": {"trtsafe_lab.errors"}}) == []
    assert private_imports({"trtsafe_lab.runtime.x": {"trtsafe_lab.profile._cuda"}}) == [
        "trtsafe_lab.runtime.x imports trtsafe_lab.profile._cuda"]
    assert private_imports({"trtsafe_lab.profile.x": {"trtsafe_lab.profile._cuda"}}) == []
    assert private_imports({"trtsafe_lab.runtime.x": {"trtsafe_lab._optional"}}) == []
    assert package_edges({"trtsafe_lab.engine.b": {"trtsafe_lab.trtexec.s"},
                          "trtsafe_lab.trtexec.s": {"trtsafe_lab.engine.b"}}) == {
        "trtsafe_lab.engine": {"trtsafe_lab.trtexec"},
        "trtsafe_lab.trtexec": {"trtsafe_lab.engine"},
    }


def test_function_level_and_relative_imports_are_followed(tmp_path: Path) -> None:
    pkg = tmp_path / "trtsafe_lab" / "sub"
    pkg.mkdir(parents=True)
    source = pkg / "mod.py"
    source.write_text(
        "def f():\n"
        "    from trtsafe_lab.cli import main\n"
        "    from . import other\n"
        "    import importlib\n"
        "    importlib.import_module('trtsafe_lab.report')\n")
    known = {"trtsafe_lab.cli", "trtsafe_lab.sub.other", "trtsafe_lab.sub.mod",
             "trtsafe_lab.report"}
    assert imports_of(source, "trtsafe_lab.sub.mod", known) == {
        "trtsafe_lab.cli", "trtsafe_lab.sub.other", "trtsafe_lab.report"}
