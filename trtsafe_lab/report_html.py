"""An executed notebook as one self-contained HTML page (the ``trtsafe-lab report`` view).

nbconvert's lab template without any script fetched from a CDN, every image embedded, the cells
of given tags and widget views dropped, and a table of contents of the h1-h3 headings.
"""

from __future__ import annotations

import html
from collections.abc import Collection
from html.parser import HTMLParser
from typing import Any

from trtsafe_lab._optional import require

# nbconvert's lab template minus every script it would fetch from a CDN (require.js, MathJax,
# mermaid): a report must open offline. Figures are PNG data URIs, so nothing else is fetched.
_TEMPLATE_NAME = "trtsafe_report.html.j2"
_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""


class _Headings(HTMLParser):
    """The ``(level, id, text)`` of every h1-h3 with an id in an HTML page, in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str, str]] = []
        self._open: tuple[int, str, list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        ids = dict(attrs).get("id")
        if tag in ("h1", "h2", "h3") and ids:
            self._open = (int(tag[1]), ids, [])

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open[2].append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag == f"h{self._open[0]}":
            level, ident, text = self._open
            self.found.append((level, ident, "".join(text).replace("\u00b6", "").strip()))
            self._open = None


def table_of_contents(page: str) -> str:
    """A ``<nav>`` listing the page's h1-h3 headings as links (empty when it has none)."""
    parser = _Headings()
    parser.feed(page)
    if not parser.found:
        return ""
    items = "".join(
        f"<li class='trtsafe-toc-{level}'><a href='#{html.escape(ident, quote=True)}'>"
        f"{html.escape(text)}</a></li>" for level, ident, text in parser.found)
    return f"<nav class='trtsafe-toc'><b>Contents</b><ul>{items}</ul></nav>"


_TOC_STYLE = (
    "<style>.trtsafe-toc{margin:1em 0 1.5em;padding:.6em 1em;border:1px solid #ddd;"
    "border-radius:4px;max-width:60em}.trtsafe-toc ul{margin:.3em 0;padding-left:1.2em}"
    ".trtsafe-toc-1{list-style:none;margin-left:-1.2em;font-weight:600}"
    ".trtsafe-toc-3{margin-left:1.2em}</style>"
)


def to_html(nb: Any, title: str, hidden_tags: Collection[str] = ()) -> str:
    """One self-contained HTML page for an executed notebook: a table of contents, the cells
    tagged with any of ``hidden_tags`` and widget views dropped, images embedded, no external
    scripts or stylesheets."""
    nbconvert = require("nbconvert", feature="HTML reports")
    traitlets_config = require("traitlets.config", feature="HTML reports")
    config = traitlets_config.Config()
    config.TagRemovePreprocessor.remove_cell_tags = set(hidden_tags)
    config.TagRemovePreprocessor.enabled = True
    jinja2 = require("jinja2", feature="HTML reports")
    exporter = nbconvert.HTMLExporter(
        config=config,
        template_name="lab",
        template_file=_TEMPLATE_NAME,
        extra_loaders=[jinja2.DictLoader({_TEMPLATE_NAME: _TEMPLATE})],
    )
    exporter.embed_images = True
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            output.get("data", {}).pop("application/vnd.jupyter.widget-view+json", None)
    body, _resources = exporter.from_notebook_node(nb, resources={"metadata": {"name": title}})
    page = str(body)
    toc = table_of_contents(page)
    if toc and "<main>" in page:
        page = page.replace("<main>", f"<main>{_TOC_STYLE}{toc}", 1)
    return page
