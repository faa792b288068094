"""Safe engine + companion .so pairs, on real ELF files built with the system ``cc``.

There is no aarch64 cross compiler here: the aarch64 .so is a copy of the host x86-64 one with
e_machine patched to 183 (EM_AARCH64); only the header is read, so that is what matters.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from builds_support import build_shared_object

from trtsafe_lab._elf import ElfError, read_elf
from trtsafe_lab.artifacts import PairError, SafeEnginePair, check_runtime_path
from trtsafe_lab.cli import main
from trtsafe_lab.rundir import PairRun, load_run

# Test data standing in for a serialized engine (binary, as real engines are; not TensorRT's).
ENGINE_BYTES = b"test engine, not TensorRT\0" + bytes(range(256))


@pytest.fixture(scope="module")
def elf_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("elf")
    so = build_shared_object(folder / "x86.so")
    arm = folder / "aarch64.so"
    data = bytearray(so.read_bytes())
    data[18:20] = (183).to_bytes(2, "little")  # e_machine = EM_AARCH64 (patched copy)
    arm.write_bytes(bytes(data))
    source = folder / "obj.c"
    source.write_text("int f(void) { return 1; }\n")
    subprocess.run(["cc", "-c", "-o", str(folder / "obj.o"), str(source)], check=True)
    return folder


@pytest.fixture
def pair(tmp_path: Path, elf_dir: Path) -> SafeEnginePair:
    engine = tmp_path / "deploy dir" / "net.engine"
    engine.parent.mkdir()
    engine.write_bytes(ENGINE_BYTES)
    shutil.copyfile(elf_dir / "x86.so", f"{engine}.so")
    made = SafeEnginePair.of(engine)
    made.write_manifest("11.4.0", ["trtexec", "--safe", f"--saveEngine={engine}"])
    return made


def test_elf_header_of_real_files(elf_dir: Path) -> None:
    so = read_elf(elf_dir / "x86.so")
    assert (so.type_name, so.machine_name, so.elf_class) == ("ET_DYN", "x86_64", 64)
    assert read_elf(elf_dir / "aarch64.so").machine_name == "aarch64"
    assert read_elf(elf_dir / "obj.o").type_name == "ET_REL"
    with pytest.raises(ElfError, match="not an ELF"):
        read_elf(Path(__file__))


def test_sound_pair_and_manifest_fields(pair: SafeEnginePair) -> None:
    manifest = Path(f"{pair.engine}.pair.json")
    assert pair.validate(manifest=manifest) == []
    data = json.loads(manifest.read_text())
    assert data["engine"]["file"] == "net.engine"
    assert data["companion_so"]["file"] == "net.engine.so"
    assert data["target_arch"] == "x86_64" and data["trt_version"] == "11.4.0"
    assert len(data["companion_so"]["sha256"]) == 64 and data["engine"]["size_bytes"] > 0


def test_missing_and_empty_files(tmp_path: Path) -> None:
    engine = tmp_path / "a.engine"
    engine.write_bytes(b"")
    problems = SafeEnginePair.of(engine).validate()
    assert any("is empty" in p for p in problems)
    assert any("a.engine.so does not exist" in p for p in problems)


def test_wrong_machine_and_wrong_type(tmp_path: Path, elf_dir: Path) -> None:
    engine = tmp_path / "a.engine"
    engine.write_bytes(ENGINE_BYTES)
    arm = SafeEnginePair(engine, elf_dir / "aarch64.so")
    assert arm.validate(target="aarch64") == []
    assert any("built for aarch64, expected x86_64" in p for p in arm.validate())
    obj = SafeEnginePair(engine, elf_dir / "obj.o").validate()
    assert any("ET_REL, not a shared object" in p for p in obj)
    text = tmp_path / "a.so"
    text.write_text("not elf")
    assert any("not an ELF file" in p for p in SafeEnginePair(engine, text).validate())


def test_rebuilt_engine_with_stale_so_is_caught(pair: SafeEnginePair) -> None:
    pair.engine.write_bytes(b"rebuilt engine with a new pairing token")
    problems = pair.validate(manifest=Path(f"{pair.engine}.pair.json"))
    assert any("the .so is stale" in p for p in problems)


def test_runtime_path_must_be_absolute() -> None:
    assert check_runtime_path("/opt/app/net.engine.so") == []
    assert "createTRTGraph" in check_runtime_path("net.engine.so")[0]


def test_package_is_atomic_and_relocatable(pair: SafeEnginePair, tmp_path: Path) -> None:
    dest = pair.package(tmp_path / "ship it")
    names = sorted(p.name for p in dest.iterdir())
    assert names == ["manifest.json", "net.engine", "net.engine.pair.json", "net.engine.so"]
    record = load_run(dest)  # a run directory of kind pair
    assert isinstance(record, PairRun) and record.verify() == []
    assert (record.engine, record.companion_so) == (dest / "net.engine", dest / "net.engine.so")
    assert record.pair_manifest == dest / "net.engine.pair.json"
    moved = SafeEnginePair.of(dest / "net.engine")
    assert moved.validate(manifest=dest / "net.engine.pair.json") == []
    with pytest.raises(PairError, match="already exists"):
        pair.package(dest)


def test_package_refuses_engine_without_so(pair: SafeEnginePair, tmp_path: Path) -> None:
    pair.companion_so.unlink()
    with pytest.raises(PairError, match="does not exist"):
        pair.package(tmp_path / "ship")
    assert list(tmp_path.glob("*ship*")) == []  # no folder, no partial left


def test_package_keeps_a_marked_partial_when_a_copy_fails(
    pair: SafeEnginePair, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_copy = shutil.copyfile
    calls = {"n": 0}

    def copy_then_disk_full(src: object, dst: object) -> object:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        return real_copy(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(shutil, "copyfile", copy_then_disk_full)
    with pytest.raises(OSError, match="No space"):
        pair.package(tmp_path / "ship")
    # staged like every run: no `ship`, the partial kept with the reason
    assert [p.name for p in tmp_path.iterdir() if "ship" in p.name] == [".ship.partial"]
    note = json.loads((tmp_path / ".ship.partial" / "INCOMPLETE.json").read_text())
    assert "No space" in note["detail"]


def test_verify_pair_cli(pair: SafeEnginePair, capsys: pytest.CaptureFixture[str],
                         elf_dir: Path) -> None:
    assert main(["verify-pair", str(pair.engine)]) == 0
    assert "sound" in capsys.readouterr().out
    assert main(["verify-pair", str(pair.engine), "--target", "aarch64",
                 "--runtime-path", "relative.so"]) == 1
    out = capsys.readouterr().out
    assert "NOT SOUND: 2 problem(s)" in out and "expected aarch64" in out and "absolute" in out
    assert main(["verify-pair", str(pair.engine), "--so", str(elf_dir / "obj.o")]) == 1
    out = capsys.readouterr().out
    assert "ET_REL" in out and "not the file the manifest names" in out


def test_the_companion_so_default_has_one_owner() -> None:
    """``<engine>.so`` is spelled in trtsafe_lab.companion only; the pair, the expected build
    artifacts and the profile commands all get it from there."""
    import re

    import trtsafe_lab
    from trtsafe_lab.companion import companion_so_for
    from trtsafe_lab.profile.trtexec_exec import trtexec_command
    from trtsafe_lab.trtexec.options import TrtexecOptions
    from trtsafe_lab.trtexec.rules import expected_artifacts
    from trtsafe_lab.trtexec.version import TrtVersion

    engine = Path("out dir/net.engine")
    assert companion_so_for(engine) == Path("out dir/net.engine.so")
    assert companion_so_for(engine, "x.so") == Path("x.so")
    assert SafeEnginePair.of(engine).companion_so == companion_so_for(engine)
    build = TrtexecOptions(onnx=Path("m.onnx"), save_engine=engine, safe=True).to_command(
        TrtVersion(11, 4))
    assert [a.path for a in expected_artifacts(build) if a.kind == "companion_so"] == [
        companion_so_for(engine)]
    run = trtexec_command(engine, version=TrtVersion(11, 4), executable="trtexec_safe")
    assert f"--loadEngineSo={companion_so_for(engine)}" in run.argv()
    package = Path(trtsafe_lab.__file__).parent
    spelled = [p.relative_to(package).as_posix() for p in package.rglob("*.py")
               if re.search(r'f"\{[^}"]*\}\.so"', p.read_text(encoding="utf-8"))]
    assert spelled == [], spelled  # companion.py writes it with COMPANION_SO_SUFFIX
