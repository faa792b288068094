"""Names read by their position in TensorRT's message grammar (trtsafe_lab.logs.name_grammar).

The lines are real published lines (the corpus files named) or follow them word for word with
another name put in.
"""

from __future__ import annotations

import pytest

from trtsafe_lab.logs import analyze_log
from trtsafe_lab.logs.name_grammar import leading_name, positional_names, tensor_names
from trtsafe_lab.logs.name_tokens import looks_like_name, name_token

TORCH2TRT = (
    "[CONVOLUTION #1] torch.nn.Conv2d.forward(Conv2d(3, 32, kernel_size=(7, 7), stride=(2, 2), "
    "padding=(3, 3)), tensor(shape=[2, 3, 184, 320], dtype=torch.float32))"
)

FOREIGN = "{ForeignNode[a...b + (Unnamed Layer* 3) [Shuffle]]}"
UNNAMED = "(Unnamed Layer* 0) [PluginV2DynamicExt]_output"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (FOREIGN + ". Next", FOREIGN),
        (UNNAMED + ". This", UNNAMED),
        ("a.b/Conv + PWN(PWN(c), d): reason", "a.b/Conv + PWN(PWN(c), d)"),
        (TORCH2TRT + ":kernel weights has count 4704", TORCH2TRT),
        ("onnx::Gather_72 because DLA", "onnx::Gather_72"),
        ("conv_6", "conv_6"),
        ("BiasAdd:0", "BiasAdd:0"),
    ],
)
def test_name_token_reads_whole_names(text: str, name: str) -> None:
    assert name_token(text, 0) == name


def test_looks_like_name_rejects_prose_numbers_and_files() -> None:
    assert looks_like_name("Reshape_3") and looks_like_name("(Unnamed Layer* 1) [Shuffle]")
    for word in ("Assertion", "condition", "0x0000000000000000", "12", "ModelImporter.cpp:124"):
        assert not looks_like_name(word), word


def test_reason_and_message_leading_names() -> None:
    # tests/data/logs/cases/n020.log (torch2trt, Windows): the name is followed by ':' alone
    reason = ":kernel weights has count 4704 but 9408 was expected"
    assert leading_name(TORCH2TRT + reason) == TORCH2TRT
    # ../shared/corpus 8.x form: "[location] Error Code 4: Internal Error (LAYER: reason)"
    line = (
        "[shuffleNode.cpp::symbolicExecute::387] Error Code 4: Internal Error (Reshape_3: "
        "IShuffleLayer applied to shape tensor must have 0 or 1 reshape dimensions: dimensions "
        "were [-1,2])"
    )
    assert leading_name(line) == "Reshape_3"
    # not names: a parameter check, an assertion, a source location
    for prose in (
        "[layers.h::nvinfer1::ConcatenationLayer::setAxis::624] Error Code 3: Internal Error "
        "(Parameter check failed at: layers.h::nvinfer1::ConcatenationLayer::setAxis::624, "
        "condition: axis >= 0",
        "[5] Assertion failed: ctx->tensors().count(inputName)",
        "/opt/onnx-tensorrt/ModelImporter.cpp:124 In function parseGraph:",
    ):
        assert leading_name(prose) == "", prose


def test_positional_names_after_layer_and_dla_split() -> None:
    # tests/data/logs/cases/n016.log (DeepStream) and n014.log (DLA subgraph split)
    assert positional_names(
        "DLA supports only 8 subgraphs per DLA core. Switching to GPU for layer conv_6"
    ) == ["conv_6"]
    assert positional_names(
        "Splitting DLA subgraph at: /model.10/m/m.0/attn/Reshape because DLA validation failed "
        "for this layer."
    ) == ["/model.10/m/m.0/attn/Reshape"]


def test_a_tensor_goes_to_the_tensors_column_not_layer() -> None:
    # ../shared/corpus (TF-TRT converted model): "LAYER: reshaping failed for tensor: TENSOR"
    line = (
        "[12:15:24] [E] [TRT] StatefulPartitionedCall/sequential_1/reshape_1/Reshape: reshaping "
        "failed for tensor: StatefulPartitionedCall/sequential_1/conv2d_41/BiasAdd:0"
    )
    assert tensor_names(line) == ["StatefulPartitionedCall/sequential_1/conv2d_41/BiasAdd:0"]
    failures = analyze_log(line, text=True).failures
    assert list(failures["layer"]) == ["StatefulPartitionedCall/sequential_1/reshape_1/Reshape"]
    assert failures["tensors"][0] == ("StatefulPartitionedCall/sequential_1/conv2d_41/BiasAdd:0",)


def test_node_dump_whose_error_line_was_cut_still_blames_the_node() -> None:
    """The ONNX parser prints a node block only for the node that failed."""
    log = (
        "[E] [TRT] ModelImporter.cpp:773: While parsing node number 232 "
        "[Resize -> \"onnx::Concat_559\"]:\n"
        "[E] [TRT] ModelImporter.cpp:774: --- Begin node ---\n"
        "[E] [TRT] ModelImporter.cpp:775: input: \"x\"\n"
        "output: \"onnx::Concat_559\"\n"
        "name: \"Resize_232\"\n"
        "op_type: \"Resize\"\n"
        "[E] [TRT] ModelImporter.cpp:776: --- End node ---\n"
    )
    failures = analyze_log(log, text=True).failures
    assert list(failures["layer"]) == ["Resize_232"]
    row = failures.iloc[0]
    assert (row["category"], bool(row["fatal"]), row["line"]) == ("parser-error", True, 1)
    # the same block followed by its error line gives one row, from the error
    with_error = log + (
        "[E] [TRT] ModelImporter.cpp:779: ERROR: ModelImporter.cpp:179 In function parseGraph:\n"
        "[8] Assertion failed: scales\n"
    )
    failures = analyze_log(with_error, text=True).failures
    assert list(failures["layer"]) == ["Resize_232"] and failures.iloc[0]["line"] == 8


def test_warnings_that_are_not_findings_stay_out() -> None:
    # ../shared/corpus: a warning naming a tensor of an Unnamed layer is not a failure
    line = (
        "[04/30/2026-18:05:53] [TRT] [W] ITensor::setType(Float) was called on non I/O tensor: "
        "(Unnamed Layer* 0) [PluginV2DynamicExt]_output. This will have no effect unless this "
        "tensor is marked as an output."
    )
    assert analyze_log(line, text=True).failures.empty


def test_tensorrt_llm_plugin_layer_named_in_the_reason() -> None:
    # published in https://github.com/NVIDIA/TensorRT-LLM/issues/582 (TensorRT-LLM build)
    log = (
        "[12/06/2023-05:15:03] [TRT] [E] 9: [pluginV2Builder.cpp::reportPluginError::24] Error "
        "Code 9: Internal Error (LLaMAForCausalLM/layers/0/attention/PLUGIN_V2_GPTAttention_0: "
        "could not find any supported formats consistent with input/output data types)\n"
        "[12/06/2023-05:15:03] [TRT-LLM] [E] Engine building failed, please check the error log.\n"
    )
    failures = analyze_log(log, text=True).failures
    named = failures[failures["layer"] != ""].iloc[0]
    assert named["layer"] == "LLaMAForCausalLM/layers/0/attention/PLUGIN_V2_GPTAttention_0"
    assert (named["category"], bool(named["fatal"])) == ("plugin", True)
    assert named["explanation_id"] == "no-supported-formats"


def test_a_name_inside_a_found_name_is_a_member_of_it() -> None:
    """The grammar's candidates are checked against the record's names found so far: a member of
    a fused name the record prints whole is no layer of its own; another name is."""
    head = "[12/01/2026-10:00:00] [E] [TRT] 10: Could not find any implementation for node "
    text = head + "Conv_1 + Relu_2.\n    failed at layer Conv_1\n    failed at layer Add_3\n"
    assert list(analyze_log(text.encode()).failures["layer"]) == ["Conv_1 + Relu_2", "Add_3"]


def test_a_record_of_many_long_names_keeps_each_once() -> None:
    """The membership check is bounded (record_names.MAX_CONTAINING_CHARS of found names are
    searched): a record whose names run past it still reads each distinct name once, and a
    member of the first name is still dropped."""
    from trtsafe_lab.logs.record_names import MAX_CONTAINING_CHARS
    from trtsafe_lab.logs.records import MAX_CONTINUATION

    long = "/" + "/".join(f"block{k}" for k in range(40))
    names = [f"{long}/Conv_{i}" for i in range(MAX_CONTINUATION - 2)]
    assert sum(map(len, names)) > MAX_CONTAINING_CHARS
    text = (
        "[12/01/2026-10:00:00] [E] [TRT] 10: Could not find any implementation for node "
        "Conv_1 + Relu_2.\n"
        + "".join(f"    failed at layer {name}\n" for name in names + names[:3])
        + "    failed at layer Relu_2\n"
    )
    layers = list(analyze_log(text.encode()).failures["layer"])
    assert layers == ["Conv_1 + Relu_2", *names]


@pytest.mark.parametrize("line", [
    "is_p: 2 gd: 0.33 gw: 0.5 channels: 1024",  # n820's first line
    "max_workspace_size: 1073741824",
    "input_1: [1, 3, 224, 224]",
    "input_1: (1, 3, 224, 224), output_0: (1, 1000)",
    "use_fp16: True",
    "lr_scale: 1e-5",
    "calib_batch_3: 32 opt_level: 3",
])
def test_an_apps_key_value_print_names_no_layer(line: str) -> None:
    assert leading_name(line) == ""
    report = f"[12/01/2026-10:00:00] [E] {line}\n"
    assert list(analyze_log(report.encode()).failures["layer"]) == [""]


def test_a_numbered_reason_is_still_a_reason() -> None:
    assert leading_name("conv_1: 3 input channels expected") == "conv_1"
    assert leading_name("conv_1: 0.5 scale is out of range") == "conv_1"


@pytest.mark.parametrize("reason", [
    "for dimension number 1 in profile 0 does not match network definition (got min=3, opt=3, "
    "max=3), expected min=opt=max=1).",
    "kMIN dimensions in profile 0 are [1,1] but input has static dimensions [1,128].",
    "kOPT dimensions in profile 0 are [1,3,640,640] but input has static dimensions [4,3,640,640].",
    "dynamic input is missing dimensions in profile 0.",
    "network input that is shape tensor must have type Int32",
    "Input dimensions with this name are inconsistent.",
    "tensor volume exceeds 2147483647, dimensions are [4096,4096]",
])
@pytest.mark.parametrize("subject", ["input_1", "input.1", "images:0", "/x/MatMul_output_0"])
def test_a_network_inputs_profile_error_names_a_tensor(subject: str, reason: str) -> None:
    """Network validation's checks of a network input against the optimization profile (and the
    shape machine's tensor-volume check) name a tensor: the tensors column, no layer."""
    for line in (
        f"[E] [TRT] 4: [network.cpp::validate::2925] Error Code 4: Internal Error ({subject}: "
        f"{reason})",
        f"[TensorRT] ERROR: {subject}: {reason}",
    ):
        failures = analyze_log((line + "\n").encode()).failures
        assert list(failures["layer"]) == [""], line
        assert list(failures["tensors"]) == [(subject,)], line
