"""Per-run control of the runtime scheduler inside every TaskManager (java-udfs/klink-agent).

The agent's scheduler thread fetches the run's control from klinkctl every second (klinkctl.run.control_channel):
a policy other than ``default`` makes it pause and resume tasks every r ms and send one row per cycle for
``<run_dir>/scheduler.csv``; ``default`` or nobody listening means plain Flink (every paused task is resumed at
once). Whatever the policy, ``default`` included, a control with a ``run`` makes the agent count every task's
records, CPU time and bytes until the run ends, and then send them for ``<run_dir>/tasks.csv``.
"""

from __future__ import annotations

from pathlib import Path

from klinkctl import catalog
from klinkctl.options import Section, option
from klinkctl.run.control_channel import ControlChannel
from klinkctl.stack.spec import StackSpec

#: Scheduling policies of the runtime scheduler (the catalog's, from io.klink.scheduler.policy.Policies);
#: `default` is plain Flink (the scheduler never pauses anything).
AGENT_POLICIES = catalog.policies()
#: Policies carried out from outside Flink by klinkctl itself; the agent stays on `default` meanwhile
#: (os-priority: Lachesis-style nice values, klinkctl.run.os_priority).
OUTSIDE_POLICIES = ("os-priority",)
POLICIES = AGENT_POLICIES + OUTSIDE_POLICIES
#: klink-agent Enforcement: pause (suspend the mailbox, the paper's §5) or priority (nice 19, work-conserving).
ENFORCEMENTS = catalog.enforcements()
#: The agent's own defaults of the paper's parameters (io.klink.scheduler.policy.PolicyConfig, through the catalog).
AGENT_DEFAULTS = catalog.policy_parameter_defaults()


class SchedulerOptions(Section):
    """The policy and the paper's parameters r, h, f, b, C (klink-agent's PolicyConfig); `default` ignores them."""

    policy: str = option("default", "Scheduling policy: default (plain Flink), "
                         f"{', '.join(p for p in AGENT_POLICIES if p != 'default')} (the agent inside the "
                         "TaskManager), os-priority (nice values from outside; local backend, CAP_SYS_NICE).",
                         choices=POLICIES)
    cycle_ms: int = option(AGENT_DEFAULTS["r"], "Scheduler: cycle length r.", duration=True, gt=0)
    history: int = option(AGENT_DEFAULTS["h"], "Scheduler (klink, LR): epochs of delay history h.", ge=1)
    confidence: float = option(AGENT_DEFAULTS["f"], "Confidence, 0 < f < 1: Klink's SWM interval f (scheduler) and the sampler's "
                               "1 - delta.", gt=0, lt=1)
    memory_bound: float = option(AGENT_DEFAULTS["b"], "Scheduler (klink): memory-used fraction b that starts memory management, "
                                 "0 < b <= 1.", gt=0, le=1)
    cores: int | None = option(None, "Scheduler: pipelines (queries) running at once C, for every policy. [cores "
                               "of the TaskManager]", ge=1)
    aging: int = option(AGENT_DEFAULTS["age"], "Scheduler (klink, fcfs, hr, sbox): force in a task that was runnable but not chosen for "
                        "this many cycles; 0 = off, as in the paper (on, a deviation).", ge=0)
    strict_slack: bool = option(AGENT_DEFAULTS["strict"], "Scheduler (klink): select C pipelines by slack every cycle, as in the paper, "
                                "even when all queued work fits in one cycle (default: such cycles pause nothing).",
                                flag=True)
    fill_cycle: bool = option(AGENT_DEFAULTS["fill"], "Scheduler (klink): when the C least-slack pipelines hold less work than one "
                              "cycle's CPU, add further pipelines in slack order until they do (work-conserving; a "
                              "deviation, the paper runs C).", flag=True)
    forwarding: bool = option(True, "Scheduler (several TaskManagers or simulated nodes): each one's scheduler also "
                              "sees the parts of its queries on the others, forwarded every cycle, so a pipeline "
                              "spanning them is ranked whole (distributed Klink, the paper's §4; bench: the agents "
                              "exchange snapshots through klinkctl's control channel). --no-forwarding: each sees "
                              "only its own tasks (standalone, as the paper ran HR and SBox).", flag=True)
    enforce: str = option("pause", "Scheduler: how tasks not chosen are held back: pause (suspend their input, the "
                          "paper's) or priority (keep running at nice 19: work-conserving; needs CAP_SYS_NICE).",
                          choices=ENFORCEMENTS)
    os_priority_period_ms: int = option(1000, "Policy os-priority (Lachesis-style, from outside Flink): how often "
                                        "input backlogs are read from Flink's REST metrics and task threads' nice "
                                        "values set; at least 100ms.", duration=True, ge=100)

    @property
    def agent_policy(self) -> str:
        """What the TaskManagers' runtime scheduler runs: the policy, or `default` for one run from outside."""
        return "default" if self.policy in OUTSIDE_POLICIES else self.policy

    def scheduler_params(self, taskmanagers: int = 1) -> dict[str, object]:
        """The agent's parameter names (java-udfs: io.klink.scheduler.policy.PolicyConfig, Enforcement,
        ForwardedTasks) for a stack of `taskmanagers`."""
        params: dict[str, object] = {"r": self.cycle_ms, "h": self.history, "f": self.confidence,
                                     "b": self.memory_bound}
        if self.cores is not None:
            params["C"] = self.cores
        if self.strict_slack:
            params["strict"] = "true"
        if self.fill_cycle:
            params["fill"] = "true"
        if self.aging:
            params["age"] = self.aging
        if self.enforce != "pause":
            params["enforce"] = self.enforce
        if self.forwarding and taskmanagers > 1:
            params["forward"] = "true"
        return params


def control(policy: str, params: dict[str, object] | None, run_id: str) -> dict:
    """The run's control as the agents read it (io.klink.agent.RunControl): every value a string."""
    return {"policy": policy, "params": {str(k): str(v) for k, v in (params or {}).items()}, "run": run_id}


def activate(spec: StackSpec, policy: str, params: dict[str, object] | None, run_id: str,
             run_dir: Path) -> ControlChannel:
    """Serve `policy` to the TaskManagers' schedulers for this run; they take it within a second."""
    return ControlChannel(spec, control(policy, params, run_id), run_dir)


def deactivate(channel: ControlChannel | None) -> None:
    """Back to plain Flink: the schedulers resume every paused task within about a second and send their last
    rows; raises what went missing."""
    if channel is not None and (problems := channel.end()):
        raise RuntimeError("; ".join(problems))
