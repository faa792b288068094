"""The curated explanations (trtsafe_lab/logs/explanations.json), each on a real log."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from trtsafe_lab.logs import analyze_log, columns
from trtsafe_lab.logs.explanations import explanation, explanation_id, explanations

PROJECT = Path(__file__).parent / "data" / "logs"
CATEGORIES = {
    "safety-scope", "no-tactic", "no-implementation", "parser-unsupported", "parser-error",
    "dla-fallback", "myelin", "dla", "plugin", "shape", "tactic-out-of-memory", "out-of-memory",
    "tactic-failure", "api-usage", "runtime-failed", "build-failed", "internal-error", "other",
}


def _train_files() -> set[str]:
    with open(PROJECT / "INDEX.tsv", newline="", encoding="utf-8") as handle:
        return {r["file"] for r in csv.DictReader(handle, delimiter="\t") if r["split"] == "train"}


def _example(corpus_dir: Path, example: str) -> Path:
    kind, _, name = example.partition(":")
    if kind == "shared":
        return corpus_dir / "build-logs" / "cases" / name
    assert kind == "train" and name in _train_files(), f"{example}: not a train case"
    return PROJECT / "cases" / name


def test_the_knowledge_base_is_well_formed() -> None:
    entries = explanations()
    assert 30 <= len(entries) <= 64  # ~30 asked (issue 11), grown with the corpus's groups
    assert len({e.id for e in entries}) == len(entries)
    for entry in entries:
        assert entry.category in CATEGORIES | {"*"}, entry.id
        assert entry.title and entry.means and entry.causes and entry.try_, entry.id
        assert re.match(r"https://(github\.com|docs\.nvidia\.com)/", entry.url), entry.id
    assert explanation("no-implementation-foreignnode") is not None
    assert explanation("") is None and explanation("no-such-id") is None


@pytest.mark.parametrize("entry", explanations(), ids=lambda e: e.id)
def test_each_entry_explains_a_row_of_its_real_log(entry, corpus_dir: Path) -> None:  # type: ignore[no-untyped-def]
    failures = analyze_log(_example(corpus_dir, entry.example)).failures
    assert entry.id in set(failures[columns.EXPLANATION_ID]), (
        entry.example,
        failures[[columns.CATEGORY, columns.EXPLANATION_ID, columns.MESSAGE]].to_string(),
    )


def test_every_row_has_an_explanation_id_column(corpus_dir: Path) -> None:
    failures = analyze_log(corpus_dir / "build-logs" / "cases" / "001.log").failures
    assert columns.EXPLANATION_ID in failures
    assert failures[columns.EXPLANATION_ID].map(lambda v: isinstance(v, str)).all()
    assert explanation_id("other", "nothing known here") == ""


def test_table_format_prints_the_explanation_under_the_row(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from trtsafe_lab.cli import main

    assert main(["failures", str(corpus_dir / "build-logs" / "cases" / "001.log")]) == 0
    out = capsys.readouterr().out
    assert "{ForeignNode[onnx::Gather_72...ScatterND_170]}" in out  # whole, never "..."-cut
    assert "No implementation for a fused Myelin ForeignNode [no-implementation-foreignnode]" in out
    assert "https://github.com/NVIDIA/TensorRT/issues/2035" in out


def test_failure_explorer_detail_pane_shows_the_explanation(corpus_dir: Path) -> None:
    from trtsafe_lab.widgets.failure_explorer import render_detail_html

    failures = analyze_log(corpus_dir / "build-logs" / "cases" / "001.log").failures
    row = failures[failures[columns.EXPLANATION_ID] == "no-implementation-foreignnode"].iloc[0]
    pane = render_detail_html(row, None, 2)
    assert "<b>Explanation</b>" in pane and "issues/2035" in pane
    no_explanation = row.copy()
    no_explanation[columns.EXPLANATION_ID] = ""
    assert "Explanation" not in render_detail_html(no_explanation, None, 2)


def test_a_wrapped_message_matches_like_one_line() -> None:
    """TensorRT 10.16 wraps its message over indented lines (train n224: "... for node\\n
    {ForeignNode[...]}"): whitespace runs count as one space, so the entry still matches, and
    only in order (a ForeignNode named before the phrase is not this failure)."""
    wrapped = "Could not find any implementation for node\n  {ForeignNode[a...b]}.\n  In f at x:1"
    assert explanation_id("no-implementation", wrapped) == "no-implementation-foreignnode"
    other = "{ForeignNode[a...b]} done. Could not find any implementation for node Conv_1."
    assert explanation_id("no-implementation", other) == "no-implementation-node"
    failures = analyze_log(PROJECT / "cases" / "n224.log").failures
    assert "no-implementation-foreignnode" in set(failures[columns.EXPLANATION_ID])



def test_tensorrt_llm_runtime_deserialize_failure_is_explained() -> None:
    # train n170: Triton's glog line around "[TensorRT-LLM][ERROR] Assertion failed: Failed to
    # deserialize cuda engine (.../tllmRuntime.cpp:74)"
    failures = analyze_log(PROJECT / "cases" / "n170.log").failures
    assert "engine-deserialization-failed" in set(failures[columns.EXPLANATION_ID])


def test_a_cut_node_block_after_the_plugin_attempt_says_why() -> None:
    """n736, n743: the importer tried a plugin for an op it has no importer for, then printed
    the node's block; the reason line is cut. The row carries the importer's words before the
    header, and is explained as the missing plugin (a parse failure of a whole block reads the
    same: parser-unsupported, fatal)."""
    text = (
        "[11/22/2024-07:41:00] [I] [TRT] No importer registered for op: LayerNorm. Attempting "
        "to import as plugin.\n"
        "[11/22/2024-07:41:00] [I] [TRT] Searching for plugin: LayerNorm, plugin_version: 1, "
        "plugin_namespace:\n"
        "[11/22/2024-07:41:00] [E] [TRT] parsers/onnx/ModelImporter.cpp:726: While parsing node "
        'number 101 [LayerNorm -> "/enc/norm1/LayerNorm_output_0"]:\n'
    )
    failures = analyze_log(text.encode()).failures
    row = failures.iloc[0]
    assert (row[columns.LAYER], row[columns.CATEGORY], row[columns.FATAL]) == (
        "/enc/norm1/LayerNorm_output_0", "parser-unsupported", True
    )
    assert row[columns.MESSAGE].startswith("No importer registered for op: LayerNorm.")
    assert row[columns.EXPLANATION_ID] == "onnx-plugin-not-found"
