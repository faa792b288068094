"""Data strings on their way into views: shown as written, never interpreted.

Layer names, paths, messages and run names come from users' models and logs, so any text can be
one. Matplotlib reads ``$...$`` as mathtext (a name like ``conv_$\\undefined{x}$`` raises while the
figure is drawn) and widget HTML would render tags; terminal colour codes (ANSI escapes) arrive in
pasted logs. Every view passes data strings through one of these two functions.
"""

from __future__ import annotations

import html
import re

# A CSI sequence (colours, cursor moves) after its ESC byte: parameter, intermediate and final
# bytes (ECMA-48). One pattern text for every module that reads colour codes (logs.records also
# reads them written out as text, "\\x1b[31m").
ANSI_CSI_BODY = r"\[[0-?]{0,32}[ -/]{0,8}[@-~]"
# CSI sequences and the two-byte escapes; other C0 controls but tab and newline are shown as
# visible escapes so nothing is hidden.
_ANSI = re.compile(r"\x1b" + ANSI_CSI_BODY + r"|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def strip_ansi(text: object) -> str:
    """``text`` as a string without ANSI escape sequences; other control characters as ``\\xNN``."""
    plain = _ANSI.sub("", str(text))
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", plain)


def for_matplotlib(text: object) -> str:
    """``text`` escaped so matplotlib draws it literally (no mathtext, no escape codes)."""
    return strip_ansi(text).replace("$", r"\$")


def for_html(text: object) -> str:
    """``text`` escaped for HTML (tags and entities shown as text, no escape codes)."""
    return html.escape(strip_ansi(text), quote=True)


_BREAK_AFTER = "/ _.:-,)]"


def wrap_name(name: str, width: int) -> list[str]:
    """``name`` in lines of at most ``width`` characters, broken after a ``/``, space, ``_``,
    ``.``, ``:``, ``-``, ``,``, ``)`` or ``]`` in the second half of a line, else at ``width``.
    Nothing is dropped or added: ``"".join(wrap_name(name, width)) == name`` (labels in figures
    are wrapped with it, never cut)."""
    lines = []
    rest = name
    while len(rest) > width:
        cut = max(rest.rfind(ch, 0, width) for ch in _BREAK_AFTER) + 1
        if cut <= width // 2:
            cut = width
        lines.append(rest[:cut])
        rest = rest[cut:]
    lines.append(rest)
    return lines
