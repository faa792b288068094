"""The cheap test that decides which log lines can matter for the failure table.

A record yields failure rows only when one of its lines matches :data:`TRIGGER_GROUPS` (both
in the full parse and in the streaming scan), so the scan may skip every line between matches
without changing the result. Each group starts with one byte that is rare in verbose logs;
the scan finds that byte with ``bytes.find`` (``memchr``) and checks the rest with the group's
regular expression, falling back to a plain regex pass when the byte turns out to be common.
"""

from __future__ import annotations

import re

# (first byte, pattern that starts with it)
TRIGGER_GROUPS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"E",
        rb"E(?:\]|RROR|rror|ngine (?:built|deserialized|loaded) in|\d{4} \d"
        rb"|:onnxruntime| (?:tensorflow|third_party)/)",
    ),
    (
        b"W",
        rb"W(?:\]|ARN|arn|hile parsing node|\d{4} \d|:onnxruntime| (?:tensorflow|third_party)/)",
    ),
    (b"I", rb"I(?:n node -?\d|NVALID_NODE|nvalid Node)"),
    (b"F", rb"F\]"),
    (b"!", rb"!\]"),
    (b"L", rb"L(?:oaded engine|oading bytes from|ocal timing cache)"),
    (b"S", rb"Starting inference"),
    (b"C", rb"CRITICAL"),
)

_TRIGGER_TEXT = re.compile("|".join(p.decode() for _, p in TRIGGER_GROUPS))


def has_trigger(text: str) -> bool:
    """True when ``text`` (one line, prefixes included) contains a trigger."""
    return _TRIGGER_TEXT.search(text) is not None
