"""General message classes the fifth collection batch's train logs brought (issue 11): each is
tested in forms beyond the one log that showed it (other names, loggers, wrappers)."""

from __future__ import annotations

import pytest

from trtsafe_lab.logs import analyze_log
from trtsafe_lab.logs.signature_text import signature

NAMES = ("model/conv2d_3/Conv2D", "Postprocessor/Gather/GatherV2", "bn1/FusedBatchNormV2")


def _layers(text: str) -> list[tuple[str, str, bool]]:
    failures = analyze_log(text.encode()).failures
    return [(layer, category, bool(fatal)) for layer, category, fatal in zip(
        failures["layer"], failures["category"], failures["fatal"], strict=True) if layer]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("prefix", [
    "", "2019-02-28 09:14:17.579643: W tensorflow/contrib/tensorrt/convert/convert_graph.cc:515] ",
])
def test_a_tf_converters_status_names_its_node(prefix: str, name: str) -> None:
    """TensorFlow's status ends a TF-TRT converter's refusal with ", at: NODE" (convert_nodes.cc);
    the subgraph stays in TensorFlow: parser-unsupported, not fatal (n895; bare: a cut paste)."""
    line = (f'{prefix}subgraph conversion error for subgraph_index:0 due to: "Unimplemented: '
            f'Operation: GatherV2 does not support tensor input as indices, at: {name}" '
            "SKIPPING......( 180 nodes)\n")
    assert _layers(line) == [(name, "parser-unsupported", False)]


@pytest.mark.parametrize(("before", "tail", "category"), [
    ("Engine retrieval for input shapes: [[1,64,64,64]] failed. ", "", "build-failed"),  # n893
    # n323's form: at run time the reason's words say how (decision D2)
    ("", " due to failure in verifying input shapes: x", "shape"),
    ("", " due to failure in enqueue", "runtime-failed"),  # nothing more specific
    ("", "", "runtime-failed"),
])
def test_tf_trt_native_segment_says_build_or_run(before: str, tail: str, category: str) -> None:
    op = "StatefulPartitionedCall/box/TRTEngineOp_0_31"
    line = (f"2022-01-12 05:57:02.809522: W tensorflow/compiler/tf2tensorrt/kernels/"
            f"trt_engine_op.cc:797] TF-TRT Warning: {before}Running native segment for "
            f"{op}{tail}\n")
    assert _layers(line) == [(op, category, False)]


def test_a_created_plugin_makes_the_nodes_failure_a_plugins() -> None:
    """The importer's "Successfully created plugin" after "No importer registered": the node is
    a plugin layer, whose format failure is plugin (n906)."""
    log = (
        "[I] [TRT] ModelImporter.cpp:135: No importer registered for op: Foo. Attempting to "
        "import as plugin.\n"
        "[I] [TRT] builtin_op_importers.cpp:3659: Searching for plugin: Foo, plugin_version: 1\n"
        "[I] [TRT] builtin_op_importers.cpp:3676: Successfully created plugin: Foo\n"
        "[E] [TRT] /m/Foo_3: could not find any supported formats consistent with input/output "
        "data types\n"
    )
    assert _layers(log) == [("/m/Foo_3", "plugin", True)]


def test_a_plugin_missing_from_the_registry_is_unsupported() -> None:
    log = (
        'While parsing node number 219 [InstanceNormalization -> "721"]:\n--- Begin node ---\n'
        'output: "721"\nname: "/m/IN_9"\nop_type: "InstanceNormalization"\n--- End node ---\n'
        "ERROR: builtin_op_importers.cpp:1636 In function importInstanceNormalization:\n"
        '[8] Assertion failed: plugin != nullptr && "InstanceNormalization plugin was not found '
        'in the plugin registry!"\n'
    )
    assert _layers(log) == [("/m/IN_9", "parser-unsupported", True)]


@pytest.mark.parametrize("runner", ["Conv_4 (CudnnConvolution)", "/m/conv/Conv (CaskConvolution)"])
def test_a_runners_failure_blames_the_layer_being_timed(runner: str) -> None:
    """A tactic runner's own error ("[convolutionRunner.cpp::executeConv::465] ... Cudnn
    (CUDNN_STATUS_ALLOC_FAILED)") names no layer: the layer the builder was timing failed (n922;
    as a process dying in an assertion while timing, n535)."""
    log = (
        f"[V] [TRT] --------------- Timing Runner: {runner}\n"
        "[V] [TRT] Deleting timing cache: 12 entries, served 0 hits since creation.\n"
        "[E] [TRT] 1: [convolutionRunner.cpp::executeConv::465] Error Code 1: Cudnn "
        "(CUDNN_STATUS_ALLOC_FAILED)\n"
    )
    assert _layers(log) == [(runner.rsplit(" (", 1)[0], "out-of-memory", True)]


def test_a_reformat_runner_times_no_layer() -> None:
    log = (
        "[V] [TRT] --------------- Timing Runner: Optimizer Reformat(input.435 -> <out>) "
        "(Reformat)\n"
        "[E] [TRT] 1: [convolutionRunner.cpp::executeConv::465] Error Code 1: Cudnn "
        "(CUDNN_STATUS_ALLOC_FAILED)\n"
    )
    assert _layers(log) == []


@pytest.mark.parametrize("name", ["(Unnamed Layer* 2) [Fully Connected]", "/fc1/Gemm", "conv_7"])
def test_tensorrts_rank_check_printed_bare(name: str) -> None:
    """An app prints TensorRT's rank check without any prefix (n909): still the layer, fatal;
    api-usage, the code TensorRT raises it with ("3: X: at least 4 ...", decision D1)."""
    assert _layers(f"{name}: at least 4 dimensions are required for input\n") == [
        (name, "api-usage", True)]


@pytest.mark.parametrize("line", [
    "[TH_YF8S][25-12-22 10:26:14][TRT] 2: [helpers.h::smVerHex2Dig::694] Error Code 2: Internal "
    "Error (Assertion major >= 0 && major < 10 failed. )",  # n924: an app tag glued to its time
    "2025-03-29 06:54:35+0800: TensorRT backend: 2: [helpers.h::nvinfer1::smVerHex2Dig::694] "
    "Error Code 2: Internal Error (Assertion major >= 0 && major < 10 failed. )",  # n519
])
def test_an_apps_label_and_tag_leave_tensorrts_reason(line: str) -> None:
    failures = analyze_log((line + "\n").encode()).failures
    assert list(failures["severity"]) == ["error"]
    assert signature(line) == "Assertion major >= <n> && major < <n> failed"


@pytest.mark.parametrize(("subject", "layer"), [
    ("(Unnamed Layer* 154) [Constant]", True),  # n931: TensorRT's own name of a constant layer
    ("(Unnamed Layer* 7) [Constant]", True),
    ("onnx::QuantizeLinear_1205", False),  # n424: the ONNX initializer (the weights)
])
def test_invalid_weights_name_a_constant_layer_or_an_initializer(subject: str, layer: bool) -> None:
    found = _layers(f"[E] [TRT] {subject}: invalid weights type of Bool\n")
    assert found == ([(subject, "api-usage", True)] if layer else [])


@pytest.mark.parametrize(("line", "layers", "tensors"), [
    # Polygraphy (backend/trt/runner.py, comparator): tensors after "input:" / "output:"
    ("[!] For input: input_ids.1, failed to set shape to: (1, 7)", [], ("input_ids.1",)),
    ("[E] FAILED | Errors detected in output: logits_0", [], ("logits_0",)),
    ("[!] tensor: `onnx::Add_5` is a constant, but is part of the output!", [], ("onnx::Add_5",)),
    # Polygraphy's " | " after a subject (algorithm_selector.py)
    ("[!] Layer: model/up 2/Resize | Tactic in replay was not provided by TensorRT",
     ["model/up 2/Resize"], ()),
    # a capitalised kind before "node" (Polygraphy's shard.py)
    ("[!] Specified seq_len_idx 3 is out of actual range 2 for DistCollective node /m/ar_7",
     ["/m/ar_7"], ()),
    # trtexec's sampleEngines.cpp
    ("[E] Layer /m/conv_3 has 1 outputs but 2 output types are given in --layerOutputTypes flag.",
     ["/m/conv_3"], ()),
    # TF-TRT segment.cc's older wording
    ("2020-01-01 10:00:00.000000: W tensorflow/compiler/tf2tensorrt/segment/segment.cc:541] "
     "Blacklisted as TF-TRT candidate, (Op type: Sum), (Op name: model/sum_1), (Reason: x)",
     ["model/sum_1"], ()),
])
def test_tool_templates_name_their_node_or_tensor(
    line: str, layers: list[str], tensors: tuple[str, ...]
) -> None:
    failures = analyze_log((line + "\n").encode()).failures
    assert [layer for layer in failures["layer"] if layer] == layers
    assert tuple(t for row in failures["tensors"] for t in row) == tensors


def test_an_op_kinds_limit_names_no_node() -> None:
    """Torch-TensorRT's "Unable to convert node: X" then "upsample_linear1d only supports ...":
    the op kind's limit is no second node (interpolate.cpp)."""
    node = "%input.4 : Tensor = aten::upsample_linear1d(%x.1, %4, %5)"
    log = (f"ERROR: [Torch-TensorRT] - Unable to convert node: {node}\n"
           "upsample_linear1d only supports align_corner with TensorRT <= 7.0.\n")
    assert [layer for layer, _, _ in _layers(log)] == [node]


@pytest.mark.parametrize("name", ["conv_1/Conv2D", "/model/attn/Softmax_3"])
def test_a_layers_limit_names_the_layer(name: str) -> None:
    """A layer's own limit ("X only supports 2D inputs") names X at the message start, as any
    strong name followed by a predicate does; the op-kind case above is a continuation line."""
    assert [layer for layer, _, _ in _layers(f"[E] [TRT] {name} only supports 2D inputs\n")] == [
        name]


@pytest.mark.parametrize(("level", "severity"), [
    ("TRACE", "verbose"), ("SUCCESS", "info"), ("DEBUG", "verbose"), ("ERROR", "error")])
def test_loguru_levels_follow_loguru_table(level: str, severity: str) -> None:
    """loguru's level table: TRACE (5) is below DEBUG (10), SUCCESS (25) between INFO and
    WARNING."""
    from trtsafe_lab.logs.records import parse_prefix

    prefix, message = parse_prefix(f"2024-01-01 10:00:00.123 | {level:<8} | app:run:42 - msg")
    assert (prefix.severity, message) == (severity, "msg")


@pytest.mark.parametrize("printed", [
    "[TensorRT-LLM][ERROR] Input shape not specified: input_ids",
    "RuntimeError: Input shape not specified: input_ids",
    "[E] Input shape not specified: input_ids",
])
def test_an_unset_input_shape_names_a_tensor_whoever_prints_it(printed: str) -> None:
    """tllmRuntime.cpp's "Input shape not specified: T" names an engine input tensor, under any
    logger (not only TensorRT-LLM's own)."""
    failures = analyze_log((printed + "\n").encode()).failures
    assert [layer for layer in failures["layer"] if layer] == []
    assert tuple(t for row in failures["tensors"] for t in row) == ("input_ids",)


@pytest.mark.parametrize("line", [
    "GPU memory allocation error during getBestTactic: conv0_fwd",
    "Get cuda error during getBestTactic: (Unnamed Layer* 176) [PluginV2DynamicExt]",
    "GPU error during getBestTactic: a/conv1 + a/bn_1 : invalid argument",
])
def test_every_getbesttactic_report_names_its_layer(line: str) -> None:
    expected = line.split("getBestTactic: ", 1)[1].rsplit(" : ", 1)[0]
    assert [layer for layer, _, _ in _layers(f"[W] [TRT] {line}\n")] == [expected]
