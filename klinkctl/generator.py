"""The event generator: a Java process of its own (java-udfs/klink-generator), never inside Flink."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from klinkctl import catalog
from klinkctl.artifacts import GENERATOR_JAR
from klinkctl.cpus import pinned
from klinkctl.errors import KlinkError
from klinkctl.netem.namespace import GeneratorNamespace
from klinkctl.files import write_json
from klinkctl.options import Section, option
from klinkctl.stack.processes import ManagedProcess, is_running, launch, stop


# A large young generation makes collections rare (the live set is tiny: ~10 MiB); without the shared
# hsperfdata file a GC safepoint cannot stall on disk writeback while the broker writes its log.
JAVA_OPTS = ("-Xms1536m", "-Xmx1536m", "-Xmn1g", "-XX:+UseParallelGC", "-XX:+PerfDisableSharedMem")
# Uncompressed batches: the broker then appends them without decompressing to validate each record. On a
# small machine the broker's CPU, not loopback bytes, limits the rate (benchmarks/generator_throughput.py:
# with the broker on its own core, 500 K events/s are kept with 0.26 % of events late; docs/workloads.md).
COMPRESSION = "none"


#: klink-generator's --pack-bytes limit (GeneratorArgs.MAX_PACK_BYTES: below the producer's max request).
MAX_PACK_BYTES: int = catalog.generator()["maxPackBytes"]


class GeneratorOptions(Section):
    """The generator's settings, and the run's timeline it generates."""

    rate: int = option(1000, "Events per second per query.", gt=0)
    duration_ms: int = option(60_000, "Event generation time, e.g. 60s, 2m.", duration=True, gt=0)
    warmup_ms: int = option(10_000, "Leading time left out of the summary (rows kept).", duration=True, ge=0)
    delay: str = option("const:0ms", "Network delay of each event (sent at event_time + delay): "
                        f"{', '.join(kind.example for kind in catalog.delay_kinds())} (seeded); or a thesis preset "
                        "of network + inter-event "
                        "models: preset:CC (const 150ms, gaps const), preset:GG (gamma:60:4ms, gaps gamma k=2), "
                        "preset:EC (exp:240ms, gaps const), preset:EG (exp:240ms, gaps gamma k=2).")
    inter_event: str = option("", "Inter-event generation gaps of each query's events, mean 1/rate: const (exact "
                              "schedule) or gamma:<k> (bursty; gamma:2 at --rate 1000 = the thesis' Gamma(2, 0.5ms)). "
                              "[const, or the preset's]")
    rate_schedule: str = option("steady", "The rate over the run, for every workload: steady (--rate throughout), "
                                "surge:<k>x@<start>+<length> (k x --rate from start for length, e.g. "
                                "surge:4x@10s+10s), bursts:<k>x@<period>+<length> (k x --rate in the first length "
                                "of every period, e.g. bursts:3x@10s+2s) or ramp:<k>x (linear from --rate to k x "
                                "--rate over --duration, e.g. ramp:4x). The generator's lag and rate checks follow "
                                "the schedule.")
    seed: int = option(42, "Seed of events, campaigns and window offsets.")
    generator_cpus: str = option("", "Pin the event generator to these cores, e.g. 0 (taskset). [not pinned]")
    pack_bytes: int = option(65536, "The events a query gets in one send burst travel in one Kafka record of at "
                             "most this many bytes (no event waits); 0 = one record per event.", ge=0,
                             le=MAX_PACK_BYTES)


def _java(*args: str) -> list[str]:
    if not GENERATOR_JAR.is_file():
        raise KlinkError(f"{GENERATOR_JAR} is missing; run `klinkctl up` (it builds java-udfs)")
    return ["java", *JAVA_OPTS, "-jar", str(GENERATOR_JAR), *args]


def campaigns(seed: int, count: int, ads_per_campaign: int) -> dict[str, list[str]]:
    """The seeded campaign -> ads table, exactly as the generator draws ad ids from it."""
    result = subprocess.run(_java("--print-campaigns", "--seed", str(seed), "--campaigns", str(count),
                                  "--ads-per-campaign", str(ads_per_campaign)),
                            capture_output=True, text=True, check=False, timeout=60)
    if result.returncode != 0:
        raise KlinkError(f"generator --print-campaigns failed: {result.stderr.strip()[:300]}")
    return json.loads(result.stdout)


class GeneratorProcess:
    """A running generator: its Popen (for the exit code) and its ManagedProcess (for a sure stop)."""

    def __init__(self, argv: list[str], log_file: Path) -> None:
        self.popen, self.managed = launch("generator", argv, dict(os.environ), log_file)

    def exit_code(self) -> int | None:
        return self.popen.poll()

    def last_log_line(self) -> str:
        lines = Path(self.managed.log_file).read_text(errors="replace").strip().splitlines()
        return lines[-1] if lines else "no output"

    def stop(self) -> None:
        """SIGTERM lets the generator flush and write its summary as interrupted; SIGKILL after a grace."""
        stop(self.managed, grace_s=10)
        self.popen.poll()


#: In the state dir while a generator runs: what `stop_leftover` needs if its bench is killed before it stops it.
RUNNING_FILE = "generator.json"


def record_running(state_dir: Path, generator: GeneratorProcess) -> None:
    write_json(state_dir / RUNNING_FILE, generator.managed.to_dict())


def forget_running(state_dir: Path) -> None:
    (state_dir / RUNNING_FILE).unlink(missing_ok=True)


def stop_leftover(state_dir: Path) -> bool:
    """Stop the generator a killed bench left running on this stack (the pid and its start time recorded, so a
    process that merely reused the pid is left alone). True if one was stopped."""
    path = state_dir / RUNNING_FILE
    try:
        managed = ManagedProcess.from_dict(json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        path.unlink(missing_ok=True)
        return False
    running = is_running(managed)
    if running:
        stop(managed, grace_s=5)
    path.unlink(missing_ok=True)
    return running


#: The file in a run directory from which the generator learns when event 0 is due (`signal_start`).
START_FILE = "generator-start-at"


def start(bootstrap: str, topics: list[str], rate_per_topic: int, duration_s: float, seed: int, delay: str,
          gaps: str, event_args: list[str], warmup_ms: int,
          run_dir: Path, cpus: str = "", namespace: GeneratorNamespace | None = None,
          pack_bytes: int = 65536, progress_after_end_ms: int = 0,
          rate_schedule: str = "steady") -> GeneratorProcess:
    """Starts the generator; inside `namespace` when netem was applied to it (`klinkctl netem apply`).
    `event_args` choose the workload's events (`--workload nyt`, YSB's campaign table). After its last event it
    sends progress records covering `progress_after_end_ms` of event time, so the jobs' watermarks pass the end.
    It starts its JVM and rehearses (at most `warmup_ms`) at once, and sends event 0 only when `signal_start` says."""
    argv = _java("--bootstrap", bootstrap, "--topics", ",".join(topics), "--rate", str(rate_per_topic),
                 "--duration", f"{duration_s}s", "--rate-schedule", rate_schedule, "--seed", str(seed),
                 "--delay", delay, "--gaps", gaps,
                 "--compression", COMPRESSION, "--pack-bytes", str(pack_bytes), *event_args,
                 "--start-at-file", str(run_dir / START_FILE), "--warmup", f"{warmup_ms}ms",
                 "--progress-after-end", f"{progress_after_end_ms}ms",
                 "--warmup-topic", f"{topics[0]}-warmup",
                 "--stats-file", str(run_dir / "generator.csv"),
                 "--summary-file", str(run_dir / "generator-summary.json"),
                 "--delays-file", str(run_dir / "delays.csv"))
    if namespace is not None:
        argv = namespace.wrap(argv)
    return GeneratorProcess(pinned(argv, cpus, "--generator-cpus"), run_dir / "generator.log")


def signal_start(run_dir: Path, start_at_ms: int) -> None:
    """Tells the generator started for `run_dir` that event 0 is due at `start_at_ms` (epoch ms): the file
    appears whole (renamed into place), as the generator reads it as soon as it exists."""
    pending = run_dir / f".{START_FILE}.tmp"
    pending.write_text(f"{start_at_ms}\n")
    pending.replace(run_dir / START_FILE)


def summary(run_dir: Path) -> dict:
    path = run_dir / "generator-summary.json"
    return json.loads(path.read_text()) if path.is_file() else {}
