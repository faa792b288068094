"""Safe engine + companion .so pairs (TensorRT 11.3+): manifest, validation, packaging.

A safe build writes an engine and a companion ``.so`` (generated host and device code) that
carry a pairing token: they must be shipped, copied and versioned together.
``createTRTGraph`` needs the ``.so``'s absolute path. This module only *inspects* the ``.so``
(its ELF structure, size, SHA-256; :mod:`trtsafe_lab._elf`); it never loads it, because it is
executable content. The engine's own format is not public, so the engine gets sanity checks only
(not an ELF file, not text, non-empty, a regular file).

The manifest (``<engine>.pair.json`` by default) records both files' names (relative to the
manifest's folder, so a package can move), sizes, SHA-256, the TensorRT version, the build
argv and the target architecture.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from trtsafe_lab._elf import ELF_MAGIC, ET_DYN, MACHINES, PT_DYNAMIC, ElfError, read_elf
from trtsafe_lab.companion import companion_so_for
from trtsafe_lab.files import write_json_atomic
from trtsafe_lab.rundir import (
    sha256_file,
    staged_run_dir,
    utc_now,
    write_run_manifest,
)

MANIFEST_FORMAT = "trtsafe-lab-pair/1"
TARGETS = tuple(MACHINES)  # ("x86_64", "aarch64"): x86 proxy runtime, DriveOS target
# One build writes both files within seconds of each other; a larger gap in modification times
# means one of them comes from another build (copies made without -p keep the two close too).
FRESHNESS_S = 3600.0
MAX_MANIFEST_BYTES = 1 << 20  # a pair manifest is a few hundred bytes
_SYSTEM_DIRS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib")


class PairError(ValueError):
    """The pair is not sound; ``problems`` lists every problem found."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        listed = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"safe engine pair is not sound:\n{listed}")


def default_manifest_path(engine: Path) -> Path:
    return Path(f"{engine}.pair.json")


def check_runtime_path(path: str) -> list[str]:
    """Problems with a companion path meant for ``createTRTGraph`` (it must be absolute)."""
    if not PurePosixPath(path).is_absolute():
        return [f"runtime companion path {path!r} is relative; createTRTGraph needs an absolute "
                "path (e.g. the deployed folder's full path)"]
    return []


def _file_problems(label: str, path: Path) -> list[str]:
    """Existence, kind and size; symbolic links are resolved and reported (a pair is two real
    files shipped together, and a link can point anywhere, e.g. at the system's libc)."""
    problems = []
    if path.is_symlink():
        target = os.path.realpath(path)
        problems.append(f"{label} {path} is a symbolic link to {target}; ship the file itself "
                        "(copy it) so the pair cannot change under the link")
        if target.startswith(_SYSTEM_DIRS):
            problems.append(f"{label} {path} resolves into a system library folder ({target})")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return [*problems, f"{label} {path} does not exist"]
    except OSError as err:  # ELOOP, ENAMETOOLONG, EACCES: the path itself is the problem
        return [*problems, f"{label} {path} cannot be examined: {err.strerror or err}"]
    if not stat.S_ISREG(info.st_mode):
        return [*problems, f"{label} {path} is not a regular file"]
    if info.st_size == 0:
        problems.append(f"{label} {path} is empty")
    return problems


def elf_problems(so: Path, target: str) -> list[str]:
    """The companion must be a well-formed ELF shared library (ET_DYN with a dynamic segment,
    not a position-independent executable) for ``target``'s machine."""
    try:
        elf = read_elf(so)
    except (ElfError, OSError) as err:
        return [f"companion .so: {err}"]
    problems = [f"companion .so {so}: {p}" for p in elf.problems]
    if elf.is_executable:
        problems.append(f"companion .so {so} is an executable program ({elf.type_name}"
                        f"{', PIE' if elf.e_type == ET_DYN else ''}), not a shared library")
    elif elf.e_type != ET_DYN:
        problems.append(f"companion .so {so} is {elf.type_name}, not a shared object (ET_DYN)")
    elif not elf.has_segment(PT_DYNAMIC):
        problems.append(f"companion .so {so} has no dynamic segment: not a loadable shared "
                        "library")
    if elf.e_machine != MACHINES[target]:
        problems.append(f"companion .so {so} is built for {elf.machine_name}, expected "
                        f"{target} (e_machine {MACHINES[target]})")
    return problems


def engine_problems(engine: Path) -> list[str]:
    """Sanity checks on a serialized engine (its format is not public): not ELF, not text."""
    try:
        with engine.open("rb") as handle:
            head = handle.read(4096)
    except OSError as err:
        return [f"engine {engine} cannot be read: {err.strerror or err}"]
    if head.startswith(ELF_MAGIC):
        return [f"engine {engine} is an ELF file (a program or library), not a serialized "
                "engine: were the engine and the .so swapped?"]
    if head and _looks_like_text(head):
        return [f"engine {engine} is a text file, not a serialized engine"]
    return []


def _looks_like_text(head: bytes) -> bool:
    if b"\0" in head:
        return False
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start < len(head) - 4:  # a cut multi-byte character at the end is still text
            return False
        text = head[:err.start].decode("utf-8")
    printable = sum(ch.isprintable() or ch in "\n\r\t" for ch in text)
    return printable >= 0.95 * max(1, len(text))


def freshness_problems(engine: Path, so: Path, limit_s: float = FRESHNESS_S) -> list[str]:
    """Engine and .so written by one build have close modification times."""
    gap = engine.stat().st_mtime - so.stat().st_mtime
    if abs(gap) <= limit_s:
        return []
    older, newer = ("companion .so", "engine") if gap > 0 else ("engine", "companion .so")
    return [f"the {older} is {_duration(abs(gap))} older than the {newer}: they come from "
            "different builds (rebuild both together; they carry a pairing token)"]


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


@dataclass(frozen=True)
class SafeEnginePair:
    """A safe engine and its companion .so (``companion_so`` defaults to ``<engine>.so``)."""

    engine: Path
    companion_so: Path

    @classmethod
    def of(cls, engine: str | Path, so: str | Path | None = None) -> SafeEnginePair:
        engine = Path(engine)
        return cls(engine, companion_so_for(engine, so))

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
            target_arch = read_elf(self.companion_so).machine_name
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
        write_json_atomic(path, self.manifest(trt_version, build_argv, target_arch, path.parent))
        return path

    def validate(self, target: str | None = None, manifest: Path | None = None,
                 runtime_path: str | None = None) -> list[str]:
        """Every problem with the pair (empty list: sound).

        Checks: both files are regular files (symbolic links reported), non-empty; the engine is
        neither ELF nor text; the .so is a well-formed ELF shared library (not an executable,
        nothing truncated) for ``target`` (default: the manifest's target_arch, else x86_64);
        both were written by one build (modification times within ``FRESHNESS_S``); with a
        manifest, both files match its sizes and SHA-256 (a rebuilt engine with a stale .so
        shows up here) and the names it records; ``runtime_path``, if given, is absolute.
        """
        engine_bad = _file_problems("engine", self.engine)
        so_bad = _file_problems("companion .so", self.companion_so)
        problems = engine_bad + so_bad
        data = load_manifest(manifest) if manifest else None
        target = target or (data or {}).get("target_arch") or "x86_64"
        engine_ok = self.engine.is_file() and not any("empty" in p for p in engine_bad)
        so_ok = self.companion_so.is_file() and not any("empty" in p for p in so_bad)
        if engine_ok:
            problems += engine_problems(self.engine)
        if target not in MACHINES:
            problems.append(f"unknown target {target!r}; use one of {', '.join(TARGETS)}")
        elif so_ok:
            problems += elf_problems(self.companion_so, target)
        if engine_ok and so_ok:
            problems += freshness_problems(self.engine, self.companion_so)
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
        with staged_run_dir(dest.parent, dest.name, "pair") as staging:
            engine_name = Path(data["engine"]["file"]).name
            so_name = Path(data["companion_so"]["file"]).name
            shutil.copyfile(self.engine, staging / engine_name)
            shutil.copyfile(self.companion_so, staging / so_name)
            data["engine"]["file"], data["companion_so"]["file"] = engine_name, so_name
            write_json_atomic(staging / manifest.name, data)
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
    """Read and check a pair manifest: a regular file of at most ``MAX_MANIFEST_BYTES``, UTF-8
    JSON of this format with fields of the right types; ``PairError`` naming the path otherwise."""
    path = Path(path)
    try:
        regular = path.is_file()  # checked first: a FIFO or device would block or never end
        raw = b""
        if regular:
            with path.open("rb") as handle:
                raw = handle.read(MAX_MANIFEST_BYTES + 1)
    except OSError as err:
        raise PairError([f"cannot read manifest {path}: {err.strerror or err}"]) from err
    if not regular:
        raise PairError([f"manifest {path} is not a regular file"])
    if len(raw) > MAX_MANIFEST_BYTES:
        raise PairError([f"manifest {path} is larger than {MAX_MANIFEST_BYTES} bytes; a pair "
                         "manifest is a small JSON file"])
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as err:  # UnicodeDecodeError is a ValueError
        raise PairError([f"cannot read manifest {path}: {err}"]) from err
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        raise PairError([f"{path} is not a {MANIFEST_FORMAT} manifest"])
    problems = [f"manifest {path}: {p}" for p in _manifest_type_problems(data)]
    if problems:
        raise PairError(problems)
    return data


def _manifest_type_problems(data: dict[str, Any]) -> list[str]:
    problems = []
    for key in ("engine", "companion_so"):
        entry = data.get(key)
        if not isinstance(entry, dict):
            problems.append(f"'{key}' must be an object with file, size_bytes and sha256")
            continue
        for name, kind in (("file", str), ("size_bytes", int), ("sha256", str)):
            value = entry.get(name)
            if not isinstance(value, kind) or isinstance(value, bool):
                problems.append(f"'{key}.{name}' must be a {kind.__name__}, got {value!r:.60}")
    for name in ("trt_version", "target_arch"):
        if name in data and not isinstance(data[name], str):
            problems.append(f"'{name}' must be a string, got {data[name]!r:.60}")
    if "build_argv" in data and not (isinstance(data["build_argv"], list)
                                     and all(isinstance(a, str) for a in data["build_argv"])):
        problems.append("'build_argv' must be a list of strings")
    return problems


def _manifest_problems(pair: SafeEnginePair, data: dict[str, Any], base: Path) -> list[str]:
    problems: list[str] = []
    changed = []
    for key, label, actual in (("engine", "engine", pair.engine),
                               ("companion_so", "companion .so", pair.companion_so)):
        entry = data[key]
        listed = (base / entry["file"]).resolve()
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
