"""Safe engine + companion .so pairs (TensorRT 11.3+): manifest, validation, packaging.

A safe build writes an engine and a companion ``.so`` (generated host and device code) that
carry a pairing token: they must be shipped, copied and versioned together.
``createTRTGraph`` needs the ``.so``'s absolute path. This module only *inspects* the ``.so``
(ELF header, size, SHA-256); it never loads it, because it is executable content.

The manifest (``<engine>.pair.json`` by default) records both files' names (relative to the
manifest's folder, so a package can move), sizes, SHA-256, the TensorRT version, the build
argv and the target architecture.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from trtsafe_lab._elf import ET_DYN, MACHINES, ElfError, read_elf_header
from trtsafe_lab.rundir import (
    sha256_file,
    staged_run_dir,
    utc_now,
    write_json_file,
    write_run_manifest,
)

MANIFEST_FORMAT = "trtsafe-lab-pair/1"
TARGETS = tuple(MACHINES)  # ("x86_64", "aarch64"): x86 proxy runtime, DriveOS target


class PairError(ValueError):
    """The pair is not sound; ``problems`` lists every problem found."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        listed = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"safe engine pair is not sound:\n{listed}")


def default_so_path(engine: Path) -> Path:
    """trtexec's default companion path: the full engine path plus ``.so``."""
    return Path(f"{engine}.so")


def default_manifest_path(engine: Path) -> Path:
    return Path(f"{engine}.pair.json")


def check_runtime_path(path: str) -> list[str]:
    """Problems with a companion path meant for ``createTRTGraph`` (it must be absolute)."""
    if not PurePosixPath(path).is_absolute():
        return [f"runtime companion path {path!r} is relative; createTRTGraph needs an absolute "
                "path (e.g. the deployed folder's full path)"]
    return []


def _file_problems(label: str, path: Path) -> list[str]:
    if not path.exists():
        return [f"{label} {path} does not exist"]
    if not path.is_file():
        return [f"{label} {path} is not a regular file"]
    if path.stat().st_size == 0:
        return [f"{label} {path} is empty"]
    return []


def elf_problems(so: Path, target: str) -> list[str]:
    """The companion must be an ELF shared object (ET_DYN) for ``target``'s machine."""
    try:
        header = read_elf_header(so)
    except (ElfError, OSError) as err:
        return [f"companion .so: {err}"]
    problems = []
    if header.e_type != ET_DYN:
        problems.append(f"companion .so {so} is {header.type_name}, not a shared object (ET_DYN)")
    if header.e_machine != MACHINES[target]:
        problems.append(f"companion .so {so} is built for {header.machine_name}, expected "
                        f"{target} (e_machine {MACHINES[target]})")
    return problems


@dataclass(frozen=True)
class SafeEnginePair:
    """A safe engine and its companion .so (``companion_so`` defaults to ``<engine>.so``)."""

    engine: Path
    companion_so: Path

    @classmethod
    def of(cls, engine: str | Path, so: str | Path | None = None) -> SafeEnginePair:
        engine = Path(engine)
        return cls(engine, Path(so) if so else default_so_path(engine))

    def manifest(self, trt_version: str, build_argv: list[str], target_arch: str | None = None,
                 base: Path | None = None) -> dict[str, Any]:
        """The manifest dict; file names are relative to ``base`` (default: the engine's folder);
        ``target_arch`` defaults to the machine in the .so's ELF header."""
        problems = _file_problems("engine", self.engine) + _file_problems(
            "companion .so", self.companion_so)
        if problems:
            raise PairError(problems)
        base = base or self.engine.parent
        if target_arch is None:
            target_arch = read_elf_header(self.companion_so).machine_name
        return {
            "format": MANIFEST_FORMAT,
            "engine": _entry(self.engine, base),
            "companion_so": _entry(self.companion_so, base),
            "trt_version": trt_version,
            "build_argv": list(build_argv),
            "target_arch": target_arch,
            "created_utc": utc_now(),
        }

    def write_manifest(self, trt_version: str, build_argv: list[str],
                       target_arch: str | None = None, path: Path | None = None) -> Path:
        path = path or default_manifest_path(self.engine)
        write_json_file(path, self.manifest(trt_version, build_argv, target_arch, path.parent))
        return path

    def validate(self, target: str | None = None, manifest: Path | None = None,
                 runtime_path: str | None = None) -> list[str]:
        """Every problem with the pair (empty list: sound).

        Checks: both files exist and are non-empty; the .so is ELF ET_DYN for ``target``
        (default: the manifest's target_arch, else x86_64); with a manifest, both files match
        its sizes and SHA-256 (a rebuilt engine with a stale .so shows up here) and the names
        it records; ``runtime_path``, if given, is absolute.
        """
        problems = _file_problems("engine", self.engine)
        problems += _file_problems("companion .so", self.companion_so)
        data = load_manifest(manifest) if manifest else None
        target = target or (data or {}).get("target_arch") or "x86_64"
        if target not in MACHINES:
            problems.append(f"unknown target {target!r}; use one of {', '.join(TARGETS)}")
        elif self.companion_so.is_file() and self.companion_so.stat().st_size:
            problems += elf_problems(self.companion_so, target)
        if data is not None and manifest is not None:
            problems += _manifest_problems(self, data, manifest.parent)
        if runtime_path is not None:
            problems += check_runtime_path(runtime_path)
        return problems

    def package(self, dest: Path, manifest: Path | None = None, target: str | None = None) -> Path:
        """Copy engine, .so and manifest into a new folder ``dest``: a run directory of kind
        ``pair`` (:mod:`trtsafe_lab.rundir`), written like every run.

        Refuses (``PairError``) a pair with any problem, e.g. an engine without its .so.
        Files are copied into ``.<dest>.partial``, re-validated, the run manifest is written,
        then the folder is renamed to ``dest``; on any error ``dest`` never appears and the
        partial folder is kept with an ``INCOMPLETE.json`` saying why.
        """
        manifest = manifest or default_manifest_path(self.engine)
        if not manifest.is_file():
            raise PairError([f"no manifest at {manifest}; write one with write_manifest() first"])
        problems = self.validate(target, manifest)
        if problems:
            raise PairError(problems)
        dest = Path(dest)
        if dest.exists():
            raise PairError([f"{dest} already exists; choose a new deployment folder"])
        data = load_manifest(manifest)
        with staged_run_dir(dest.parent, dest.name) as staging:
            engine_name = Path(data["engine"]["file"]).name
            so_name = Path(data["companion_so"]["file"]).name
            shutil.copyfile(self.engine, staging / engine_name)
            shutil.copyfile(self.companion_so, staging / so_name)
            data["engine"]["file"], data["companion_so"]["file"] = engine_name, so_name
            write_json_file(staging / manifest.name, data)
            copied = SafeEnginePair(staging / engine_name, staging / so_name)
            problems = copied.validate(target, staging / manifest.name)
            if problems:
                raise PairError([f"after copying: {p}" for p in problems])
            write_run_manifest(staging, "pair", dest.name, {
                "engine": engine_name, "companion_so": so_name, "pair_manifest": manifest.name,
                "trt_version": data.get("trt_version"), "target_arch": data.get("target_arch")})
        return dest


def _entry(path: Path, base: Path) -> dict[str, Any]:
    return {"file": os.path.relpath(path.resolve(), base.resolve()),
            "size_bytes": path.stat().st_size, "sha256": sha256_file(path)}


def load_manifest(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise PairError([f"cannot read manifest {path}: {err}"]) from err
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        raise PairError([f"{path} is not a {MANIFEST_FORMAT} manifest"])
    return data


def _manifest_problems(pair: SafeEnginePair, data: dict[str, Any], base: Path) -> list[str]:
    problems: list[str] = []
    changed = []
    for key, label, actual in (("engine", "engine", pair.engine),
                               ("companion_so", "companion .so", pair.companion_so)):
        entry = data.get(key, {})
        listed = (base / entry.get("file", "")).resolve()
        if listed != actual.resolve():
            problems.append(f"{label} {actual} is not the file the manifest names ({listed})")
        if not actual.is_file():
            continue
        if actual.stat().st_size != entry.get("size_bytes") or sha256_file(actual) != entry.get(
                "sha256"):
            changed.append(label)
            problems.append(f"{label} {actual} differs from the manifest (size/SHA-256)")
    if changed == ["engine"]:
        problems.append("the engine changed but the companion .so did not: the .so is stale "
                        "(rebuild both together; they carry a pairing token)")
    elif changed == ["companion .so"]:
        problems.append("the companion .so changed but the engine did not: they no longer pair")
    return problems
