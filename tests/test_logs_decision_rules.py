"""The written ground-truth decisions D1-D14 (tests/data/logs/README.md, "Decisions of the open
questions") as general rules: each is tested in forms beyond the train logs that showed it
(other names, loggers, wordings), so a rule follows the decision, not one log."""

from __future__ import annotations

import pytest

from trtsafe_lab.logs import analyze_log

NAMES = ("(Unnamed Layer* 7) [Convolution]", "/backbone/conv1/Conv",
         "model.0.conv:0:CONVOLUTION:GPU")
# one message as TensorRT's loggers print it with its error number
LOGGERS = (
    "[12/01/2026-10:00:00] [E] [TRT] {n}: {m}",
    "[12/01/2026-10:00:00] [TRT] [E] {n}: {m}",
    "[TensorRT] ERROR: {n}: {m}",
    "ERROR: [TRT]: {n}: {m}",
)


def _layers(text: str) -> list[tuple[str, str, bool]]:
    failures = analyze_log(text.encode()).failures
    return [(layer, category, bool(fatal)) for layer, category, fatal in zip(
        failures["layer"], failures["category"], failures["fatal"], strict=True) if layer]


@pytest.mark.parametrize("logger", LOGGERS)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("reason", [
    "at least 4 dimensions are required for input.",  # n045
    "number of kernel weights does not match tensor dimensions",  # a shape wording under code 3
])
def test_d1_code_3_is_api_usage_whatever_the_wording(logger: str, name: str, reason: str) -> None:
    assert _layers(logger.format(n=3, m=f"{name}: {reason}") + "\n") == [
        (name, "api-usage", True)]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("line", [
    "{x}:kernel weights has count 4704 but 9408 was expected",  # printed with code 3 in n020
    "{x}: at least 2 dimensions are required for input.",  # "Error[3]: /ArgMax: ..." in n611
    "ITensor::getDimensions: Error Code 4: API Usage Error (Output shape can not be computed for "
    "node {x}.)",  # the printed kind under another code (D1 clarification, n174)
])
def test_d1_code_3_messages_without_their_code(name: str, line: str) -> None:
    assert _layers("[E] [TRT] " + line.format(x=name) + "\n") == [(name, "api-usage", True)]


def test_d1_leaves_a_code_4_shape_wording_shape() -> None:
    line = "[E] [TRT] 4: (Unnamed Layer* 7) [Convolution]: count of 4704 weights in kernel, but "
    line += "kernel dimensions (7,7) with 6 input channels were specified."
    assert _layers(line + "\n") == [("(Unnamed Layer* 7) [Convolution]", "shape", True)]


@pytest.mark.parametrize(("code", "category"), [
    ("UNSUPPORTED_NODE", "parser-unsupported"),  # no importer for the op
    ("UNSUPPORTED_NODE_ATTR", "parser-error"),  # its importer refuses an attribute (D3)
    ("UNSUPPORTED_NODE_DATATYPE", "parser-error"),
    ("UNSUPPORTED_NODE_DYNAMIC", "parser-error"),
])
@pytest.mark.parametrize("name", ["/ScatterND_4", "node_Squeeze_12"])
def test_d3_an_importer_refusing_is_a_parser_error(code: str, category: str, name: str) -> None:
    line = (f"[E] [TRT] In node 3 with name: {name} and operator: ScatterND (importScatterND): "
            f"{code}: Assertion failed: x: Attribute reduction is not supported.")
    assert _layers(line + "\n") == [(name, category, True)]


@pytest.mark.parametrize("type_line", [
    "Unsupported ONNX data type: UINT8 (2)",
    '[8] Assertion failed: convertDtype(onnxType, &dtype) && "Unsupported data type for the Cast '
    'operator!"',
])
def test_d3_an_unsupported_data_type_of_an_existing_importer(type_line: str) -> None:
    text = (f'While parsing node number 57 [Cast -> "/0/Cast_output_0"]:\n--- Begin node ---\n'
            'output: "/0/Cast_output_0"\nname: "/0/Cast"\nop_type: "Cast"\n--- End node ---\n'
            f"ERROR: builtin_op_importers.cpp:286 In function importCast:\n{type_line}\n")
    assert _layers(text) == [("/0/Cast", "parser-error", True)]


@pytest.mark.parametrize("warning", [
    "{x}: IShuffleLayer with zeroIsPlaceHolder=true has reshape dimension at position 0 that "
    "might or might not be zero. TensorRT resolves it at runtime, but this may cause excessive "
    "memory consumption",  # n722
    "{x}: the 'kSTRICT_TYPES' flag is deprecated, use kPREFER_PRECISION_CONSTRAINTS",
])
def test_d5_an_advisory_warning_is_no_finding(warning: str) -> None:
    assert _layers("[W] [TRT] " + warning.format(x="/vision_model/Reshape_12") + "\n") == []


@pytest.mark.parametrize("opening", [
    "[V] [TRT] =============== Computing costs for {x}",
    "[V] [TRT] --------------- Timing Runner: {x} (CaskConvolution)",
    "[TRT]    --------------- Timing Runner: {x} (DLA)",  # n265: no severity at all
])
@pytest.mark.parametrize(("error", "category", "fatal"), [
    ("[W] [TRT] Skipping tactic 0x0000000000000003 due to exception Assertion "
     "context.dlaContext != nullptr failed.", "tactic-failure", False),
    ("[TRT]    Skipping tactic 0x0000000000000000 due to exception [autotuner.cpp:get_best_tactics"
     ":1520] Autotuner: no tactics to implement operation:", "tactic-failure", False),
    ("[E] [TRT] 1: [convolutionRunner.cpp::executeConv::465] Error Code 1: Cudnn "
     "(CUDNN_STATUS_ALLOC_FAILED)", "out-of-memory", True),
    ("[E] [TRT] [convBaseBuilder.cpp::createConvolution::200] Error Code 2: Internal Error "
     "(Assertion isOpConsistent(convolution.get()) failed.)", "internal-error", True),
])
@pytest.mark.parametrize("name", ["{ForeignNode[/a/Conv.../b/Slice_2]}", "/m/conv_1/Conv"])
def test_d6_a_nameless_tactic_error_is_the_timed_layers(
    opening: str, error: str, category: str, fatal: bool, name: str
) -> None:
    between = "[V] [TRT] *************** Autotuning format combination: Half(1,2) -> Half(3) ****\n"
    text = opening.format(x=name) + "\n" + between + error + "\n"
    assert _layers(text) == [(name, category, fatal)]


def test_d6_a_reformat_runner_times_a_tensor() -> None:
    text = ("[V] [TRT] --------------- Timing Runner: Optimizer Reformat(a -> b) (Reformat)\n"
            "[W] [TRT] Skipping tactic 0x0 due to exception cudaError_t 2\n")
    assert _layers(text) == []


@pytest.mark.parametrize("node", [
    "TensorrtExecutionProvider_TRTKernel_graph_removecycletest_160532_1_0",
    "TensorrtExecutionProvider_TRTKernel_graph_main_graph_8831_0_0",
])
@pytest.mark.parametrize("printed", [
    "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : "
    "TensorRT EP could not build engine for fused node: {x}",
    "1: [ONNXRuntimeError] : 11 : EP_FAIL : TensorRT EP could not build engine for fused node: {x}",
])
def test_d12_onnx_runtimes_fused_node_is_listed(node: str, printed: str) -> None:
    assert _layers(printed.format(x=node) + "\n") == [(node, "build-failed", True)]


# --- general classes the sixth batch's train logs brought (written after the transfer study)


@pytest.mark.parametrize("name", ["415", "/model/up/Resize_3", "Resize__231"])
@pytest.mark.parametrize("quote", ["", "> "])
def test_a_node_dump_whose_header_was_cut_names_its_node(name: str, quote: str) -> None:
    """n1091: the paste starts at "--- Begin node ---"; the parser error after the dump blames
    the dump's node (its name may be a bare number)."""
    lines = ["--- Begin node ---", 'input: "388"', f'output: "{name}_out"', f'name: "{name}"',
             'op_type: "Resize"', "--- End node ---",
             "ERROR: /workspace/onnx-tensorrt/builtin_op_importers.cpp:2655 In function "
             "importResize:",
             '[8] Assertion failed: scales.is_weights() && "Resize scales must be an initializer!"']
    assert _layers("".join(quote + line + "\n" for line in lines)) == [
        (name, "parser-error", True)]


@pytest.mark.parametrize("name", ["/roi_heads/Mul_17", "(Unnamed Layer* 12) [ElementWise]"])
@pytest.mark.parametrize("error", [
    "[E] Error[4]: inherently false condition",
    "[E] Error[4]: [shapeContext.cpp::rebuild::3933] Error Code 4: Shape Error (inherently false "
    "condition)",
])
def test_a_nameless_shape_verdict_after_a_shape_warning_stops_that_layer(
    name: str, error: str
) -> None:
    """n1001: "[W] X: dimensions not compatible for elementwise." then the shape checker's
    nameless error: the build stops on X (fatal)."""
    text = f"[W] [TRT] {name}: dimensions not compatible for elementwise.\n{error}\n"
    assert _layers(text)[-1] == (name, "shape", True)


def test_a_nameless_error_without_a_warning_blames_nobody() -> None:
    assert _layers("[E] Error[4]: inherently false condition\n") == []


@pytest.mark.parametrize("runner", ["PluginV2", "PluginV3"])
def test_d6_a_plugin_runners_assertion_is_internal(runner: str) -> None:
    """n1099: the category says what failed (an assertion), not where (a plugin runner)."""
    text = (f"[V] [TRT] --------------- Timing Runner: LayerNormN-0 ({runner})\n"
            "[E] Error[2]: [pluginV2DynamicExtRunner.cpp::execute::115] Error Code 2: Internal "
            "Error (Assertion status == kSTATUS_SUCCESS failed. )\n")
    assert _layers(text) == [("LayerNormN-0", "internal-error", True)]


@pytest.mark.parametrize("check", ["kernel", "bias"])
def test_d1_weight_count_checks_are_api_usage_with_or_without_code(check: str) -> None:
    """n1042 prints the bias check with code 3; n020 the kernel check."""
    for printed in ("[E] [TRT] 3: conv_1:{c} weights has count 7 but 32 was expected",
                    "[E] [TRT] conv_1: {c} weights has count 7 but 32 was expected"):
        assert _layers(printed.format(c=check) + "\n") == [("conv_1", "api-usage", True)]
