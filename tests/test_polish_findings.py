"""New-user findings: a refused flag lists no expected artifact, the safe-build-not-saved fix
names a companion .so only where one exists (11.3+), ``failures --group`` labels keep a space."""

from __future__ import annotations

import pandas as pd
import pytest

from trtsafe_lab.logs import columns as C
from trtsafe_lab.logs.text_views import format_signatures
from trtsafe_lab.trtexec.dry_run import describe_command
from trtsafe_lab.trtexec.options import TrtexecCommand, parse_flags
from trtsafe_lab.trtexec.rules import check_command
from trtsafe_lab.trtexec.version import TrtVersion


def _cmd(tool: str, version: str, *flags: str) -> TrtexecCommand:
    return TrtexecCommand(tool, tuple(parse_flags(list(flags))), TrtVersion.parse(version))


def test_refused_flag_yields_no_expected_artifact() -> None:
    text = describe_command(_cmd("trtexec_safe", "11.4", "--loadEngine=m.engine",
                                 "--exportTimes=t.json"), "given")
    assert "refusal: [unknown-flag] --exportTimes" in text
    listed = text.split("expected artifacts:", 1)[1]
    assert "t.json" not in listed
    assert "m.engine" in listed  # the accepted flag still lists its input


def test_accepted_export_is_still_expected() -> None:
    text = describe_command(_cmd("trtexec", "11.4", "--loadEngine=m.engine",
                                 "--exportTimes=t.json"), "given")
    assert "t.json  (--exportTimes)" in text.split("expected artifacts:", 1)[1]


@pytest.mark.parametrize(("version", "mentions_so"), [("10.16", False), ("11.1", False),
                                                       ("11.3", True), ("11.4", True)])
def test_safe_build_not_saved_mentions_the_so_only_where_it_exists(
    version: str, mentions_so: bool
) -> None:
    found = [f for f in check_command(_cmd("trtexec", version, "--onnx=m.onnx", "--safe"))
             if f.rule == "safe-build-not-saved"]
    assert len(found) == 1
    text = f"{found[0].message} {found[0].fix}"
    assert (".so" in text) is mentions_so, text


def test_group_view_keeps_a_space_after_every_label() -> None:
    table = pd.DataFrame([{C.LOG_COUNT: 2, C.COUNT: 3, C.CATEGORY: "no-implementation",
                           C.EXPLANATION_ID: "", C.SIGNATURE: "Engine set up failed",
                           C.LAYERS: ("a",), C.LOGS: ("x.log", "y.log")}])
    text = format_signatures(table)
    assert "signature Engine set up failed" in text
    assert "signatureEngine" not in text
    assert "layers:   a" in text and "logs:     x.log | y.log" in text
