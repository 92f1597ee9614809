"""Policy `os-priority`: a Lachesis-style scheduler from outside Flink (Palyvos-Giannas et al., Middleware '21).

No agent and no change to Flink: every period it reads each job vertex's input backlog from Flink's REST
metrics, scores the vertices by it and gives the task threads of the most backlogged vertex the best nice
value (Lachesis' queue-size policy, enforced with nice). Task threads are found by name in
/proc/<TaskManager pid>/task/*/comm. At the end every thread it changed gets its nice value back.
Writes os_priority.csv (one row per vertex and period) and os_priority.json (summary.json `os_priority`).
See docs/scheduler.md, "os-priority".
"""

from __future__ import annotations

import os
import threading
import time
import urllib.error
from dataclasses import dataclass, field
from pathlib import Path

from klinkctl.errors import KlinkError
from klinkctl.files import write_json
from klinkctl.run.collectors import CsvTable, RecordingThread, query_of
from klinkctl.stack import flink
from klinkctl.stack.processes import taskmanagers_of, thread_names
from klinkctl.stack.spec import StackSpec

POLICY = "os-priority"
#: Nice values given by rank: the most backlogged vertex gets BEST_NICE, the least WORST_NICE.
BEST_NICE, WORST_NICE = 0, 19
#: A non-source task's backlog: buffers waiting in its input channels (Flink 2.x metric name).
INPUT_QUEUE_METRIC = "Shuffle.Netty.Input.Buffers.inputQueueLength"
#: Linux keeps the first 15 bytes of a thread's name in comm (TASK_COMM_LEN 16 with the NUL).
COMM_CHARS = 15
COLUMNS = ["time", "vertex", "query", "metric", "value", "score", "nice", "threads"]
CSV_FILE, SUMMARY_FILE = "os_priority.csv", "os_priority.json"


def backlog_metric(vertex_name: str) -> str:
    """A source task's backlog is its Kafka reader's unread records (pendingRecords of the source operator,
    'Source: q00/source -> …' -> 'Source__q00/source.pendingRecords'); any other task's is its input queue."""
    if vertex_name.startswith("Source: "):
        return "Source__" + vertex_name.removeprefix("Source: ").split(" -> ")[0] + ".pendingRecords"
    return INPUT_QUEUE_METRIC


def scores(backlogs: dict[str, tuple[str, float]]) -> dict[str, float]:
    """vertex -> (metric, value) -> vertex -> value / the largest value of the same metric kind this period, in
    [0, 1]: Kafka records and network buffers are not comparable units, so each kind is ranked on its own scale."""
    def kind(metric: str) -> str:
        return metric.rsplit(".", 1)[-1]
    largest: dict[str, float] = {}
    for metric, value in backlogs.values():
        largest[kind(metric)] = max(largest.get(kind(metric), 0.0), value)
    return {vertex: value / largest[kind(metric)] if largest[kind(metric)] > 0 else 0.0
            for vertex, (metric, value) in backlogs.items()}


def nice_by_score(vertex_scores: dict[str, float], best: int = BEST_NICE, worst: int = WORST_NICE) -> dict[str, int]:
    """Scores in [0, 1] mapped linearly onto the nice range: 1 (the most backlogged of its kind) gets `best`, 0 (an
    empty queue) `worst`. Linear, not by rank: by rank, backlogs of 1182 and 1185 records got nice 19 and 0. With no
    backlog anywhere every vertex runs at `best`, as in plain Flink."""
    if not any(vertex_scores.values()):
        return {vertex: best for vertex in vertex_scores}
    return {vertex: best + round((1 - score) * (worst - best)) for vertex, score in vertex_scores.items()}


def comm_of_task(vertex_name: str) -> str:
    """What Linux shows of a task thread's name: Flink names it '<vertex name> (<subtask>/<parallelism>)#<attempt>'
    and comm keeps the first 15 characters, e.g. 'Source: q00/sou', 'q00/window -> q'."""
    return f"{vertex_name} ("[:COMM_CHARS]


def map_threads(vertex_names: list[str], threads: dict[int, str]) -> dict[str, list[int]]:
    """tid -> comm of the TaskManager threads -> vertex -> its task threads' tids (vertices without one left out).
    A thread whose comm fits several vertices (names alike in their first 15 characters) goes to none of them;
    all subtasks of a vertex look alike in comm, so they share the vertex's nice value."""
    expected = {vertex: comm_of_task(vertex) for vertex in vertex_names}
    mapped: dict[str, list[int]] = {vertex: [] for vertex in vertex_names}
    for tid, comm in sorted(threads.items()):
        owners = [vertex for vertex, head in expected.items() if comm.startswith(head)]
        if len(owners) == 1:
            mapped[owners[0]].append(tid)
    return {vertex: tids for vertex, tids in mapped.items() if tids}


def taskmanager_pids(stack_processes: dict[str, int]) -> list[int]:
    return list(taskmanagers_of(stack_processes).values())


def check_usable(backend: str, stack_processes: dict[str, int]) -> None:
    """Before a run starts: TaskManagers that are processes on this machine, as the local backend's are and the
    compose backend's (they share the host's pid namespace); CAP_SYS_NICE is checked with the other settings,
    RunSpec.validate."""
    if backend not in ("local", "compose"):
        raise KlinkError(f"--policy {POLICY} sets nice values of TaskManager threads on this machine: it needs the "
                         f"local or compose backend, not {backend}")
    if not taskmanager_pids(stack_processes):
        raise KlinkError(f"--policy {POLICY}: the stack has no running TaskManager process; check `klinkctl status`")


@dataclass
class Touched:
    """A thread this run changed: its comm (a reused tid is not restored) and its nice value before."""
    comm: str
    original_nice: int


@dataclass
class Tally:
    periods: int = 0
    skipped_periods: int = 0  # the REST API did not answer in time
    touched: dict[int, Touched] = field(default_factory=dict)
    restored: int = 0  # touched threads given their nice value back (the others had ended)
    vertices: set[str] = field(default_factory=set)
    mapped: set[str] = field(default_factory=set)  # vertices a thread was found for in some period
    nice_levels: set[int] = field(default_factory=set)


class OsPriority(RecordingThread):
    """Every `period_ms`: read backlogs, rank, set nice values. stop() ends it and restores every thread it changed."""

    def __init__(self, spec: StackSpec, job_id: str, taskmanagers: list[int], run_dir: Path,
                 period_ms: int = 1000) -> None:
        super().__init__(name="os-priority scheduler", daemon=True)
        self.spec, self.job_id, self.taskmanagers, self.run_dir = spec, job_id, taskmanagers, run_dir
        self.period_s = period_ms / 1000
        self.table = CsvTable(run_dir / CSV_FILE, COLUMNS)
        self.tally = Tally()
        self.restore_problems: list[str] = []
        self._stopping = threading.Event()

    def _loop(self) -> None:
        try:
            while not self._stopping.wait(self.period_s):
                self._period(int(time.time() * 1000))
        finally:
            self._restore()
            self.table.close()
            write_json(self.run_dir / SUMMARY_FILE, self.summary())

    def _period(self, now: int) -> None:
        try:
            backlogs = self._read_backlogs()
        except (urllib.error.URLError, OSError, KeyError, ValueError):
            self.tally.skipped_periods += 1  # the job may be starting or ending
            return
        threads = {tid: comm for pid in self.taskmanagers for tid, comm in thread_names(pid).items()}
        by_vertex = map_threads(list(backlogs), threads)
        vertex_scores = scores(backlogs)
        nices = nice_by_score(vertex_scores)
        for vertex, (metric, value) in backlogs.items():
            tids = by_vertex.get(vertex, [])
            for tid in tids:
                self._set_nice(tid, threads[tid], nices[vertex])
            self.table.write({"time": now, "vertex": vertex, "query": query_of(vertex), "metric": metric,
                              "value": value, "score": round(vertex_scores[vertex], 4), "nice": nices[vertex],
                              "threads": " ".join(map(str, tids))})
        self.table.flush()
        self.tally.periods += 1
        self.tally.vertices.update(backlogs)
        self.tally.mapped.update(by_vertex)
        self.tally.nice_levels.update(nices.values())

    def _read_backlogs(self) -> dict[str, tuple[str, float]]:
        backlogs = {}
        for vertex in flink.rest_get(self.spec, f"/jobs/{self.job_id}")["vertices"]:
            metric = backlog_metric(vertex["name"])
            values = flink.rest_get(self.spec, f"/jobs/{self.job_id}/vertices/{vertex['id']}/subtasks/metrics"
                                               f"?get={metric}&agg=sum")
            total = next((m.get("sum") for m in values if m["id"] == metric), None)
            backlogs[vertex["name"]] = (metric, float(total or 0.0))
        return backlogs

    def _set_nice(self, tid: int, comm: str, nice: int) -> None:
        try:
            current = os.getpriority(os.PRIO_PROCESS, tid)
            if current == nice:
                return
            os.setpriority(os.PRIO_PROCESS, tid, nice)
        except ProcessLookupError:
            return  # the thread ended between listing and setting
        self.tally.touched.setdefault(tid, Touched(comm, current))

    def _restore(self) -> None:
        for tid, touched in self.tally.touched.items():
            if thread_comm(tid) != touched.comm:
                continue  # gone (the job was cancelled), or the tid now names another thread
            try:
                os.setpriority(os.PRIO_PROCESS, tid, touched.original_nice)
                self.tally.restored += 1
            except ProcessLookupError:
                continue
            except OSError as error:
                self.restore_problems.append(f"thread {tid} ({touched.comm}): {error.strerror}")

    def summary(self) -> dict:
        return {"period_ms": round(self.period_s * 1000), "periods": self.tally.periods,
                "skipped_periods": self.tally.skipped_periods, "threads_touched": len(self.tally.touched),
                "threads_restored": self.tally.restored,
                "nice_levels_used": sorted(self.tally.nice_levels),
                "unmapped_vertices": sorted(self.tally.vertices - self.tally.mapped),
                "restore_problems": self.restore_problems}

    def stop(self) -> None:
        self._stopping.set()
        self.join(15)


def thread_comm(tid: int) -> str | None:
    try:
        return Path(f"/proc/{tid}/comm").read_text().rstrip("\n")
    except OSError:
        return None
