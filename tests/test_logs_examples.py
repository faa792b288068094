"""The 11.x safety forms, on the project-written example logs (no public sample exists)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trtsafe_lab.demo.logs import EXAMPLES, demo_model, example_logs, run_demo
from trtsafe_lab.logs import analyze_log


def test_examples_are_bundled_and_marked_as_written_by_the_project() -> None:
    assert len(example_logs()) == 4
    assert "written by the trtsafe-lab project" in (EXAMPLES / "README.md").read_text()


def test_autotuner_traceback_and_no_tactic_available() -> None:
    failures = analyze_log(EXAMPLES / "trt11-safe-build-no-tactic.log").failures
    no_tactic = failures[failures["category"] == "no-tactic"]
    assert list(no_tactic["layer"]) == [
        "/head/attn/MatMul",
        "/head/attn/Softmax",
        "/head/attn/MatMul_1",
        "{ForeignNode[/head/attn/MatMul.../head/attn/MatMul_1]}",
    ]
    assert set(no_tactic["phase"]) == {"tactic"} and no_tactic["fatal"].all()
    last = no_tactic.iloc[-1]
    assert (last["error_code"], last["function"]) == (10, "computeCosts")
    assert last["members"] == ("/head/attn/MatMul", "/head/attn/MatMul_1")


def test_single_layer_autotuner_and_fused_no_tactic() -> None:
    failures = analyze_log(EXAMPLES / "trt11-safe-build-autotuner.log").failures
    named = failures[failures["layer"] != ""]
    assert list(named["layer"]) == [
        "/neck/fuse/Conv",
        "/neck/fuse/Conv + PWN(PWN(/neck/fuse/act/Sigmoid), /neck/fuse/act/Mul)",
    ]


def test_safety_scope_rejections_before_the_build() -> None:
    failures = analyze_log(EXAMPLES / "trt10-safety-scope-rejection.log").failures
    scope = failures[failures["category"] == "safety-scope"]
    assert list(scope["layer"]) == ["/neck/Resize", "/head/NonZero", ""]
    assert set(scope["phase"]) == {"build"} and scope["fatal"].all()
    assert list(scope["error_code"]) == [3, 3, 4]


def test_successful_safe_build_has_no_fatal_rows() -> None:
    failures = analyze_log(EXAMPLES / "trt11-safe-build-passed.log").failures
    assert not failures["fatal"].any()
    assert list(failures["category"]) == ["tactic-out-of-memory"]


def test_onnx_enrichment_expands_foreign_node_ranges(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    model = demo_model(tmp_path / "perception_head.onnx")
    failures = analyze_log(EXAMPLES / "trt11-safe-build-no-tactic.log", onnx_model=model).failures
    by_layer = failures.set_index("layer")
    foreign = by_layer.loc["{ForeignNode[/head/attn/MatMul.../head/attn/MatMul_1]}"]
    assert foreign["onnx_nodes"] == (
        "/head/attn/MatMul", "/head/attn/Div", "/head/attn/Softmax", "/head/attn/MatMul_1"
    )
    softmax = by_layer.loc["/head/attn/Softmax"]
    assert (softmax["onnx_op"], softmax["onnx_index"]) == ("Softmax", 9)
    unnamed = failures[failures["layer"] == ""]
    assert unnamed["onnx_index"].isna().all()


def test_onnx_enrichment_matches_legacy_output_tensor_names(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    helper = onnx.helper
    graph = helper.make_graph(
        [helper.make_node("Resize", ["x", "", "scales"], ["570"], name="")],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("570", onnx.TensorProto.FLOAT, None)],
    )
    text = (
        'While parsing node number 0 [Resize -> "570"]:\n'
        "ERROR: x.cpp:1 In function importResize:\n"
    )
    failures = analyze_log(text, text=True, onnx_model=helper.make_model(graph)).failures
    assert (failures.iloc[0]["layer"], failures.iloc[0]["onnx_op"]) == ("570", "Resize")


def test_demo_writes_tables_and_a_summary_png(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    import matplotlib

    matplotlib.use("Agg")
    written = run_demo(tmp_path)
    names = {path.name for path in written}
    assert {"summary.png", "summary.csv", "trt11-safe-build-no-tactic.failures.json"} <= names
    png = tmp_path / "summary.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
