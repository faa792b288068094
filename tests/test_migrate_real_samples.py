"""The migration checker on NVIDIA's real safety samples (TensorRT 10.16 and 11.1).

Both versions are before 11.3, so the companion-.so findings are right there: every
``createTRTGraph`` still has the 10.x form. Each expected finding carries a one-line reason; the
test fails on a missing finding and on any finding not listed. The sources are read from
``../shared/reference/tensorrt-oss`` (never copied into the project).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import corpus_root

from trtsafe_lab.migrate import check_paths
from trtsafe_lab.migrate.rules import RULES

pytest.importorskip("tree_sitter_cpp")
pytest.importorskip("tree_sitter_cuda")

OSS = corpus_root().parent / "reference" / "tensorrt-oss"
SCANNED = ("samples/sampleSafeMNIST", "samples/trtSafeExec", "samples/common", "include")

# version -> (file under the version folder, line, rule, why this finding is right)
EXPECTED: dict[str, list[tuple[str, int, str, str]]] = {
    "10.16": [
        (
            "samples/sampleSafeMNIST/sampleSafeMNISTInfer.cpp",
            326,
            "companion-so-missing",
            "createTRTGraph(graph, blob, size, *recorder, true): the 10.x form, no .so path",
        ),
        (
            "samples/trtSafeExec/trtSafeExec.cpp",
            1254,
            "companion-so-missing",
            "createTRTGraph(graph, blob, size, *recorder, !useScratch, &allocator): 10.x form",
        ),
        (
            "samples/sampleSafeMNIST/sampleSafeMNISTInfer.cpp",
            273,
            "aux-streams-unregistered",
            "10.16 never calls getNbAuxStreams/setAuxStreams before graph->executeAsync(stream)",
        ),
        (
            "samples/trtSafeExec/trtSafeExec.cpp",
            923,
            "aux-streams-unregistered",
            "graphCapture() executes the graph; 10.16 trtSafeExec registers no aux streams",
        ),
        (
            "samples/trtSafeExec/trtSafeExec.cpp",
            1010,
            "aux-streams-unregistered",
            "task() warm-up executeAsync; no aux streams anywhere in 10.16 trtSafeExec",
        ),
        (
            "samples/sampleSafeMNIST/sampleSafeMNISTBuild.cpp",
            251,
            "safe-build-api",
            "buildSerializedNetwork on a config set to kSAFETY; 11.3+ needs the safe build call",
        ),
        (
            "samples/common/safeCommon.h",
            164,
            "file-unparsable",
            "one finding for the scan: INSERT_ELEMENT(...) macro lines and trtSafeExec's `= {}`",
        ),
    ],
    "11.1": [
        (
            "samples/sampleSafeMNIST/sampleSafeMNISTInfer.cpp",
            340,
            "companion-so-missing",
            "createTRTGraph(graph, blob, size, *recorder, true): still the pre-11.3 form",
        ),
        (
            "samples/trtSafeExec/trtSafeExec.cpp",
            1276,
            "companion-so-missing",
            "createTRTGraph(..., *recorder, !useScratch, &allocator): still the pre-11.3 form",
        ),
        (
            "samples/sampleSafeMNIST/sampleSafeMNISTBuild.cpp",
            248,
            "safe-build-api",
            "buildSerializedNetwork on a kSAFETY config; 11.3+ needs buildSerializedSafeNetwork",
        ),
        (
            "samples/common/sampleEngines.cpp",
            779,
            "safe-build-api",
            "trtexec's safe build with kernel text: buildSerializedNetwork(network, config, text)",
        ),
        (
            "samples/common/sampleEngines.cpp",
            794,
            "safe-build-api",
            "trtexec's other safe build path: buildSerializedNetwork(network, config)",
        ),
        (
            "samples/common/safeCommon.h",
            169,
            "file-unparsable",
            "one for the scan: INSERT_ELEMENT(...) lines, `operator bool()`, `= {}` defaults",
        ),
        # Not expected: aux-streams-unregistered (11.1 registers them through
        # samplesSafeCommon::setUpAuxStreamsOn before executeAsync); NvInfer.h's kSAFETY_SCOPE
        # enumerator (a declaration, not a use) and its isNetworkSupported forwarding wrapper.
    ],
}


def _scan(version: str) -> list[tuple[str, int, str]]:
    root = OSS / version
    if not (root / "samples").is_dir():
        pytest.fail(f"NVIDIA sources not found at {root}; ../shared must be beside the repo")
    found = check_paths([root / part for part in SCANNED])
    return [(Path(f.file).relative_to(root).as_posix(), f.line, f.rule) for f in found]


@pytest.mark.parametrize("version", sorted(EXPECTED))
def test_findings_on_nvidia_safety_samples(version: str) -> None:
    found = _scan(version)
    expected = [(file, line, rule) for file, line, rule, _ in EXPECTED[version]]
    missing = [key for key in expected if key not in found]
    unexpected = [key for key in found if key not in expected]
    assert not missing, f"expected but not found: {missing}"
    assert not unexpected, f"found but not expected: {unexpected}"


@pytest.mark.parametrize("version", sorted(EXPECTED))
def test_cuda_sources_parse_cleanly(version: str) -> None:
    kernel = OSS / version / "samples" / "trtSafeExec" / "delayStreamKernel.cu"
    assert b"__global__" in kernel.read_bytes() and b"<<<" in kernel.read_bytes()
    assert check_paths([kernel]) == []


def test_partly_parsed_files_give_one_finding_per_scan() -> None:
    found = check_paths([OSS / "11.1" / "include", OSS / "11.1" / "samples" / "common"])
    partial = [f for f in found if f.rule == "file-unparsable"]
    assert len(partial) == 1
    assert "in 2 files" in partial[0].message  # safeCommon.h and sampleEngines.cpp
    assert "sampleEngines.cpp:921 (1 place(s))" in partial[0].message


def test_nvidia_headers_parse_once_their_attribute_macros_are_known() -> None:
    # TRT_DEPRECATED, TENSORRTAPI, ... are defined in NvInferRuntimeBase.h; scanned together,
    # NvInfer.h (48 error places without them) and NvInferRuntime.h (25) parse cleanly.
    assert check_paths([OSS / "11.1" / "include"]) == []  # no partial parse, no finding
    from trtsafe_lab.migrate.check import analyse_file

    alone = analyse_file(OSS / "11.1" / "include" / "NvInfer.h", macros={})
    assert alone.partial and alone.partial[0].places > 10


def test_a_cuda_file_is_checked(tmp_path: Path) -> None:
    source = (
        "__global__ void k(float* x) { x[threadIdx.x] = 0; }\n"
        "void run(cudaStream_t s, float* x) {\n"
        "    k<<<1, 32, 0, s>>>(x);\n"
        "    nvinfer2::safe::createTRTGraph(graph, blob, size, *recorder, true);\n"
        "}\n"
    )
    (tmp_path / "k.cu").write_text(source)
    found = [(f.line, f.rule) for f in check_paths([tmp_path / "k.cu"])]
    assert found == [(4, "companion-so-missing")]


def _calls(path: Path, name: str) -> list[list[str]]:
    from trtsafe_lab.migrate import cpp_tree as t
    from trtsafe_lab.migrate import syntax_tree as st

    file = t.SourceFile(path.read_bytes(), str(path))
    return [[st.text(a) for a in t.arguments(c)] for c in file.by_name(name)]


@pytest.mark.parametrize("version", sorted(EXPECTED))
def test_rule_wording_matches_what_the_samples_call(version: str) -> None:
    root = OSS / version / "samples"
    infer = root / "sampleSafeMNIST" / "sampleSafeMNISTInfer.cpp"
    exec_ = root / "trtSafeExec" / "trtSafeExec.cpp"
    creates = _calls(infer, "createTRTGraph") + _calls(exec_, "createTRTGraph")
    # companion-so-missing describes the pre-11.3 form as (graph, buffer, size, recorder, ...)
    assert "(graph, buffer, size, recorder, ...)" in RULES["companion-so-missing"].message
    assert creates and all(len(a) >= 5 and "recorder" in a[3] for a in creates), creates
    # the 11.3+ form the fix asks for keeps the trailing (recorder, trtManagedScratch, allocator)
    assert "recorder, trtManagedScratch, allocator)" in RULES["companion-so-missing"].fix
    assert any(len(a) == 6 and "Allocator" in a[5] for a in creates), creates
    # aux-stream and sync wording names real calls of the samples' ITRTGraph
    fix = RULES["aux-streams-unregistered"].fix
    for name in ("getNbAuxStreams", "setAuxStreams", "executeAsync"):
        assert name in fix
    for name in ("executeAsync", "sync", "setIOTensorAddress", "setInputConsumedEvent", "clone"):
        assert _calls(infer, name), f"{name} not called in {infer}"
    if version == "11.1":
        common = root / "common" / "safeCommon.h"
        (setup,) = _calls(common, "setAuxStreams")
        assert setup == ["streams.data()", "nbAuxStreams"]  # = setAuxStreams(streams, n)
        assert _calls(common, "getNbAuxStreams") == [["nbAuxStreams"]]  # an out-parameter
