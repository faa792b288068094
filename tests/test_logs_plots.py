"""The failure-summary plots show layer names whole: long names are wrapped, never cut with an
ellipsis (issue 11: names are never shortened inside the name)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from trtsafe_lab.logs.plots import LAYER_LABEL_CHARS, plot_layers, plot_summary
from trtsafe_lab.text import wrap_name

LONG_NAMES = [
    "/model/backbone/stage4/block3/attention/multi_head/qkv_projection/MatMul_output_0_clone_7",
    "ONNX Layer: /decoder/layers.11/self_attn/Softmax_plus_a_very_long_suffix_without_breaks",
    "x" * 130,  # no place to break: hard breaks at the width
    "{ForeignNode[/encoder/conv1/Conv.../encoder/blocks.5/mlp/fc2/Gemm]}",
    "short_conv",
]


@pytest.mark.parametrize("name", [*LONG_NAMES, "", "a/b", "conv_$x$ with spaces  twice"])
def test_wrap_name_keeps_every_character(name: str) -> None:
    lines = wrap_name(name, LAYER_LABEL_CHARS)
    assert "".join(lines) == name
    assert all(len(line) <= LAYER_LABEL_CHARS for line in lines)
    if len(name) <= LAYER_LABEL_CHARS:
        assert lines == [name]


def _summary(names: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"category": "no-tactic", "phase": "tactic", "layer": names,
                         "count": range(len(names), 0, -1), "fatal_count": 1})


def test_layer_plot_wraps_long_names_instead_of_cutting_them(tmp_path: Path) -> None:
    figure = plot_layers(_summary(LONG_NAMES))
    labels = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert sorted(label.replace("\n", "") for label in labels) == sorted(LONG_NAMES)
    assert not any("…" in label for label in labels)
    assert max(len(line) for label in labels for line in label.split("\n")) <= LAYER_LABEL_CHARS
    assert figure.get_figheight() > 4.0  # grown to fit the wrapped lines
    out = Path(os.environ.get("TRTSAFE_PLOT_DIR", tmp_path))
    figure.savefig(out / "layers-wrapped.png", dpi=80)
    both = plot_summary(_summary(LONG_NAMES))
    labels = [t.get_text() for t in both.axes[1].get_yticklabels()]
    assert sorted(label.replace("\n", "") for label in labels) == sorted(LONG_NAMES)
    both.savefig(out / "summary-wrapped.png", dpi=80)
