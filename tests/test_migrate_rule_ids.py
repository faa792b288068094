"""One rule id per 11.x rule across ``build`` (trtexec/rules.py) and ``migrate``.

The same command line is given to the build's rule check and to the migration checker; where
both flag the same flag, they must name it with the same rule id.
"""

from __future__ import annotations

import pytest

from trtsafe_lab.migrate.makefile import analyse_shell
from trtsafe_lab.migrate.rules import RULES
from trtsafe_lab.trtexec.options import TrtexecCommand, parse_flags
from trtsafe_lab.trtexec.rules import check_command
from trtsafe_lab.trtexec.version import TrtVersion

COMMANDS = [
    "trtexec --onnx=m.onnx --restricted",
    "trtexec --onnx=m.onnx --fp16",
    "trtexec --onnx=m.onnx --int8 --best",
    "trtexec --onnx=m.onnx --saveEngine=m.engine --saveEngineSo=m.engine.so",
    "trtexec --loadEngine=m.engine --loadEngineSo=/opt/m.engine.so",
    "trtexec_safe --loadEngine=m.engine --useCudaGraph",
    "trtexec_safe --loadEngine=m.engine --separateProfileRun",
]


@pytest.mark.parametrize("line", COMMANDS)
def test_build_and_migrate_use_one_id_per_rule(line: str) -> None:
    tool, *args = line.split()
    build = check_command(TrtexecCommand(tool, tuple(parse_flags(args)), TrtVersion(11, 4)))
    by_flag_build = {f.flag: f.rule for f in build}
    migrate = analyse_shell(line + "\n", "s.sh").findings
    assert migrate, f"migrate finds nothing in {line!r}"
    for finding in migrate:
        flags = [a[2:].split("=")[0] for a in args if a[2:].split("=")[0] in finding.message]
        shared = {by_flag_build[f] for f in flags if f in by_flag_build}
        assert shared, f"build has no finding for {flags} of {line!r}: {build}"
        assert finding.rule in shared, (finding.rule, shared)
        assert finding.rule in RULES
