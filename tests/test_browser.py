"""The notebooks and the HTML reports in a real browser (Debian's chromium, 1280 px wide).

Starts JupyterLab (127.0.0.1, a free port, a token, a temporary root holding copies of the
notebooks, its own temp folder), opens each notebook in headless chromium with Playwright, runs
all cells from the Run menu, saves, and checks that no cell errored (in the saved file), that
the widgets rendered in the DOM, and drives them: the build form (a refusal inline; the REPLAY
build it chooses by itself on a machine without trtexec, its log following the newest line,
nothing left in the temp folder), the failure explorer's filters, the profile dashboard's views
and its empty state. Reports of a log, a build run, a profile comparison and the tour (whose
migration check reads the bundled 10.x project) are opened from disk the same way.

On every page, the layout checks (:data:`LAYOUT_JS`): no table cell and no output container is
wider than its box (``scrollWidth`` against ``clientWidth``: clipped or hidden behind a scroll
bar), no name in a table, option or label is cut with an ellipsis, no error output. Screenshots
go to out/browser-screenshots/ (the path is printed; ``docs/screenshots/`` holds reference
copies). Playwright cannot download its own browser here: the test uses /usr/bin/chromium
(``apt-get install chromium``; .ci/run installs it).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*.ipynb"))
CHROMIUM = Path(os.environ.get("TRTSAFE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
SCREENSHOTS = REPO_ROOT / "out" / "browser-screenshots"
TOKEN = "trtsafe-browser-test"
# Notebooks that must show at least one widget once run (the others may not have any).
WIDGET_NOTEBOOKS = {"01_bringup_build", "02_failure_triage", "03_aux_stream_profiling"}
RUN_ALL_TIMEOUT_MS = int(os.environ.get("TRTSAFE_RUN_ALL_TIMEOUT_MS", "240000"))
VIEWPORT = {"width": 1280, "height": 1200}
REPORTS = REPO_ROOT / "out" / "browser-reports"

# Layout checks run in the page. A cell or container whose content is wider than its box is
# clipped (or needs a horizontal scroll bar to be read); an ellipsis inside a cell, option or
# label means text was cut (names must be shown whole: they wrap or open in the detail pane).
LAYOUT_JS = """() => {
    const visible = e => e.offsetParent !== null && e.getClientRects().length > 0;
    const what = e => (e.className && typeof e.className === 'string' ? '.' +
        e.className.trim().split(/\\s+/).slice(0, 3).join('.') : '') ;
    const out = {clipped: [], cut: [], errors: [], tables: 0, cells: 0};
    const boxes = document.querySelectorAll(
        'td, th, .jp-OutputArea-output, .jp-RenderedHTMLCommon, .widget-html-content, '
        + '.dt-container, .trtsafe-table, .trtsafe-failure-table, .trtsafe-build-form, '
        + '.trtsafe-build-panel, .trtsafe-profile-dashboard, .trtsafe-failure-explorer, '
        + '.widget-toggle-button, .widget-label, .trtsafe-toc');
    for (const e of boxes) {
        if (!visible(e)) continue;
        if (e.tagName === 'TD' || e.tagName === 'TH') out.cells += 1;
        if (e.scrollWidth > e.clientWidth + 1) {
            out.clipped.push(e.tagName.toLowerCase() + what(e) + ' scrollWidth ' + e.scrollWidth
                + ' > clientWidth ' + e.clientWidth + ': ' + e.innerText.slice(0, 80));
        }
    }
    // Boxes that stick out of their output area (or the report's page) are cut off there even
    // when the box itself is not: a table wider than the output area, a long caption.
    for (const e of document.querySelectorAll(
            'td, th, caption, table, .dt-container, .jupyter-widgets, img, pre')) {
        if (!visible(e)) continue;
        const area = e.closest('.jp-OutputArea-output, .jp-Cell-inputWrapper')
            || document.body;
        if (area === e) continue;
        const right = e.getBoundingClientRect().right, limit = area.getBoundingClientRect().right;
        if (right > limit + 1) {
            out.clipped.push(e.tagName.toLowerCase() + what(e) + ' ends at ' + Math.round(right)
                + ' px, past its output area at ' + Math.round(limit) + ' px: '
                + (e.innerText || e.getAttribute('src') || '').slice(0, 80));
        }
    }
    out.tables = [...document.querySelectorAll('table')].filter(visible).length;
    for (const e of document.querySelectorAll('td, th, option, .widget-label, button, caption')) {
        const text = e.innerText || e.textContent || '';
        if (text.includes('\u2026') || /\\.\\.\\.\\s*$/.test(text)) {
            out.cut.push(e.tagName.toLowerCase() + ': ' + text.slice(0, 120));
        }
    }
    for (const e of document.querySelectorAll(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], '
            + '.jp-OutputArea-output.jp-mod-error, .output_error')) {
        const text = e.innerText || '';
        if (/Traceback|Error/.test(text)) out.errors.push(text.slice(0, 300));
    }
    return out;
}"""

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

# JupyterLab user settings: render every cell (no virtual scrolling, so off-screen widgets are
# in the DOM), no news or update checks (nothing outside this machine is reachable).
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        "windowingMode": "none", "autoStartDefaultKernel": True,
    },
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False,
    },
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, Path]]:
    """A running JupyterLab: (base URL, root dir with copies of the notebooks, the temp folder
    its kernels use)."""
    pytest.importorskip("jupyterlab")
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y "
                    "chromium; .ci/run does it) or set TRTSAFE_CHROMIUM")
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)  # this run's screenshots only
    home = tmp_path_factory.mktemp("lab")
    root = home / "root"
    root.mkdir()
    temp = home / "tmp"  # the server's and its kernels' temp folder: must stay empty
    temp.mkdir()
    for path in NOTEBOOKS:
        shutil.copy(path, root / path.name)
    settings = home / "settings"
    for name, values in LAB_SETTINGS.items():
        target = settings / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        MPLBACKEND="module://matplotlib_inline.backend_inline",
        TMPDIR=str(temp),
    )
    port = _free_port()
    log = (home / "lab.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
         f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root}",
         "--LabApp.news_url=None", "--LabApp.extension_manager=readonly",
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                pytest.fail(f"JupyterLab exited with {server.returncode}: "
                            f"{(home / 'lab.log').read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer on {base} within 120 s")
                time.sleep(0.5)
        yield base, root, temp
    finally:
        _stop(server)
        log.close()


def _stop(server: subprocess.Popen[bytes]) -> None:
    """End the server's whole process group (it has kernels as children)."""
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def _kernel_ready(base: str, notebook: str, timeout_s: float = 90) -> None:
    """Wait until the notebook's own kernel (from its session) is idle with a browser connected.

    JupyterLab drops "run all" requests made before its kernel websocket is up, so the test
    waits on the server's view of this notebook's kernel rather than on the page.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        with urllib.request.urlopen(f"{base}/api/sessions?token={TOKEN}", timeout=10) as answer:
            sessions = json.loads(answer.read())
        kernels = [s["kernel"] for s in sessions
                   if s.get("path") == notebook and s.get("kernel")]
        if any(k.get("execution_state") == "idle" and k.get("connections", 0) > 0
               for k in kernels):
            return
        if time.monotonic() > deadline:
            pytest.fail(f"{notebook}: no connected idle kernel after {timeout_s} s: {sessions}")
        time.sleep(0.5)


def _shut_down_sessions(base: str, notebook: str) -> None:
    """End the notebook's kernel so the next notebook has the (2) cores to itself."""
    with urllib.request.urlopen(f"{base}/api/sessions?token={TOKEN}", timeout=10) as answer:
        sessions = json.loads(answer.read())
    for session in sessions:
        if session.get("path") == notebook:
            request = urllib.request.Request(
                f"{base}/api/sessions/{session['id']}?token={TOKEN}", method="DELETE")
            urllib.request.urlopen(request, timeout=30).close()


PROMPTS_DONE_JS = """() => {
    const prompts = [...document.querySelectorAll(
        '.jp-Notebook .jp-CodeCell .jp-InputArea-prompt')];
    return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
}"""


def _run_all_and_save(page: object, base: str, nb_path: Path) -> dict[str, object]:
    """Run every cell from the Run menu, wait until all have run, save; return the saved JSON."""
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)  # type: ignore[attr-defined]
    _kernel_ready(base, nb_path.name)
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")  # type: ignore[attr-defined]
    page.click("li.lm-Menu-item[data-command='runmenu:run-all']")  # type: ignore[attr-defined]
    # every code cell's prompt shows a number: [*] while running, [ ] before
    page.wait_for_function(PROMPTS_DONE_JS, timeout=RUN_ALL_TIMEOUT_MS)  # type: ignore[attr-defined]
    _kernel_ready(base, nb_path.name)
    before = nb_path.stat().st_mtime_ns
    page.keyboard.press("Control+s")  # type: ignore[attr-defined]
    deadline = time.monotonic() + 30
    while nb_path.stat().st_mtime_ns == before:
        if time.monotonic() > deadline:
            pytest.fail(f"JupyterLab did not save {nb_path.name} within 30 s")
        time.sleep(0.2)
    time.sleep(0.5)  # the save is a single write, but let it finish
    return json.loads(nb_path.read_text(encoding="utf-8"))


def check_layout(page: object, where: str) -> dict[str, object]:
    """Run :data:`LAYOUT_JS` on the page and fail on clipped boxes, cut names or errors."""
    found: dict[str, object] = page.evaluate(LAYOUT_JS)  # type: ignore[attr-defined]
    problems = {k: found[k] for k in ("clipped", "cut", "errors") if found[k]}
    assert not problems, f"{where}: {json.dumps(problems, indent=1)}"
    return found


def _check_failure_explorer(page: object, shots: Path) -> None:
    explorer = page.locator(".trtsafe-failure-explorer").first  # type: ignore[attr-defined]
    explorer.evaluate("e => e.scrollIntoView({block: 'start'})")
    table = explorer.locator(".trtsafe-failure-table")
    before = table.inner_text()
    assert "<img" not in before and "rows 1-" in before
    check_layout(page, "02 failure explorer")
    page.screenshot(path=str(shots / "02_failure_explorer_all.png"))  # type: ignore[attr-defined]
    buttons = explorer.locator(".trtsafe-filter-severity button")
    labels = [b.strip() for b in buttons.all_inner_texts()]
    assert len(labels) >= 3, f"severity filter needs (all) and two severities: {labels}"
    # Click each severity in turn: with two or more severities present, every one of them
    # filters some rows out, so the table the browser shows must change.
    for index, choice in enumerate(labels[1:], start=1):
        buttons.nth(index).click()
        page.wait_for_function(  # type: ignore[attr-defined]
            "(before) => document.querySelector('.trtsafe-failure-table').innerText !== before",
            arg=before, timeout=30_000,
        )
        after = table.inner_text()
        assert after != before and "rows " in after
        assert "(all)" not in after
        page.screenshot(  # type: ignore[attr-defined]
            path=str(shots / f"02_failure_explorer_{choice}.png"))
        buttons.nth(0).click()  # back to (all)
        page.wait_for_function(  # type: ignore[attr-defined]
            "(before) => document.querySelector('.trtsafe-failure-table').innerText === before",
            arg=before, timeout=30_000,
        )


FOLLOWING_JS = """() => {
    const box = document.querySelector('.trtsafe-build-log .trtsafe-log-box');
    if (!box) return null;
    const pre = box.querySelector('pre');
    return {overflows: box.scrollHeight > box.clientHeight + 1,
            bottomGap: box.getBoundingClientRect().bottom - pre.getBoundingClientRect().bottom,
            scrollTop: box.scrollTop, last: pre.innerText.trim().split('\\n').pop()};
}"""


def _check_build_form(page: object, shots: Path, temp: Path) -> None:
    """Typing a flag that 11.x removed shows the refusal inline and disables Run; with no
    trtexec here the form has chosen the REPLAY tool by itself, and Run builds with it: the log
    follows the newest line, the phases show, and the temp folder stays empty."""
    form = page.locator(".trtsafe-build-form").first  # type: ignore[attr-defined]
    form.scroll_into_view_if_needed()
    extra = form.locator("input[placeholder^='e.g. --verbose']")
    extra.fill("--fp16")
    form.locator(".trtsafe-build-preview .trtsafe-refusal").first.wait_for(timeout=30_000)
    assert "fp16" in form.locator(".trtsafe-build-preview").inner_text()
    page.wait_for_function(  # type: ignore[attr-defined]  # each widget's state comes apart
        "() => [...document.querySelectorAll('.trtsafe-build-form button')]"
        ".find(b => b.textContent.trim() === 'Run').disabled", timeout=30_000)
    check_layout(page, "01 build form with a refusal")
    form.screenshot(path=str(shots / "01_build_form_refusal.png"))
    extra.fill("")
    if shutil.which("trtexec") or shutil.which("trtexec_safe"):
        return  # a real tool is the default here: the test does not run TensorRT builds
    chosen = form.locator(".trtsafe-tool-choice button.mod-active")
    assert chosen.inner_text().strip() == "REPLAY (not TensorRT)"  # chosen with no hint
    assert "REPLAY" in form.locator(".trtsafe-tool-path input").input_value()
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => ![...document.querySelectorAll('.trtsafe-build-form button')]"
        ".find(b => b.textContent.trim() === 'Run').disabled", timeout=30_000)
    form.locator("button:text-is('Run')").click()
    form.locator(".trtsafe-build-summary :text('run directory')").wait_for(timeout=120_000)
    summary = form.locator(".trtsafe-build-summary").inner_text()
    assert "NOT OK" in summary and "exit code 1" in summary  # a replay builds no engine
    log = form.locator(".trtsafe-build-log")
    assert "Error" in log.inner_text()  # the live log tail
    following = page.evaluate(FOLLOWING_JS)  # type: ignore[attr-defined]
    assert following is not None and following["overflows"], following
    assert abs(following["bottomGap"]) <= 8 and abs(following["scrollTop"]) <= 1, following
    assert "&&&& FAILED" in following["last"], following  # the newest line is the one shown
    phases = form.locator(".trtsafe-build-phases").inner_text()
    assert "elapsed" in phases and "parse" in phases
    form.locator(".trtsafe-failure-explorer").wait_for(timeout=30_000)
    log.scroll_into_view_if_needed()
    check_layout(page, "01 build form after the REPLAY run")
    page.screenshot(path=str(shots / "01_build_form_replay_run.png"))  # type: ignore[attr-defined]
    left = sorted(p.name for p in temp.iterdir())
    assert left == [], f"left in the temp folder after the build: {left}"


def _check_profile_dashboard(page: object, shots: Path) -> None:
    """Choosing another view redraws the plot (a new PNG in the image)."""
    dash = page.locator(".trtsafe-profile-dashboard").first  # type: ignore[attr-defined]
    dash.scroll_into_view_if_needed()
    image = dash.locator(".trtsafe-profile-plot")
    before = image.get_attribute("src")
    dash.locator("select").last.select_option("ecdf")
    page.wait_for_function(  # type: ignore[attr-defined]
        "(before) => document.querySelector('.trtsafe-profile-plot').src !== before",
        arg=before, timeout=60_000,
    )
    check_layout(page, "03 profile dashboard")
    dash.screenshot(path=str(shots / "03_profile_dashboard_ecdf.png"))
    # no run chosen: the table and the plot of the earlier choice go away
    dash.locator("select").first.select_option([])
    dash.locator(":text('Choose at least one run')").wait_for(timeout=30_000)
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => !document.querySelector('.trtsafe-profile-table table')", timeout=30_000)
    dash.locator(".trtsafe-profile-plot").wait_for(state="hidden", timeout=30_000)
    dash.screenshot(path=str(shots / "03_profile_dashboard_empty.png"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_in_jupyterlab(lab: tuple[str, Path, Path], browser: object,
                                path: Path) -> None:
    base, root, temp = lab
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots: {SCREENSHOTS}")
    page = browser.new_page(viewport=VIEWPORT)  # type: ignore[attr-defined]
    try:
        page.goto(f"{base}/lab/tree/{path.name}?token={TOKEN}&reset", timeout=120_000)
        saved = _run_all_and_save(page, base, root / path.name)
        errors = [
            "".join(output.get("traceback", []))[-2000:]
            for cell in saved["cells"] for output in cell.get("outputs", [])  # type: ignore[attr-defined]
            if output.get("output_type") == "error"
        ]
        assert not errors, f"{path.name} raised in the browser:\n" + "\n".join(errors)
        widgets = page.locator(".jp-OutputArea .jupyter-widgets").count()
        if path.stem in WIDGET_NOTEBOOKS:
            assert widgets > 0, f"{path.name}: no widget rendered in the page"
            assert page.locator(".jp-OutputArea .widget-html, .jp-OutputArea .widget-button,"
                                " .jp-OutputArea .widget-dropdown").count() > 0
            assert page.locator(".jp-OutputArea :text('Error displaying widget')").count() == 0
        if widgets:
            page.locator(".jp-OutputArea .jupyter-widgets").first.scroll_into_view_if_needed()
        elif page.locator(".jp-OutputArea img").count():
            page.locator(".jp-OutputArea img").first.scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"{path.stem}.png"))
        assert page.locator(".jp-OutputArea table.dataTable").count() > 0, \
            "no interactive table (itables) rendered"
        _check_every_output(page, path.stem)
        if path.stem == "01_bringup_build":
            _check_build_form(page, SCREENSHOTS, temp)
        if path.stem == "02_failure_triage":
            _check_failure_explorer(page, SCREENSHOTS)
        if path.stem == "03_aux_stream_profiling":
            _check_profile_dashboard(page, SCREENSHOTS)
    except Exception:
        page.screenshot(path=str(SCREENSHOTS / f"FAILED-{path.stem}.png"))
        (SCREENSHOTS / f"FAILED-{path.stem}.html").write_text(page.content())
        raise
    finally:
        page.close()
        _shut_down_sessions(base, path.name)


SCROLLER_JS = """() => {
    let e = document.querySelector('.jp-Notebook .jp-Cell');
    while (e && !(e.scrollHeight > e.clientHeight + 10
                  && /(auto|scroll)/.test(getComputedStyle(e).overflowY))) e = e.parentElement;
    if (!e) return 0;
    e.setAttribute('data-trtsafe-scroller', '1');
    return e.scrollHeight;
}"""


def _check_every_output(page: object, stem: str) -> None:
    """Scroll the notebook from top to bottom and check the layout at each screenful (every
    output is in the DOM: windowing is off); keep one screenshot per screenful."""
    height = int(page.evaluate(SCROLLER_JS))  # type: ignore[attr-defined]
    check_layout(page, stem)
    step = VIEWPORT["height"] - 250
    for index, top in enumerate(range(0, max(height, 1), step)):
        page.evaluate(  # type: ignore[attr-defined]
            f"() => document.querySelector('[data-trtsafe-scroller]')?.scrollTo(0, {top})")
        page.wait_for_timeout(300)  # type: ignore[attr-defined]
        page.screenshot(path=str(SCREENSHOTS / f"{stem}-page{index + 1}.png"))  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """HTML reports of a log, a build run (the REPLAY tool: not TensorRT), a profile
    comparison and the tour (its migration check reads the bundled 10.x project)."""
    pytest.importorskip("nbclient")
    from trtsafe_lab.demo.logs import example_logs
    from trtsafe_lab.demo.profile import example_runs
    from trtsafe_lab.replay import replay_setup
    from trtsafe_lab.report import ReportKernel, notebooks_dir, write_notebook_report, write_report
    from trtsafe_lab.trtexec import TrtexecCommand, TrtexecOptions, TrtVersion, run_build

    work = tmp_path_factory.mktemp("reports")
    tool, workdir = replay_setup(work / "runs", delay_s=0.0)
    cmd = TrtexecOptions(onnx=Path("model.onnx"), save_engine=Path("model.engine"),
                         safe=True).to_command(TrtVersion(11, 4))
    run = run_build(TrtexecCommand(str(tool), cmd.flags, cmd.version), work / "runs",
                    cwd=workdir).run_dir
    shutil.rmtree(REPORTS, ignore_errors=True)
    with ReportKernel(notebooks_dir()) as kernel:
        made = {
            "log": write_report(example_logs(), REPORTS / "report-log.html", kernel),
            "build": write_report([run], REPORTS / "report-build.html", kernel),
            "profile": write_report([r.path for r in next(iter(example_runs().values()))],
                                    REPORTS / "report-profile.html", kernel),
            "tour-migration": write_notebook_report(
                "04_safety_runtime_tour.ipynb", {}, REPORTS / "report-tour-migration.html",
                "trtsafe-lab: tour with the migration check", kernel),
        }
    print(f"\nreports: {REPORTS}")
    return made


@pytest.mark.parametrize("kind", ["log", "build", "profile", "tour-migration"])
def test_report_in_chromium(reports: dict[str, Path], browser: object, kind: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport=VIEWPORT)  # type: ignore[attr-defined]
    try:
        page.goto(reports[kind].as_uri(), timeout=60_000)
        page.wait_for_selector("table.dataTable", timeout=30_000)  # itables ran, offline
        assert page.locator(".trtsafe-toc a").count() >= 2, "no table of contents"
        assert "Traceback" not in page.inner_text("body")
        found = check_layout(page, f"report {kind}")
        assert int(found["cells"]) > 0  # type: ignore[call-overload]
        page.screenshot(path=str(SCREENSHOTS / f"report-{kind}.png"), full_page=True)
    except Exception:
        page.screenshot(path=str(SCREENSHOTS / f"FAILED-report-{kind}.png"), full_page=True)
        raise
    finally:
        page.close()
