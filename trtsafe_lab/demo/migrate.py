"""Demo step: check the bundled 10.x-era example project and write the findings tables."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from trtsafe_lab.examples import example_path
from trtsafe_lab.migrate.check import check_paths, findings_frame
from trtsafe_lab.migrate.rules import rules_frame

# The bundled 10.x-era example project (a folder of C++, shell, CMake, CI YAML, Python).
EXAMPLE = example_path("migrate", "lidar_app_10x")


def run_demo(out_dir: Path) -> list[Path]:
    """Check the example project; write ``migrate_findings.csv`` / ``.json`` (file paths
    relative to the project) and ``migrate_rules.csv``. Returns the files written."""
    findings = [
        replace(f, file=Path(f.file).relative_to(EXAMPLE).as_posix())
        for f in check_paths([EXAMPLE])
    ]
    csv_path = out_dir / "migrate_findings.csv"
    findings_frame(findings).to_csv(csv_path, index=False)
    json_path = out_dir / "migrate_findings.json"
    json_path.write_text(json.dumps([f.as_dict() for f in findings], indent=2) + "\n")
    rules_path = out_dir / "migrate_rules.csv"
    rules_frame().to_csv(rules_path, index=False)
    return [csv_path, json_path, rules_path]
