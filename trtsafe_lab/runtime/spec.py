"""The init spec handed to ``initialize`` and its validation.

Mirrors the Edge-LLM safety runner's ``initialize(spec{executors, stages, executorMainStreamIds,
ioAliases})``: named executors, stage plans mapping a (stage id, slot) pair to an executor and
its one immutable profile, each executor's main stream id (executors may share a main stream),
and IO alias groups (tensors of different executors that share one buffer, e.g. the hidden state
prefill writes and decode reads).

Validation runs in two steps: :func:`structural_problems` needs only the spec;
:func:`queried_problems` also needs what each executor reported from ``query`` (tensor sizes,
profile counts). Each returns a list of sentences; an empty list means the spec is accepted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from trtsafe_lab.runtime.executors import ExecutorInfo, StageExecutor, StageKey


@dataclass(frozen=True)
class StagePlan:
    """One stage/slot pair (e.g. ``("decode", 0)``) run by ``executor`` with ``profile``.

    A stage/slot has exactly one profile and it never changes (the runtime's "one immutable
    profile per stage/slot"); a second profile of the same stage needs its own slot.
    """

    stage: str
    slot: int
    executor: str
    profile: int = 0

    @property
    def key(self) -> StageKey:
        return (self.stage, self.slot)


@dataclass(frozen=True)
class AliasGroup:
    """Tensors (executor name, tensor name) that share one buffer; sizes must match."""

    name: str
    members: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class InitSpec:
    """Everything ``initialize`` needs: ``executors`` by name, ``stages``,
    ``main_streams`` (executor name -> main stream id; same id = same stream) and ``io_aliases``."""

    executors: Mapping[str, StageExecutor]
    stages: tuple[StagePlan, ...]
    main_streams: Mapping[str, int]
    io_aliases: tuple[AliasGroup, ...] = field(default=())


def structural_problems(spec: InitSpec) -> list[str]:
    """Rule violations visible without querying the executors."""
    problems: list[str] = []
    names = set(spec.executors)
    if not spec.stages:
        problems.append("no stage plans: declare at least one StagePlan(stage, slot, executor)")
    for plan in spec.stages:
        if plan.executor not in names:
            problems.append(f"stage {plan.stage}/{plan.slot} names unknown executor "
                            f"{plan.executor!r}; known: {sorted(names)}")
        if plan.slot < 0 or plan.profile < 0:
            problems.append(f"stage {plan.stage}/{plan.slot}: slot and profile must be >= 0")
    for (stage, slot), count in Counter(p.key for p in spec.stages).items():
        if count > 1:
            problems.append(f"stage {stage}/{slot} is planned {count} times: each stage/slot "
                            "maps to one executor and one profile; use another slot")
    for name in sorted(names - set(spec.main_streams)):
        problems.append(f"executor {name!r} has no main stream id in main_streams")
    for name, stream_id in spec.main_streams.items():
        if name not in names:
            problems.append(f"main_streams names unknown executor {name!r}")
        if stream_id < 0:
            problems.append(f"main stream id of {name!r} must be >= 0, got {stream_id}")
    unused = names - {p.executor for p in spec.stages}
    for name in sorted(unused):
        problems.append(f"executor {name!r} is declared but no stage plan uses it")
    seen: dict[tuple[str, str], str] = {}
    for group in spec.io_aliases:
        if len(group.members) < 2:
            problems.append(f"alias group {group.name!r} needs at least two tensors")
        for member in group.members:
            if member[0] not in names:
                problems.append(f"alias group {group.name!r} names unknown executor "
                                f"{member[0]!r}")
            if member in seen:
                problems.append(f"tensor {member[0]}.{member[1]} is in alias groups "
                                f"{seen[member]!r} and {group.name!r}; a tensor aliases once")
            seen[member] = group.name
    return problems


def queried_problems(spec: InitSpec, infos: Mapping[str, ExecutorInfo], on_gpu: bool) -> list[str]:
    """Rule violations found with the executors' query results (``on_gpu``: the backend's)."""
    problems: list[str] = []
    for name, info in infos.items():
        if info.on_gpu != on_gpu:
            where = "a GPU" if info.on_gpu else "the in-process CPU"
            problems.append(f"executor {name!r} ({info.kind}) needs {where} backend; the runner "
                            f"was given a {'GPU' if on_gpu else 'CPU'} backend")
        tensor_names = [t.name for t in info.tensors]
        for dup, count in Counter(tensor_names).items():
            if count > 1:
                problems.append(f"executor {name!r} declares tensor {dup!r} {count} times")
    for plan in spec.stages:
        planned = infos.get(plan.executor)
        if planned is not None and plan.profile >= planned.num_profiles:
            problems.append(f"stage {plan.stage}/{plan.slot} asks for profile {plan.profile}, "
                            f"but executor {plan.executor!r} has {planned.num_profiles}")
    for group in spec.io_aliases:
        sizes: dict[str, int] = {}
        for executor, tensor in group.members:
            member = infos.get(executor)
            decl = member.tensor(tensor) if member else None
            if member is not None and decl is None:
                problems.append(f"alias group {group.name!r}: executor {executor!r} has no "
                                f"tensor {tensor!r}")
            elif decl is not None and decl.role == "resource":
                problems.append(f"alias group {group.name!r}: {executor}.{tensor} is a "
                                "caller-owned resource; only runner-allocated IO can alias")
            elif decl is not None:
                sizes[f"{executor}.{tensor}"] = decl.nbytes
        if len(set(sizes.values())) > 1:
            listed = ", ".join(f"{k}={v} B" for k, v in sizes.items())
            problems.append(f"alias group {group.name!r} has mismatched sizes ({listed}); "
                            "aliased tensors must have the same size")
    return problems
