"""The lifecycle diagram (matplotlib; a view module, imported lazily).

:func:`plot_lifecycle` draws the runner's five states in their three phases, every call that moves
between them, where the runner is now (the last row of a trace table) and which calls are legal
now (bold green arrows and the "legal now" line), with fatal containment shown in red.
"""

from __future__ import annotations

import textwrap
from typing import Any

import pandas as pd

from trtsafe_lab.runtime.states import PHASE_OF, TRANSITIONS, LifecyclePhase, State
from trtsafe_lab.runtime.trace import (
    COL_CALL,
    COL_DIAGNOSTIC,
    COL_FATAL,
    COL_LEGAL_AFTER,
    COL_OUTCOME,
    COL_STATE_AFTER,
    COL_STATE_BEFORE,
    OUTCOME_CONTAINED,
    OUTCOME_FATAL,
    OUTCOME_OK,
    OUTCOME_REFUSED,
)
from trtsafe_lab.text import for_matplotlib

_X = {state: 3.0 * i for i, state in enumerate(State)}
_BOX_W, _BOX_H = 1.5, 0.8
_PHASE_COLOURS = {LifecyclePhase.INITIALIZATION: "#e8f0fb", LifecyclePhase.OPERATIONAL: "#e9f6ea",
                  LifecyclePhase.DEINITIALIZATION: "#f4f0e6"}
_LEGAL, _OTHER, _FATAL, _NOW = "#1a7f37", "#9a9a9a", "#c62828", "#ffd54f"


def plot_lifecycle(trace: pd.DataFrame, ax: Any = None, title: str = "") -> Any:
    """Draw the lifecycle for ``trace`` (a :meth:`SafetyRunner.trace_table`); return the Figure.

    The current state is the last row's ``state_after`` (``created`` for an empty trace); legal
    calls come from its ``legal_after``. Each transition arrow is labelled with its call and how
    many times the trace took it (``×n``).
    """
    from matplotlib import pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

    if ax is None:
        fig, ax = plt.subplots(figsize=(12, 4.6))
    else:
        fig = ax.figure
    last = trace.iloc[-1] if len(trace) else None
    state = State(last[COL_STATE_AFTER]) if last is not None else State.CREATED
    legal = ([c for c in str(last[COL_LEGAL_AFTER]).split(", ") if c] if last is not None
             else ["initialize"])
    fatal = bool(last[COL_FATAL]) if last is not None else False

    for phase in LifecyclePhase:
        xs = [_X[s] for s in State if PHASE_OF[s] is phase]
        ax.add_patch(Rectangle((min(xs) - 1.1, -1.8), max(xs) - min(xs) + 2.2, 3.5,
                               facecolor=_PHASE_COLOURS[phase], edgecolor="none", zorder=0))
        ax.text((min(xs) + max(xs)) / 2, 1.5, phase.value, ha="center", va="center",
                fontsize=11, weight="bold", color="#444")
    for s in State:
        now = s is state
        edge = _FATAL if (now and fatal) else "#333"
        ax.add_patch(FancyBboxPatch((_X[s] - _BOX_W / 2, -_BOX_H / 2), _BOX_W, _BOX_H,
                                    boxstyle="round,pad=0.05", zorder=2,
                                    facecolor=_NOW if now else "white", edgecolor=edge,
                                    linewidth=3 if now else 1.2))
        ax.text(_X[s], 0, s.value.replace("_", "\n"), ha="center", va="center", fontsize=10,
                zorder=3, weight="bold" if now else "normal")

    taken = _taken_counts(trace)
    for src, call, dst in TRANSITIONS:
        is_legal = src is state and call in legal
        colour = _LEGAL if is_legal else _OTHER
        label = call + (f" ×{taken[(src, call)]}" if taken.get((src, call)) else "")
        _draw_edge(ax, FancyArrowPatch, src, dst, label, colour, 2.6 if is_legal else 1.0)

    counts = trace[COL_OUTCOME].value_counts() if len(trace) else pd.Series(dtype=int)
    summary = (f"{len(trace)} calls: {counts.get(OUTCOME_OK, 0)} ok, "
               f"{counts.get(OUTCOME_REFUSED, 0)} refused, {counts.get(OUTCOME_FATAL, 0)} fatal, "
               f"{counts.get(OUTCOME_CONTAINED, 0)} refused in containment")
    ax.text(_X[State.CREATED] - 1.05, -2.05, f"now: {state.value}  |  legal now: "
            f"{', '.join(legal) or 'none (lifecycle over)'}  |  {summary}",
            ha="left", va="center", fontsize=9.5, color=_LEGAL if legal else "#444")
    if fatal:
        first = trace[trace[COL_OUTCOME] == OUTCOME_FATAL]
        why = str(first.iloc[0][COL_DIAGNOSTIC]) if len(first) else ""
        # escaped after wrapping, so that a line break never splits an escape
        text = for_matplotlib(textwrap.fill(
            f"FATAL CONTAINMENT — first error kept, every other call refused with it: {why}",
            width=130, max_lines=3, placeholder=" …"))
        ax.text(_X[State.CREATED] - 1.05, -2.3, text, ha="left", va="top", fontsize=9,
                color=_FATAL, weight="bold")
    ax.set_xlim(_X[State.CREATED] - 1.2, _X[State.DEINITIALIZED] + 1.2)
    ax.set_ylim(-3.0 if fatal else -2.3, 1.8)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(for_matplotlib(title) if title else "Safety runner lifecycle", fontsize=12)
    return fig


def _taken_counts(trace: pd.DataFrame) -> dict[tuple[State, str], int]:
    if not len(trace):
        return {}
    done = trace[trace[COL_OUTCOME].isin([OUTCOME_OK, OUTCOME_FATAL])]
    groups = done.groupby([COL_STATE_BEFORE, COL_CALL]).size()
    return {(State(s), str(c)): int(n) for (s, c), n in groups.items()}


def _draw_edge(ax: Any, arrow: Any, src: State, dst: State, label: str, colour: str,
               width: float) -> None:
    style = dict(arrowstyle="-|>", mutation_scale=14, color=colour, linewidth=width, zorder=1)
    if src is dst:  # a call that keeps the state: loop above the box
        x = _X[src]
        ax.add_patch(arrow((x - 0.35, _BOX_H / 2 + 0.05), (x + 0.35, _BOX_H / 2 + 0.05),
                           connectionstyle="arc3,rad=-1.1", **style))
        ax.text(x, _BOX_H / 2 + 0.62, label, ha="center", va="bottom", fontsize=8.5,
                color=colour)
        return
    skip = abs(list(State).index(dst) - list(State).index(src)) > 1
    if skip:  # initialized -> graphs_released, under the operational box
        ax.add_patch(arrow((_X[src], -_BOX_H / 2 - 0.05), (_X[dst], -_BOX_H / 2 - 0.05),
                           connectionstyle="arc3,rad=0.35", **style))
        ax.text((_X[src] + _X[dst]) / 2, -1.62, label, ha="center", va="center", fontsize=8.5,
                color=colour)
        return
    ax.add_patch(arrow((_X[src] + _BOX_W / 2 + 0.05, 0.0), (_X[dst] - _BOX_W / 2 - 0.05, 0.0),
                       **style))
    wrapped = label.replace("_", "_\n", 1) if len(label) > 12 else label
    ax.text((_X[src] + _X[dst]) / 2, 0.08, wrapped, ha="center", va="bottom", fontsize=8,
            color=colour, linespacing=1.0)
