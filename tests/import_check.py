"""Which heavy packages an import pulls in, checked in a fresh interpreter (test helper)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable


def loaded_after(code: str, packages: Iterable[str]) -> list[str]:
    """Modules of ``packages`` (top-level names) loaded after running ``code`` (imports, and any
    calls) in a fresh interpreter, sorted; ``[]`` when none was."""
    script = (f"import json, sys\n{code}\n"
              f"print(json.dumps(sorted(m for m in sys.modules "
              f"if m.split('.')[0] in {tuple(packages)!r})))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True)
    return list(json.loads(result.stdout.splitlines()[-1]))
