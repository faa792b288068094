"""``trtsafe-lab demo``: every step whose dependencies are installed runs; the others are
skipped with the extra that enables them; a failing step is reported and the rest still run."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from trtsafe_lab._optional import require
from trtsafe_lab.demo import DEMO_STEPS, DemoStep, run_demo


def fake_step(monkeypatch: pytest.MonkeyPatch, name: str, body: object) -> DemoStep:
    module = types.ModuleType(f"demo_test_{name}")
    module.run_demo = body  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return DemoStep(module.__name__)


def test_missing_dependencies_skip_a_step_and_name_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def writes(out: Path) -> list[Path]:
        (out / "a.txt").write_text("a")
        return [out / "a.txt"]

    def needs_onnx_inside(out: Path) -> list[Path]:
        require("no_such_module_for_trtsafe", feature="A demo step")
        return []

    def breaks(out: Path) -> list[Path]:
        raise RuntimeError("boom")

    ok = fake_step(monkeypatch, "ok", writes)
    steps = (DemoStep("trtsafe_lab.demo.migrate", ("tree_sitter_not_installed_here",)),
             fake_step(monkeypatch, "inner", needs_onnx_inside),
             fake_step(monkeypatch, "broken", breaks), ok)
    result = run_demo(tmp_path, steps)
    assert result.written == [tmp_path / ok.folder / "a.txt"]
    assert set(result.skipped) == {"migrate", "demo_test_inner"}
    assert "tree_sitter_not_installed_here" in result.skipped["migrate"]
    assert "no_such_module_for_trtsafe" in result.skipped["demo_test_inner"]
    assert result.failed == {"demo_test_broken": "RuntimeError: boom"}
    out = capsys.readouterr().out
    assert "[demo] skipped migrate" in out and "[demo] FAILED demo_test_broken" in out
    assert not (tmp_path / "migrate").exists()  # a skipped step leaves no empty folder


def test_the_steps_declare_the_extras_they_need() -> None:
    by_folder = {s.folder: s for s in DEMO_STEPS}
    assert list(by_folder) == ["logs", "trtexec", "profile", "runtime", "migrate", "report"]
    assert {"tree_sitter", "yaml"} <= set(by_folder["migrate"].needs)
    assert {"nbclient", "ipykernel"} <= set(by_folder["report"].needs)
    for step in DEMO_STEPS:  # every declared name is an optional dependency with an extra
        from trtsafe_lab._optional import install_hint

        assert all("trtsafe-lab[" in install_hint(m) for m in step.needs), step


def test_demo_cli_exits_1_when_a_step_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trtsafe_lab.demo as demo
    from trtsafe_lab.cli import main

    def breaks(out: Path) -> list[Path]:
        raise ValueError("bad example")

    monkeypatch.setattr(demo, "DEMO_STEPS", (fake_step(monkeypatch, "broken", breaks),))
    monkeypatch.setattr(demo.run_demo, "__defaults__", (demo.DEMO_STEPS,))
    assert main(["demo", "--out", str(tmp_path / "out")]) == 1
