"""CPU time a JVM's JIT compiler threads used: HotSpot names them `C1 CompilerThreadN` / `C2 CompilerThreadN`
(the kernel keeps 15 characters). On a TaskManager confined to a fraction of a core, compiling takes a large share
of that fraction for minutes after the stack starts (docs/capacity.md, "Why a fresh stack is slow"): resources.csv
records it per TaskManager (component `jit:<taskmanager>`) so a run says how much of its CPU went to compiling."""

from __future__ import annotations

import os
from pathlib import Path

COMPILER_THREAD_PREFIXES = ("C1 CompilerThre", "C2 CompilerThre")
#: resources.csv component of a process's JIT compiler threads
PREFIX = "jit:"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def compiler_cpu_s(pid: int, proc: Path = Path("/proc")) -> float | None:
    """User + system CPU seconds of pid's compiler threads so far; None when the process is gone."""
    total = 0.0
    try:
        tasks = list((proc / str(pid) / "task").iterdir())
    except OSError:
        return None
    for task in tasks:
        try:
            if not (task / "comm").read_text().startswith(COMPILER_THREAD_PREFIXES):
                continue
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended between the listing and the read
            continue
        total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime: fields 14 and 15 of stat(5)
    return total


class CompilerCpu:
    """cpu_percent of each process's compiler threads between two samples (% of one core)."""

    def __init__(self, pids: dict[str, int]) -> None:
        self.last = {name: (compiler_cpu_s(pid), pid) for name, pid in pids.items()}

    def rows(self, now_ms: int, wall_s: float) -> list[dict]:
        rows = []
        for name, (before, pid) in list(self.last.items()):
            now = compiler_cpu_s(pid)
            self.last[name] = (now, pid)
            if now is not None and before is not None and wall_s > 0:
                rows.append({"time": now_ms, "component": PREFIX + name, "pid": pid,
                             "cpu_percent": (now - before) / wall_s * 100})
        return rows
