"""Random call sequences against an independent model of the legal transitions (hypothesis).

The model below is written from the rules in the issue, not from trtsafe_lab.runtime.states, so
a disagreement between the two shows up as a failure. Executors are in-process CPU test doubles;
a fault can be armed on decode to drive fatal containment.
"""

from __future__ import annotations

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from runtime_helpers import resources_for, two_stage_spec

from trtsafe_lab.runtime import (
    Category,
    InProcessBackend,
    InProcessExecutor,
    SafetyRunner,
    StagePlan,
    Status,
    TensorDecl,
)

PLANNED = {("prefill", 0), ("decode", 0)}
KEYS = st.sampled_from([("prefill", 0), ("decode", 0), ("prefill", 0), ("decode", 0),
                        ("vision", 0), ("decode", 1)])


class RunnerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.decode = InProcessExecutor(tensors=(
            TensorDecl("hidden", 16, "input"), TensorDecl("kv_cache", 32, "resource"),
            TensorDecl("logits", 4, "output")))
        self.runner = SafetyRunner(InProcessBackend())
        # the model
        self.state = "created"
        self.pending: set[tuple[str, int]] = set()
        self.fatal: Status | None = None
        self.armed = False
        self.calls = 0

    def _expect(self, status: Status, *, legal: bool, category: Category = Category.OK) -> None:
        """Common rule: under fatal, an illegal call returns the kept fatal status itself."""
        self.calls += 1
        if self.fatal is not None and not legal:
            assert status is self.fatal, status
        elif not legal:
            assert status.category in (Category.INVALID_STATE, Category.SEALED), status
            assert not status.fatal
        else:
            assert status.category is category, status

    def _fault_hits(self, status: Status) -> bool:
        if self.armed:
            assert status.fatal and status.category is Category.EXECUTOR_ERROR, status
            self.fatal, self.armed = status, False
            return True
        return False

    @rule(valid=st.booleans())
    def initialize(self, valid: bool) -> None:
        spec = two_stage_spec(decode=self.decode)
        if not valid:
            spec = two_stage_spec(decode=self.decode, stages=(
                StagePlan("prefill", 0, "pre"), StagePlan("prefill", 0, "dec")))
        status = self.runner.initialize(spec)
        legal = self.fatal is None and self.state == "created"
        self._expect(status, legal=legal, category=Category.OK if valid else Category.INVALID_SPEC)
        if legal and valid:
            self.state, self.pending = "initialized", set(PLANNED)

    @rule(key=KEYS)
    def complete_context(self, key: tuple[str, int]) -> None:
        status = self.runner.complete_context(*key, resources_for(key[0]))
        legal = self.fatal is None and self.state == "initialized" and bool(self.pending)
        if legal and key not in PLANNED:
            self._expect(status, legal=True, category=Category.INVALID_ARGUMENT)
        elif legal and key not in self.pending:
            self._expect(status, legal=True, category=Category.INVALID_STATE)
        else:
            self._expect(status, legal=legal)
            if legal:
                self.pending.discard(key)

    @rule()
    def complete_every_context(self) -> None:
        """All planned contexts in one step, so random runs reach Operational often."""
        for key in sorted(PLANNED):
            self.complete_context(key)

    @rule()
    def bring_up(self) -> None:
        """initialize, every complete_context and prepare(1) in one step (each call checked as
        usual), so random runs reach Operational often; in other states they are refusals."""
        self.initialize(True)
        self.complete_every_context()
        self.prepare(1)

    @rule(warmup=st.integers(0, 2))
    def prepare(self, warmup: int) -> None:
        status = self.runner.prepare(warmup)
        legal = self.fatal is None and self.state == "initialized" and not self.pending
        if legal and warmup < 1:
            self._expect(status, legal=True, category=Category.INVALID_ARGUMENT)
        elif legal and self._fault_hits(status):
            self.calls += 1
        else:
            self._expect(status, legal=legal)
            if legal:
                self.state = "operational"

    @rule(key=KEYS)
    def run_stage(self, key: tuple[str, int]) -> None:
        status = self.runner.run_stage(*key, {})
        legal = self.fatal is None and self.state == "operational"
        if legal and key not in PLANNED:
            self._expect(status, legal=True, category=Category.INVALID_ARGUMENT)
        elif legal and key == ("decode", 0) and self._fault_hits(status):
            self.calls += 1
        else:
            self._expect(status, legal=legal)

    @precondition(lambda self: self.fatal is None and not self.armed)
    @rule()
    def arm_fault_on_next_decode(self) -> None:
        self.decode.fail_on_call = sum(self.decode.calls.values()) + 1
        self.armed = True

    @precondition(lambda self: self.state == "operational" and self.fatal is None)
    @rule()
    def fault_during_decode(self) -> None:
        self.arm_fault_on_next_decode()
        self.run_stage(("decode", 0))

    @rule()
    def deinitialize_graphs(self) -> None:
        status = self.runner.deinitialize_graphs()
        legal = self.state in ("created", "initialized", "operational") and (
            self.fatal is not None or self.state != "created")
        self._expect(status, legal=legal)
        if legal:
            self.state = "graphs_released"

    @rule()
    def deinitialize_resources(self) -> None:
        status = self.runner.deinitialize_resources()
        legal = self.state == "graphs_released"
        self._expect(status, legal=legal)
        if legal:
            self.state = "deinitialized"

    @invariant()
    def runner_agrees_with_model(self) -> None:
        event(f"state {self.state}{' (fatal)' if self.fatal is not None else ''}")
        assert self.runner.state.value == self.state
        assert self.runner.fatal_status is self.fatal
        assert len(self.runner.trace) == self.calls
        live = self.runner.ledger.live("stream")
        if self.state in ("created", "deinitialized"):
            assert live == []
        else:
            assert len(live) == 4  # 2 main + 2 prefill aux, created once, kept until the end

    def teardown(self) -> None:
        with self.runner:
            pass  # __exit__ deinitializes in order, in containment too
        assert self.runner.ledger.live("stream") == [] and self.runner.ledger.live("buffer") == []


RunnerMachine.TestCase.settings = settings(
    max_examples=100, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
TestRunnerLifecycle = RunnerMachine.TestCase
