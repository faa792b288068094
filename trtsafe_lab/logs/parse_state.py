"""The state the rules carry from one record to the next, and the per-text readings it caches.

:class:`ParseState` is flat on purpose: :mod:`trtsafe_lab.logs.record_cache` keys a record's
reading on the values of exactly the fields the rules read, so the functions over it here are
free functions that read its fields (a bound method would read them unseen).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from trtsafe_lab.logs.categories import message_category, rule_category
from trtsafe_lab.logs.layer_names import line_names
from trtsafe_lab.logs.name_grammar import (
    leading_name,
    positional_names,
    refused_names,
    tensor_names,
)
from trtsafe_lab.logs.name_tokens import is_api_or_enum, is_code_identifier


class TextCache:
    """Results of a pure function of one text, for texts seen again.

    Error-dense logs repeat the same messages (one failure per build of a sweep). The cache
    holds at most ``budget`` characters of keys (oldest dropped first), so a hostile log of
    huge distinct lines costs memory bounded by the budget, and every text of any length is
    treated alike (the work per line does not jump at a length threshold).
    """

    def __init__(self, function: Callable[[str], Any], budget: int = 4 << 20) -> None:
        self._function = function
        self._budget = budget
        self._size = 0
        self._items: OrderedDict[str, Any] = OrderedDict()

    def __call__(self, text: str) -> Any:
        if text in self._items:
            return self._items[text]
        value = self._function(text)
        if len(text) <= self._budget:
            self._items[text] = value
            self._size += len(text)
            while self._size > self._budget:
                old, _ = self._items.popitem(last=False)
                self._size -= len(old)
        return value


def line_grammar(text: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """(tensor names, candidate layer names, the line's own category) of one line."""
    candidates = refused_names(text) + positional_names(text)
    leading = leading_name(text)
    # "complex_decomposition_adapter: placeholder 'x' has ...": the pass that speaks, not a node
    if leading and leading not in candidates and not (candidates and is_code_identifier(leading)):
        candidates.append(leading)
    candidates = [n for n in candidates if not is_api_or_enum(n)]
    category = rule_category(masked(text, candidates)) if candidates else ""
    return tuple(tensor_names(text)), tuple(candidates), category


def masked(text: str, names: list[str]) -> str:
    """``text`` with the names blanked out, so that a name's words ("Reshape_3", "/conv/Conv")
    do not decide the category of the sentence around it."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, "X")
    return text


def _line_names(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(line_names(text))


class ContextRecord(NamedTuple):
    """What one of the last classify.CONTEXT_RECORDS records said that a later record may use
    (a tuple: the record cache keys readings on ParseState's hashable field values)."""

    age: int  # records since it (0: the record just before)
    importer_node: str  # the node a verbose importer line named ("X [Op] inputs:")
    error_category: str  # the category of its error ("" when it was none)
    ends_import: bool  # a parser error: the node's import ended
    timed_layer: str  # the layer a "Timing Runner: X (Myelin)" line was timing
    unsupported_reason: str  # its message, when it made a node parser-unsupported
    warned_layer: str = ""  # the layer a shape WARNING named ("X: dimensions not compatible")


@dataclass
class ParseState:
    """State carried from one record to the next."""

    phase: str = "build"
    header_output: str = ""
    header_seen: bool = False
    dump_name: str = ""
    in_dump: bool = False
    dump_depth: int = 0
    # those of the last classify.CONTEXT_RECORDS records that said any of ContextRecord's
    # things, youngest first; usually ()
    recent: tuple[ContextRecord, ...] = ()
    header_line: int = 0
    header_text: str = ""
    header_category: str = ""  # category of the error just before the header
    header_reason: str = ""  # the context message that made the header's node unsupported
    recent_names: list[str] = field(default_factory=list)  # names of the last reported records
    input_nodes: tuple[str, ...] = ()  # network inputs named as nodes (see classify)
    # per-text results of the pure rules, for messages the log repeats (see TextCache)
    category_of: Callable[[str], str] = field(
        default_factory=lambda: TextCache(message_category)
    )
    grammar_of: Callable[[str], tuple[tuple[str, ...], tuple[str, ...], str]] = field(
        default_factory=lambda: TextCache(line_grammar)
    )
    names_of: Callable[[str], tuple[tuple[str, str], ...]] = field(
        default_factory=lambda: TextCache(_line_names)
    )
    last_error_category: str = ""
    # (layer, category) of backend strategies a warning skipped (see classify)
    failed_strategies: tuple[tuple[str, str], ...] = ()


def recent_importer_node(state: ParseState) -> str:
    """The node the importer's last lines named, unless a node import ended since."""
    for context in state.recent:
        if context.ends_import:
            return ""
        if context.importer_node:
            return context.importer_node
    return ""


def recent_error_category(state: ParseState) -> str:
    """The category of the latest error among the context records ("" when none)."""
    return next((c.error_category for c in state.recent if c.error_category), "")


def recent_unsupported_reason(state: ParseState) -> str:
    """The message of the latest context record that made a node unsupported ("No importer
    registered for op: X. Attempting to import as plugin."; "" when none)."""
    return next((c.unsupported_reason for c in state.recent if c.unsupported_reason), "")


def recent_warned_layer(state: ParseState) -> str:
    """The layer a shape warning of the context records named ("" when none)."""
    return next((c.warned_layer for c in state.recent if c.warned_layer), "")


def recent_timed_layer(state: ParseState) -> str:
    """The layer a verbose "Timing Runner: X (Myelin)" line of the context records was timing
    ("" when none)."""
    return next((c.timed_layer for c in state.recent if c.timed_layer), "")
