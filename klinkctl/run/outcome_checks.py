"""What a run that completed must show to be a measurement of what was asked for; run_bench fails it otherwise,
with the reason, keeping every row."""

from __future__ import annotations

from pathlib import Path

from klinkctl.run.combiner_relay import COMBINER_TABLE
from klinkctl.run.config import RunSpec


def scheduler_ran(config: RunSpec, run_dir: Path) -> bool:
    """False if a policy was asked for but no TaskManager ran a single cycle of it (e.g. it failed to load)."""
    return config.agent_policy == "default" or has_rows(run_dir / "scheduler.csv")


def combiner_controlled(config: RunSpec, run_dir: Path) -> bool:
    """False if the rides combiner's controller never logged a period: it reads the combiners' buffer use from the
    JobManager's REST API, and one the TaskManagers cannot reach leaves λ fixed without any other sign."""
    return config.workload != "rides" or config.combiner in ("none", "minibatch") or \
        has_rows(run_dir / COMBINER_TABLE)


def has_rows(table: Path) -> bool:
    """Whether a CSV written header first holds a row."""
    if not table.is_file():
        return False
    with table.open() as rows:
        rows.readline()  # the header
        return bool(rows.readline())
