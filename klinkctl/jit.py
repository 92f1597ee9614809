"""CPU time a JVM's JIT compiler threads used: HotSpot names them `C1 CompilerThreadN` / `C2 CompilerThreadN`
(the kernel keeps 15 characters). On a TaskManager confined to a fraction of a core, compiling takes a large share
of that fraction for many minutes after the stack starts (docs/capacity.md, "Why a fresh stack is slow"):
resources.csv records it per TaskManager (component `jit:<taskmanager>`) so a run says how much of its CPU went to
compiling.

HotSpot starts and stops compiler threads as its queue grows and shrinks (UseDynamicNumberOfCompilerThreads), and a
thread's CPU time leaves /proc with it: each thread's last value seen is kept, so only what an ending thread used
since the last sample (a second) is missed."""

from __future__ import annotations

import os
from pathlib import Path

COMPILER_THREAD_PREFIXES = ("C1 CompilerThre", "C2 CompilerThre")
#: resources.csv component of a process's JIT compiler threads
PREFIX = "jit:"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def compiler_threads_cpu_s(pid: int, proc: Path = Path("/proc")) -> dict[int, float] | None:
    """User + system CPU seconds of each of pid's compiler threads now (thread id -> s); None when pid is gone."""
    try:
        tasks = list((proc / str(pid) / "task").iterdir())
    except OSError:
        return None
    threads = {}
    for task in tasks:
        try:
            if not (task / "comm").read_text().startswith(COMPILER_THREAD_PREFIXES):
                continue
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended between the listing and the read
            continue
        threads[int(task.name)] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime: stat(5) 14, 15
    return threads


class CompilerCpu:
    """cpu_percent of each process's compiler threads between two samples (% of one core)."""

    def __init__(self, pids: dict[str, int], proc: Path = Path("/proc")) -> None:
        self.pids, self.proc = pids, proc
        self.seen: dict[str, dict[int, float]] = {name: {} for name in pids}
        self.totals = {name: self._total(name) for name in pids}

    def _total(self, name: str) -> float | None:
        threads = compiler_threads_cpu_s(self.pids[name], self.proc)
        if threads is None:
            return None
        self.seen[name].update(threads)
        return sum(self.seen[name].values())

    def rows(self, now_ms: int, wall_s: float) -> list[dict]:
        rows = []
        for name, before in list(self.totals.items()):
            self.totals[name] = now = self._total(name)
            if now is not None and before is not None and wall_s > 0:
                rows.append({"time": now_ms, "component": PREFIX + name, "pid": self.pids[name],
                             "cpu_percent": (now - before) / wall_s * 100})
        return rows
