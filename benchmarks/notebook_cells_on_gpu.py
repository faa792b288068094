"""Execute a notebook's code cells as plain Python on a GPU machine that has no Jupyter.

The GPU machine has cuda-python, numpy, pandas and matplotlib but no Jupyter kernel, so the
notebook cannot run there under nbclient. This runs its code cells in order in one namespace,
with ``display`` writing DataFrames as text and Figures as PNGs into OUT_DIR, IPython magics
dropped, and cells that need a missing package (e.g. ipywidgets) reported as skipped — never
silently. Used to check the live-GPU branch of notebooks/03_aux_stream_profiling.ipynb.

Usage: python benchmarks/notebook_cells_on_gpu.py NOTEBOOK OUT_DIR
"""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")


def main(notebook: Path, out_dir: Path) -> int:
    out_dir.mkdir(parents=True, exist_ok=True)
    cells = [c for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]
    shown: list[str] = []

    def display(*objs: Any) -> None:
        from matplotlib.figure import Figure

        for obj in objs:
            if isinstance(obj, Figure):
                path = out_dir / f"figure{len(shown)}.png"
                obj.savefig(path, dpi=80)
                shown.append(str(path))
                print(f"[figure] {path}")
            else:
                print(obj)

    namespace: dict[str, Any] = {"display": display, "__name__": "__main__"}
    report = []
    for index, cell in enumerate(cells):
        source = "".join(line for line in cell["source"] if not line.lstrip().startswith("%"))
        try:
            exec(compile(source, f"{notebook.name}[cell {index}]", "exec"), namespace)
            outcome = "ok"
        except ImportError as err:
            outcome = f"skipped: {err}"
        except Exception:
            outcome = "error: " + traceback.format_exc(limit=3)
        print(f"== cell {index}: {outcome.splitlines()[0]}")
        report.append({"cell": index, "outcome": outcome})
    (out_dir / "cells.json").write_text(json.dumps({"notebook": notebook.name, "cells": report,
                                                    "figures": shown}, indent=1))
    return 1 if any(r["outcome"].startswith("error") for r in report) else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
