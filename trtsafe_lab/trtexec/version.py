"""TensorRT versions: parse ``X.Y[.Z]``, the trtexec banner, and ask a tool for its version.

trtexec prints a banner on every run, including ``--help``::

    &&&& RUNNING TensorRT.trtexec [TensorRT v100200] # trtexec --help

The number is TensorRT's ``NV_TENSORRT_VERSION``: ``major*10000 + minor*100 + patch`` from 10.0
on (``v101601`` = 10.16.1), ``major*1000 + minor*100 + patch`` before (``v8205`` = 8.2.5).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

BANNER_RE = re.compile(
    r"&&&& (?P<state>RUNNING|PASSED|FAILED) TensorRT\.(?P<tool>[A-Za-z_]+) "
    r"\[TensorRT v(?P<code>\d+)\]"
)


@dataclass(frozen=True, order=True)
class TrtVersion:
    """A TensorRT version; compares numerically (``TrtVersion(11, 4) > TrtVersion(10, 16)``)."""

    major: int
    minor: int
    patch: int = 0

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"

    @property
    def is_11x(self) -> bool:
        """True from TensorRT 11.0 on, where the 11.x trtexec rules apply."""
        return self.major >= 11

    @property
    def has_companion_so(self) -> bool:
        """True from 11.3 on: safe builds produce a companion ``.so`` beside the engine."""
        return (self.major, self.minor) >= (11, 3)

    @classmethod
    def parse(cls, text: str) -> TrtVersion:
        """Parse ``"11.4"``, ``"11.4.0"``, ``"11.4.0.106"`` or a banner code like ``"v110400"``."""
        text = text.strip()
        if re.fullmatch(r"v?\d{4,6}", text):
            return cls.from_code(int(text.lstrip("v")))
        match = re.fullmatch(r"(\d+)\.(\d+)(?:\.(\d+))?(?:\.\d+)?", text)
        if not match:
            raise ValueError(
                f"not a TensorRT version: {text!r}; write it as MAJOR.MINOR[.PATCH], e.g. 11.4"
            )
        return cls(int(match[1]), int(match[2]), int(match[3] or 0))

    @classmethod
    def from_code(cls, code: int) -> TrtVersion:
        """Decode ``NV_TENSORRT_VERSION`` as printed in the banner (``100200`` -> 10.2.0)."""
        if code >= 100000:
            return cls(code // 10000, (code // 100) % 100, code % 100)
        return cls(code // 1000, (code // 100) % 10, code % 100)


@dataclass(frozen=True)
class Banner:
    """One ``&&&&`` line: the state, the tool name and the version it reports."""

    state: str
    tool: str
    version: TrtVersion


def find_banner(text: str) -> Banner | None:
    """Return the first ``&&&& RUNNING|PASSED|FAILED TensorRT.<tool> [TensorRT vN]`` in text."""
    match = BANNER_RE.search(text)
    if match is None:
        return None
    return Banner(match["state"], match["tool"], TrtVersion.from_code(int(match["code"])))


class VersionDetectionError(RuntimeError):
    """The tool's version could not be read from its banner."""


def detect_version(tool: str | Path, timeout_s: float = 30.0) -> TrtVersion:
    """Run ``<tool> --help`` (no shell) and read the version from its banner.

    Raises :class:`VersionDetectionError` when the tool cannot be run or prints no banner; the
    message says to pass the version explicitly (``--trt-version X.Y``) instead.
    """
    try:
        result = subprocess.run(
            [str(tool), "--help"],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise VersionDetectionError(
            f"could not run '{tool} --help' to read the TensorRT version ({err}); "
            "pass the version explicitly, e.g. --trt-version 11.4"
        ) from err
    banner = find_banner(result.stdout + "\n" + result.stderr)
    if banner is None:
        raise VersionDetectionError(
            f"'{tool} --help' printed no '&&&& RUNNING TensorRT.<tool> [TensorRT vNNNNNN]' "
            "banner; pass the version explicitly, e.g. --trt-version 11.4"
        )
    return banner.version
