"""Read an ELF file's identification and header fields (never loads or executes the file)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

ELF_MAGIC = b"\x7fELF"
ET_NAMES = {0: "ET_NONE", 1: "ET_REL", 2: "ET_EXEC", 3: "ET_DYN", 4: "ET_CORE"}
ET_DYN = 3
# e_machine values (System V ABI) for the architectures the safety stack ships on.
MACHINES = {"x86_64": 62, "aarch64": 183}
MACHINE_NAMES = {62: "x86_64", 183: "aarch64", 3: "i386", 40: "arm", 243: "riscv"}


class ElfError(ValueError):
    """The file is not a readable ELF file; the message says why."""


@dataclass(frozen=True)
class ElfHeader:
    """``elf_class`` 32/64, ``little_endian``, ``e_type`` (3 = ET_DYN, a shared object),
    ``e_machine`` (62 = x86-64, 183 = AArch64)."""

    elf_class: int
    little_endian: bool
    e_type: int
    e_machine: int

    @property
    def type_name(self) -> str:
        return ET_NAMES.get(self.e_type, f"type {self.e_type}")

    @property
    def machine_name(self) -> str:
        return MACHINE_NAMES.get(self.e_machine, f"e_machine {self.e_machine}")


def read_elf_header(path: Path) -> ElfHeader:
    """Parse the first 20 bytes of ``path`` as an ELF header."""
    with Path(path).open("rb") as handle:
        head = handle.read(20)
    if len(head) < 20 or head[:4] != ELF_MAGIC:
        raise ElfError(f"{path} is not an ELF file (no \\x7fELF magic)")
    elf_class = {1: 32, 2: 64}.get(head[4])
    if elf_class is None or head[5] not in (1, 2):
        raise ElfError(f"{path}: unknown ELF class {head[4]} or data encoding {head[5]}")
    little = head[5] == 1
    e_type, e_machine = struct.unpack("<HH" if little else ">HH", head[16:20])
    return ElfHeader(elf_class, little, e_type, e_machine)
