"""Can a calibration sweep give the simulator's --background-cpu directly? Per measured run (warm-ups left out): the
task threads' CPU (tasks.csv, summed over tasks) against the TaskManager process's CPU (resources.csv, procfs, over
the run's samples), and the share of the process's CPU the other threads took (docs/simulator.md, "Calibration").

    python benchmarks/sim_background_share.py docs/data/sim-calibration-ysb-20261128-192144 ...
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl.results.runset import find_candidates

NS_PER_S = 1e9
MS_PER_S = 1e3


def taskmanager_cpu_s(run_dir: Path) -> float:
    """The TaskManager's process CPU over the run, s: its sampled cpu_percent (of one core) integrated over time."""
    resources = pd.read_csv(run_dir / "resources.csv")
    if "source" in resources:  # later runs add the JIT's share in rows of their own
        resources = resources[resources["source"] == "procfs"]
    tm = resources[resources["component"].str.startswith("taskmanager")]
    return float(np.trapezoid(tm["cpu_percent"] / 100, tm["time"] / MS_PER_S))


def shares(sweep: Path) -> pd.DataFrame:
    rows = []
    for run in find_candidates(sweep):
        task_s = pd.read_csv(run.run_dir / "tasks.csv")["cpu_ns"].sum() / NS_PER_S
        tm_s = taskmanager_cpu_s(run.run_dir)
        rows.append({"sweep": sweep.name, "run": run.run_id, "task_cpu_s": task_s, "taskmanager_cpu_s": tm_s,
                     "background_share": 1 - task_s / tm_s})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    table = pd.concat([shares(Path(arg)) for arg in sys.argv[1:]], ignore_index=True)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    spread = table.groupby("sweep")["background_share"].agg(["min", "mean", "max"])
    print(spread.to_string(float_format="{:.3f}".format))
