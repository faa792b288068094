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


def test_untagged_unsupported_type_line_makes_the_header_parser_error(
    tmp_path: Path,
) -> None:
    # n078: onnx2trt printing std::cerr's "Unsupported ONNX data type" before the legacy header;
    # the Cast importer exists and refuses the type: parser-error (decision D3)
    text = 'Unsupported ONNX data type: UINT8 (2)\nWhile parsing node number 108 [Cast -> "292"]:\n'
    assert _both(tmp_path, text) == {("292", "parser-error", True)}


def test_layer_input_type_constraint_is_api_usage(tmp_path: Path) -> None:
    # n134: TensorRT 5.1
    text = (
        "[TensorRT] ERROR: (Unnamed Layer* 4) [ElementWise]: elementwise inputs must not be "
        "Int32\n"
    )
    assert _both(tmp_path, text) == {("(Unnamed Layer* 4) [ElementWise]", "api-usage", True)}


# Batch-2 train cases (named) follow; each line is a real line with another name put in.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # n287, n291: tensorRT_Pro's logger "[date time][error][file:line]:NVInfer: "
            "[2022-12-08 17:36:09][error][trt_builder.cpp:30]:NVInfer: 9: [graphShapeAnalyzer"
            ".cpp::throwIfError::1306] Error Code 9: Internal Error (Reshape_77: reshape changes "
            "volume\n)\n",
            {("Reshape_77", "shape", True)},
        ),
        (  # n224: a script's "[TRT ERROR]" prefix and a hard-wrapped message
            "[TRT ERROR] IBuilder::buildSerializedNetwork: Error Code 10: Internal Error\n"
            "  (Could not find any implementation for node\n  {ForeignNode[/a/Shape...b_out]}.\n"
            "  In computeCosts at /_src/optimizer/common/tactic/optimizer.cpp:4265)\n",
            {("{ForeignNode[/a/Shape...b_out]}", "no-implementation", True)},
        ),
        (  # n323: TF-TRT falls back to the TensorFlow segment at run time
            "2021-12-16 02:59:55.211762: W tensorflow/compiler/tf2tensorrt/kernels/trt_engine_op"
            ".cc:587] Running native segment forPartitionedCall/TRTEngineOp_0_7 due to failure "
            "in verifying input shapes: Input shapes do not match\n",
            {("PartitionedCall/TRTEngineOp_0_7", "shape", False)},  # D2: its reason's words
        ),
        (  # n302: the UFF input node is the network's input tensor, later records too
            "ERROR: [TRT]: UFFParser: Failed to parseInput for node image_in\n"
            "ERROR: [TRT]: UffParser: Parser error: image_in: Failed to parse node - Invalid "
            "Tensor found at node image_in\n",
            set(),
        ),
        (  # n195: ONNX Runtime gives a node the TensorRT parser rejects to another provider
            ' [E:onnxruntime:, tensorrt_execution_provider.h:88 log] [2025-02-07 20:40:27   ERROR]'
            " In node 3 with name: /Scatter_9 and operator: ScatterND (importScatterND): "
            'UNSUPPORTED_NODE_ATTR: Assertion failed: !attrs.count("reduction"): Attribute '
            "reduction is not supported.\n",
            {("/Scatter_9", "parser-error", False)},  # D3: its importer refuses the attribute
        ),
        (  # n219: the shape analyzer's check, the wording names no shape
            " Error[4]: [graphShapeAnalyzer.cpp::nvinfer1::builder::ShapeAnalyzerImpl::"
            "analyzeShapes::2084] Error Code 4: Miscellaneous (ITopKLayer /Top_2: /Top_2: K "
            "exceeds the maximum value allowed (3840).)\n",
            {("/Top_2", "shape", True)},
        ),
        (  # n210: Error Code 3 is an API usage error, whatever the wording
            "[05/29/2025-12:16:24] [TRT] [E] ITensor::getDimensions: Error Code 3: API Usage "
            "Error (node_of_min_out: at least 1 dimensions are required for input.)\n",
            {("node_of_min_out", "api-usage", True)},
        ),
        (  # n180, n320: the layer is the last clause before the shape phrase
            "Error[4]: kOPT values for profile 0 violate shape constraints: IShuffleLayer "
            "/m.1/Reshape: reshaping failed for tensor: 18 reshape would change volume 2 to 4\n",
            {("/m.1/Reshape", "shape", True)},
        ),
        (  # n266: a Python exception class is no layer
            "polygraphy.exception.exception.PolygraphyException: Invalid Engine. Please ensure "
            "the engine was built correctly\n",
            set(),
        ),
        (  # n268: a quoted Myelin op after its kind, a skipped tactic (non-fatal)
            "[11/18/2025-06:15:43] [TRT] [E] Error Code: 9: Skipping tactic 0x0000000000000000 "
            "due to exception [api_compile.cpp:validate_copy_operation:4682] Slice operation "
            '"/blk_1/Pad_12_slice" has incorrect fill value type, slice op requires fill value '
            "type to be same as its input.\n",
            {("/blk_1/Pad_12_slice", "tactic-failure", False)},
        ),
        (  # n186, n261, n314: API misuse wordings
            "[TensorRT] ERROR: Loop_7: setRecurrence not called\n",
            {("Loop_7", "api-usage", True)},
        ),
    ],
)
def test_batch2_reading_rules(
    tmp_path: Path, text: str, expected: set[tuple[object, object, object]]
) -> None:
    assert _both(tmp_path, text) == expected


def test_importer_node_on_a_continuation_line_before_a_bare_header(tmp_path: Path) -> None:
    # n197: a log pasted without its logger prefix; the header has no output tensor
    text = (
        ": ModelImporter.cpp:123: Searching for input: Expand__98:0\n"
        ": ModelImporter.cpp:129: enc/ReverseV2_ReverseSequence__7 [ReverseSequence] inputs: "
        "[enc/transpose:0 -> (-1, -1, -1)], \n"
        "While parsing node number 54 [ReverseSequence]:\n"
        "ERROR: ModelImporter.cpp:134 In function parseGraph:\n"
        "[8] No importer registered for op: ReverseSequence\n"
    )
    assert _both(tmp_path, text) == {
        ("enc/ReverseV2_ReverseSequence__7", "parser-unsupported", True)
    }


# Batch-4 train cases (named) follow; each line is a real line with another name put in.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # n651: PyTorch's IR has no schema for a TorchScript node; the "Node: " label
            "RuntimeError: \nSchema not found for node. File a bug report.\n"
            "Node: %7 : int = aten::floor_divide(%5, %6)\n\nInput types:int, int\n",
            {("%7 : int = aten::floor_divide(%5, %6)", "parser-error", True)},
        ),
        (  # n653: the same error in pytest's short test summary line
            "=========================== short test summary info ============================\n"
            "FAILED models/test_models.py::TestModels::test_bert - RuntimeError: \n"
            "Schema not found for node. File a bug report.\n"
            "Node: %69 : int = aten::add(%58, %6, %2)\n",
            {("%69 : int = aten::add(%58, %6, %2)", "parser-error", True)},
        ),
        (  # n654: TF-TRT's logger prints its name, "DefaultLogger", before TensorRT's message
            "2020-04-13 17:11:35.407792: E tensorflow/compiler/tf2tensorrt/utils/trt_logger.cc:"
            "41] DefaultLogger conv_7/Conv2D: at least three non-batch dimensions are required "
            "for input\n",
            {("conv_7/Conv2D", "shape", True)},
        ),
        (  # n661, n668: TF-TRT's segmenter leaves a node to TensorFlow (segment.cc, VLOG(1));
            # an accepted candidate is no finding, nor is a quote in the reason, nor an input or
            # output node the segmenter's options exclude (no conversion was tried)
            "2020-03-15 13:50:24.967222: I tensorflow/compiler/tf2tensorrt/segment/segment.cc:"
            "447] Accepted as a TF-TRT candidate, (Op type: Const), (Op name: bn1/Const\n"
            "2020-03-15 13:50:24.967573: I tensorflow/compiler/tf2tensorrt/segment/segment.cc:"
            "439] Not a TF-TRT candidate, (Op type: FusedBatchNormV2), (Op name: bn1/FBN), "
            "(Reason: Unimplemented: 'FusedBatchNormV2' only supports data_format=NCHW, at "
            "bn1/FBN)\n"
            "2020-03-15 13:50:24.967574: I tensorflow/compiler/tf2tensorrt/segment/segment.cc:"
            "439] Not a TF-TRT candidate, (Op type: Identity), (Op name: out), (Reason: "
            "excluded by segmenter option)\n",
            {("bn1/FBN", "parser-unsupported", False)},
        ),
        (  # n667: TensorRT 9's scratch-space check names the plugin node after "plugin node"
            "[12/29/2023-02:37:01] [TRT] [E] 4: Internal error: plugin node Model/layers/3/mlp/"
            "PLUGIN_V2_MoE_3 requires 3990561489024 bytes of scratch space, but only "
            "25393692672 is available.\n",
            {("Model/layers/3/mlp/PLUGIN_V2_MoE_3", "out-of-memory", True)},
        ),
        (  # n662: the converter's thrown error names the node and states no reason; the
            # parameter check TensorRT failed just before gives it (C++ terminate: an error)
            "ERROR: [TRTorch Conversion Context] - Parameter check failed at: ../builder/"
            "Network.cpp::addPoolingNd::690, condition: allDimsGtEq(windowSize, 1)\n"
            "terminate called after throwing an instance of 'trtorch::Error'\n"
            "  what():  [enforce fail at core/conversion/converters/impl/pooling.cpp:92] "
            "Expected new_layer to be true but got false\n"
            "Unable to create average pooling layer from node: %x.3 : Tensor = aten::"
            "adaptive_avg_pool2d(%4, %6) # /usr/lib/python3.6/torch/nn/functional.py:889:0\n",
            {(
                "%x.3 : Tensor = aten::adaptive_avg_pool2d(%4, %6) # /usr/lib/python3.6/"
                "torch/nn/functional.py:889:0",
                "api-usage",
                True,
            )},
        ),
        (  # n718: the UFF parser's validator names the node before its op ("Cast" counts)
            "[TensorRT] ERROR: UffParser: Validator error: Cast: Unsupported operation _Cast\n"
            "[TensorRT] ERROR: Network must have at least one output\n",
            {("Cast", "parser-unsupported", True)},
        ),
        (  # n675: "X: tensor volume exceeds N" is about a tensor, not a layer
            "[TensorRT-LLM][ERROR] IExecutionContext::inferShapes: Error Code 7: Internal Error "
            "(Model/embedding/GATHER_0_output_0: tensor volume exceeds 2147483647, dimensions "
            "are [num_tokens,4096] Condition '<' violated: 524288 >= 524288. Instruction: "
            "CHECK_LESS 524288 524288.)\n",
            set(),
        ),
        (  # n714: a check in computeOutputExtents is a shape error, whatever the wording
            "[05/25/2024-15:22:27] [TRT] [E] [convolutionNode.cpp::computeOutputExtents::55] "
            "Error Code 4: Internal Error (/m/pe/Conv: group count must divide input channel "
            "count)\n",
            {("/m/pe/Conv", "shape", True)},
        ),
        (  # n741: ctest's "1: " before each line; ONNX Runtime's fused node is listed (D12)
            "1: [ RUN      ] TensorrtExecutionProviderTest.RemoveCycleTest\n"
            "1: 2022-10-20 16:42:45.703104300 [E:onnxruntime:Default, tensorrt_execution_provider"
            ".h:58 log] [2022-10-20 14:42:45   ERROR] 10: [optimizer.cpp::computeCosts::3628] "
            "Error Code 10: Internal Error (Could not find any implementation for node "
            "{ForeignNode[x1...y]}.)\n"
            "1: [ONNXRuntimeError] : 11 : EP_FAIL : TensorRT EP could not build engine for fused "
            "node: TensorrtExecutionProvider_TRTKernel_graph_test_160532691_1_0\n",
            {("{ForeignNode[x1...y]}", "no-implementation", True),
             ("TensorrtExecutionProvider_TRTKernel_graph_test_160532691_1_0", "build-failed",
              True)},
        ),
        (  # n157, n481, n655: network validation names the layer it rejects; the safety
            # builder's wording is NVIDIA/TensorRT#2533's title (a glued markdown ">" dropped)
            "[TensorRT] ERROR: Layer model/up 2/Resize failed validation\n"
            "[12/08/2022-10:00:00] [E] Error[4]: [network.cpp::validate::2789] Error Code 4: "
            "Internal Error (Layer /m/Conv_3 failed DriveOS 6.0 safety scope validation)\n"
            "[TRT] [E] 4: [network.cpp::validate::2871] Error Code 4: Internal Error (Layer "
            ">(Unnamed Layer* 0) [TopK] failed validation)\n",
            {
                ("/m/Conv_3", "safety-scope", True),
                ("model/up 2/Resize", "", False),
                ("(Unnamed Layer* 0) [TopK]", "internal-error", True),
            },
        ),
        (  # n811: the UFF parser's validator error printed bare by an app is an error
            "UFFParser: Validator error: Net/Logits/SpatialSqueeze: Unsupported operation "
            "Squeeze\nFailed to parse UFF\n",
            {("Net/Logits/SpatialSqueeze", "parser-unsupported", True)},
        ),
        (  # n802: the parser's error code before "Invalid Node - X", printed bare
            "[6] Invalid Node - /h/If\n/h/If_OutputLayer: IIfConditionalOutputLayer inputs must "
            "have the same shape. Shapes are [-1,120,-1] and [-1,120,-1,-1].\n",
            {("/h/If", "parser-error", True), ("/h/If_OutputLayer", "shape", True)},
        ),
        (  # n810: TensorRT 4 rejects a shuffle layer's permutation (an API parameter)
            "[2018-07-17 11:08:54   ERROR] (Unnamed Layer* 5) [Shuffle]: first transpose is not "
            "valid\n",
            {("(Unnamed Layer* 5) [Shuffle]", "api-usage", True)},
        ),
        (  # n856, n857: TensorRT's template glues the node to "requires"
            "[TRT] [E] 2: [myelinBuilderUtils.cpp::operator()::293] Error Code 2: Internal Error "
            "(Slice_7requires bool I/O but node can not be handled by Myelin.)\n",
            {("Slice_7", "myelin", True)},
        ),
        (  # n858: the CUDA error during getBestTactic is the plugin's, printed just before
            "ERROR: C:\\source\\rtExt\\cuda\\cudaPluginV2DynamicExtRunner.cpp (108) - Cuda Error "
            "in nvinfer1::rt::cuda::PluginV2DynamicExtRunner::execute: 9 (invalid configuration "
            "argument)\nWARNING: Get cuda error during getBestTactic: (Unnamed Layer* 6) "
            "[PluginV2DynamicExt]\n",
            {("(Unnamed Layer* 6) [PluginV2DynamicExt]", "plugin", False)},
        ),
        (  # n860, n864: strict mode names the layer after "layer" (a number counts), with a
            # custom logger's "WARN TRT:" or with no prefix at all
            "WARN TRT: No implementation of layer 417 obeys the requested constraints in strict "
            "mode. No conforming implementation was found i.e. requested layer computation "
            "precision and output precision types are ignored, using the fastest implementation. "
            "trt_utils.cpp:252\n"
            "No implementation of layer Mul__9 obeys the requested constraints in strict mode. No "
            "conforming implementation was found i.e. requested layer computation precision and "
            "output precision types are ignored, using the fastest implementation.\n",
            {("417", "no-implementation", False), ("Mul__9", "no-implementation", False)},
        ),
        (  # n872, n873: a layer precision the builder rejects; "[ ERROR]" (a cut TensorRT 4-6
            # "[date time   ERROR]" prefix)
            "[ ERROR] Min__10: cannot use precision Int32 with weights of type Float\n"
            "[ERROR] Layer Min__10 failed validation\n",
            {("Min__10", "api-usage", True)},
        ),
        (  # n850: the parser found the plugin but could not create it
            "[06/28/2023-09:11:03] [TRT] [E] ModelImporter.cpp:773: While parsing node number 4 "
            '[TRTS_Scatter -> "out"]:\n'
            "[06/28/2023-09:11:03] [TRT] [E] ModelImporter.cpp:774: --- Begin node ---\n"
            '[06/28/2023-09:11:03] [TRT] [E] ModelImporter.cpp:775: input: "src"\n'
            'output: "out"\nname: "Scatter_4"\nop_type: "TRTS_Scatter"\n'
            "[06/28/2023-09:11:03] [TRT] [E] ModelImporter.cpp:776: --- End node ---\n"
            "[06/28/2023-09:11:03] [TRT] [E] ModelImporter.cpp:779: ERROR: builtin_op_importers.cpp"
            ":4898 In function importFallbackPluginImporter:\n[8] Assertion failed: plugin && "
            '"Could not create plugin"\n',
            {("Scatter_4", "plugin", True)},
        ),
    ],
)
def test_batch4_reading_rules(
    tmp_path: Path, text: str, expected: set[tuple[object, object, object]]
) -> None:
    assert _both(tmp_path, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # pybind11's argument errors name a Python function, not a layer
        "TypeError: deserialize_cuda_engine(): incompatible function arguments. The following "
        "argument types are supported:\n",
        "TypeError: pybind11::init(): factory function returned nullptr\n",
        # TensorFlow's "{{node X}}" is a TensorFlow node, not a TensorRT layer
        "2021-12-16 02:59:55.224076: E tensorflow/core/common_runtime/executor.cc:640] Executor "
        "failed to create kernel. Not found: No registered OpKernel for 'GPU' devices "
        "compatible with node {{node StatefulPartitionedCall/Postprocessor/NMS}}\n",
        "2020-01-01 10:00:00.100: E tensorflow/core/common_runtime/executor.cc:641] Executor "
        "failed to create kernel. Invalid argument: Input 0 of node conv1/Conv2D was passed "
        "float from x:0 incompatible with expected half.\n",
    ],
)
def test_lines_that_name_no_layer(tmp_path: Path, text: str) -> None:
    assert _both(tmp_path, text) == set()
