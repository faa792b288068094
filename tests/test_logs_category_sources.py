"""What decides a finding's category: the wording, a component's source location, never the API
call that was running (issue 11's generality: the same failure under another location)."""

from __future__ import annotations

import pytest

from trtsafe_lab.logs import analyze_log

REASON = "Error Code 9: Internal Error (/model/Add: could not find any supported formats "
REASON += "consistent with input/output data types)"


@pytest.mark.parametrize("where", [
    "IBuilder::buildSerializedNetwork: ",  # n150's form
    "9: [standardEngineBuilder.cpp::buildEngine::2266] ",
    "9: [builder.cpp::buildSerializedNetwork::751] ",
])
def test_the_running_api_call_decides_no_category(where: str) -> None:
    failures = analyze_log(f"[E] [TRT] {where}{REASON}\n".encode()).failures
    found = list(zip(failures["layer"], failures["category"], strict=True))
    assert found == [("/model/Add", "internal-error")]


@pytest.mark.parametrize(("location", "category"), [
    ("[pluginV2Builder.cpp::reportPluginError::23]", "plugin"),  # n149, n203, n415
    ("[convolutionNode.cpp::computeOutputExtents::55]", "shape"),  # n714
])
def test_a_components_location_decides_its_category(location: str, category: str) -> None:
    failures = analyze_log(f"[E] [TRT] 9: {location} {REASON}\n".encode()).failures
    assert list(failures["category"]) == [category]
