"""The runtime-demo command, the demo step and the lifecycle diagram (CPU, Agg backend)."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import pandas as pd
import pytest
from runtime_helpers import operational_runner

from trtsafe_lab._optional import available
from trtsafe_lab.cli import main
from trtsafe_lab.demo.runtime import before_deinit, run_demo
from trtsafe_lab.runtime.pipeline import cpu_pipeline, run_pipeline
from trtsafe_lab.runtime.trace import TRACE_COLUMNS

matplotlib.use("Agg")  # before the view module imports pyplot


def _texts(fig) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)


def test_cpu_demo_says_it_is_not_a_gpu_result(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    csv = tmp_path / "trace.csv"
    assert main(["runtime-demo", "--cpu", "--violations", "--trace-csv", str(csv)]) == 0
    out = capsys.readouterr().out
    assert "NOT a GPU result" in out
    assert "sealed" in out and "invalid_state" in out  # the two refused calls
    assert "alias: yes" in out and "alive now 0" in out
    assert list(pd.read_csv(csv).columns) == list(TRACE_COLUMNS)


def test_cpu_demo_with_injected_fault_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runtime-demo", "--cpu", "--inject-fault", "3"]) == 1
    out = capsys.readouterr().out
    assert "contained" in out and "fatal status kept" in out and "alive now 0" in out


def test_demo_rejects_bad_arguments() -> None:
    assert main(["runtime-demo", "--cpu", "--decode-steps", "0"]) == 2
    assert main(["runtime-demo", "--cpu", "--inject-fault", "0"]) == 2


@pytest.mark.skipif(available("cuda.bindings.runtime"), reason="cuda-python is installed here")
def test_gpu_demo_without_cuda_names_the_extra(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runtime-demo"]) == 2
    assert "trtsafe-lab[gpu]" in capsys.readouterr().err


def test_demo_step_writes_traces_and_diagrams(tmp_path: Path) -> None:
    files = run_demo(tmp_path)
    assert sorted(p.name for p in files) == ["lifecycle.png", "lifecycle_fatal.png",
                                             "lifecycle_fatal_trace.csv", "lifecycle_trace.csv"]
    fatal = pd.read_csv(tmp_path / "lifecycle_fatal_trace.csv")
    assert fatal["outcome"].tolist().count("fatal") == 1
    assert all(p.stat().st_size > 10_000 for p in files if p.suffix == ".png")


def test_diagram_shows_current_state_and_legal_calls() -> None:
    from trtsafe_lab.runtime.view import plot_lifecycle

    empty = plot_lifecycle(pd.DataFrame(columns=list(TRACE_COLUMNS)))
    assert "now: created  |  legal now: initialize" in _texts(empty)
    fig = plot_lifecycle(operational_runner().trace_table())
    text = _texts(fig)
    assert "legal now: run_stage, deinitialize_graphs" in text and "FATAL" not in text
    bold = [t.get_text() for t in fig.axes[0].texts if t.get_fontweight() == "bold"]
    assert "operational" in bold and "initialized" not in bold
    run = run_pipeline(cpu_pipeline(fail_on_decode_call=2), decode_steps=2)
    fatal_fig = plot_lifecycle(before_deinit(run.runner.trace_table()))
    assert "FATAL CONTAINMENT" in _texts(fatal_fig)
    assert "legal now: deinitialize_graphs" in _texts(fatal_fig)


def test_diagram_draws_data_strings_literally() -> None:
    # a diagnostic names paths and executor messages; a title is the caller's: "$...$" in either
    # is text, not mathtext (unescaped, drawing raises on the undefined command)
    from trtsafe_lab.runtime.trace import COL_DIAGNOSTIC, COL_OUTCOME, OUTCOME_FATAL
    from trtsafe_lab.runtime.view import plot_lifecycle

    run = run_pipeline(cpu_pipeline(fail_on_decode_call=2), decode_steps=2)
    trace = before_deinit(run.runner.trace_table()).copy()
    odd = r"engine /models/$\undefined{x}$.engine"
    trace.loc[trace[COL_OUTCOME] == OUTCOME_FATAL, COL_DIAGNOSTIC] = odd
    fig = plot_lifecycle(trace, title=r"run $\undefined{y}$")
    fig.canvas.draw()
    assert r"$\undefined{x}$" in _texts(fig).replace("\\$", "$")
    assert fig.axes[0].get_title() == r"run \$\undefined{y}\$"
