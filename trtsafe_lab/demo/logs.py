"""Demo step: failure tables and a summary plot from the bundled example logs."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from trtsafe_lab._optional import MissingDependencyError, require
from trtsafe_lab.examples import example_path
from trtsafe_lab.logs.analysis import analyze_log
from trtsafe_lab.logs.tables import flatten_for_csv, summarize_failures, to_records

EXAMPLES = example_path("logs")

# The toy graph the example logs were written against: (name, op_type, inputs, outputs).
_DEMO_GRAPH = (
    ("/backbone/conv1/Conv", "Conv", ["image"], ["/backbone/conv1/Conv_output_0"]),
    ("/backbone/act1/Relu", "Relu", ["/backbone/conv1/Conv_output_0"], ["feat"]),
    ("/neck/Resize", "Resize", ["feat"], ["/neck/Resize_output_0"]),
    ("/neck/Concat", "Concat", ["/neck/Resize_output_0", "feat"], ["/neck/Concat_output_0"]),
    ("/neck/fuse/Conv", "Conv", ["/neck/Concat_output_0"], ["/neck/fuse/Conv_output_0"]),
    ("/neck/fuse/act/Sigmoid", "Sigmoid", ["/neck/fuse/Conv_output_0"], ["sig"]),
    ("/neck/fuse/act/Mul", "Mul", ["/neck/fuse/Conv_output_0", "sig"], ["neck"]),
    ("/head/attn/MatMul", "MatMul", ["neck", "neck"], ["scores"]),
    ("/head/attn/Div", "Div", ["scores", "scale"], ["scaled"]),
    ("/head/attn/Softmax", "Softmax", ["scaled"], ["probs"]),
    ("/head/attn/MatMul_1", "MatMul", ["probs", "neck"], ["attn"]),
    ("/head/NonZero", "NonZero", ["attn"], ["boxes"]),
)


def example_logs() -> list[Path]:
    """The bundled example logs (written by the project; see examples/logs/README.md)."""
    return sorted(EXAMPLES.glob("*.log"))


def demo_model(path: Path) -> Path:
    """Write the toy ONNX graph matching the example logs' node names to ``path``."""
    onnx = require("onnx", feature="The failure-table demo's ONNX enrichment")
    helper = onnx.helper
    nodes = [helper.make_node(op, inputs, outputs, name=name) for name, op, inputs, outputs in
             _DEMO_GRAPH]
    graph = helper.make_graph(
        nodes,
        "perception_head",
        [helper.make_tensor_value_info("image", onnx.TensorProto.FLOAT, [1, 3, 256, 256])],
        [helper.make_tensor_value_info("boxes", onnx.TensorProto.INT64, [2, None])],
        [helper.make_tensor("scale", onnx.TensorProto.FLOAT, [], [8.0])],
    )
    onnx.save(helper.make_model(graph, producer_name="trtsafe-lab demo"), str(path))
    return path


def run_demo(out_dir: Path) -> list[Path]:
    """Write per-log failure tables (CSV, JSON), a summary CSV and a summary PNG; with the onnx
    extra, the toy ONNX model too and the tables gain its op types and node indices."""
    from trtsafe_lab.logs.plots import plot_summary

    written: list[Path] = []
    model: Path | None = None
    try:
        model = demo_model(out_dir / "perception_head.onnx")
        written.append(model)
    except MissingDependencyError as err:  # said, not hidden: the tables lack the ONNX columns
        print(f"[demo] logs: failure tables without ONNX op types and node indices: {err}")
    frames = []
    for log in example_logs():
        failures = analyze_log(log, onnx_model=model).failures
        stem = log.stem
        csv_path = out_dir / f"{stem}.failures.csv"
        json_path = out_dir / f"{stem}.failures.json"
        flatten_for_csv(failures).to_csv(csv_path, index=False)
        json_path.write_text(json.dumps(to_records(failures), indent=2, ensure_ascii=False))
        written += [csv_path, json_path]
        frames.append(failures.assign(log=log.name))
    combined = pd.concat(frames, ignore_index=True)
    summary = summarize_failures(combined)
    summary_path = out_dir / "summary.csv"
    summary.to_csv(summary_path, index=False)
    figure = plot_summary(summary, title="Failure tables of the bundled example logs")
    png_path = out_dir / "summary.png"
    figure.savefig(png_path, dpi=110)
    return [*written, summary_path, png_path]
