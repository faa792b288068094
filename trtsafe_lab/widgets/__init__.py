"""ipywidgets panels over the library's functions (needs the ``notebook`` extra).

Each panel is built from the same functions as the CLI and is returned, never displayed at
construction: make it the last expression of a cell (or ``display(panel.ui)``). ipywidgets is
imported when a panel is constructed, not when this package is imported.
"""

from trtsafe_lab.widgets.failure_explorer import FailureExplorer

__all__ = ["FailureExplorer"]
