"""Text is text in every view: names from users' models and logs are drawn and shown as written.

A layer, run or file name can be any text: matplotlib must not read it as mathtext (``$...$``
with an unknown macro raises while the figure is drawn), widget and report HTML must not render
it as markup, and terminal colour codes must not reach either (stripped). Each view gets the
same three hostile names.
"""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

MATH = "conv_$\\undefinedmacro{x}$"
TAG = "<img src=x onerror=alert(1)>"
ANSI = "\x1b[31mred"
HOSTILE = (MATH, TAG, ANSI)


def _draw(figure: object) -> None:
    """Render the figure to PNG: mathtext is parsed here (the crash of issue 15 #6)."""
    figure.savefig(io.BytesIO(), format="png", dpi=30)  # type: ignore[attr-defined]


def _figure_texts(figure: object) -> str:
    texts = []
    for ax in figure.axes:  # type: ignore[attr-defined]
        texts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        texts += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
        texts += [t.get_text() for t in ax.texts]
        legend = ax.get_legend()
        if legend is not None:
            texts += [t.get_text() for t in legend.get_texts()]
    return "\n".join(texts)


def _assert_html_safe(page: str) -> None:
    assert "<img src=x" not in page, "a name was rendered as markup"
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "\x1b" not in page, "a terminal escape reached the HTML"
    assert MATH in page  # shown as written (HTML has no mathtext)


def _failures() -> pd.DataFrame:
    from trtsafe_lab.logs import analyze_log

    lines = [f"[11/30/2026-12:00:0{i}] [E] Error[10]: IBuilder::buildSerializedNetwork: Error Code "
             f"10: Internal Error (Could not find any implementation for node {name}.)"
             for i, name in enumerate(HOSTILE)]
    failures = analyze_log("\n".join(lines) + "\n", text=True).failures
    found = set(failures["layer"])
    assert {MATH, TAG} <= found, found  # the parser keeps the names as they are
    return failures


# -- matplotlib views -------------------------------------------------------------------------
def test_failure_summary_plot_draws_names_literally() -> None:
    from trtsafe_lab.logs.plots import plot_summary
    from trtsafe_lab.logs.tables import summarize_failures

    failures = _failures()
    failures.loc[0, "category"] = MATH  # a category label too (categories are data)
    figure = plot_summary(summarize_failures(failures), title=f"log {MATH} {ANSI}")
    _draw(figure)
    shown = _figure_texts(figure) + figure._suptitle.get_text()
    assert "conv_\\$\\undefinedmacro{x}\\$" in shown and TAG in shown
    assert "\x1b" not in shown


def _runs(tmp_path: Path, names: tuple[str, ...]) -> list[object]:
    import numpy as np

    from trtsafe_lab.profile.loaders import Run

    rng = np.random.default_rng(0)
    return [Run(name, tmp_path / f"run{i}", pd.DataFrame(
        {"latency_ms": rng.normal(1.0 / (i + 1), 0.01, 50),
         "compute_ms": rng.normal(0.9 / (i + 1), 0.01, 50)}),
        {"num_aux_streams": i, "device_memory_bytes": 1000 * (i + 1),
         # one workload (made up for the test, not a measurement): comparable runs
         "schema": "trtsafe-lab/profile-run/1", "gpu": {"gpu_name": "test data, no GPU"},
         "executor": {"executor": "reference", "branches": 4, "depth": 8, "blocks": 4,
                      "threads": 128, "iters": 4096}})
        for i, name in enumerate(names)]


def test_profile_plots_draw_run_names_literally(tmp_path: Path) -> None:
    from trtsafe_lab.profile.compare import compare_runs
    from trtsafe_lab.profile.plots import comparison_figure, plot_stream_timeline

    runs = _runs(tmp_path, HOSTILE)
    figure = comparison_figure(runs, compare_runs(runs))
    _draw(figure)
    shown = _figure_texts(figure)
    assert "conv_\\$\\undefinedmacro{x}\\$" in shown and TAG in shown and "\x1b" not in shown
    timeline = pd.DataFrame({"stream_id": [0, 1], "start_ms": [0.0, 0.1],
                             "duration_ms": [0.1, 0.2], "name": [MATH, TAG],
                             "is_sync": [False, False]})
    stream_figure = plot_stream_timeline(timeline, title=f"{MATH}: layers per stream")
    _draw(stream_figure)
    assert stream_figure.axes[0].get_title() == "conv_\\$\\undefinedmacro{x}\\$: layers per stream"


def test_lifecycle_diagram_draws_a_hostile_diagnostic_literally() -> None:
    from trtsafe_lab.runtime import SafetyRunner
    from trtsafe_lab.runtime.pipeline import cpu_pipeline
    from trtsafe_lab.runtime.trace import COL_DIAGNOSTIC
    from trtsafe_lab.runtime.view import plot_lifecycle

    faulty = cpu_pipeline(fail_on_decode_call=1)
    runner = SafetyRunner(faulty.backend)
    runner.initialize(faulty.spec)
    for (stage, slot), resources in faulty.resources.items():
        runner.complete_context(stage, slot, resources)
    runner.prepare(warmup=0)
    runner.run_stage("decode", 0, {})
    trace = runner.trace_table()
    trace[COL_DIAGNOSTIC] = f"{MATH} {TAG} {ANSI}"
    figure = plot_lifecycle(trace, title=MATH)
    _draw(figure)
    shown = _figure_texts(figure)
    assert "conv_\\$\\undefinedmacro{x}\\$" in shown and "\x1b" not in shown


# -- widget HTML ------------------------------------------------------------------------------
def test_failure_explorer_shows_names_as_text() -> None:
    pytest.importorskip("ipywidgets")
    from trtsafe_lab.widgets import FailureExplorer

    failures = _failures().assign(log=f"/logs/{TAG}{ANSI}.log")
    explorer = FailureExplorer(failures, {f"/logs/{TAG}{ANSI}.log": [f"line {TAG}"] * 5})
    _assert_html_safe(explorer.table.value)
    for index in failures.index:
        explorer.rows.value = index
        page = explorer.detail.value
        assert "<img src=x" not in page and "\x1b" not in page
    labels = " ".join(label for label, _ in explorer.rows.options)
    assert "\x1b" not in labels and MATH in labels  # plain text options (no markup in <select>)


def test_build_form_and_panel_show_paths_errors_and_log_lines_as_text(tmp_path: Path) -> None:
    pytest.importorskip("ipywidgets")
    from trtsafe_lab.trtexec.build import TrtexecBuild
    from trtsafe_lab.trtexec.options import TrtexecCommand
    from trtsafe_lab.trtexec.panel import BuildPanel
    from trtsafe_lab.trtexec.version import TrtVersion
    from trtsafe_lab.widgets import BuildForm
    from trtsafe_lab.widgets.build_form import unfinished_html

    form = BuildForm(tmp_path / "runs")
    form.onnx.value = f"{MATH}{TAG}{ANSI}.onnx"
    _assert_html_safe(form.preview.value)
    form.tool_path.value = f"/nowhere/{TAG}{ANSI}"
    _assert_html_safe(form.preview.value)
    _assert_html_safe(unfinished_html(RuntimeError(f"{MATH} {TAG} {ANSI}")))

    panel = BuildPanel(TrtexecBuild(TrtexecCommand("trtexec", (), TrtVersion(11, 4)),
                                    tmp_path / "runs"), refresh_s=0.0)
    panel._on_line(f"[E] {MATH} {TAG} {ANSI}")
    _assert_html_safe(panel.log.value)


def test_profile_dashboard_shows_run_names_as_text(tmp_path: Path) -> None:
    pytest.importorskip("ipywidgets")
    from trtsafe_lab.widgets import ProfileDashboard

    runs = _runs(tmp_path, HOSTILE)
    dash = ProfileDashboard(runs, dpi=30)
    _assert_html_safe(dash.table.value)
    assert dash.png.startswith(b"\x89PNG")
    # the "No <metric> in <runs>" message names runs: one without latency samples
    runs[1].times = runs[1].times.drop(columns=["latency_ms"])  # type: ignore[attr-defined]
    other = _runs(tmp_path, ("plain",))[0]
    other.times = other.times.drop(columns=["compute_ms"])  # type: ignore[attr-defined]
    dash = ProfileDashboard([runs[1], other], dpi=30)  # no metric common to both runs
    dash.metric.value = "latency"
    assert "No latency_ms in" in dash.message.value
    _assert_html_safe(dash.message.value + MATH)
    assert dash.table.value == "" and dash.png == b""


def test_interactive_tables_and_migration_findings_show_names_as_text(tmp_path: Path) -> None:
    pytest.importorskip("itables")
    from trtsafe_lab.widgets.interactive_tables import table_html

    page = table_html(pd.DataFrame({"file": [f"/src/{TAG}.cpp"], "layer": [MATH],
                                    "message": [f"{TAG} {ANSI}"]}))
    _assert_html_safe(page)
    assert 'title="/src/&lt;img src=x onerror=alert(1)&gt;.cpp"' in page.replace("\\", "")

    pytest.importorskip("tree_sitter_cpp")
    from trtsafe_lab.migrate import migration_findings

    project = tmp_path / f"proj {TAG}"
    project.mkdir()
    (project / f"build {MATH}.sh").write_text(
        "trtexec --onnx=model.onnx --fp16 --saveEngine=model.engine\n", encoding="utf-8")
    found = migration_findings(project)
    assert len(found), "the 10.x flag in the script should be found"
    page = table_html(found)
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


# -- the report (a real notebook run headless) ------------------------------------------------
def test_report_on_a_log_with_hostile_names(tmp_path: Path) -> None:
    pytest.importorskip("nbclient")
    from trtsafe_lab.cli import main

    log = tmp_path / f"{MATH} {TAG}.log"
    lines = [f"[11/30/2026-12:00:0{i}] [E] Error[10]: IBuilder::buildSerializedNetwork: Error "
             f"Code 10: Internal Error (Could not find any implementation for node {name}.)"
             for i, name in enumerate(HOSTILE)]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "report.html"
    assert main(["report", str(log), "-o", str(out)]) == 0  # mathtext in a name used to raise
    page = out.read_text(encoding="utf-8")
    assert "<img src=x" not in page.replace("\\u003c", "<")
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "undefinedmacro" in page
