"""The event generator: a Java process of its own (java-udfs/klink-generator), never inside Flink."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from klinkctl.artifacts import GENERATOR_JAR
from klinkctl.cpus import pinned
from klinkctl.errors import KlinkError
from klinkctl.netem.namespace import GeneratorNamespace
from klinkctl.files import write_json
from klinkctl.stack.processes import ManagedProcess, is_running, launch, stop


# A large young generation makes collections rare (the live set is tiny: ~10 MiB); without the shared
# hsperfdata file a GC safepoint cannot stall on disk writeback while the broker writes its log.
JAVA_OPTS = ("-Xms1536m", "-Xmx1536m", "-Xmn1g", "-XX:+UseParallelGC", "-XX:+PerfDisableSharedMem")
# Uncompressed batches: the broker then appends them without decompressing to validate each record. On a
# small machine the broker's CPU, not loopback bytes, limits the rate (benchmarks/generator_throughput.py:
# with the broker on its own core, 500 K events/s are kept with 0.26 % of events late; docs/workloads.md).
COMPRESSION = "none"


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


def start(bootstrap: str, topics: list[str], rate_per_topic: int, duration_s: float, seed: int, delay: str,
          gaps: str, event_args: list[str], start_at_ms: int, warmup_ms: int,
          run_dir: Path, cpus: str = "", namespace: GeneratorNamespace | None = None,
          pack_bytes: int = 65536, progress_after_end_ms: int = 0) -> GeneratorProcess:
    """Starts the generator; inside `namespace` when netem was applied to it (`klinkctl netem apply`).
    `event_args` choose the workload's events (`--workload nyt`, YSB's campaign table). After its last event it
    sends progress records covering `progress_after_end_ms` of event time, so the jobs' watermarks pass the end."""
    argv = _java("--bootstrap", bootstrap, "--topics", ",".join(topics), "--rate", str(rate_per_topic),
                 "--duration", f"{duration_s}s", "--seed", str(seed), "--delay", delay, "--gaps", gaps,
                 "--compression", COMPRESSION, "--pack-bytes", str(pack_bytes), *event_args,
                 "--start-at-ms", str(start_at_ms), "--warmup", f"{warmup_ms}ms",
                 "--progress-after-end", f"{progress_after_end_ms}ms",
                 "--warmup-topic", f"{topics[0]}-warmup",
                 "--stats-file", str(run_dir / "generator.csv"),
                 "--summary-file", str(run_dir / "generator-summary.json"),
                 "--delays-file", str(run_dir / "delays.csv"))
    if namespace is not None:
        argv = namespace.wrap(argv)
    return GeneratorProcess(pinned(argv, cpus, "--generator-cpus"), run_dir / "generator.log")


def summary(run_dir: Path) -> dict:
    path = run_dir / "generator-summary.json"
    return json.loads(path.read_text()) if path.is_file() else {}
