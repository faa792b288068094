"""Failure signatures group the same failure across real logs (trtsafe_lab.logs.signatures,
signature_text)."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from trtsafe_lab.logs.signature_text import signature
from trtsafe_lab.logs.signatures import failure_signatures

PROJECT = Path(__file__).parent / "data" / "logs"
CASES = PROJECT / "cases"
FOLLOW_UPS = ("build-failed",)  # "Engine could not be created": every failed build says it
# explanations of messages that follow any failure ("Failed to parse onnx file", DeepStream's
# "Build engine failed from config file"): sharing one of them does not make one failure
FOLLOW_UP_EXPLANATIONS = (
    "engine-build-failed-followup", "onnx-parse-failed-followup", "deepstream-engine-build-failed"
)
NO_IMPLEMENTATION = "Could not find any implementation for node <name>"


def _train_groups() -> dict[str, list[Path]]:
    """Train cases the corpus tags ``group:<name>`` (set-aside cases are never read here)."""
    groups: dict[str, list[Path]] = defaultdict(list)
    with open(PROJECT / "INDEX.tsv", newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["split"] != "train":
                continue
            for tag in row["tags"].split(";"):
                if tag.startswith("group:"):
                    groups[tag].append(CASES / row["file"])
    return {name: logs for name, logs in groups.items() if len(logs) >= 2}


def _group_key(logs: list[Path]) -> tuple[str, str]:
    """What makes the logs of a group one failure: ``(signature, explanation_id)`` of a row
    signature every log has, else ``("", explanation_id)`` of an explanation every log has;
    follow-ups (build-failed rows, follow-up explanations) never count. ``("", "")``: none."""
    table = failure_signatures(logs)
    # (a build-failed row a curated entry explains is a failure of its own: ONNX Runtime's
    # fused node, decision D12)
    table = table[
        (~table["category"].isin(FOLLOW_UPS) | (table["explanation_id"] != ""))
        & ~table["explanation_id"].isin(FOLLOW_UP_EXPLANATIONS)
    ]
    everywhere = table[table["log_count"] == len(logs)]
    if not everywhere.empty:
        return everywhere.iloc[0]["signature"], everywhere.iloc[0]["explanation_id"]
    logs_per_explanation: dict[str, set[str]] = defaultdict(set)
    for explanation, logs_seen in zip(table["explanation_id"], table["logs"], strict=True):
        if explanation:
            logs_per_explanation[explanation].update(logs_seen)
    shared = sorted(e for e, seen in logs_per_explanation.items() if len(seen) == len(logs))
    return ("", shared[0]) if shared else ("", "")


def test_there_are_train_groups_to_check() -> None:
    assert len(_train_groups()) >= 3


@pytest.mark.parametrize("group", sorted(_train_groups()))
def test_logs_of_one_group_are_one_failure(group: str) -> None:
    """The group rule. A ``group:`` tag says its logs show one failure. They count as one when
    (a) one signature is in every log (one wording: the prefixes, names, numbers, paths and
    tactic ids the logs differ in are placeholders), or (b) where TensorRT versions or tools
    word the failure differently (TRT 8's ``Error Code 9 ... reshape changes volume`` and
    Torch-TensorRT's ``Error Code 4 ... IShuffleLayer ... reshape changes volume. Reshaping``),
    one curated explanation (``explanation_id``, a family of wordings) is in every log. Follow-up
    rows that any failed build prints (``build-failed``, "Failed to parse onnx file", DeepStream's
    "Build engine failed") never make a group."""
    signature_, explanation = _group_key(_train_groups()[group])
    assert signature_ or explanation, (group, failure_signatures(_train_groups()[group])[
        ["signature", "explanation_id", "log_count"]].to_string())


def test_different_groups_are_different_failures() -> None:
    """Different failures must not collapse: no two groups are one failure by the rule above
    (the same signature with the same explanation). One message with names of different kinds
    stays one signature: err10-foreignnode and int8-conv-silu-no-impl are both
    ``Could not find any implementation for node <name>``, told apart by the explanation
    (ForeignNode vs a fused node)."""
    keys = {group: _group_key(logs) for group, logs in _train_groups().items()}
    by_key: dict[tuple[str, str], list[str]] = defaultdict(list)
    for group, key in keys.items():
        by_key[key].append(group)
    assert {k: g for k, g in by_key.items() if len(g) > 1} == {}
    assert keys["group:err10-foreignnode"] == (NO_IMPLEMENTATION, "no-implementation-foreignnode")
    assert keys["group:int8-conv-silu-no-impl"] == (NO_IMPLEMENTATION, "no-implementation-node")
    assert keys["group:reshape-changes-volume"] == ("", "reshape-volume-mismatch")


def _signatures(log: str) -> set[str]:
    table = failure_signatures([CASES / log])
    return set(table[~table["category"].isin(FOLLOW_UPS)]["signature"])


@pytest.mark.parametrize(
    ("log", "what"),
    [
        ("n001.log", "python logger '[TRT] [E] 10:'"),
        ("n090.log", "trtexec, 8.6's short 'Error[10]:' and bracketed forms"),
        ("n189.log", "Polygraphy on Windows"),
        ("n194.log", "tab-separated logger '19:54:12.555<TAB>ERROR<TAB>TRT: 10:' (one record)"),
        ("n224.log", "TensorRT 10.16 '[TRT ERROR] IBuilder::...:' wrapped, 'In computeCosts at'"),
        ("n311.log", "Paddle ultra_infer '[ERROR] .../trt_backend.cc(239)::log<TAB>10:'"),
        ("n068.log", "TensorRT 7 '../builder/tacticOptimizer.cpp (1715) - TRTInternal Error in "
                     "computeCosts: 0 (...)'"),
        ("n214.log", "lowercase 'error: 10:' logger after 'warning:'/'info:' lines (one record)"),
    ],
)
def test_logger_prefixes_collapse_on_real_logs(log: str, what: str) -> None:
    """One failure printed through different loggers has one signature (real train logs)."""
    assert NO_IMPLEMENTATION in _signatures(log), (what, _signatures(log))


def test_shape_prefixes_and_locations_collapse_on_real_logs() -> None:
    # n287: "[2022-12-08 17:36:09][error][trt_builder.cpp:30]:NVInfer: 9: [graphShapeAnalyzer.cpp::
    # nvinfer1::builder::`anonymous-namespace'::ShapeNodeRemover::throwIfError::1306] Error Code 9:
    # Internal Error (Reshape_1087: reshape changes volume\n)", five times: one signature
    assert _signatures("n287.log") == {"<name>: reshape changes volume"}
    # n297: Torch-TensorRT's "ERROR: [... Conversion Context] - 4:" and a symbolic extent
    assert "IShuffleLayer <name>: reshape changes volume. Reshaping <dims> to <dims>" in (
        _signatures("n297.log")
    )
    # n025 (the builder's own line), n026 (Windows: the ONNX parser's "In function parseGraph:
    # [6] Invalid Node - Pad_237" around an MSVC-qualified [shuffleNode.cpp::nvinfer1::builder::
    # ShuffleNode::symbolicExecute::N] builder error) and n142 (Linux, the same parser wrapper
    # around [shuffleNode.cpp::symbolicExecute::N]): one signature
    shuffle = (
        "<name>: IShuffleLayer applied to shape tensor must have <n> or <n> reshape dimensions: "
        "dimensions were <dims>"
    )
    for log in ("n025.log", "n026.log", "n142.log"):
        assert shuffle in _signatures(log), (log, _signatures(log))
    # n126: a markdown-bold "**01/30/2024-18:29:22] [E] Error[4]: X: ...**" line
    assert "<name>: IIfConditionalOutputLayer inputs must have the same shape" in (
        _signatures("n126.log")
    )
    # n088: docker compose's "http       | [E] [TRT] 1: [raiiMyelinGraph.h::...]" = n087's
    assert _signatures("n087.log") & _signatures("n088.log")
    # n131: the compose prefix alone on the next line ("tensorrt_translation  |") is not part of
    # the message: n131 and n290 (trtexec, no compose) print one failure
    if_shapes = (
        "<name>: IIfConditionalOutputLayer inputs must have the same shape. Shapes are <dims> and "
        "<dims>"
    )
    assert if_shapes in _signatures("n131.log") & _signatures("n290.log")
    # n098: a logger with no prefixes at all; the next sentence ("Network validation failed.")
    # is another message, so n098 and n304 (TensorRT 7's python logger) print one failure
    assert _signatures("n098.log") == {"Layer: <name>'s output can not be used as shape tensor"}
    assert "Layer: <name>'s output can not be used as shape tensor" in _signatures("n304.log")


def test_onnx_parser_wrappers_of_parser_versions_collapse_on_real_logs() -> None:
    """7.x/8.x "In function importFallbackPluginImporter: [8] Assertion failed: ..." (n029, n044)
    and 8.x "In node 12 (importFallbackPluginImporter): UNSUPPORTED_NODE: Assertion failed: ..."
    (n103) are one failure of the importer; another importer's assertion is another failure."""
    plugin = "In importFallbackPluginImporter: Assertion failed: creator && <name>"
    for log in ("n029.log", "n044.log", "n103.log"):
        assert plugin in _signatures(log), (log, _signatures(log))
    assert plugin not in _signatures("n009.log")  # importResize's scales assertion
    assert "In importResize: Assertion failed: scales.is_weights() && <name>" in (
        _signatures("n009.log")
    )


def test_tensorrt7_wrapper_gives_the_reason_on_real_logs() -> None:
    # n169: ONNX Runtime's TRT EP on TensorRT 7, "../rtSafe/safeRuntime.cpp (25) - Cuda Error in
    # allocate: 2 (out of memory)", the reason TensorRT 8 prints as "Cuda Runtime (out of memory)"
    assert "out of memory" in _signatures("n169.log")
    # n168: "../rtExt/dla/native/dlaUtils.cpp (194) - DLA Error in submit: 7 (Failure to ...)"
    assert "Failure to submit program to DLA engine" in _signatures("n168.log")


def test_tf_trt_prefix_and_different_reasons_on_real_logs() -> None:
    """TF-TRT's "TF-TRT Warning: " goes; two different converter failures stay two signatures
    (n092: empty input tensor, n288: TRT_ENSURE in slice_ops.cc) but share the explanation."""
    table = failure_signatures([CASES / "n092.log", CASES / "n288.log"])
    fallback = table[table["explanation_id"] == "tftrt-native-segment-fallback"]
    assert len(fallback) == 2 and set(fallback["log_count"]) == {1}
    assert all(s.startswith("Engine creation for <name> failed.") for s in fallback["signature"])


def test_different_failures_of_one_log_stay_apart() -> None:
    # n002: the Myelin autotuner warning and the no-implementation error
    signatures = _signatures("n002.log")
    assert NO_IMPLEMENTATION in signatures
    assert "Skipping tactic <tactic> due to Myelin error: Autotuner: no tactics to implement " \
        "operation" in signatures


def test_shared_corpus_repeats_group_and_different_failures_do_not(corpus_dir: Path) -> None:
    cases = corpus_dir / "build-logs" / "cases"
    # 024 and 025: the same IShuffleLayer shape-tensor error on different layers and TRT 5/6
    table = failure_signatures([cases / "024.log", cases / "025.log", cases / "043.log"])
    shuffle = table[table["signature"].str.contains("IShuffleLayer applied to shape tensor")]
    assert len(shuffle) == 1 and shuffle.iloc[0]["log_count"] == 2
    assert len(shuffle.iloc[0]["layers"]) == 2  # two different layer names, one signature
    dla = table[table["category"] == "dla-fallback"]
    assert set(dla["logs"].map(len)) == {1}


def test_tactic_ids_hex_and_decimal_are_one_placeholder() -> None:
    # TensorRT 8+ prints tactic ids in hex, earlier releases in decimal (n001: "tactic 0")
    assert signature("Skipping tactic 0x00000000000003e8 due to x") == signature(
        "Skipping tactic 1000 due to x"
    ) == "Skipping tactic <tactic> due to x"


def test_signature_placeholders() -> None:
    message = (
        "[03/25/2023-07:13:22] Skipping tactic 0x00000000000003e8 due to insufficient memory on "
        "requested size of 8589934592 detected for tactic 0x0000000000000001 in "
        "/opt/models/yolo/model.onnx [1,3,640,640] 17.5 MiB "
        "[optimizer.cpp::computeCosts::2011] Error Code 10: node 'conv1'"
    )
    assert signature(message) == (
        "Skipping tactic <tactic> due to insufficient memory on requested size of <n> "
        "detected for tactic <tactic> in <path> <dims> <size> "
        "[optimizer.cpp::computeCosts::<n>] Error Code 10: node <name>"
    )


def test_data_types_are_one_placeholder() -> None:
    # n872, n873: the same precision misuse with the types the other way round
    assert signature("Min_1: cannot use precision Int32 with weights of type Float", ["Min_1"]) == (
        signature("(Unnamed Layer* 1) [Constant]: cannot use precision Float with weights of type "
                  "Int32", ["(Unnamed Layer* 1) [Constant]"])
    ) == "<name>: cannot use precision <type> with weights of type <type>"


def test_a_plain_word_name_is_replaced_only_as_a_word() -> None:
    # n718: the UFF node "Cast" of op "_Cast"; a scoped name is replaced wherever it stands
    assert signature(
        "[TensorRT] ERROR: UffParser: Validator error: Cast: Unsupported operation _Cast",
        ["Cast"],
    ) == "UffParser: Validator error: <name>: Unsupported operation _Cast"
    assert signature("Broadcast failed for Cast", ["Cast"]) == "Broadcast failed for <name>"
    glued = "PartitionedCall/TRTEngineOp_0_1"  # n323: TF-TRT prints no space after "for"
    assert signature(f"x for{glued}", [glued]) == "x for<name>"


def test_cli_group(capsys: pytest.CaptureFixture[str]) -> None:
    from trtsafe_lab.cli import main

    logs = [str(p) for p in _train_groups()["group:err10-foreignnode"]]
    assert main(["failures", *logs, "--group"]) == 0
    out = capsys.readouterr().out
    assert "Could not find any implementation for node <name>" in out
    assert "no-implementation-foreignnode" in out


@pytest.mark.parametrize(
    "text",
    [
        "x [" + ", ".join(["(1)"] * 60),  # an unclosed list of parenthesised items
        "x [" + ",".join(["(+ 1 2)"] * 30) + " y",
        "x " + "(+ " * 800,  # an unclosed symbolic extent
        "[a.cpp::" + "b::" * 700,
        "In node 1 with name: " + "a " * 2000,
        "[x] " * 1000 + "msg",
        "Error Code 1: Internal Error (" + "(" * 2000,
        "x\n" * 3000,
    ],
    ids=lambda text: repr(text[:12]),
)
def test_signature_of_hostile_text_is_linear(text: str) -> None:
    """Shapes that make backtracking patterns blow up (an unclosed dims list of parenthesised
    items took minutes before the symbolic extents got their own linear scan): each gives a
    bounded signature (a regression here shows as a hang, not a timing threshold)."""
    assert len(signature(text, ["a"], "shape")) <= 600
