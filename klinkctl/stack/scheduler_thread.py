"""The klink agent's scheduler thread gets the CPU before the tasks it schedules (issue 18: a cycle must start on
time whatever load the TaskManager is given).

Java priorities cannot do it: HotSpot cannot map a Java priority below nice -1 (its
`JavaPriorityN_To_OSPriority` flags stop there) and the local stack maps every priority but 2 to nice 0 (see
`flink.priority_opts`). So klinkctl, which started the TaskManager, sets the one thread named
`klink-scheduler` in it to nice -20 itself. Its weight is then ~87 nice-0 task threads': woken every r, it runs
its ~1 ms cycle at once instead of queueing for a share of a capped core behind every task (measured: 20 ms
median, 100 ms p99 of wall time per cycle at nice 0 on a quarter core). Its CPU still counts against the
TaskManager's quota; only the order changes. Needs CAP_SYS_NICE, as `--enforce priority` does."""

from __future__ import annotations

import os

from klinkctl.stack.processes import thread_names

#: io.klink.agent.SchedulerThread's thread name (a Linux comm of at most 15 characters).
SCHEDULER_THREAD = "klink-scheduler"
SCHEDULER_NICE = -20


def scheduler_tids(pid: int) -> list[int]:
    return [tid for tid, comm in thread_names(pid).items() if comm == SCHEDULER_THREAD]


def prioritize(taskmanagers: dict[str, int]) -> dict[str, int | None]:
    """Sets the scheduler thread of each TaskManager (name -> pid) to SCHEDULER_NICE where this process may
    (CAP_SYS_NICE); returns the nice value each thread has now, by TaskManager (None: no agent thread found)."""
    nices: dict[str, int | None] = {}
    for name, pid in taskmanagers.items():
        nices[name] = None
        for tid in scheduler_tids(pid):
            try:
                os.setpriority(os.PRIO_PROCESS, tid, SCHEDULER_NICE)
            except PermissionError:  # no CAP_SYS_NICE: the thread keeps the nice value the JVM gave it
                pass
            except OSError:  # the thread ended meanwhile
                continue
            try:
                nices[name] = os.getpriority(os.PRIO_PROCESS, tid)
            except OSError:
                continue
    return nices
