"""`verify-pair` on broken pairs: every kind of broken engine / .so / manifest is caught.

Each case starts from a sound pair (a real x86-64 ELF shared object built with ``cc`` and a binary
engine stand-in, which is test data, not a TensorRT engine) and breaks one thing. Before the ELF
reader looked past the first 20 bytes, 11 of these were reported sound (issue 15 #8): truncated
ELF files, a PIE executable as the .so, a symlink to the system libc, an old .so, a text or ELF
engine, corrupt class / byte-order fields.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from builds_support import build_shared_object

from trtsafe_lab._elf import read_elf
from trtsafe_lab.artifacts import PairError, SafeEnginePair, load_manifest
from trtsafe_lab.cli import main

ENGINE_BYTES = b"test engine, not TensorRT\0" + bytes(range(256))
LIBC = next(iter(sorted(glob.glob("/lib/x86_64-linux-gnu/libc.so.6")
                        + glob.glob("/usr/lib/x86_64-linux-gnu/libc.so.6"))), "")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real ELF files made here with cc: a shared object, a PIE and a non-PIE executable."""
    folder = tmp_path_factory.mktemp("elfs")
    so = build_shared_object(folder / "good.so")
    main_c = folder / "main.c"
    main_c.write_text("int main(void) { return 0; }\n")
    pie, exe = folder / "pie", folder / "exe"
    subprocess.run(["cc", "-pie", "-fPIE", "-o", str(pie), str(main_c)], check=True)
    subprocess.run(["cc", "-no-pie", "-o", str(exe), str(main_c)], check=True)
    return {"so": so, "pie": pie, "exe": exe}


def _patch(path: Path, offset: int, value: bytes) -> None:
    data = bytearray(path.read_bytes())
    data[offset:offset + len(value)] = value
    path.write_bytes(bytes(data))


def _truncate(size: Callable[[int], int]) -> Callable[[Path], None]:
    def cut(path: Path) -> None:
        data = path.read_bytes()
        path.write_bytes(data[:size(len(data))])
    return cut


def _age(path: Path, days: float) -> None:
    stat = path.stat()
    os.utime(path, (stat.st_atime - days * 86400, stat.st_mtime - days * 86400))


def _replace_with(source: Path) -> Callable[[Path], None]:
    def put(path: Path) -> None:
        shutil.copyfile(source, path)
    return put


def _symlink_to(target: str) -> Callable[[Path], None]:
    def link(path: Path) -> None:
        path.unlink()
        path.symlink_to(target)
    return link


def _loop(path: Path) -> None:
    path.unlink()
    other = path.with_name(path.name + ".other")
    path.symlink_to(other.name)
    other.symlink_to(path.name)


def _replace_by_dir(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _replace_by_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


# (case id, what to break ("so" or "engine"), how, a substring the problems must contain)
SO_CASES: list[tuple[str, Callable[[Path], None], str]] = [
    ("so-missing", lambda p: p.unlink(), "does not exist"),
    ("so-empty", lambda p: p.write_bytes(b""), "is empty"),
    ("so-directory", _replace_by_dir, "not a regular file"),
    ("so-fifo", _replace_by_fifo, "not a regular file"),
    ("so-text", lambda p: p.write_text("not an ELF file\n"), "not an ELF file"),
    ("so-magic-only", lambda p: p.write_bytes(b"\x7fELF"), "not an ELF file"),
    ("so-truncated-20", _truncate(lambda n: 20), "truncated ELF header"),
    ("so-truncated-63", _truncate(lambda n: 63), "truncated ELF header"),
    ("so-truncated-64", _truncate(lambda n: 64), "truncated"),
    ("so-truncated-1k", _truncate(lambda n: 1024), "truncated"),
    ("so-truncated-half", _truncate(lambda n: n // 2), "truncated"),
    ("so-truncated-last-byte", _truncate(lambda n: n - 1), "truncated"),
    ("so-class-invalid", lambda p: _patch(p, 4, b"\x00"), "unknown ELF class"),
    ("so-class-32", lambda p: _patch(p, 4, b"\x01"), "32-bit"),
    ("so-byte-order-invalid", lambda p: _patch(p, 5, b"\x03"), "data encoding"),
    ("so-byte-order-big", lambda p: _patch(p, 5, b"\x02"), "not a shared object"),
    ("so-version", lambda p: _patch(p, 20, struct.pack("<I", 7)), "ELF version"),
    ("so-header-size", lambda p: _patch(p, 52, struct.pack("<H", 40)), "header size"),
    ("so-phentsize", lambda p: _patch(p, 54, struct.pack("<H", 32)), "entry size"),
    ("so-phoff-past-end", lambda p: _patch(p, 32, struct.pack("<Q", 1 << 40)), "past the end"),
    ("so-shoff-past-end", lambda p: _patch(p, 40, struct.pack("<Q", 1 << 40)), "past the end"),
    ("so-type-rel", lambda p: _patch(p, 16, struct.pack("<H", 1)), "ET_REL"),
    ("so-type-core", lambda p: _patch(p, 16, struct.pack("<H", 4)), "ET_CORE"),
    ("so-machine-riscv", lambda p: _patch(p, 18, struct.pack("<H", 243)), "built for riscv"),
    ("so-machine-aarch64", lambda p: _patch(p, 18, struct.pack("<H", 183)), "built for aarch64"),
    ("so-older-30-days", lambda p: _age(p, 30), "older than the engine"),
    ("so-newer-2-days", lambda p: _age(p.with_name(p.name.removesuffix(".so")), 2),
     "older than the companion .so"),
    ("so-symlink-loop", _loop, "cannot be examined"),
    ("so-dangling-symlink", _symlink_to("nowhere.so"), "does not exist"),
]
if LIBC:
    SO_CASES.append(("so-symlink-libc", _symlink_to(LIBC), "system library"))
ENGINE_CASES: list[tuple[str, Callable[[Path], None], str]] = [
    ("engine-missing", lambda p: p.unlink(), "does not exist"),
    ("engine-empty", lambda p: p.write_bytes(b""), "is empty"),
    ("engine-text", lambda p: p.write_text("model.onnx\n" * 40), "text file"),
    ("engine-directory", _replace_by_dir, "not a regular file"),
    ("engine-older-30-days", lambda p: _age(p, 30), "older than the companion .so"),
]


def _fresh_pair(tmp_path: Path, built: dict[str, Path]) -> SafeEnginePair:
    engine = tmp_path / "net.engine"
    engine.write_bytes(ENGINE_BYTES)
    shutil.copyfile(built["so"], f"{engine}.so")
    return SafeEnginePair.of(engine)


def test_the_starting_pair_is_sound(tmp_path: Path, built: dict[str, Path]) -> None:
    pair = _fresh_pair(tmp_path, built)
    assert pair.validate() == []
    assert read_elf(pair.companion_so).problems == ()


@pytest.mark.parametrize(("case", "breaker", "expected"), SO_CASES, ids=[c[0] for c in SO_CASES])
def test_broken_companion_is_caught(tmp_path: Path, built: dict[str, Path], case: str,
                                    breaker: Callable[[Path], None], expected: str) -> None:
    pair = _fresh_pair(tmp_path, built)
    breaker(pair.companion_so)
    problems = pair.validate()
    assert problems, f"{case}: reported sound"
    assert any(expected in p for p in problems), problems


@pytest.mark.parametrize(("case", "breaker", "expected"), ENGINE_CASES,
                         ids=[c[0] for c in ENGINE_CASES])
def test_broken_engine_is_caught(tmp_path: Path, built: dict[str, Path], case: str,
                                 breaker: Callable[[Path], None], expected: str) -> None:
    pair = _fresh_pair(tmp_path, built)
    breaker(pair.engine)
    problems = pair.validate()
    assert any(expected in p for p in problems), problems


@pytest.mark.parametrize(("which", "expected"), [("pie", "executable program"),
                                                 ("exe", "executable program")])
def test_an_executable_is_not_a_companion(tmp_path: Path, built: dict[str, Path], which: str,
                                          expected: str) -> None:
    pair = _fresh_pair(tmp_path, built)
    shutil.copyfile(built[which], pair.companion_so)
    assert any(expected in p for p in pair.validate())
    system_ls = Path("/bin/ls")
    if system_ls.is_file():
        shutil.copyfile(system_ls, pair.companion_so)
        assert any(expected in p for p in pair.validate())


def test_an_elf_engine_is_caught(tmp_path: Path, built: dict[str, Path]) -> None:
    pair = _fresh_pair(tmp_path, built)
    shutil.copyfile(built["so"], pair.engine)  # engine and .so swapped / mixed up
    assert any("is an ELF file" in p for p in pair.validate())


def test_a_copy_of_the_system_libc_is_caught_by_its_manifest(tmp_path: Path,
                                                             built: dict[str, Path]) -> None:
    if not LIBC:
        pytest.skip("no x86-64 libc.so.6 on this machine")
    pair = _fresh_pair(tmp_path, built)
    manifest = pair.write_manifest("11.4.0", ["trtexec", "--safe"])
    shutil.copyfile(LIBC, pair.companion_so)
    problems = pair.validate(manifest=manifest)
    assert any("differs from the manifest" in p for p in problems)


BAD_MANIFESTS: list[tuple[str, bytes, str]] = [
    ("binary", bytes(range(256)) * 4, "cannot read manifest"),
    ("not-json", b"{engine: 1", "cannot read manifest"),
    ("wrong-format", json.dumps({"format": "x"}).encode(), "is not a trtsafe-lab-pair/1"),
    ("engine-not-object", json.dumps({"format": "trtsafe-lab-pair/1", "engine": 3,
                                      "companion_so": {}}).encode(), "'engine' must be an object"),
    ("size-as-string", json.dumps({
        "format": "trtsafe-lab-pair/1",
        "engine": {"file": "net.engine", "size_bytes": "12", "sha256": "0"},
        "companion_so": {"file": "net.engine.so", "size_bytes": 1, "sha256": "0"}}).encode(),
     "'engine.size_bytes' must be a int"),
    ("argv-not-list", json.dumps({
        "format": "trtsafe-lab-pair/1",
        "engine": {"file": "a", "size_bytes": 1, "sha256": "0"},
        "companion_so": {"file": "b", "size_bytes": 1, "sha256": "0"},
        "build_argv": "trtexec --safe"}).encode(), "'build_argv' must be a list"),
    ("deeply-nested", b"[" * 100_000 + b"]" * 100_000, "cannot read manifest"),
    ("too-large", b" " * (2 << 20), "larger than"),
]


@pytest.mark.parametrize(("case", "content", "expected"), BAD_MANIFESTS,
                         ids=[c[0] for c in BAD_MANIFESTS])
def test_bad_manifests_are_messages(tmp_path: Path, case: str, content: bytes,
                                    expected: str) -> None:
    path = tmp_path / "m.pair.json"
    path.write_bytes(content)
    with pytest.raises(PairError, match=expected.replace("(", r"\(")):
        load_manifest(path)


def test_device_and_fifo_manifests_are_refused_without_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for path in (Path("/dev/zero"), fifo):
        with pytest.raises(PairError, match="not a regular file"):
            load_manifest(path)


def test_verify_pair_cli_reports_every_broken_kind(tmp_path: Path, built: dict[str, Path],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    pair = _fresh_pair(tmp_path, built)
    shutil.copyfile(built["pie"], pair.companion_so)
    assert main(["verify-pair", str(pair.engine)]) == 1
    assert "executable program" in capsys.readouterr().out
    assert main(["verify-pair", str(pair.engine), "--manifest", "/dev/zero"]) == 2
    err = capsys.readouterr().err
    assert "not a regular file" in err and "Traceback" not in err
