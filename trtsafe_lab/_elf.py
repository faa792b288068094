"""Read an ELF file's structure (headers, segments, sections, dynamic tags); never load or run it.

A companion ``.so`` is executable content, so it is only *read* here, with bounded reads at the
offsets its own headers name. Besides the identification (class, byte order, type, machine) the
reader checks what a truncated, patched or mistaken file gets wrong: header sizes that do not fit
the class, program and section header tables or segments that reach past the end of the file, a
64-bit machine in a 32-bit file, a shared object without a dynamic segment, and a position-
independent *executable* (``/bin/ls`` is ``ET_DYN`` too; it carries ``DF_1_PIE`` or an interpreter
without a ``DT_SONAME``). Layouts are those of the System V ABI (``elf.h``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

ELF_MAGIC = b"\x7fELF"
ET_NAMES = {0: "ET_NONE", 1: "ET_REL", 2: "ET_EXEC", 3: "ET_DYN", 4: "ET_CORE"}
ET_DYN = 3
# e_machine values (System V ABI) for the architectures the safety stack ships on.
MACHINES = {"x86_64": 62, "aarch64": 183}
MACHINE_NAMES = {62: "x86_64", 183: "aarch64", 3: "i386", 40: "arm", 243: "riscv"}
_MACHINE_CLASS = {62: 64, 183: 64, 3: 32, 40: 32}  # machines that exist in one class only

PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
SHT_NOBITS = 8
DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ, DT_SONAME, DT_FLAGS_1 = 0, 1, 5, 10, 14, 0x6FFFFFFB
DF_1_PIE = 0x08000000

# Per class: header size, program header entry size, section header entry size.
_SIZES = {32: (52, 32, 40), 64: (64, 56, 64)}
_MAX_TABLE_ENTRIES = 65535  # e_phnum / e_shnum are 16-bit fields
_MAX_DYNAMIC_BYTES = 1 << 20


class ElfError(ValueError):
    """The file is not a readable ELF file; the message says why."""


@dataclass(frozen=True)
class Segment:
    """One program header: ``p_type`` (1 LOAD, 2 DYNAMIC, 3 INTERP), file offset and size,
    virtual address."""

    p_type: int
    offset: int
    file_size: int
    vaddr: int = 0


@dataclass(frozen=True)
class ElfFile:
    """What :func:`read_elf` found.

    ``elf_class`` 32/64, ``little_endian``, ``e_type`` (3 = ET_DYN), ``e_machine`` (62 = x86-64,
    183 = AArch64), ``size_bytes`` of the file, its ``segments``, the dynamic tags it carries
    (``soname``, ``needed``, ``flags_1``) and ``problems``: every structural inconsistency found
    (empty for a well-formed file).
    """

    elf_class: int
    little_endian: bool
    e_type: int
    e_machine: int
    size_bytes: int
    segments: tuple[Segment, ...] = ()
    soname: str = ""
    needed: tuple[str, ...] = ()
    flags_1: int = 0
    problems: tuple[str, ...] = field(default=())

    @property
    def type_name(self) -> str:
        return ET_NAMES.get(self.e_type, f"type {self.e_type}")

    @property
    def machine_name(self) -> str:
        return MACHINE_NAMES.get(self.e_machine, f"e_machine {self.e_machine}")

    def has_segment(self, p_type: int) -> bool:
        return any(seg.p_type == p_type for seg in self.segments)

    @property
    def is_executable(self) -> bool:
        """True for a program rather than a library: ET_EXEC, or ET_DYN marked PIE, or ET_DYN
        with an interpreter and no soname (a PIE linked without the DF_1_PIE flag)."""
        if self.e_type == 2:
            return True
        if self.e_type != ET_DYN:
            return False
        return bool(self.flags_1 & DF_1_PIE) or (
            self.has_segment(PT_INTERP) and not self.soname)


def read_elf(path: Path) -> ElfFile:
    """Read ``path``'s ELF structure; :class:`ElfError` when it is not ELF at all."""
    path = Path(path)
    with path.open("rb") as handle:
        size = _file_size(handle)
        ident = handle.read(16)
        if len(ident) < 16 or ident[:4] != ELF_MAGIC:
            raise ElfError(f"{path} is not an ELF file (no \\x7fELF magic)")
        elf_class = {1: 32, 2: 64}.get(ident[4])
        if elf_class is None or ident[5] not in (1, 2):
            raise ElfError(f"{path}: unknown ELF class {ident[4]} or data encoding {ident[5]}")
        little = ident[5] == 1
        return _Reader(handle, path, size, elf_class, little, ident).read()


def _file_size(handle: BinaryIO) -> int:
    handle.seek(0, 2)
    size = handle.tell()
    handle.seek(0)
    return size


class _Reader:
    """One pass over an open ELF file; collects problems instead of stopping at the first."""

    def __init__(self, handle: BinaryIO, path: Path, size: int, elf_class: int, little: bool,
                 ident: bytes) -> None:
        self.handle, self.path, self.size = handle, path, size
        self.elf_class, self.little, self.ident = elf_class, little, ident
        self.end = "<" if little else ">"
        self.problems: list[str] = []

    def _read_at(self, offset: int, count: int) -> bytes:
        self.handle.seek(offset)
        return self.handle.read(count)

    def read(self) -> ElfFile:
        ehsize, phentsize_want, shentsize_want = _SIZES[self.elf_class]
        rest = self._read_at(16, ehsize - 16)
        if len(rest) < ehsize - 16:
            raise ElfError(f"{self.path}: truncated ELF header ({self.size} bytes; a "
                           f"{self.elf_class}-bit header is {ehsize})")
        word = "I" if self.elf_class == 32 else "Q"
        fields = struct.unpack(f"{self.end}HHI{word}{word}{word}IHHHHHH", rest)
        (e_type, e_machine, e_version, _entry, phoff, shoff, _flags, e_ehsize, phentsize, phnum,
         shentsize, shnum, _shstrndx) = fields
        if self.ident[6] != 1 or e_version != 1:
            self.problems.append(f"ELF version {self.ident[6]}/{e_version}, expected 1")
        if e_ehsize != ehsize:
            self.problems.append(f"header size {e_ehsize} does not fit a {self.elf_class}-bit "
                                 f"file ({ehsize})")
        wanted_class = _MACHINE_CLASS.get(e_machine)
        if wanted_class is not None and wanted_class != self.elf_class:
            self.problems.append(f"{MACHINE_NAMES[e_machine]} code in a {self.elf_class}-bit ELF "
                                 "file (class field corrupt?)")
        segments = self._segments(phoff, phentsize, phnum, phentsize_want)
        self._sections(shoff, shentsize, shnum, shentsize_want)
        soname, needed, flags_1 = self._dynamic(segments)
        return ElfFile(self.elf_class, self.little, e_type, e_machine, self.size,
                       tuple(segments), soname, tuple(needed), flags_1, tuple(self.problems))

    def _table_fits(self, what: str, offset: int, entsize: int, count: int, want: int) -> bool:
        if count == 0:
            return False
        if entsize != want:
            self.problems.append(f"{what} entry size {entsize}, expected {want} for a "
                                 f"{self.elf_class}-bit file")
            return False
        if offset + entsize * count > self.size:
            self.problems.append(f"{what} table ({count} x {entsize} bytes at offset {offset}) "
                                 f"reaches past the end of the file ({self.size} bytes): truncated")
            return False
        return True

    def _segments(self, phoff: int, entsize: int, count: int, want: int) -> list[Segment]:
        if not self._table_fits("program header", phoff, entsize, count, want):
            return []
        raw = self._read_at(phoff, entsize * count)
        segments = []
        for i in range(count):
            entry = raw[i * entsize:(i + 1) * entsize]
            if self.elf_class == 64:
                p_type, _flags, offset, vaddr, _pa, filesz, _memsz, _align = struct.unpack(
                    f"{self.end}IIQQQQQQ", entry)
            else:
                p_type, offset, vaddr, _pa, filesz, _memsz, _flags, _align = struct.unpack(
                    f"{self.end}IIIIIIII", entry)
            if offset + filesz > self.size:
                self.problems.append(f"segment {i} (type {p_type}) needs bytes up to "
                                     f"{offset + filesz}, the file has {self.size}: truncated")
            segments.append(Segment(p_type, offset, filesz, vaddr))
        return segments

    def _sections(self, shoff: int, entsize: int, count: int, want: int) -> None:
        if not self._table_fits("section header", shoff, entsize, count, want):
            return
        raw = self._read_at(shoff, entsize * count)
        layout = f"{self.end}IIQQQQIIQQ" if self.elf_class == 64 else f"{self.end}IIIIIIIIII"
        for i in range(count):
            fields = struct.unpack(layout, raw[i * entsize:(i + 1) * entsize])
            sh_type, offset, sh_size = fields[1], fields[4], fields[5]
            if sh_type != SHT_NOBITS and offset + sh_size > self.size:
                self.problems.append(f"section {i} needs bytes up to {offset + sh_size}, the file "
                                     f"has {self.size}: truncated")
                return  # one is enough; a truncated file fails most of them

    def _dynamic(self, segments: list[Segment]) -> tuple[str, list[str], int]:
        dyn = next((s for s in segments if s.p_type == PT_DYNAMIC), None)
        if dyn is None or dyn.offset + dyn.file_size > self.size:
            return "", [], 0
        raw = self._read_at(dyn.offset, min(dyn.file_size, _MAX_DYNAMIC_BYTES))
        pair = f"{self.end}{'qQ' if self.elf_class == 64 else 'iI'}"
        step = struct.calcsize(pair)
        tags: list[tuple[int, int]] = []
        for start in range(0, len(raw) - step + 1, step):
            tag, value = struct.unpack(pair, raw[start:start + step])
            if tag == DT_NULL:
                break
            tags.append((tag, value))
        flags_1 = next((v for t, v in tags if t == DT_FLAGS_1), 0)
        strings = self._string_table(segments, tags)
        soname = next((_c_string(strings, v) or "?" for t, v in tags if t == DT_SONAME), "")
        needed = [_c_string(strings, v) or "?" for t, v in tags if t == DT_NEEDED]
        return soname, needed, flags_1

    def _string_table(self, segments: list[Segment], tags: list[tuple[int, int]]) -> bytes:
        """The dynamic string table (DT_STRTAB is a virtual address: mapped through PT_LOAD)."""
        addr = next((v for t, v in tags if t == DT_STRTAB), None)
        length = min(next((v for t, v in tags if t == DT_STRSZ), 0), _MAX_DYNAMIC_BYTES)
        for seg in segments:
            if addr is not None and seg.p_type == PT_LOAD and \
                    seg.vaddr <= addr < seg.vaddr + seg.file_size:
                offset = addr - seg.vaddr + seg.offset
                return self._read_at(offset, max(0, min(length, self.size - offset)))
        return b""


def _c_string(table: bytes, offset: int) -> str:
    if not 0 <= offset < len(table):
        return ""
    end = table.find(b"\0", offset)
    return table[offset:end if end >= 0 else len(table)].decode("utf-8", "replace")
