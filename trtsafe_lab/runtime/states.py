"""The lifecycle states of the safety runner and which calls each one allows.

Initialization (``created`` → ``initialized``) → Operational (``operational``) →
Deinitialization (``graphs_released`` → ``deinitialized``). A fatal error does not change the
state; it puts the runner in containment, where the only legal call is the next
deinitialization step, made without launching GPU work.
"""

from __future__ import annotations

import enum


class State(str, enum.Enum):
    CREATED = "created"
    INITIALIZED = "initialized"
    OPERATIONAL = "operational"
    GRAPHS_RELEASED = "graphs_released"
    DEINITIALIZED = "deinitialized"


class LifecyclePhase(str, enum.Enum):
    INITIALIZATION = "Initialization"
    OPERATIONAL = "Operational"
    DEINITIALIZATION = "Deinitialization"


PHASE_OF: dict[State, LifecyclePhase] = {
    State.CREATED: LifecyclePhase.INITIALIZATION,
    State.INITIALIZED: LifecyclePhase.INITIALIZATION,
    State.OPERATIONAL: LifecyclePhase.OPERATIONAL,
    State.GRAPHS_RELEASED: LifecyclePhase.DEINITIALIZATION,
    State.DEINITIALIZED: LifecyclePhase.DEINITIALIZATION,
}

#: The runner's calls, in lifecycle order.
CALLS: tuple[str, ...] = (
    "initialize",
    "complete_context",
    "prepare",
    "run_stage",
    "deinitialize_graphs",
    "deinitialize_resources",
)

#: (from state, call, to state) for every call that moves the runner (others stay put).
TRANSITIONS: tuple[tuple[State, str, State], ...] = (
    (State.CREATED, "initialize", State.INITIALIZED),
    (State.INITIALIZED, "complete_context", State.INITIALIZED),
    (State.INITIALIZED, "prepare", State.OPERATIONAL),
    (State.OPERATIONAL, "run_stage", State.OPERATIONAL),
    (State.INITIALIZED, "deinitialize_graphs", State.GRAPHS_RELEASED),
    (State.OPERATIONAL, "deinitialize_graphs", State.GRAPHS_RELEASED),
    (State.GRAPHS_RELEASED, "deinitialize_resources", State.DEINITIALIZED),
)


def legal_calls(state: State, *, fatal: bool, contexts_pending: bool) -> tuple[str, ...]:
    """Calls the runner accepts now.

    ``contexts_pending``: some planned stage/slot has not had ``complete_context`` yet (then
    ``prepare`` waits for it). Under ``fatal`` only the next deinitialization step remains.
    """
    if fatal:
        if state in (State.CREATED, State.INITIALIZED, State.OPERATIONAL):
            return ("deinitialize_graphs",)
        return ("deinitialize_resources",) if state is State.GRAPHS_RELEASED else ()
    if state is State.CREATED:
        return ("initialize",)
    if state is State.INITIALIZED:
        first = "complete_context" if contexts_pending else "prepare"
        return (first, "deinitialize_graphs")
    if state is State.OPERATIONAL:
        return ("run_stage", "deinitialize_graphs")
    if state is State.GRAPHS_RELEASED:
        return ("deinitialize_resources",)
    return ()
