"""Workloads `klinkctl bench` runs, by name: each a module with JAVA_BUILDER, write_job_config, generator_args,
event_time, exact_results and window_errors."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from klinkctl.errors import KlinkError
from klinkctl.workloads.options import WORKLOADS

if TYPE_CHECKING:
    import pandas as pd

    from klinkctl.run.config import RunSpec
    from klinkctl.workloads.common import Plan


class Workload(Protocol):
    JAVA_BUILDER: str

    def write_job_config(self, plan_: Plan, config: RunSpec, bootstrap: str, run_dir: Path) -> Path: ...

    def generator_args(self, config: RunSpec) -> list[str]: ...

    def event_time(self, value: bytes) -> int: ...

    #: (every generated event's value, config, run dir, window offset) -> exact window results (window_end,
    #: key, exact), computed without Flink; None where the workload has none (no --sampler/--accuracy).
    exact_results: Callable[[Iterable[bytes], RunSpec, Path, int], pd.DataFrame] | None

    #: (results.csv, exact.csv) -> each window's relative error (klinkctl.results.accuracy.WindowErrors).
    window_errors: Callable[[pd.DataFrame, pd.DataFrame], pd.DataFrame] | None


def get(name: str) -> Workload:
    if name not in WORKLOADS:
        raise KlinkError(f"unknown workload {name!r}; valid: {', '.join(WORKLOADS)}")
    return cast(Workload, importlib.import_module(f"klinkctl.workloads.{name.replace('-', '_')}"))
