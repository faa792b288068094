"""Every notebook in notebooks/ is stored clean and runs top to bottom headless (no TensorRT,
no GPU needed), on the bundled example data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*.ipynb"))
EXPECTED = (
    "01_bringup_build.ipynb",
    "02_failure_triage.ipynb",
    "03_aux_stream_profiling.ipynb",
    "04_safety_runtime_tour.ipynb",
)


def test_the_notebooks_are_there() -> None:
    names = {p.name for p in NOTEBOOKS}
    missing = [n for n in EXPECTED if n not in names]
    assert not missing, f"notebooks missing from {REPO_ROOT / 'notebooks'}: {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path: Path) -> None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    dirty = [
        i for i, cell in enumerate(nb["cells"])
        if cell.get("outputs") or cell.get("execution_count") is not None
    ]
    assert not dirty, f"{path.name}: cells {dirty} have stored outputs; clear them and commit"
    assert "widgets" not in nb.get("metadata", {}), f"{path.name} stores widget state"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_has_a_parameters_cell_with_inputs(path: Path) -> None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    tagged = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: needs exactly one cell tagged 'parameters'"
    assert "inputs" in "".join(tagged[0]["source"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_headless(path: Path, tmp_path: Path) -> None:
    pytest.importorskip("nbclient")
    from trtsafe_lab.report import execute_notebook

    # builds (notebook 01's REPLAY) go to a temporary runs folder, not into the source tree
    parameters = {"runs_dir": str(tmp_path / "runs")} if path.stem == "01_bringup_build" else {}
    nb = execute_notebook(path, parameters)
    errors = [
        output for cell in nb.cells for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert not errors
    code_cells = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert all(c.execution_count for c in code_cells), "some code cells did not run"


def test_triage_notebook_reads_pasted_text() -> None:
    """Notebook 02 with a log pasted as text (the example log's content, not its path)."""
    pytest.importorskip("nbclient")
    from trtsafe_lab.demo.logs import EXAMPLES
    from trtsafe_lab.report import execute_notebook

    text = (EXAMPLES / "trt11-safe-build-autotuner.log").read_text(encoding="utf-8")
    nb = execute_notebook(REPO_ROOT / "notebooks" / "02_failure_triage.ipynb",
                          {"inputs": [], "pasted": text})
    shown = "".join(str(output.get("data", {}).get("text/plain", ""))
                    + str(output.get("data", {}).get("text/html", "")) + str(output.get("text", ""))
                    for cell in nb.cells for output in cell.get("outputs", []))
    assert "&lt;pasted&gt;" in shown  # tables are interactive HTML, their values escaped
    assert "/neck/fuse/Conv" in shown
    assert "trt10-safety-scope-rejection.log" not in shown  # only the pasted log was read


def test_notebook_03_live_branch_writes_under_runs_dir(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The live-GPU branch (no GPU here: run with the profiling call replaced) writes its runs
    into the notebook's ``runs_dir`` with time-stamped names, like builds; nothing in /tmp."""
    import re

    import pandas as pd

    from trtsafe_lab.demo.profile import example_runs
    from trtsafe_lab.profile import runner
    from trtsafe_lab.profile.loaders import load_profile_run
    from trtsafe_lab.profile.reference import WorkloadSpec

    nb = json.loads((REPO_ROOT / "notebooks" / "03_aux_stream_profiling.ipynb").read_text())
    cells = {c.get("id"): "".join(c["source"]) for c in nb["cells"]}
    assert "tempfile" not in "".join(cells.values())
    recorded = [run.path for run in next(iter(example_runs().values()))]
    calls: list[tuple[Path, dict[str, object]]] = []

    def fake_run_reference(spec, aux_counts, timing, out_dir, **kwargs):  # type: ignore[no-untyped-def]
        calls.append((Path(out_dir), kwargs))
        return recorded

    monkeypatch.setattr(runner, "run_reference", fake_run_reference)
    namespace: dict[str, object] = {}
    exec(cells["03-01"], namespace)  # the parameters cell
    namespace.update(runs_dir=str(tmp_path / "runs"), live=True, source="live", Path=Path,
                     pd=pd, load_profile_run=load_profile_run, example_runs=example_runs,
                     available=lambda name: False, show_table=lambda *a, **k: None)
    exec(cells["03-04"], namespace)
    ((out_dir, kwargs),) = calls
    assert out_dir == tmp_path / "runs"
    assert re.fullmatch(r"\d{8}-\d{6}", str(kwargs.get("prefix"))), kwargs
    assert runner.run_name(WorkloadSpec(), 4, True, "20261201-174500") == (
        "20261201-174500-ref-b4-d8-g4x128-i4096-aux4-graph")
