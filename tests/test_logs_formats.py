"""Per-format checks on named corpus logs: the columns, not only the names."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from trtsafe_lab.logs import analyze_log


@pytest.fixture(scope="module")
def case(corpus_dir: Path):  # type: ignore[no-untyped-def]
    def load(name: str) -> pd.DataFrame:
        return analyze_log(corpus_dir / "build-logs" / "cases" / f"{name}.log").failures

    return load


def _named(failures: pd.DataFrame) -> pd.DataFrame:
    return failures[failures["layer"] != ""]


def test_trtexec_error_bracket_form(case) -> None:  # type: ignore[no-untyped-def]
    failures = case("001")
    row = _named(failures).iloc[0]
    assert row["layer"] == "{ForeignNode[onnx::Gather_72...ScatterND_170]}"
    assert row["members"] == ("onnx::Gather_72", "ScatterND_170")
    assert (row["error_code"], row["error_name"]) == (10, "Internal Error")
    assert row["error_enum"] == "kUNSUPPORTED_STATE"
    assert row["location"] == "optimizer.cpp::computeCosts::2011"
    assert row["function"] == "computeCosts"
    assert (row["category"], row["phase"], row["fatal"], row["line"]) == (
        "no-implementation", "tactic", True, 3
    )
    assert row["source"] == "trtexec"
    # the skipped tactic before it is a non-fatal tactic-out-of-memory warning, no layer
    first = failures.iloc[0]
    assert (first["severity"], first["category"], first["fatal"]) == (
        "warning", "tactic-out-of-memory", False
    )


def test_python_logger_number_prefix(case) -> None:  # type: ignore[no-untyped-def]
    failures = _named(case("002"))
    assert list(failures["error_code"]) == [10, 10]
    assert set(failures["source"]) == {"tensorrt"}
    assert failures.iloc[0]["members"] == (
        "(Unnamed Layer* 1247) [Shuffle]", "/layers.7/Transpose_2", "/layers.7/Reshape_4"
    )


def test_nested_brackets_and_truncated_first_line(case) -> None:  # type: ignore[no-untyped-def]
    failures = case("004")
    row = failures.iloc[0]
    assert row["layer"] == "{ForeignNode[177...Reshape_81 + (Unnamed Layer* 146) [Shuffle]]}"
    assert row["severity"] == "error" and row["error_code"] == 10


def test_windows_fully_qualified_function(case) -> None:  # type: ignore[no-untyped-def]
    row = case("005").iloc[-1]
    assert row["function"] == "nvinfer1::builder::cgraph::LeafCNode::computeCosts"
    assert row["location"].endswith("computeCosts::3869")


def test_error_code_inside_a_warning_is_not_fatal(case) -> None:  # type: ignore[no-untyped-def]
    row = _named(case("006")).iloc[0]
    assert row["layer"] == "/patch_embed/patch_embed.0/Conv"
    assert (row["severity"], row["fatal"], row["error_code"]) == ("warning", False, 4)


def test_model_importer_invalid_node_wrapping_a_builder_error(case) -> None:  # type: ignore[no-untyped-def]
    failures = _named(case("023"))
    by_layer = dict(zip(failures["layer"], failures["category"], strict=True))
    assert by_layer == {"Pad_692": "parser-error", "Reshape_681": "shape"}
    assert set(failures["phase"]) == {"parse"}
    assert set(failures["source"]) == {"onnx-parser"}


def test_node_dump_name_wins_over_output_tensor(case) -> None:  # type: ignore[no-untyped-def]
    assert set(_named(case("060"))["layer"]) == {"Pad_13", "Reshape_3"}
    assert set(_named(case("063"))["layer"]) == {"node__unique2__0"}
    assert set(_named(case("079"))["layer"]) == {"Mul_1384"}


def test_legacy_while_parsing_header(case) -> None:  # type: ignore[no-untyped-def]
    assert list(_named(case("011"))["layer"]) == ["570"]
    assert list(_named(case("012"))["layer"]) == ["570"]  # interleaved stdout/stderr
    for name in ("010", "015"):  # header without an output name: nothing to blame
        failures = case(name)
        assert _named(failures).empty
        assert "parser-error" in set(failures["category"])


def test_parser_errors_printed_by_an_application(case) -> None:  # type: ignore[no-untyped-def]
    failures = _named(case("019"))  # "In node 11 with name: X and operator: Y ...", untagged
    assert list(failures["layer"]) == ["/dense_motion_network/GridSample", "/GridSample"]
    assert set(failures["severity"]) == {"error"} and failures["fatal"].all()
    assert set(failures["category"]) == {"parser-unsupported"}


def test_verbose_importer_line_names_the_node(case) -> None:  # type: ignore[no-untyped-def]
    assert list(_named(case("014"))["layer"]) == ["preprocessor/PadV2"]


def test_polygraphy(case) -> None:  # type: ignore[no-untyped-def]
    failures = case("064")
    assert set(_named(failures)["layer"]) == {
        "UnknownModel-N-1-UnknownNode1", "UnknownModel-N-3-UnknownNode2"
    }
    assert set(_named(failures)["category"]) == {"parser-unsupported"}
    runtime = case("085")
    assert list(runtime["severity"]) == ["error", "warning", "error", "critical"]
    assert set(runtime["phase"]) == {"runtime"}
    assert set(runtime["source"]) == {"polygraphy"}


def test_deepstream_logger(case) -> None:  # type: ignore[no-untyped-def]
    failures = case("084")
    assert list(failures["error_code"].dropna()) == [2, 2]
    assert set(failures["source"]) == {"deepstream"}
    assert set(failures["category"]) == {"tactic-out-of-memory"}
    assert not failures["fatal"].any()


def test_trtorch_torchscript_node_name(case) -> None:  # type: ignore[no-untyped-def]
    failures = _named(case("073"))
    layer = failures.iloc[0]["layer"]
    assert layer.startswith("%602 : Float(1:524288")
    assert layer.endswith("torch/nn/modules/conv.py:907:0")
    assert set(failures["source"]) == {"trtorch"}


def test_trt_10_16_source_location_is_not_part_of_the_name(case) -> None:  # type: ignore[no-untyped-def]
    row = _named(case("061")).iloc[0]
    assert row["layer"].endswith("[DynamicQuantize]]}")
    assert row["location"] == "/_src/optimizer/common/tactic/optimizer.cpp:4265"
    assert row["function"] == "computeCosts"
    plugin = _named(case("062")).iloc[0]
    assert plugin["layer"] == "(Unnamed Layer* 0) [PluginV2DynamicExt]"


def test_dla_fallback_lists(case) -> None:  # type: ignore[no-untyped-def]
    # 043: 13 fallback lines plus the reason line "layer84-route: Concatenation on DLA requires
    # at least two inputs." (a warning naming the layer: a dla-fallback row of its own)
    for name, count in (("039", 9), ("043", 14)):
        fallback = case(name)
        fallback = fallback[fallback["category"] == "dla-fallback"]
        assert len(fallback) == count
        assert set(fallback["severity"]) == {"warning"}
        assert not fallback["fatal"].any()
    assert case("039").iloc[0]["layer"] == "Projection Matrix Multiply"


def test_fused_names_and_getbesttactic(case) -> None:  # type: ignore[no-untyped-def]
    row = _named(case("049")).iloc[0]
    assert row["members"] == ("/model.1/conv/Conv", "/model.1/act/Sigmoid", "/model.1/act/Mul")
    tactic = _named(case("076"))
    assert set(tactic["category"]) == {"tactic-failure"}
    assert tactic.iloc[0]["layer"].endswith("node_of_gpu_0/res_conv1_bn_2")


def test_multi_line_records(corpus_dir: Path) -> None:
    events = analyze_log(corpus_dir / "build-logs" / "cases" / "054.log").events
    first = events.iloc[0]
    assert (first["line"], first["end_line"]) == (1, 2)
    assert first["message"].endswith("\n)")
    assert first["error_code"] == 3 and first["error_name"] == "API Usage Error"


def test_several_records_on_one_line_and_time_only_stamps(corpus_dir: Path) -> None:
    analysis = analyze_log(corpus_dir / "build-logs" / "cases" / "082.log")
    on_line_6 = analysis.events[analysis.events["line"] == 6]
    assert len(on_line_6) == 4
    assert set(on_line_6["timestamp"]) == {"12:15:24"}
    named = _named(analysis.failures)
    assert set(named["layer"]) == {"StatefulPartitionedCall/sequential_1/reshape_1/Reshape"}
    assert set(named["phase"]) == {"runtime"}  # after "Engine built in"


def test_epoch_and_odd_timestamps(corpus_dir: Path) -> None:
    events = analyze_log(corpus_dir / "build-logs" / "cases" / "056.log").events
    assert events.iloc[0]["timestamp"] == "01/02/1970-22:13:57"
    events = analyze_log(corpus_dir / "build-logs" / "cases" / "015.log").events
    assert "00/24/2022-14:31:30" in set(events["timestamp"])


def test_names_that_are_not_failures(case) -> None:  # type: ignore[no-untyped-def]
    assert _named(case("047")).empty  # binding names after "Starting inference"
    assert _named(case("077")).empty  # [GpuLayer] placement lines
    assert _named(case("068")).empty  # ForeignNodes in a successful build's layer information
    plugin = case("062")
    assert list(_named(plugin)["layer"]) == ["(Unnamed Layer* 0) [PluginV2DynamicExt]"]
    # "setType ... on non I/O tensor: (Unnamed Layer* 0) [PluginV2DynamicExt]_output" warnings
    assert "warning" not in set(plugin["severity"])


def test_stacked_timestamps_and_tf_trt_lines() -> None:
    """Constructed lines (no public sample in the corpus): an app timestamp in front of
    TensorRT's, and TensorFlow's own log format for TF-TRT."""
    text = (
        "2024-05-01 10:00:00,123 [05/01/2024-10:00:00] [E] [TRT] 10: Could not find any "
        "implementation for node conv_a.\n"
        "2021-05-10 12:34:56.789012: E tensorflow/compiler/tf2tensorrt/utils/trt_logger.cc:41] "
        "DefaultLogger Could not find any implementation for node conv_b.\n"
        "E0510 12:34:56.789012 4242 trt_logger.cc:41] DefaultLogger Could not find any "
        "implementation for node conv_c.\n"
    )
    analysis = analyze_log(text, text=True)
    events = analysis.events
    assert list(events["timestamp"])[:2] == [
        "2024-05-01 10:00:00,123",
        "2021-05-10 12:34:56.789012",
    ]
    assert list(events["severity"]) == ["error"] * 3
    assert list(events["source"])[1:] == ["tf-trt", "tf-trt"]
    assert list(analysis.failures["layer"]) == ["conv_a", "conv_b", "conv_c"]
