"""`klinkctl smoke`: a small job through the whole path Kafka -> Flink -> Kafka, checked against exact counts."""

from __future__ import annotations

import csv
import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from klinkctl import flink_jobs, kafka_io
from klinkctl.paths import JOBS_DIR
from klinkctl.progress import Progress, no_progress
from klinkctl.stack.spec import StackSpec
from klinkctl.files import write_json

KEYS = ("alpha", "beta", "gamma")
WindowKey = tuple[str, int]  # (key, window_end in epoch ms)


@dataclass(frozen=True)
class SmokeResult:
    expected: dict[WindowKey, tuple[int, int]]  # -> (events, total)
    received: dict[WindowKey, tuple[int, int]]
    job_id: str
    run_dir: Path

    @property
    def missing(self) -> list[WindowKey]:
        return sorted(k for k in self.expected if k not in self.received)

    @property
    def wrong(self) -> list[WindowKey]:
        return sorted(k for k, v in self.received.items() if self.expected.get(k) != v)

    @property
    def passed(self) -> bool:
        return not self.missing and not self.wrong


def smoke_events(seed: int, start_ms: int, count: int, out_of_order_ms: int) -> list[dict]:
    """count events 10 ms apart in event time, sent shuffled within out_of_order_ms (less than the bound)."""
    rng = random.Random(seed)
    events = [{"key": rng.choice(KEYS), "value": rng.randint(1, 100), "event_time": start_ms + 10 * i}
              for i in range(count)]
    return sorted(events, key=lambda e: e["event_time"] + rng.uniform(0, out_of_order_ms))


def expected_windows(events: list[dict], window_ms: int) -> dict[WindowKey, tuple[int, int]]:
    counts: Counter = Counter()
    totals: dict[WindowKey, int] = defaultdict(int)
    for event in events:
        window_end = (event["event_time"] // window_ms + 1) * window_ms
        counts[(event["key"], window_end)] += 1
        totals[(event["key"], window_end)] += event["value"]
    return {k: (counts[k], totals[k]) for k in counts}


def _epoch_ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).replace(tzinfo=timezone.utc).timestamp() * 1000)


def run_smoke(spec: StackSpec, results_root: Path, seed: int = 7, count: int = 600, window_ms: int = 2000,
              timeout_s: float = 120, progress: Progress = no_progress) -> SmokeResult:
    run_id = time.strftime("smoke-%Y%m%d-%H%M%S")
    topics = (f"{run_id}-in", f"{run_id}-out")
    bound_ms = 500
    start_ms = (int(time.time() * 1000) // window_ms) * window_ms
    events = smoke_events(seed, start_ms, count, out_of_order_ms=bound_ms // 2)
    expected = expected_windows(events, window_ms)
    # One event far ahead in event time moves the watermark past every window above, so all of them fire.
    closer = {"key": "closer", "value": 0, "event_time": start_ms + 10 * count + 60_000}

    progress("creating topics")
    kafka_io.recreate_topics(spec.bootstrap_servers, topics)
    progress("submitting jobs/smoke.py")
    job_id = flink_jobs.submit_python_job(spec, JOBS_DIR / "smoke.py", [
        "--bootstrap", spec.bootstrap_servers, "--input", topics[0], "--output", topics[1],
        "--window-ms", str(window_ms), "--out-of-orderness-ms", str(bound_ms), "--job-name", run_id])
    try:
        flink_jobs.wait_running(spec, job_id)
        progress(f"producing {count} events")
        kafka_io.produce_json(spec.bootstrap_servers, topics[0], [*events, closer])
        progress("reading window results")
        records = kafka_io.consume_json(spec.bootstrap_servers, topics[1],
                                        lambda got: len(got) >= len(expected), timeout_s)
    finally:
        flink_jobs.cancel(spec, job_id)
        kafka_io.delete_topics(spec.bootstrap_servers, topics)
    received = {(r["key"], _epoch_ms(r["window_end"])): (r["events"], r["total"]) for r in records}
    run_dir = results_root / run_id
    result = SmokeResult(expected, received, job_id, run_dir)
    _write(result)
    return result


def _write(result: SmokeResult) -> None:
    result.run_dir.mkdir(parents=True, exist_ok=True)
    with open(result.run_dir / "windows.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["key", "window_end", "expected_events", "expected_total", "events", "total"])
        for key, window_end in sorted(set(result.expected) | set(result.received)):
            exp = result.expected.get((key, window_end), ("", ""))
            got = result.received.get((key, window_end), ("", ""))
            writer.writerow([key, window_end, *exp, *got])
    summary = {"status": "passed" if result.passed else "failed", "job_id": result.job_id,
               "windows_expected": len(result.expected), "windows_received": len(result.received),
               "missing": [list(k) for k in result.missing], "wrong": [list(k) for k in result.wrong]}
    write_json(result.run_dir / "summary.json", summary)
