"""Every message template of the real sources names the right layer (issue 11, name grammar).

The templates are read from the committed table ``tests/fixtures/message_templates.tsv`` (test
data, not shipped), derived from onnx/onnx-tensorrt, NVIDIA/TensorRT (pyOnnx, trtexec's
samples/common), pytorch/TensorRT, TF-TRT (tensorflow/tensorflow's trt_engine_op.cc) and
TensorRT-LLM (runtime/tllmRuntime.cpp) sources by ``python tests/message_templates.py`` (it needs
git clones and saved files, so it cannot run in CI; the table records repo, commit, file and line
per row). Each template
is rendered as its tool prints it (the log prefix of its severity, a parser-error description
inside every parser-error wrapper) with awkward real-looking names put in, and read with the
full parser and the streaming scan:

- error, exception and parser-error templates blame exactly the node / layer they name (the
  legacy ``While parsing node number N [Op -> "out"]`` header names only the output tensor,
  which the ground-truth rules list in place of the node);
- debug-level refusals of Torch-TensorRT's converter validators ("converter rejected node",
  "falling back to PyTorch") blame the node, non-fatal;
- info and verbose templates blame nothing (they name nodes being imported, registered, ...);
- warning templates in these sources are notices (deprecations, metadata hints) and blame
  nothing, except TF-TRT's: its engine op warns when it falls back to TensorFlow ("Engine
  creation for X failed. The native segment will be used instead.", "retrying with native
  segment for X", "Failed to enqueue batch for TRT engine: X"), which blames the op, non-fatal;
- a tensor a template names is never reported as a layer (TensorRT-LLM's runtime names only its
  engine's I/O tensors), and an error about a tensor (trtexec's "Cannot find input tensor with
  name ...") keeps it in the ``tensors`` column.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from message_templates import COLUMNS, TABLE

from trtsafe_lab.logs import analyze_log
from trtsafe_lab.logs.scan import scan_failures


def _rows() -> list[dict[str, str]]:
    with open(TABLE, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return rows


ROWS = _rows()

# Names as the sources' users print them: ONNX exporters (slashes, dots, "::", colons, brackets,
# spaces, quotes), TensorRT's own fused and foreign-node names, FX node names, TorchScript
# statements (Torch-TensorRT's util::node_info: the statement without its newline).
ONNX_NAMES = (
    "/model.22/dfl/conv/Conv",
    "onnx::Gather_543",
    "encoder.layer.0/attention:qkv",
    "Conv_0 + Relu_1",
    "{ForeignNode[/a/b...Reshape_3 + (Unnamed Layer* 146) [Shuffle]]}",
    "node_of_1348",
    "/blocks[2]/attn/MatMul",
)
# Names with a space inside: the words of the sentence around them end them (": reason", the
# line's end, a closing quote, " [Op]", a prose word after a scoped name). A name that also
# holds a quote and a possessive-looking "'s" stands only where the template ends it.
SPACED_NAMES = ("model/up 2/Resize", "(Unnamed Layer* 12) [Shuffle]")
QUOTED_SPACED_NAME = "head's \"conv\":0"
_DELIMITED = re.compile(r"\{node\}(?:$|\\n|\"|'| \[\{op\}\])")
FX_NAMES = ("_to_copy_6", "l__self___backbone_conv1", "getitem_3")
TORCHSCRIPT_NAMES = (
    "%input.4 : Tensor = aten::_convolution(%x.1, %self.conv.weight, %4, %5, %6, %7)",
    "%3 : Tensor = aten::upsample_nearest2d(%x, %2, %1) # model.py:12:0",
)
# TF-TRT names its engine ops TRTEngineOp_N_M, under the scope of the function that holds them
TF_NAMES = ("TRTEngineOp_0_0", "StatefulPartitionedCall/TRTEngineOp_000_001",
            "PartitionedCall/model.1/TRTEngineOp_3_2")
TENSOR = "/backbone/stem/Conv_output_0"
WHEN = "[12/01/2026-10:00:00]"
LETTER = {"error": "E", "warning": "W", "info": "I", "verbose": "V"}


def _names(row: dict[str, str]) -> tuple[str, ...]:
    if row["repo"] == "tensorflow/tensorflow":
        return TF_NAMES
    if row["repo"] != "pytorch/TensorRT":
        quoted = (QUOTED_SPACED_NAME,) if _DELIMITED.search(row["template"]) else ()
        return ONNX_NAMES + SPACED_NAMES + quoted
    return TORCHSCRIPT_NAMES if row["file"].startswith("core/") else FX_NAMES


def _fill(template: str, name: str) -> str:
    text = template.replace("\\n", "\n").replace("\\t", "\t")
    if text.startswith("In node "):  # node index, importer function, error code
        values = iter(("3", "importResize", "UNSUPPORTED_NODE"))
    elif text.startswith("ERROR: "):  # file, line, function, error code
        values = iter(("builtin_op_importers.cpp", "2917", "importResize", "8"))
    else:
        values = iter(str(n) for n in range(3, 1000))
    return re.sub(
        r"\{(node|layer|tensor|op|value)\}",
        lambda m: {"node": name, "layer": name, "tensor": TENSOR, "op": "Resize"}.get(
            m.group(1), next(values, "7")
        ),
        text,
    )


DESCS = [row for row in ROWS if row["severity"] == "desc"]
WRAPPERS = [row for row in ROWS if "{desc}" in row["template"]]


def _wrapper_lines(wrapper: dict[str, str], desc: str, name: str) -> str:
    filled = _fill(wrapper["template"].replace("{desc}", "\x00"), name)
    filled = filled.replace("\x00", desc)
    if wrapper["severity"] == "error":  # LOG_ERROR in ModelImporter.cpp
        return f"{WHEN} [E] [TRT] {wrapper['file']}:{wrapper['line']}: {filled}"
    return filled  # Python prints str(parser.get_error(i)) as it is


def _render(row: dict[str, str], name: str) -> str:
    """One template as its tool prints it, names put in."""
    message = _fill(row["template"], name)
    severity = row["severity"]
    if row["repo"] == "tensorflow/tensorflow":
        if severity == "exception":  # a Status raised in Python
            return f"tensorflow.python.framework.errors_impl.InvalidArgumentError: {message}"
        letter = {"error": "E", "warning": "W"}.get(severity, "I")  # VLOG prints as I
        return f"2020-06-01 12:00:00.123456: {letter} {row['file']}:{row['line']}] {message}"
    if row["repo"] == "NVIDIA/TensorRT-LLM":
        if severity == "exception":  # TllmException::what(), as Python shows it
            return f"RuntimeError: {message} (/src/tensorrt_llm/{row['file']}:{row['line']})"
        level = {"verbose": "DEBUG"}.get(severity, severity.upper())
        return f"[TensorRT-LLM][{level}] {message}"  # Logger::getPrefix
    if row["repo"] == "pytorch/TensorRT":
        if severity == "exception" and row["file"].endswith(".cpp"):
            return f"RuntimeError: [Error thrown at {row['file']}:{row['line']}] {message}"
        if severity == "exception":
            return f"RuntimeError: {message}"
        if row["file"].endswith(".py"):  # Python logging's default "LEVEL:logger:message"
            level = {"verbose": "DEBUG", "info": "INFO", "warning": "WARNING"}.get(
                severity, "ERROR"
            )
            return f"{level}:torch_tensorrt.dynamo:{message}"
        level = {"verbose": "DEBUG", "info": "INFO", "warning": "WARNING"}.get(severity, "ERROR")
        return f"{level}: [Torch-TensorRT] - {message}"
    if row["file"].startswith("samples/"):  # trtexec's own logger
        return f"{WHEN} [{LETTER[severity]}] {message}"
    where = f"{row['file']}:{row['line']}: " if severity in ("error", "warning") else ""
    return f"{WHEN} [{LETTER[severity]}] [TRT] {where}{message}"


def _read(tmp_path: Path, text: str) -> list[dict[str, object]]:
    rows = analyze_log(text.encode()).failures.to_dict("records")
    log = tmp_path / "t.log"
    log.write_text(text + "\n", encoding="utf-8")
    scanned = scan_failures(log, chunk_bytes=97)
    assert [(r["layer"], r["category"]) for r in scanned] == [
        (r["layer"], r["category"]) for r in rows
    ], "the streaming scan and the full parse disagree"
    return rows


_REFUSAL = re.compile(r"converter rejected node|[Ff]alling back to PyTorch|will run in PyTorch")


def _expected(row: dict[str, str], name: str) -> set[str]:
    severity, template = row["severity"], row["template"]
    if severity in ("error", "exception"):
        if "{node}" in template or "{layer}" in template:
            return {name}
        if template.startswith("While parsing node number"):
            return {TENSOR}  # the node's output tensor stands for the node (README rule)
        return set()
    if severity == "verbose" and _REFUSAL.search(template):
        return {name}
    if severity == "warning" and row["repo"] == "tensorflow/tensorflow" and "{node}" in template:
        return {name}  # the engine op falls back to TensorFlow
    return set()


def _row_id(row: dict[str, str]) -> str:
    return f"{row['repo'].split('/')[0]}:{row['file'].rsplit('/', 1)[-1]}:{row['line']}"


SINGLE = [row for row in ROWS if row["severity"] not in ("desc", "wrapper")]
# Templates the grammar reads wrongly, each with why (strict: the xfail fails once it reads it).
KNOWN_GAPS: dict[str, str] = {}


def _cases() -> list[object]:
    cases: list[object] = []
    for row in SINGLE:
        gap = next((why for key, why in KNOWN_GAPS.items() if row["template"].startswith(key)), "")
        marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
        cases.append(pytest.param(row, id=_row_id(row), marks=marks))
    return cases


def test_every_known_gap_is_in_the_table() -> None:
    for key in KNOWN_GAPS:
        assert any(row["template"].startswith(key) for row in SINGLE), key


def test_table_is_derived_with_its_provenance() -> None:
    assert ROWS and tuple(ROWS[0]) == COLUMNS
    for row in ROWS:
        assert re.fullmatch(r"[0-9a-f]{40}", row["commit"]), row
        assert re.search(r"\{(?:node|layer|tensor|desc)\}", row["template"]), row
    repos = {row["repo"] for row in ROWS}
    assert repos == {"onnx/onnx-tensorrt", "NVIDIA/TensorRT", "pytorch/TensorRT",
                     "tensorflow/tensorflow", "NVIDIA/TensorRT-LLM"}
    templates = {row["template"] for row in ROWS}
    for known in (
        "Invalid Node - {node}",
        "{node} [{op}] inputs: ",
        "Parsing node: {node} [{op}]",
        "In node {value} with name: {node} and operator: {op} ({value}): {value}: {desc}",
        "In node {value} ({value}): {value}: {desc}",
        "_to_copy converter rejected node {node} with dtype {value}",
    ):
        assert known in templates, known


@pytest.mark.parametrize("row", _cases())
def test_template_blames_exactly_its_node(tmp_path: Path, row: dict[str, str]) -> None:
    for name in _names(row):
        rows = _read(tmp_path, _render(row, name))
        layers = {r["layer"] for r in rows if r["layer"]}
        assert layers == _expected(row, name), (row["template"], name)
        assert TENSOR not in layers or row["template"].startswith("While parsing node number")
        if row["severity"] == "error" and "{tensor}" in row["template"] and not layers:
            # an error about a tensor keeps the tensor in the tensors column
            assert any(TENSOR in r["tensors"] for r in rows), (row["template"], rows)
        if row["severity"] in ("verbose", "warning") and layers:
            # a refusal or a fallback is not fatal
            assert not any(r["fatal"] for r in rows if r["layer"])


@pytest.mark.parametrize("wrapper", WRAPPERS, ids=[_row_id(r) for r in WRAPPERS])
@pytest.mark.parametrize("desc", DESCS, ids=[_row_id(r) for r in DESCS])
def test_parser_error_description_in_every_wrapper(
    tmp_path: Path, wrapper: dict[str, str], desc: dict[str, str]
) -> None:
    quoted = (QUOTED_SPACED_NAME,) if _DELIMITED.search(desc["template"]) else ()
    names = ONNX_NAMES + SPACED_NAMES + quoted
    for name in names:
        text = _wrapper_lines(wrapper, _fill(desc["template"], name), name)
        rows = _read(tmp_path, text)
        layers = {r["layer"] for r in rows if r["layer"]}
        named = "{node}" in desc["template"] or "{node}" in wrapper["template"]
        assert layers == ({name} if named else set()), (text, layers)
        assert all(r["category"].startswith("parser-") for r in rows if r["layer"])


CONTEXT = [
    row for row in ROWS
    if row["severity"] == "verbose" and row["template"].startswith(("{node} [{op}] inputs:",
                                                                      "Parsing node: {node}"))
]


@pytest.mark.parametrize("row", CONTEXT, ids=[_row_id(r) for r in CONTEXT])
def test_importer_context_names_the_node_of_a_nameless_parser_error(
    tmp_path: Path, row: dict[str, str]
) -> None:
    """The verbose line the importer prints when it starts a node names the node that a
    following parser error (which carries only the node's index) is about."""
    error = "In node 3 (importResize): UNSUPPORTED_NODE: Assertion failed: scales.is_weights()"
    for name in _names(row):
        if " " in name and not _DELIMITED.search(row["template"]):
            continue
        rows = _read(tmp_path, _render(row, name) + "\n" + error)
        assert {r["layer"] for r in rows if r["layer"]} == {name}, (row["template"], name)


def test_there_are_importer_context_templates() -> None:
    assert len(CONTEXT) >= 2
