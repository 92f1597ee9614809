"""Background collectors of a run. Each writes its CSV row by row (flushed), so an interrupted run keeps
every row collected so far.

- MetricsCollector: the metric rows the pipelines' output operators publish to the run's metrics topic
  (firing -> latency.csv, marker -> markers.csv, watermark -> watermarks.csv; with a sampler or --accuracy also
  result -> results.csv, substream -> sampling.csv; records -> record-latency.csv, the per-record latency
  histograms of workloads that publish them, and update -> updates.csv, a changelog query's window updates, each
  created at the first such row).
- ResourceSampler: once a second, per-vertex throughput from Flink's REST metrics (throughput.csv) and
  CPU/RSS of every stack process and the generator from /proc via psutil, and the CPU of each TaskManager's JIT
  compiler threads (component `jit:<taskmanager>`, klinkctl.jit) (resources.csv); TaskManagers this
  machine has no process of (an attached cluster) from Flink's REST metrics instead (RestTaskManagers); with
  `up --tm-link-rate`, the bytes each shaped TaskManager's link carried so far (links.csv, klinkctl.stack.tm_links).
"""

from __future__ import annotations

import csv
import json
import threading
import time
import urllib.error
from pathlib import Path
from typing import IO

import psutil
from confluent_kafka import Consumer

from klinkctl import jit
from klinkctl.errors import one_line
from klinkctl.run import container_stats
from klinkctl.stack import flink, tm_links
from klinkctl.stack.kafka import QUIET_CLIENT_LOGGER
from klinkctl.stack.processes import taskmanagers_of
from klinkctl.stack.remote import component_name
from klinkctl.stack.spec import StackSpec

LATENCY_COLUMNS = ["run", "policy", "query", "window_start", "window_end", "swm", "fired_at", "output_at",
                   "swm_latency_ms", "keys", "events", "late_dropped", "warmup"]
MARKER_COLUMNS = ["run", "policy", "query", "created_at", "output_at", "latency_ms", "warmup"]
WATERMARK_COLUMNS = ["run", "policy", "query", "watermark", "emitted_at", "output_at", "propagation_ms"]
THROUGHPUT_COLUMNS = ["run", "policy", "time", "job_vertex", "query", "records_in_per_s", "records_out_per_s"]
RESOURCE_COLUMNS = ["run", "policy", "time", "component", "pid", "cpu_percent", "rss_bytes", "source"]
#: the relay's counters (klinkctl.netem.relay.Link.counters): totals since `up`, towards the TaskManager's clients
#: (what its producers sent to other TaskManagers) and towards it (their requests and credits)
LINK_COLUMNS = ["run", "policy", "time", "taskmanager", "counted_at", "rate_bytes_per_s", "bytes_to_clients",
                "bytes_to_target", "connections_open"]
#: resources.csv's `source`: procfs (this machine's /proc) or Flink's REST metrics of a TaskManager elsewhere
PROCFS, FLINK_REST = "procfs", "flink-rest"
#: What a TaskManager's memory in use is from its REST metrics (Flink reports no resident set size)
JVM_MEMORY_METRICS = ("Status.JVM.Memory.Heap.Used", "Status.JVM.Memory.NonHeap.Used",
                      "Status.JVM.Memory.Direct.MemoryUsed")
JVM_CPU_TIME = "Status.JVM.CPU.Time"  # nanoseconds of CPU the TaskManager's JVM used so far
RESULT_COLUMNS = ["run", "policy", "query", "window_end", "key", "value", "weight", "fields", "output_at"]
#: A changelog query's window updates (rides --combiner minibatch, io.klink.metrics.WindowUpdates): per window
#: and flush of its output operator, the wall time of its last update so far and of its sweeping watermark's
#: arrival (-1 before; klinkctl.results.changelog).
UPDATE_COLUMNS = ["run", "policy", "query", "window_end", "updated_at", "keys", "events", "updates", "swm", "swm_at"]
SAMPLING_COLUMNS = ["run", "policy", "query", "substream_end", "closed_at", "observed", "sampled", "rate", "target",
                    "dropped_late"]
RECORD_COLUMNS = ["run", "policy", "query", "subtask", "start_ms", "end_ms", "count", "duplicates", "queued_us",
                  "histogram", "warmup"]
#: Tables created at their first row (kind -> file, columns): only workloads that publish such rows get the file.
ON_FIRST_ROW = {"records": ("record-latency.csv", RECORD_COLUMNS), "update": ("updates.csv", UPDATE_COLUMNS)}


def query_of(vertex_name: str) -> str:
    """'Source: q07/source -> q07/markers' -> 'q07': every operator name starts with its query id."""
    return vertex_name.removeprefix("Source: ").split("/", 1)[0]


def source_events_metric(vertex: str) -> str | None:
    """For a source task ("Source: q00/source -> q00/markers -> ..."), the source operator's numRecordsOut:
    the events it emitted. The task's own numRecordsIn counts Kafka records, and a record holds every event
    of one generator send burst (docs/workloads.md)."""
    if not vertex.startswith("Source: "):
        return None
    return "Source__" + vertex.removeprefix("Source: ").split(" -> ")[0] + ".numRecordsOut"


class CsvTable:
    """An append-only CSV with a fixed header; every write is flushed."""

    def __init__(self, path: Path, columns: list[str]) -> None:
        self.path = path
        self.rows = 0
        self._file: IO[str] = open(path, "w", newline="")
        self._writer = csv.DictWriter(self._file, fieldnames=columns, extrasaction="ignore")
        self._writer.writeheader()
        self._file.flush()

    def write(self, row: dict) -> None:
        self._writer.writerow(row)
        self.rows += 1

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class RecordingThread(threading.Thread):
    """A collector thread whose death is not silent: an exception ends its loop and is kept in ``error``
    (one line), so the run that owns it is failed with the reason instead of called complete."""

    error: str | None = None

    def run(self) -> None:
        try:
            self._loop()
        except Exception as error:  # noqa: BLE001 - recorded, and the run reports it
            self.error = one_line(error)

    def _loop(self) -> None:
        raise NotImplementedError


class MetricRows:
    """The run's metric tables and where each metric row goes (no Kafka: MetricsCollector feeds it the rows).

    latency.csv, markers.csv and watermarks.csv are always written (empty but for their header when no row
    comes); record-latency.csv only from the first "records" row, so a workload without per-record latency gets
    no such file."""

    def __init__(self, run_dir: Path, run_id: str, policy: str, warmup_until_ms: int, results: bool = False,
                 sampling: bool = False) -> None:
        self.run_dir = run_dir
        self.labels = {"run": run_id, "policy": policy}
        self.warmup_until_ms = warmup_until_ms
        self.tables = {
            "firing": CsvTable(run_dir / "latency.csv", LATENCY_COLUMNS),
            "marker": CsvTable(run_dir / "markers.csv", MARKER_COLUMNS),
            "watermark": CsvTable(run_dir / "watermarks.csv", WATERMARK_COLUMNS),
        }
        if results:  # every key's window result, for error.csv
            self.tables["result"] = CsvTable(run_dir / "results.csv", RESULT_COLUMNS)
        if sampling:  # the sampler's sub-streams
            self.tables["substream"] = CsvTable(run_dir / "sampling.csv", SAMPLING_COLUMNS)
        self.last_swm_latency_ms: float | None = None
        self.fired_after_warmup: dict[str, set[int]] = {}  # query -> ends of its windows fired after the warm-up

    def record(self, row: dict) -> None:
        kind = row.pop("type")
        if kind == "firing":
            row["warmup"] = row["window_end"] < self.warmup_until_ms
            self.last_swm_latency_ms = row["swm_latency_ms"]
            if not row["warmup"]:
                self.fired_after_warmup.setdefault(row["query"], set()).add(row["window_end"])
        elif kind == "marker":
            row["warmup"] = row["created_at"] < self.warmup_until_ms
        elif kind == "records":  # a second that began in the warm-up is warm-up (record_latency.py)
            row["warmup"] = row["start_ms"] < self.warmup_until_ms
        elif kind == "result" and "fields" in row:
            row["fields"] = json.dumps(row["fields"])  # NYT: the averages; kMeans: the centroid
        table = self._table(kind)
        if table is not None:
            table.write({**self.labels, **row})

    def _table(self, kind: str) -> CsvTable | None:
        if kind not in self.tables and kind in ON_FIRST_ROW:
            file, columns = ON_FIRST_ROW[kind]
            self.tables[kind] = CsvTable(self.run_dir / file, columns)
        return self.tables.get(kind)

    def flush(self) -> None:
        for table in self.tables.values():
            table.flush()

    def close(self) -> None:
        for table in self.tables.values():
            table.close()


class MetricsCollector(RecordingThread):
    def __init__(self, bootstrap: str, topic: str, run_dir: Path, run_id: str, policy: str,
                 warmup_until_ms: int, results: bool = False, sampling: bool = False) -> None:
        super().__init__(name="metrics-collector", daemon=True)
        self.rows = MetricRows(run_dir, run_id, policy, warmup_until_ms, results, sampling)
        self._stopping = threading.Event()
        self._consumer = Consumer({
            "bootstrap.servers": bootstrap, "group.id": f"klinkctl-{topic}", "auto.offset.reset": "earliest",
            "enable.auto.commit": False, "logger": QUIET_CLIENT_LOGGER,
        })
        self._consumer.subscribe([topic])

    @property
    def firings(self) -> int:
        return self.rows.tables["firing"].rows

    @property
    def last_swm_latency_ms(self) -> float | None:
        return self.rows.last_swm_latency_ms

    @property
    def fired_after_warmup(self) -> dict[str, set[int]]:
        return self.rows.fired_after_warmup

    def _loop(self) -> None:
        idle_polls = 0
        # After stop(): drain until the topic has been quiet for ~1 s, so late rows are not lost.
        while not self._stopping.is_set() or idle_polls < 4:
            messages = self._consumer.consume(num_messages=500, timeout=0.25)
            idle_polls = 0 if messages else idle_polls + 1
            for message in messages:
                if not message.error():
                    self.rows.record(json.loads(message.value()))
            self.rows.flush()
        self._consumer.close()
        self.rows.close()

    def stop(self, timeout_s: float = 15) -> None:
        self._stopping.set()
        self.join(timeout_s)


class RestTaskManagers:
    """CPU and memory of the TaskManagers of a cluster this machine cannot see into, from Flink's REST metrics.

    cpu_percent is the change of the JVM's CPU time over the wall time between two *new* values: the REST API
    serves metrics its fetcher refreshed up to metrics.fetcher.update-interval ago, so a value that did not
    change makes no row (it would read as 0 % CPU). rss_bytes is the JVM's heap + non-heap + direct memory in
    use: Flink reports no resident set size, so it is less than what procfs would say of the same process."""

    def __init__(self, spec: StackSpec) -> None:
        self.spec = spec
        self._last_cpu: dict[str, tuple[int, float]] = {}  # TaskManager -> (time ms, CPU ns) of its last new value

    def sample(self, now: int) -> list[dict]:
        rows = []
        for taskmanager in flink.rest_get(self.spec, "/taskmanagers").get("taskmanagers", []):
            metrics = flink.rest_get(self.spec, f"/taskmanagers/{taskmanager['id']}/metrics?get="
                                                f"{','.join((JVM_CPU_TIME, *JVM_MEMORY_METRICS))}")
            row = self._row(str(taskmanager["id"]), {m["id"]: float(m["value"]) for m in metrics}, now)
            if row is not None:
                rows.append(row)
        return rows

    def _row(self, taskmanager: str, values: dict[str, float], now: int) -> dict | None:
        cpu_ns = values.get(JVM_CPU_TIME)
        if cpu_ns is None:
            return None
        previous = self._last_cpu.get(taskmanager)
        if previous is not None and cpu_ns == previous[1]:
            return None  # not refreshed since the last sample
        self._last_cpu[taskmanager] = (now, cpu_ns)
        if previous is None or now <= previous[0]:
            return None
        return {"time": now, "component": component_name(taskmanager), "pid": "",
                "cpu_percent": (cpu_ns - previous[1]) / 1e6 / (now - previous[0]) * 100,
                "rss_bytes": int(sum(values.get(name, 0.0) for name in JVM_MEMORY_METRICS)), "source": FLINK_REST}


class ResourceSampler(RecordingThread):
    def __init__(self, spec: StackSpec, job_id: str, processes: dict[str, int], run_dir: Path, run_id: str,
                 policy: str, interval_s: float = 1.0) -> None:
        super().__init__(name="resource-sampler", daemon=True)
        self.spec, self.job_id, self.interval_s = spec, job_id, interval_s
        self.labels = {"run": run_id, "policy": policy}
        # a compose stack's containers are sampled by the engine's stats, the rest from procfs
        self.containers = container_stats.start(spec)
        self.processes = {name: psutil.Process(pid) for name, pid in processes.items()
                          if psutil.pid_exists(pid) and not (self.containers and name in self.containers.components)}
        for process in self.processes.values():
            process.cpu_percent(None)  # the first call only starts the measurement
        self.compilers = jit.CompilerCpu({name: pid for name, pid in taskmanagers_of(processes).items()
                                          if name in self.processes})
        self._last_sample_s = time.monotonic()
        self.throughput = CsvTable(run_dir / "throughput.csv", THROUGHPUT_COLUMNS)
        self.resources = CsvTable(run_dir / "resources.csv", RESOURCE_COLUMNS)
        self.links = CsvTable(run_dir / "links.csv", LINK_COLUMNS) if spec.link_rate_of else None
        # no TaskManager process here (an attached cluster): its TaskManagers come from Flink's REST metrics
        self.rest_taskmanagers = None if taskmanagers_of(processes) else RestTaskManagers(spec)
        self._last_counts: dict[str, tuple[int, float, float]] = {}
        # (time, events read by all sources so far) of the last two samples: the backlog's drain rate
        self.source_reads: list[tuple[int, float]] = []
        self._stopping = threading.Event()

    def add_process(self, name: str, pid: int) -> None:
        process = psutil.Process(pid)
        process.cpu_percent(None)
        self.processes[name] = process

    def _loop(self) -> None:
        while not self._stopping.wait(self.interval_s):
            now = int(time.time() * 1000)
            self._sample_processes(now)
            self._sample_flink(now)
        for table in (self.throughput, self.resources, self.links):
            if table is not None:
                table.close()

    def _sample_processes(self, now: int) -> None:
        for name, process in list(self.processes.items()):
            try:
                with process.oneshot():
                    cpu, rss = process.cpu_percent(None), process.memory_info().rss
            except psutil.NoSuchProcess:
                continue
            self.resources.write({**self.labels, "time": now, "component": name, "pid": process.pid,
                                  "cpu_percent": cpu, "rss_bytes": rss, "source": PROCFS})
        wall_s, self._last_sample_s = time.monotonic() - self._last_sample_s, time.monotonic()
        for row in self.compilers.rows(now, wall_s):
            self.resources.write({**self.labels, **row, "source": PROCFS})
        for row in self.containers.rows(now) if self.containers else []:
            self.resources.write({**self.labels, **row})
        if self.rest_taskmanagers is not None:
            try:
                for row in self.rest_taskmanagers.sample(now):
                    self.resources.write({**self.labels, **row})
            except (urllib.error.URLError, OSError, KeyError, ValueError):
                pass  # a sample Flink did not answer is a missing row, not a failed run
        self.resources.flush()
        if self.links is not None:
            for row in tm_links.link_rows(self.spec):
                self.links.write({**self.labels, **row, "time": now})
            self.links.flush()

    def _sample_flink(self, now: int) -> None:
        """Records in/out per second of each job vertex (task), from the difference of Flink's counters
        between samples (the ...PerSecond meters average over a minute, too slow for short runs)."""
        try:
            vertices = flink.rest_get(self.spec, f"/jobs/{self.job_id}")["vertices"]
            sources_read = 0.0
            for vertex in vertices:
                events_read = source_events_metric(vertex["name"])
                metrics = flink.rest_get(
                    self.spec, f"/jobs/{self.job_id}/vertices/{vertex['id']}/subtasks/metrics"
                               f"?get=numRecordsIn,numRecordsOut{',' + events_read if events_read else ''}&agg=sum")
                counts = {m["id"]: m.get("sum") for m in metrics}
                records_in = counts.get(events_read) if events_read else counts.get("numRecordsIn")
                sources_read += (records_in or 0.0) if events_read else 0.0
                if records_in is not None and "numRecordsOut" in counts:
                    self._write_rate(now, vertex["name"], records_in, counts["numRecordsOut"])
        except (urllib.error.URLError, OSError, KeyError, ValueError):
            return  # the job may be ending; a missing sample is not worth failing the run for
        self.source_reads = [*self.source_reads[-1:], (now, sources_read)]
        self.throughput.flush()

    def source_progress(self) -> tuple[float, float] | None:
        """Events all sources have read so far and their rate over the last second; None before two samples."""
        reads = self.source_reads
        if len(reads) < 2 or reads[1][0] <= reads[0][0]:
            return None
        return reads[1][1], (reads[1][1] - reads[0][1]) * 1000 / (reads[1][0] - reads[0][0])

    def _write_rate(self, now: int, vertex: str, records_in: float, records_out: float) -> None:
        previous = self._last_counts.get(vertex)
        self._last_counts[vertex] = (now, records_in, records_out)
        if previous is None or now <= previous[0]:
            return
        seconds = (now - previous[0]) / 1000
        self.throughput.write({
            **self.labels, "time": now, "job_vertex": vertex, "query": query_of(vertex),
            "records_in_per_s": (records_in - previous[1]) / seconds,
            "records_out_per_s": (records_out - previous[2]) / seconds})

    def stop(self) -> None:
        self._stopping.set()
        self.join(10)
        if self.containers:
            self.containers.stop()
