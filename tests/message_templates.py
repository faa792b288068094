"""Derive the table of message templates that name a node, layer or tensor (test data).

    python tests/message_templates.py [--mirrors DIR] [--stored DIR] [--out FILE] [--check]
    # rewrites tests/fixtures/message_templates.tsv

The table is test data: ``tests/test_logs_message_templates.py`` checks the name grammar against
every template; the package never reads it, so neither this script nor the table ships in it.

It reads real sources with ``git show COMMIT:PATH`` from local clones (``DIR/owner+name/repo``,
default ``/work/.mirror``), without compiling anything. The sources and commits are
:data:`SOURCES`: onnx/onnx-tensorrt at five releases (7.2.1, 8.2, 8.6.1, 10.1, 7.1; its ONNXIFI
backend ``onnx_trt_backend.cpp`` too), NVIDIA/TensorRT's Python parser bindings
(``python/src/parsers/pyOnnx.cpp``: how a parser error is printed, old and new), trtexec's
``samples/common`` (its own ``sample::gLogError << ...`` messages) at 11.1 and 10.16,
trtexec_safe (``samples/trtSafeExec``) and the safety samples (their ``safeLogX`` messages) at
11.1 and 10.16, Polygraphy (``tools/Polygraphy/polygraphy``, its ``G_LOGGER`` messages) at 11.1,
open-mmlab/mmdeploy's TensorRT backend (``Failed to parse onnx, `` + the parser errors as
pyOnnx prints them), and pytorch/TensorRT (Torch-TensorRT's TorchScript converters and its dynamo
partitioner, and v1.4.0's TorchScript converters, lowering and runtime).
onnx-tensorrt's 5.1, 6.0, 7.0, 8.0-GA, 8.4-GA, 8.5-GA, 9.0-GA, 9.3 and 10.0-GA branches and its
main of 2024-05 (the newest in the snapshot) were read too and add no template, so they are not
listed.
TensorRT's own builder messages are not in any public source; the corpora cover them.

TF-TRT (tensorflow/tensorflow) and TensorRT-LLM cannot be cloned here (2.4 and 2.5 GB snapshots,
over the 0.5 GB the fetch allows). Single files of theirs were read with the search tool's
``read_file`` (one stored version each, at the commit recorded) and saved byte for byte, outside
the project, as ``DIR/owner+name/COMMIT/PATH`` (``--stored``, default ``/tmp/rules2/stored``):
:data:`STORED` lists them (TF-TRT's ``kernels/trt_engine_op.cc``, how the engine op falls back to
TensorFlow and names itself; its ``segment/segment.cc``, the segmenter's "Not a TF-TRT
candidate" refusals, and ``convert/convert_graph.cc``, "TensorRT node X added for segment N ...
failed ... Fallback to TF"; TensorRT-LLM's ``runtime/tllmRuntime.cpp``, its runtime's errors
about engine I/O tensors). The index holds one version of each file, so their commits differ.
TF-TRT's ``trt_optimization_pass.cc`` was read and names no node; ``convert_nodes.cc`` (the
converters' own errors, ~250 kB) and TensorRT-LLM's plugins are not in the table yet.

A *template* is one printed message with its inserted values replaced by placeholders:
``{node}`` (an ONNX node / FX node / TorchScript statement name), ``{layer}`` (a TensorRT layer
name), ``{tensor}`` (a tensor name), ``{op}`` (an operator type, plugin or creator) and
``{value}`` (anything else: numbers, shapes, file names, error texts). Extracted:

- C++: ``LOG_VERBOSE/INFO/WARNING/ERROR(... << ...)`` (onnx-tensorrt, Torch-TensorRT),
  ``sample::gLogError/Warning/Info/Verbose << ...`` (trtexec),
  ``safeLogError/Warning/Info/Verbose/Debug(recorder, "..." + x)`` or ``(recorder, ss.str())``
  (trtexec_safe: what was written to ``ss`` since it was emptied or last logged),
  ``TORCHTRT_CHECK(cond, ...)`` / ``TORCHTRT_THROW_ERROR(...)`` (exceptions), consecutive
  ``std::cerr << ...`` statements up to ``endl`` (onnx2trt's ``main.cpp``, the legacy
  ``While parsing node number`` header), the first statement written to an
  ``std::ostringstream`` (``Invalid Node - X``, ``X [Op] inputs: ``; thrown with
  ``throw E(msg.str())``: an exception), and ``"..." + x + "..."``
  string sums (pyOnnx's ``In node N with name: X and operator: Op (func): CODE: desc``).
- TensorFlow: ``LOG(...) << ...``, ``VLOG(n) << ...``, ``errors::Kind("...", x)`` statuses and
  ``StrCat(...)`` messages logged through a variable; TensorRT-LLM: ``TLLM_LOG_*``,
  ``TLLM_THROW`` and ``TLLM_CHECK_WITH_INFO`` printf-style calls
  (``tests/message_templates_cpp.py``).
- Python: ``logger.debug/info/warning/error(f"...")`` (also ``"%s" % args`` style) and
  ``raise E(f"...")`` in Torch-TensorRT's dynamo package, Polygraphy's
  ``G_LOGGER.verbose/info/start/finish/warning/error/critical(f"...")``
  (``tests/message_templates_py.py``).

A value's placeholder comes from the expression and the literal just before it (rules in
``_cpp_role`` / ``_py_role`` there), or from a source's ``roles`` (a variable
whose meaning the code around it fixes: TensorRT-LLM's ``name`` is
``mEngine->getIOTensorName(i)``). Only templates with a ``{node}``, ``{layer}`` or ``{tensor}``
are kept. Columns of ``message_templates.tsv`` (one row per distinct repo+severity+template,
the first file/line where it occurs):

    repo, commit, file, line     where the template was read
    severity                     error, warning, info, verbose (the log call), critical
                                 (Polygraphy's G_LOGGER.critical: "[!] ...", then raised),
                                 exception (thrown; the caller prints it as an error), desc (an ONNX
                                 parser error description, printed inside a parser-error
                                 wrapper), wrapper (how a parser error is printed: has
                                 {desc}; printed as it is, or error where it is logged)
    template                     the message; ``\\n`` and ``\\t`` escaped

The derive step needs these clones and network access to make them, so it cannot run in CI; the
test suite reads the committed table (``tests/test_logs_message_templates.py``). ``--check``
re-derives and exits 1 when the committed table differs.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from message_templates_cpp import cpp_templates
from message_templates_py import py_templates

TABLE = Path(__file__).resolve().parent / "fixtures" / "message_templates.tsv"
COLUMNS = ("repo", "commit", "file", "line", "severity", "template")


@dataclass(frozen=True)
class Source:
    """Files of one repository at one commit (paths: exact names or ``prefix*.suffix``), and
    the placeholder of variables whose meaning the code around them fixes (``roles``)."""

    repo: str
    commit: str
    release: str
    paths: tuple[str, ...]
    roles: tuple[tuple[str, str], ...] = ()


_ONNX_TRT_FILES = (
    "ModelImporter.cpp", "ImporterContext.cpp", "ImporterContext.hpp", "importerUtils.cpp",
    "onnx2trt_utils.cpp", "onnxOpCheckers.cpp", "onnxOpImporters.cpp", "builtin_op_importers.cpp",
    "ConditionalHelpers.cpp", "LoopHelpers.cpp", "main.cpp", "onnx_trt_backend.cpp",
)
# trtexec_safe and the safety samples (their safeLogX messages) and Polygraphy
_TENSORRT_SAFETY = ("samples/trtSafeExec/*.cpp", "samples/sampleSafeMNIST/*.cpp")
SOURCES: tuple[Source, ...] = (
    Source("onnx/onnx-tensorrt", "eb559b6cdd1ec2169d64c0112fab9b564d8d503b", "7.2.1",
           _ONNX_TRT_FILES),
    Source("onnx/onnx-tensorrt", "85e79f629fb546a75d61e3027fb259a9529144fe", "8.2",
           _ONNX_TRT_FILES),
    Source("onnx/onnx-tensorrt", "6ba67d3428e05f690145373ca87fb8d32f98df45", "8.6.1",
           _ONNX_TRT_FILES),
    Source("onnx/onnx-tensorrt", "96e781103cfc4adf4a6bb557e94bac8e693f6f4c", "10.1",
           _ONNX_TRT_FILES),
    # 7.1's supportsModel: ``auto tensorName = node.name();`` (ModelImporter.cpp:399)
    Source("onnx/onnx-tensorrt", "7994a464a839c4a1123b544c82dcd2e448526610", "7.1",
           _ONNX_TRT_FILES, roles=(("tensorName", "node"),)),
    Source("NVIDIA/TensorRT", "052281f0ab795b6c1a19047dc8a449cd397995a9", "8.x",
           ("python/src/parsers/pyOnnx.cpp",)),
    Source("NVIDIA/TensorRT", "a892d22267d9cd2dedc1a0893e6892ac901f6d3d", "11.x",
           ("python/src/parsers/pyOnnx.cpp", "samples/common/*.cpp", "samples/trtexec/*.cpp")),
    Source("NVIDIA/TensorRT", "a892d22267d9cd2dedc1a0893e6892ac901f6d3d", "11.1",
           (*_TENSORRT_SAFETY, "samples/sampleSafePluginV3/*.cpp",
            "tools/Polygraphy/polygraphy/*.py")),
    Source("NVIDIA/TensorRT", "d0faf303ba766f20cd9fd8c413a112fc2e5a397b", "10.16",
           ("samples/common/*.cpp", "samples/trtexec/*.cpp", *_TENSORRT_SAFETY)),
    # mmdeploy's TensorRT backend raises the joined str(parser.get_error(i)) of pyOnnx
    Source("open-mmlab/mmdeploy", "3f8604bd72e8e15d06b2e0552fe2fdb8f8de33c4", "main 2024-09",
           ("mmdeploy/backend/tensorrt/utils.py",), roles=(("error_msgs", "desc"),)),
    Source("pytorch/TensorRT", "d7f2062810df37e4bbcfc9065b5f44f09aca7156", "main 2026-08",
           ("core/conversion/*.cpp", "core/partitioning/*.cpp",
            "py/torch_tensorrt/dynamo/*.py")),
    # the TorchScript front end as Torch-TensorRT 1.x users ran it (lowering, runtime too)
    Source("pytorch/TensorRT", "7d1d807731c95ffbaa980a3742e289d4184b7871", "v1.4.0",
           ("core/conversion/*.cpp", "core/partitioning/*.cpp", "core/lowering/*.cpp",
            "core/runtime/*.cpp")),
)
# Files saved from the search tool's read_file (see the module docstring): exact paths.
STORED: tuple[Source, ...] = (
    Source("tensorflow/tensorflow", "4c1a172f9ad2b873da446a0431dbf93a4fd20aa7", "TF 2.x (2020)",
           ("tensorflow/compiler/tf2tensorrt/kernels/trt_engine_op.cc",)),
    # segment.cc: ``node`` is the SimpleNode being segmented, ``tf_node``/``in``/``src``/``dst``
    # graph nodes, ``segment_root`` the name of the segment's root node
    Source("tensorflow/tensorflow", "01e5c1fa3f50447eed39910e8b2832b0e1d93e24", "TF 2.x (2020)",
           ("tensorflow/compiler/tf2tensorrt/segment/segment.cc",),
           roles=(("node->name()", "node"), ("node->tf_node()->type_string()", "op"),
                  ("node->type_string()", "op"), ("tf_node->name()", "node"),
                  ("in->name()", "node"), ("src->name()", "node"), ("dst->name()", "node"),
                  ("out_edge->dst()->name()", "node"), ("e->dst()->name()", "node"),
                  ("segment_root", "node"))),
    # convert_graph.cc: ``engine_name`` is the TRTEngineOp node's name ("TRTEngineOp_" + t)
    Source("tensorflow/tensorflow", "00067a31352ca2b0316c4b87bb100d8434c4124e", "TF 1.x (2019)",
           ("tensorflow/compiler/tf2tensorrt/convert/convert_graph.cc",),
           roles=(("engine.engine_name", "node"), ("info.engine_name", "node"),
                  ("node->name()", "node"), ("input_node->name()", "node"))),
    # ``name`` = mEngine->getIOTensorName(i); ``missing`` = what inferShapes reports missing
    Source("NVIDIA/TensorRT-LLM", "3c44cb974badec8966108b16054a99c0923e410d", "0.9-era",
           ("cpp/tensorrt_llm/runtime/tllmRuntime.cpp",),
           roles=(("name", "tensor"), ("missing", "tensor"))),
)

# --- driver ----------------------------------------------------------------------------------
def _git(mirror: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", "--git-dir", str(mirror), *args], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise SystemExit(
            f"git {' '.join(args)} failed in {mirror}: {result.stderr.strip()}\n"
            "Make the clone first (the fetch tool, or git clone --mirror) and pass --mirrors."
        )
    return result.stdout


def _matches(path: str, pattern: str) -> bool:
    if "*" not in pattern:
        return path == pattern
    head, _, suffix = pattern.partition("*")
    return path.startswith(head) and path.endswith(suffix)


def _stored_text(stored: Path, source: Source, path: str) -> str:
    file = stored / source.repo.replace("/", "+") / source.commit / path
    if not file.is_file():
        raise SystemExit(
            f"{file} is missing: save {source.repo}@{source.commit}:{path} there (the search "
            "tool's read_file, byte for byte) and pass --stored."
        )
    return file.read_text(encoding="utf-8")


def _files(mirrors: Path, stored: Path) -> list[tuple[Source, str, str]]:
    """(source, path, text) of every file the table is read from, sources in order."""
    out = []
    for source in SOURCES:
        mirror = mirrors / source.repo.replace("/", "+") / "repo"
        files = _git(mirror, "ls-tree", "-r", "--name-only", source.commit).splitlines()
        for path in sorted(p for p in files if any(_matches(p, q) for q in source.paths)):
            out.append((source, path, _git(mirror, "show", f"{source.commit}:{path}")))
    for source in STORED:
        out.extend((source, path, _stored_text(stored, source, path)) for path in source.paths)
    return out


def derive(mirrors: Path, stored: Path) -> list[dict[str, str]]:
    """The table's rows from the clones under ``mirrors`` and the files under ``stored``."""
    rows: list[dict[str, str]] = []
    seen: set[tuple[str, str, str]] = set()
    for source, path, text in _files(mirrors, stored):
        if path.endswith(".py"):
            found = py_templates(text, dict(source.roles))
        else:
            found = cpp_templates(text, dict(source.roles))
        for line, severity, template in found:
            if not re.search(r"\{(?:node|layer|tensor|desc)\}", template):
                continue
            if len(re.sub(r"\{\w+\}", "", template).strip()) < 3:
                continue  # no words of its own ("{node}")
            key = (source.repo, severity, template)
            if key in seen:
                continue
            seen.add(key)
            rows.append({"repo": source.repo, "commit": source.commit, "file": path,
                         "line": str(line), "severity": severity,
                         "template": template.replace("\t", "\\t").replace("\n", "\\n")})
    return rows


def render(rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, delimiter="\t", lineterminator="\n",
                            quoting=csv.QUOTE_MINIMAL)
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--stored", type=Path, default=Path("/tmp/rules2/stored"))
    parser.add_argument("--out", type=Path, default=TABLE)
    parser.add_argument("--check", action="store_true", help="compare, exit 1 on drift")
    args = parser.parse_args(argv)
    text = render(derive(args.mirrors, args.stored))
    if args.check:
        same = args.out.is_file() and args.out.read_text(encoding="utf-8") == text
        print("templates table is up to date" if same else f"{args.out} differs from the sources")
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({text.count(chr(10)) - 1} templates)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
