"""`trtsafe-lab report`: input kinds, parameter injection, headless runs, self-contained HTML."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from trtsafe_lab.cli import main
from trtsafe_lab.errors import UsageError
from trtsafe_lab.report import (
    ReportError,
    choose_notebook,
    inject_parameters,
    input_kind,
)
from trtsafe_lab.rundir import write_run_manifest

nbformat = pytest.importorskip("nbformat")


def _write_notebook(folder: Path, name: str, cells: list[tuple[str, str, list[str]]]) -> Path:
    nb = nbformat.v4.new_notebook()
    for kind, source, tags in cells:
        cell = (nbformat.v4.new_markdown_cell(source) if kind == "md"
                else nbformat.v4.new_code_cell(source))
        cell.metadata["tags"] = tags
        nb.cells.append(cell)
    path = folder / name
    nbformat.write(nb, path)
    return path


def test_input_kinds(tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    log.write_text("[E] Error[10]: oops\n")
    exports = tmp_path / "aux2"
    exports.mkdir()
    (exports / "model.timing.json").write_text("[]")
    run = tmp_path / "run-1"
    run.mkdir()
    write_run_manifest(run, "build", "run-1")
    alien = tmp_path / "alien"
    alien.mkdir()
    (alien / "manifest.json").write_text("{}")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert input_kind(log) == "log"
    assert input_kind(exports) == "profile"
    assert input_kind(run) == "build"
    with pytest.raises(UsageError, match="neither a run manifest nor trtexec exports"):
        input_kind(empty)
    with pytest.raises(UsageError, match="not a trtsafe-lab run manifest"):
        input_kind(alien)
    with pytest.raises(FileNotFoundError, match="nothere"):
        input_kind(tmp_path / "nothere")
    assert choose_notebook([log]) == "02_failure_triage.ipynb"
    assert choose_notebook([exports, exports]) == "03_aux_stream_profiling.ipynb"
    with pytest.raises(UsageError, match="different kinds"):
        choose_notebook([log, exports])


def test_inject_parameters_goes_after_the_parameters_cell(tmp_path: Path) -> None:
    path = _write_notebook(tmp_path, "n.ipynb", [
        ("md", "# title", []), ("code", "inputs = []", ["parameters"]), ("code", "x = 1", []),
    ])
    nb = inject_parameters(nbformat.read(path, as_version=4), {"inputs": ["/a b/c.log"]})
    assert [c.source.splitlines()[-1] for c in nb.cells] == [
        "# title", "inputs = []", "inputs = ['/a b/c.log']", "x = 1",
    ]
    bare = _write_notebook(tmp_path, "bare.ipynb", [("code", "x = 1", [])])
    with pytest.raises(ReportError, match="no cell tagged 'parameters'"):
        inject_parameters(nbformat.read(bare, as_version=4), {"inputs": []})


def test_report_executes_with_inputs_and_embeds_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tiny stand-in notebook (not one of the project's) checks the report machinery itself."""
    pytest.importorskip("nbclient")
    books = tmp_path / "books"
    books.mkdir()
    _write_notebook(books, "02_failure_triage.ipynb", [
        ("code", "inputs = []", ["parameters"]),
        ("code", "from pathlib import Path\nprint('LINES', len(Path(inputs[0]).read_text()"
                 ".splitlines()))", []),
        ("code", "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\n"
                 "ax.plot([1, 2, 3])\nplt.show()", []),
        ("code", "print('WIDGET CELL')", ["interactive"]),
    ])
    monkeypatch.setenv("TRTSAFE_NOTEBOOKS", str(books))
    monkeypatch.setenv("MPLBACKEND", "Agg")  # the report must still inline its figures
    log = tmp_path / "my build.log"
    log.write_text("one\ntwo\nthree\n")
    out = tmp_path / "out" / "report.html"
    assert main(["report", str(log), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "LINES 3" in page
    assert "WIDGET CELL" not in page  # interactive cells are dropped from reports
    assert "Parameters injected" not in page
    assert 'src="http' not in page and "<script src=" not in page  # self-contained
    png = page.split("data:image/png;base64,", 1)[1].split('"', 1)[0]
    assert base64.b64decode(png).startswith(b"\x89PNG")


def test_reports_share_one_quiet_kernel_with_a_clean_namespace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Two reports through one ReportKernel: one kernel process, the second notebook does not
    see the first one's variables, no Jupyter warnings on the terminal, a table of contents."""
    pytest.importorskip("nbclient")
    from trtsafe_lab.report import ReportKernel, write_notebook_report

    books = tmp_path / "books"
    books.mkdir()
    _write_notebook(books, "a.ipynb", [
        ("md", "# First report\n## Section one", []),
        ("code", "inputs = []", ["parameters"]),
        ("code", "import os\nleft_behind = 1\nprint('PID', os.getpid())", []),
    ])
    _write_notebook(books, "b.ipynb", [
        ("code", "inputs = []", ["parameters"]),
        ("code", "import os\nprint('PID', os.getpid())\nprint('LEFT', 'left_behind' in dir())",
         []),
    ])
    monkeypatch.setenv("TRTSAFE_NOTEBOOKS", str(books))
    with ReportKernel(books) as kernel:
        a = write_notebook_report("a.ipynb", {}, tmp_path / "a.html", "a", kernel)
        b = write_notebook_report("b.ipynb", {}, tmp_path / "b.html", "b", kernel)
        assert kernel.notebooks_run == 2
    page_a, page_b = a.read_text(encoding="utf-8"), b.read_text(encoding="utf-8")
    pid = page_a.split("PID ", 1)[1].split()[0]
    assert f"PID {pid}" in page_b  # the same kernel process ran both
    assert "LEFT False" in page_b  # ... with the first notebook's names gone
    assert "class='trtsafe-toc'" in page_a and "href='#Section-one'" in page_a
    assert "trtsafe-toc" not in page_b  # no headings, no contents box
    err = capfd.readouterr().err
    assert "without encryption" not in err and "WARNING" not in err, err


def test_report_names_the_failing_notebook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("nbclient")
    books = tmp_path / "books"
    books.mkdir()
    _write_notebook(books, "02_failure_triage.ipynb", [
        ("code", "inputs = []", ["parameters"]), ("code", "raise ValueError('bad log')", []),
    ])
    monkeypatch.setenv("TRTSAFE_NOTEBOOKS", str(books))
    log = tmp_path / "b.log"
    log.write_text("x\n")
    out = tmp_path / "r.html"
    assert main(["report", str(log), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "02_failure_triage.ipynb failed" in err and "bad log" in err
    assert not out.exists()


def test_report_refuses_missing_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "nothere.log"), "-o", str(tmp_path / "r.html")]) == 2
    assert "nothere.log" in capsys.readouterr().err


def test_report_on_a_build_run_uses_notebook_01(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run made by the builds job's runner with the trtexec TEST DOUBLE (not TensorRT)."""
    pytest.importorskip("nbclient")
    from notebook_support import install_trtexec_double

    from trtsafe_lab.trtexec import TrtexecOptions, TrtVersion, run_build

    monkeypatch.setenv("PATH", f"{install_trtexec_double(tmp_path / 'bin')}:/usr/bin:/bin")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.onnx").write_bytes(b"placeholder: the double never reads it")
    cmd = TrtexecOptions(onnx=Path("model.onnx"), save_engine=Path("model.engine"),
                         safe=True).to_command(TrtVersion(11, 4))
    result = run_build(cmd, tmp_path / "runs")
    assert input_kind(result.run_dir) == "build"
    out = tmp_path / "build-report.html"
    assert main(["report", str(result.run_dir), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert result.run_dir.name in page
    assert "/backbone/conv1/Conv" in page  # the failure table of the run's log
    assert "no-implementation" in page


def test_report_on_the_bundled_example_logs(tmp_path: Path) -> None:
    """The real triage notebook (02) on the example logs the package ships."""
    pytest.importorskip("nbclient")
    from trtsafe_lab.demo.logs import example_logs

    logs = example_logs()
    out = tmp_path / "triage.html"
    assert main(["report", *map(str, logs), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    for layer in ("/neck/Resize", "/head/attn/Softmax", "/neck/fuse/Conv"):
        assert layer in page
    assert page.count("data:image/png;base64,") >= 1  # the summary plot
    assert "FailureExplorer(" not in page and "id=\"Explore\"" not in page  # interactive out
    assert "id=\"Summary\"" in page


def test_report_on_a_passed_safe_build_checks_the_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A passed safe build by the builds job's trtexec TEST DOUBLE (writes a placeholder engine
    and a real ELF .so built with cc; not TensorRT): notebook 01 reports the pair sound."""
    pytest.importorskip("nbclient")
    from builds_support import build_shared_object, double_environment

    from trtsafe_lab.demo.logs import EXAMPLES
    from trtsafe_lab.trtexec import TrtexecOptions, TrtVersion, run_build

    so = build_shared_object(tmp_path / "companion.so")
    for name, value in double_environment(
        tmp_path, so, EXAMPLES / "trt11-safe-build-passed.log"
    ).items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.onnx").write_bytes(b"placeholder: the double never reads it")
    cmd = TrtexecOptions(onnx=Path("model.onnx"), save_engine=Path("model.engine"),
                         safe=True).to_command(TrtVersion(11, 4))
    result = run_build(cmd, tmp_path / "runs")
    assert result.ok
    out = tmp_path / "pair-report.html"
    assert main(["report", str(result.run_dir), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "pair model.engine: sound" in page
    assert "every file matches its recorded SHA-256" in page


def test_report_on_real_trtexec_exports(tmp_path: Path, corpus_dir: Path) -> None:
    """Notebook 03 on two folders of real trtexec exports from the shared corpus."""
    pytest.importorskip("nbclient")
    exports = corpus_dir / "trtexec-exports"
    runs = [exports / "trt10-mobilenet_v2-fp16", exports / "trt10-resnet18-fp16"]
    out = tmp_path / "exports.html"
    assert main(["report", *map(str, runs), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "trt10-mobilenet_v2-fp16" in page and "trt10-resnet18-fp16" in page
    assert "speedup_vs_baseline" in page
    assert "trt10-resnet18-fp16: every layer on one stream" in page  # 10.x graphs: one stream
    assert page.count("data:image/png;base64,") >= 1
