"""Derive the real ``nvinfer2::safe`` call sequence from NVIDIA's safety samples.

Reads, with the migration checker's tree-sitter C++ helpers (the ``migrate`` extra), NVIDIA's
safety-runtime applications of TensorRT 10.16 and 11.1 (``../shared/reference/tensorrt-oss``):

- ``samples/sampleSafeMNIST/sampleSafeMNISTInfer.cpp`` (one inference per thread),
- ``samples/trtSafeExec/trtSafeExec.cpp`` (trtexec_safe itself),
- ``samples/common/safeCommon.h`` (11.1: ``setUpAuxStreamsOn``, the aux-stream set-up),

and lists, per function and in source order, every call of the safety runtime API: methods
called on an ``nvinfer2::safe::ITRTGraph`` (``ITRTGraph::executeAsync``, ``sync``, ``clone``,
``setIOTensorAddress``, ``setInputConsumedEvent``, ``getNbAuxStreams``, ``setAuxStreams``, ...),
``nvinfer2::safe::`` functions (``createTRTGraph``, ``destroyTRTGraph``, ...) and the CUDA stream
calls around them (``cudaStreamCreateWithFlags``, ``cudaStreamDestroy``), plus calls of the
samples' own helpers that make such calls (``-> setUpAuxStreamsOn``, ``-> task``).

``python -c "from trtsafe_lab.runtime.safe_api_source import main; main()" [REFERENCE_DIR]``
rewrites
:mod:`trtsafe_lab.runtime.safe_api_calls` (committed, read by the package);
``tests/test_runtime_safe_api.py`` re-runs the extraction and fails when the two drift apart.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

Node = Any  # tree_sitter.Node, or the SourceFile of trtsafe_lab.migrate.cpp_tree

SOURCES: tuple[str, ...] = (
    "samples/sampleSafeMNIST/sampleSafeMNISTInfer.cpp",
    "samples/trtSafeExec/trtSafeExec.cpp",
    "samples/common/safeCommon.h",
)
VERSIONS: tuple[str, ...] = ("10.16", "11.1")
GRAPH_TYPE = "ITRTGraph"
NAMESPACE = "nvinfer2::safe::"
CUDA_STREAM_CALLS = frozenset({"cudaStreamCreateWithFlags", "cudaStreamDestroy"})
LAMBDA = "[lambda]"  # marks calls made inside a lambda of the function (run later)
HELPER = "-> "  # prefix of a row that calls (or launches) a helper which makes API calls

#: Columns of a derived row: TensorRT version folder, source file (relative to it), 1-based line,
#: enclosing function, the API call (``ITRTGraph::x`` / ``nvinfer2::safe::x`` / ``cudaStreamX``)
#: (or ``-> helper``) and its argument text (whitespace collapsed).
CALL_COLUMNS: tuple[str, ...] = ("version", "source", "line", "function", "call", "arguments")

Row = tuple[str, str, int, str, str, str]


def _api_name(file: Node, call: Node, types: dict[str, str]) -> str:
    """``ITRTGraph::x`` / ``nvinfer2::safe::x`` / a CUDA stream call, or "" for other calls."""
    from trtsafe_lab.migrate import cpp_tree, syntax_tree

    callee = call.child_by_field_name("function")
    name = cpp_tree.callee_name(call)
    if not name or name[0].isupper():  # a constructor (nvinfer2::safe::TypedArray(...))
        return ""
    if callee is not None and callee.type == "qualified_identifier":
        return NAMESPACE + name if syntax_tree.text(callee).startswith(NAMESPACE) else ""
    if callee is not None and callee.type == "field_expression":
        owner = cpp_tree.root_name(cpp_tree.receiver(call))
        if owner not in types:
            types[owner] = cpp_tree.declared_type(file.root, owner)
        return f"{GRAPH_TYPE}::{name}" if GRAPH_TYPE in types[owner] else ""
    return name if name in CUDA_STREAM_CALLS else ""


def _sites(file: Node) -> list[tuple[Node, str, list[Node]]]:
    """(node, called name, argument nodes) for every call and every ``std::thread{f, ...}``
    brace construction, in source order."""
    from trtsafe_lab.migrate import cpp_tree, syntax_tree

    sites: list[tuple[Node, str, list[Node]]] = [
        (c, cpp_tree.callee_name(c), cpp_tree.arguments(c)) for c in file.calls
    ]
    for node in syntax_tree.walk(file.root):
        if node.type == "compound_literal_expression":
            value = node.child_by_field_name("value")
            items = [] if value is None else [n for n in value.named_children]
            sites.append((node, "", items))
    return sorted(sites, key=lambda site: site[0].start_byte)


def _where(node: Node) -> str:
    """The enclosing function's name; ``name [lambda]`` inside a lambda (run later, e.g. the
    deleter ``setUpAuxStreamsOn`` returns, which destroys the aux streams at scope exit)."""
    from trtsafe_lab.migrate import cpp_tree

    function = cpp_tree.enclosing_function(node)
    name = cpp_tree.function_name(function)
    if cpp_tree.has_ancestor(node, {"lambda_expression"}, function) is not None:
        return f"{name} {LAMBDA}"
    return name


def extract(sources: dict[str, bytes], version: str) -> list[Row]:
    """API calls of ``sources`` (name -> bytes, one version) per function, in source order
    (see :data:`CALL_COLUMNS`).

    A call of a helper function defined in the sources that (transitively) makes API calls is
    listed too, as ``-> helper``; so is a helper handed to ``std::async`` / ``std::thread``
    (``trtSafeExec``'s ``task``, sampleSafeMNIST's ``doInferenceThread``), which is how the
    samples run one graph per thread.
    """
    from trtsafe_lab.migrate import cpp_tree as t
    from trtsafe_lab.migrate import syntax_tree as st

    files = {name: t.SourceFile(data, name) for name, data in sources.items()}
    direct: dict[tuple[str, int], tuple[str, str]] = {}  # (file, byte) -> api, arguments
    callers: dict[str, set[str]] = {}  # function -> names it calls or launches
    helpers: set[str] = set()  # functions that make API calls (directly, for now)
    sites = {name: _sites(file) for name, file in files.items()}
    for name, file in files.items():
        types: dict[str, str] = {}
        for node, callee, args in sites[name]:
            function = _where(node).split(" ")[0]
            api = _api_name(file, node, types) if node.type == "call_expression" else ""
            if api:
                text = " ".join(st.text(node.child_by_field_name("arguments")).split())[1:-1]
                direct[(name, node.start_byte)] = (api, text)
                helpers.add(function)
            else:
                named = {callee} | {st.text(a) for a in args if a.type == "identifier"}
                callers.setdefault(function, set()).update(named)
    helpers.discard("")
    while True:  # functions that reach an API call through other helpers
        more = {f for f, called in callers.items() if f and called & helpers} - helpers
        if not more:
            break
        helpers |= more
    rows: list[Row] = []
    for name in files:
        for node, callee, args in sites[name]:
            where = _where(node)
            found = direct.get((name, node.start_byte))
            if found is not None:
                rows.append((version, name, st.line(node), where, found[0], found[1]))
                continue
            launched = [callee] + [st.text(a) for a in args if a.type == "identifier"]
            for helper in dict.fromkeys(launched):
                if helper in helpers and helper != where.split(" ")[0]:
                    rows.append((version, name, st.line(node), where, HELPER + helper, ""))
    return rows


def derive(reference: Path) -> list[Row]:
    """Rows for every version under ``reference`` (the tensorrt-oss folder)."""
    rows: list[Row] = []
    for version in VERSIONS:
        sources = {
            source: (reference / version / source).read_bytes()
            for source in SOURCES
            if (reference / version / source).is_file()
        }
        rows.extend(extract(sources, version))
    return rows


def render(rows: list[Row]) -> str:
    """The text of :mod:`trtsafe_lab.runtime.safe_api_calls` for ``rows``."""
    lines = [
        "# ruff: noqa: E501",
        '"""GENERATED by ``trtsafe_lab.runtime.safe_api_source.main()``: do not edit.',
        "",
        "The nvinfer2::safe calls of NVIDIA's safety samples (10.16 and 11.1), per function in",
        "source order; columns: :data:`trtsafe_lab.runtime.safe_api_source.CALL_COLUMNS`.",
        '"""',
        "",
        "SAFE_API_CALLS: tuple[tuple[str, str, int, str, str, str], ...] = (",
    ]
    lines += [f"    {row!r}," for row in rows]
    lines.append(")")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Re-derive the calls from ``argv[0]`` (default ``../shared/reference/tensorrt-oss``) and
    rewrite :mod:`trtsafe_lab.runtime.safe_api_calls`; exit 2 when no sample is found there."""
    args = sys.argv[1:] if argv is None else argv
    default = Path(__file__).resolve().parents[3] / "shared" / "reference" / "tensorrt-oss"
    reference = Path(args[0]) if args else default
    rows = derive(reference)
    if not rows:
        print(f"no safety samples under {reference}; pass the tensorrt-oss folder", file=sys.stderr)
        return 2
    target = Path(__file__).with_name("safe_api_calls.py")
    target.write_text(render(rows))
    print(f"wrote {len(rows)} calls to {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
