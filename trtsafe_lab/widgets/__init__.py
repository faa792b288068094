"""ipywidgets panels over the library's functions (needs the ``notebook`` extra).

Each panel is built from the same functions as the CLI and is returned, never displayed at
construction: make it the last expression of a cell (or ``display(panel.ui)``). ipywidgets is
imported when a panel is constructed, not when this package is imported.

- :class:`BuildForm`: compose a trtexec command (11.x rules inline), run it, watch it live.
- :class:`FailureExplorer`: a failure table, filtered, sorted and paged, with a detail pane.
- :class:`ProfileDashboard`: recorded profile runs compared; choose runs, baseline, metric, view.
"""

from trtsafe_lab.widgets.build_form import BuildForm
from trtsafe_lab.widgets.failure_explorer import FailureExplorer
from trtsafe_lab.widgets.profile_dashboard import ProfileDashboard

__all__ = ["BuildForm", "FailureExplorer", "ProfileDashboard"]
