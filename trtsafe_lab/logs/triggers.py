"""The cheap test that decides which log lines can matter for the failure table.

A record yields failure rows, or changes the parser's state, only when one of its lines matches
a trigger (both in the full parse and in the streaming scan), so the scan may skip every line
between matches without changing the result. Each group starts with one byte that is rare in
verbose logs; the scan finds that byte with ``bytes.find`` (``memchr``) and checks the rest with
the group's regular expression, switching to a regex pass when the byte turns out to be common.

Two kinds of trigger: *error* triggers (severity tags and words, ONNX-parser lines) and *phase
markers* (INFO lines that start the build or the runtime phase).
"""

from __future__ import annotations

import re

_E_ERROR = rb"E(?:\]|RROR|rror|\d{4} \d|:onnxruntime| (?:tensorflow|third_party)/)"
_E_MARKER = rb"Engine (?:built|deserialized|loaded) in"
_W_ERROR = rb"W(?:\]|ARN|arn|hile parsing node|\d{4} \d|:onnxruntime| (?:tensorflow|third_party)/)"
_I_ERROR = rb"I(?:n node -?\d|NVALID_NODE|nvalid Node)"
_I_MARKER = (
    rb"I(?:\]|NFO:?) (?:\[T\w*\]:? )?"
    rb"(?:Starting inference|Loaded engine|Loading bytes from|Local timing cache"
    rb"|Global timing cache|Start parsing network model|Finish(?:ed)? parsing network model"
    rb"|Input filename:)"
)
_F_ERROR = rb"F\]"
_BANG_ERROR = rb"!\]"

# (first byte, pattern that starts with it)
TRIGGER_GROUPS: tuple[tuple[bytes, bytes], ...] = (
    (b"E", _E_ERROR + b"|" + _E_MARKER),
    (b"W", _W_ERROR),
    (b"I", _I_ERROR + b"|" + _I_MARKER),
    (b"F", _F_ERROR),
    (b"!", _BANG_ERROR),
)
_ERROR_BYTES = re.compile(b"|".join((_E_ERROR, _W_ERROR, _I_ERROR, _F_ERROR, _BANG_ERROR)))
_TRIGGER_TEXT = re.compile("|".join(p.decode() for _, p in TRIGGER_GROUPS))


def has_trigger(text: str) -> bool:
    """True when ``text`` (one line, prefixes included) contains any trigger."""
    return _TRIGGER_TEXT.search(text) is not None


def has_error_trigger(line: bytes | bytearray) -> bool:
    """True when ``line`` holds a trigger other than a phase marker."""
    return _ERROR_BYTES.search(line) is not None
