"""Reading rules for lines that hold no severity tag or sit a few records before the error.

Each log follows a real published log of tests/data/logs (train cases named) word for word,
with other names put in where the test needs them. Both readers are checked: the full parse
(``analyze_log`` on bytes) and the streaming file scan (``scan_failures``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from trtsafe_lab.logs import analyze_log
from trtsafe_lab.logs.classify import CONTEXT_RECORDS
from trtsafe_lab.logs.scan import scan_failures


def _named(rows: list[dict[str, object]]) -> set[tuple[object, object, object]]:
    return {(r["layer"], r["category"], r["fatal"]) for r in rows if r["layer"]}


def _both(tmp_path: Path, text: str) -> set[tuple[object, object, object]]:
    full = analyze_log(text.encode()).failures
    full_rows = full.to_dict("records")
    log = tmp_path / "case.log"
    log.write_text(text)
    scanned = _named(scan_failures(log, chunk_bytes=64))
    assert scanned == _named(full_rows)
    return scanned


def test_untagged_layer_label_line_is_a_fatal_shape_error(tmp_path: Path) -> None:
    # n098: TensorRT 7 printed by an app without severity tags
    text = (
        "Layer: /model.2/Where_493's output can not be used as shape tensor.\n"
        "Network validation failed.\nEngine creation failed\n"
    )
    assert _both(tmp_path, text) == {("/model.2/Where_493", "shape", True)}


def test_tagged_layer_label_line_names_the_layer(tmp_path: Path) -> None:
    text = "[TensorRT] ERROR: Layer: Where 12's output can not be used as shape tensor.\n"
    # a plain word after the label is no name ("Where 12" has a space): nothing is invented
    assert _both(tmp_path, text) == set()
    text = "[TensorRT] ERROR: Layer: node_of_gather:0's output can not be used as shape tensor.\n"
    assert _both(tmp_path, text) == {("node_of_gather:0", "shape", True)}


def _importer_then_error(between: int) -> str:
    lines = ["[07/25/2022-21:06:44] [TRT] [V] ModelImporter.cpp:1: NonZero_2193 [NonZero] "
             "inputs: [2743 -> (-1)[INT32]], "]
    lines += [f"[07/25/2022-21:06:44] [TRT] [I] Searching for plugin: NonZero, step {i}"
              for i in range(between)]
    lines.append("In node 2193 (importFallbackPluginImporter): UNSUPPORTED_NODE: Assertion "
                 'failed: creator && "Plugin not found, are the plugin name, version, and '
                 'namespace correct?"')
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("between", range(CONTEXT_RECORDS + 2))
def test_importer_node_reaches_context_records(tmp_path: Path, between: int) -> None:
    # n103: the importer's INFO lines stand between the node's inputs line and the error
    found = _both(tmp_path, _importer_then_error(between))
    if between < CONTEXT_RECORDS:
        assert found == {("NonZero_2193", "parser-unsupported", True)}
    else:
        assert found == set()  # too far back: no name rather than a guess


def test_parsing_node_line_names_the_node(tmp_path: Path) -> None:
    text = (
        "[V] [TRT] Parsing node: /backbone/Pad 3 [Pad]\n"
        "[E] [TRT] ModelImporter.cpp:949: ERROR: ModelImporter.cpp:1 In function importPad:\n"
        "[8] Assertion failed: inputs.at(1).is_weights()\n"
    )
    assert _both(tmp_path, text) == {("/backbone/Pad 3", "parser-error", True)}


def test_a_finished_node_import_is_not_blamed(tmp_path: Path) -> None:
    text = (
        "[V] [TRT] ModelImporter.cpp:1: Conv_1 [Conv] inputs: [x -> (1)[FLOAT]], \n"
        "[E] [TRT] ModelImporter.cpp:949: ERROR: ModelImporter.cpp:1 In function importConv:\n"
        "[8] Assertion failed: kernel\n"
        "In node 5 (importPad): INVALID_NODE: Assertion failed: x\n"
    )
    assert _both(tmp_path, text) == {("Conv_1", "parser-error", True)}


def test_converter_refusal_at_debug_level_is_a_non_fatal_finding(tmp_path: Path) -> None:
    # n151: Torch-TensorRT dynamo partitioning, Python logging's "LEVEL:logger:message"
    text = (
        "DEBUG:torch_tensorrt.dynamo.conversion.aten_ops_converters:_to_copy converter rejected "
        "node _to_copy_6 with dtype torch.int64\n"
        "DEBUG:torch_tensorrt.dynamo.partitioning._adjacency_partitioner:\n"
        "Number of TensorRT-Accelerated Engines Generated: 2\n"
        "DEBUG:torch_tensorrt.dynamo.backend.backends:Lowered input graph: x.reshape(1)\n"
    )
    assert _both(tmp_path, text) == {("_to_copy_6", "parser-unsupported", False)}


def test_untagged_unsupported_type_line_makes_the_header_parser_unsupported(
    tmp_path: Path,
) -> None:
    # n078: onnx2trt printing std::cerr's "Unsupported ONNX data type" before the legacy header
    text = 'Unsupported ONNX data type: UINT8 (2)\nWhile parsing node number 108 [Cast -> "292"]:\n'
    assert _both(tmp_path, text) == {("292", "parser-unsupported", True)}


def test_layer_input_type_constraint_is_api_usage(tmp_path: Path) -> None:
    # n134: TensorRT 5.1
    text = (
        "[TensorRT] ERROR: (Unnamed Layer* 4) [ElementWise]: elementwise inputs must not be "
        "Int32\n"
    )
    assert _both(tmp_path, text) == {("(Unnamed Layer* 4) [ElementWise]", "api-usage", True)}
