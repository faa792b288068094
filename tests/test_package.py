"""The package imports cheaply, and optional dependencies fail with one clear message."""

from __future__ import annotations

import pytest
from import_check import loaded_after

from trtsafe_lab._optional import MissingDependencyError, require
from trtsafe_lab.cli import main

HEAVY = ("tensorrt", "cuda", "matplotlib", "ipywidgets")


def test_import_does_not_pull_heavy_dependencies() -> None:
    code = "import trtsafe_lab, trtsafe_lab.cli\ntrtsafe_lab.cli.build_parser()"
    assert loaded_after(code, HEAVY) == []


def test_missing_dependency_names_the_extra() -> None:
    with pytest.raises(MissingDependencyError) as info:
        require("tensorrt_that_does_not_exist", feature="Building an engine")
    message = str(info.value)
    assert "Building an engine" in message
    assert "pip install" in message
    assert isinstance(info.value, ImportError)
    assert isinstance(info.value.__cause__, ImportError)


def test_tensorrt_hint_names_the_trt_extra() -> None:
    from trtsafe_lab._optional import install_hint

    assert "trtsafe-lab[trt]" in install_hint("tensorrt")
    assert "trtsafe-lab[gpu]" in install_hint("cuda.bindings.runtime")


def test_cli_without_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out
