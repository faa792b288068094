"""UTF-16 and UTF-32 logs are read, not silently empty (issue 15 #10).

Windows PowerShell's ``>`` (``Out-File``) writes UTF-16 LE with a byte-order mark and CRLF line
ends; the same log in UTF-8 must give the same failure table through every reader.
"""

from __future__ import annotations

import codecs
import json
import subprocess
import sys
from pathlib import Path

import pytest

from trtsafe_lab.logs import analyze_log
from trtsafe_lab.logs.scan import scan_failures
from trtsafe_lab.logs.source import sniff_encoding

CASE = "060.log"  # a real trtexec log with several failure rows


def _real(corpus_dir: Path) -> tuple[bytes, str]:
    data = (corpus_dir / "build-logs" / "cases" / CASE).read_bytes()
    return data, data.decode("utf-8", errors="replace")


def _powershell(text: str) -> bytes:
    """What ``trtexec ... > build.log`` writes in Windows PowerShell 5."""
    return codecs.BOM_UTF16_LE + text.replace("\n", "\r\n").encode("utf-16-le")


ENCODINGS = {
    "powershell-utf16le-bom-crlf": _powershell,
    "utf16le-no-bom": lambda text: text.encode("utf-16-le"),
    "utf16be-bom": lambda text: codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
    "utf16be-no-bom": lambda text: text.encode("utf-16-be"),
    "utf32le-bom": lambda text: codecs.BOM_UTF32_LE + text.encode("utf-32-le"),
    "utf32be-no-bom": lambda text: text.encode("utf-32-be"),
    "utf8-bom": lambda text: codecs.BOM_UTF8 + text.encode("utf-8"),
}


def _same_table(left: object, right: object) -> None:
    import pandas as pd

    assert isinstance(left, pd.DataFrame) and isinstance(right, pd.DataFrame)
    pd.testing.assert_frame_equal(left.reset_index(drop=True), right.reset_index(drop=True))


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_every_reader_decodes_the_log(corpus_dir: Path, tmp_path: Path, name: str) -> None:
    original, text = _real(corpus_dir)
    expected = analyze_log(original).failures
    assert len(expected) >= 2
    encoded = ENCODINGS[name](text)
    log = tmp_path / "build.log"
    log.write_bytes(encoded)
    _same_table(analyze_log(encoded).failures, expected)  # in memory
    _same_table(analyze_log(log).failures, expected)  # streaming scan, default chunk
    for chunk in (7, 1000):  # chunk splits inside UTF-16 code units and CRLF pairs
        assert scan_failures(log, chunk_bytes=chunk) == scan_failures(log)


def test_the_cli_finds_the_rows_of_a_powershell_log(corpus_dir: Path, tmp_path: Path) -> None:
    _, text = _real(corpus_dir)
    log = tmp_path / "build.log"
    log.write_bytes(_powershell(text))
    result = subprocess.run(
        [sys.executable, "-m", "trtsafe_lab", "failures", str(log), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = json.loads(result.stdout)["failures"]
    expected = analyze_log(_real(corpus_dir)[0]).failures
    assert [row["layer"] for row in rows] == list(expected["layer"])


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"[E] plain ascii log line\n" * 4, "utf-8"),
        (codecs.BOM_UTF16_LE + "[E] x\n".encode("utf-16-le") * 8, "utf-16"),
        ("[E] x\n".encode("utf-16-le") * 8, "utf-16-le"),
        ("[E] x\n".encode("utf-16-be") * 8, "utf-16-be"),
        (codecs.BOM_UTF32_BE + "[E] x\n".encode("utf-32-be") * 8, "utf-32"),
        ("[E] x\n".encode("utf-32-le") * 8, "utf-32-le"),
        (codecs.BOM_UTF8 + b"[E] x\n", "utf-8-sig"),
        # A UTF-16 mark glued in front of UTF-8 text: the text wins (tests/test_logs_robust.py).
        (b"\xff\xfe[E] Error[10]: Error Code 10: Internal Error (conv\x001.)\r\n", "utf-8"),
        # UTF-16 text with no ASCII at all (Chinese): the mark decides.
        (codecs.BOM_UTF16_LE + "构建失败，节点无法实现".encode("utf-16-le"), "utf-16"),
        (b"\x00" * 64, "utf-8"),
        (b"", "utf-8"),
    ],
)
def test_sniffing(head: bytes, expected: str) -> None:
    assert sniff_encoding(head) == expected
