"""The failure-summary plots show layer names whole: long names are wrapped, never cut with an
ellipsis (issue 11: names are never shortened inside the name)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pandas as pd
import pytest

from trtsafe_lab.logs.plots import LAYER_LABEL_CHARS, plot_layers, plot_summary
from trtsafe_lab.text import for_matplotlib, wrap_name

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


# -- failure signatures: each label whole, however long, however many --------------------------
def _signatures(texts: list[str], categories: list[str]) -> pd.DataFrame:
    n = len(texts)
    return pd.DataFrame({"signature": texts, "category": categories,
                         "count": [n - i + 1 for i in range(n)],
                         "log_count": [n - i for i in range(n)]})


def _long_signature(i: int) -> str:
    """A made-up signature of 200+ characters, like the long real ones (names, dims, paths)."""
    words = (f"<name>: signature {i} of the test, all concat input tensors must have the same "
             "dimensions except on the concatenation axis <dims>, but dimensions mismatched at "
             f"input <n> at index <n>. Input <n> shape: <dims>, Input <n> shape: <dims> [{i}]")
    return words + "_" * (i % 5) * 20  # some end in a run with no place to break


def _tick_texts(figure: object) -> list[str]:
    return [t.get_text() for t in figure.axes[0].get_yticklabels()]  # type: ignore[attr-defined]


def test_signature_plot_shows_forty_long_signatures_whole_and_apart(tmp_path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from trtsafe_lab.logs.plots import SIGNATURE_LABEL_CHARS, plot_signatures

    texts = [_long_signature(i) for i in range(40)]
    texts[3] = texts[3] + " conv_$\\undefinedmacro{x}$ \x1b[31mred\x1b[0m"  # data, not markup
    assert min(map(len, texts)) >= 200
    categories = ["shape", "no-implementation", "parser-error", "api-usage", "plugin"] * 8
    figure = plot_signatures(_signatures(texts, categories), top=40)
    labels = _tick_texts(figure)
    assert len(labels) == 40
    # every signature whole (escaped for matplotlib), wrapped at the width, none cut
    assert sorted(label.replace("\n", "") for label in labels) == sorted(
        for_matplotlib(text) for text in texts)
    assert not any("…" in label for label in labels)
    assert all(len(line) <= SIGNATURE_LABEL_CHARS + 2  # + the two "\" before "$"
               for label in labels for line in label.split("\n"))
    assert all(label.count("\n") >= 2 for label in labels)  # 200+ characters: 3 lines or more
    # drawn: the labels fit in the figure and no two overlap
    FigureCanvasAgg(figure).draw()
    boxes = sorted((t.get_window_extent() for t in figure.axes[0].get_yticklabels()),
                   key=lambda box: box.y0)
    height = figure.get_figheight() * figure.dpi
    assert boxes[0].y0 >= 0 and boxes[-1].y1 <= height
    assert all(low.y1 <= high.y0 for low, high in itertools.pairwise(boxes))
    # the figure grew for them: taller than the same plot of 10
    assert figure.get_figheight() > 2 * plot_signatures(
        _signatures(texts[:10], categories[:10]), top=40).get_figheight()
    out = Path(os.environ.get("TRTSAFE_PLOT_DIR", tmp_path))
    figure.savefig(out / "signatures-40-long.png", dpi=80)


def test_signature_plot_gives_each_category_its_own_colour() -> None:
    from trtsafe_lab.logs.plots import plot_signatures

    categories = ["no-implementation", "api-usage", "plugin", "runtime-failed", "tactic-failure",
                  "internal-error", "dla", "other", "", "shape"]
    figure = plot_signatures(_signatures([f"failure {i}" for i in range(10)], categories))
    legend = figure.axes[0].get_legend()
    colours = [tuple(patch.get_facecolor()) for patch in legend.get_patches()]
    assert [t.get_text() for t in legend.get_texts()] == [c or "-" for c in categories]
    assert len(set(colours)) == len(categories)


def test_signature_plot_of_the_example_logs_labels_every_signature_whole() -> None:
    from trtsafe_lab.examples import example_path
    from trtsafe_lab.logs.plots import FOLLOW_UP_CATEGORIES, plot_signatures
    from trtsafe_lab.logs.signatures import failure_signatures

    signatures = failure_signatures(sorted(example_path("logs").glob("*.log")))
    shown = signatures[~signatures["category"].isin(FOLLOW_UP_CATEGORIES)]
    labels = _tick_texts(plot_signatures(signatures, top=len(signatures)))
    assert sorted(label.replace("\n", "") for label in labels) == sorted(
        for_matplotlib(text) for text in shown["signature"])
    assert any("\n" in label for label in labels)  # some are long enough to wrap
