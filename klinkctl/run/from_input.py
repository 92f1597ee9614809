"""What the harness computes from a run's input topics, without Flink, before they are deleted: the ingestion
delays, the records a filtering workload's sinks should get, and the exact window results."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl import kafka_io, workloads
from klinkctl.files import write_json
from klinkctl.results.record_latency import EXPECTED_RECORDS_FILE
from klinkctl.run.config import RunSpec
from klinkctl.stack.spec import StackSpec
from klinkctl.workloads import common


def write_ingestion_delays(spec: StackSpec, plan: common.Plan, workload: workloads.Workload, run_dir: Path) -> None:
    """ingestion-delays.csv: delay_ms,events of Kafka append time − event time, sampled over the input topics."""
    delays = kafka_io.ingestion_delays(spec.bootstrap_servers, plan.input_topics, event_time=workload.event_time)
    if delays.size:
        values, counts = np.unique(delays.astype(int), return_counts=True)
        pd.DataFrame({"delay_ms": values, "events": counts}).to_csv(run_dir / "ingestion-delays.csv", index=False)


def write_expected_records(spec: StackSpec, plan: common.Plan, keeps: Callable[[bytes], bool], run_dir: Path) -> None:
    """records-expected.json: of the events in the input topics, how many the workload's stages let reach the
    sinks (`keeps`: its filter's verdict, computed without Flink): what the sinks' counts are checked against."""
    events = expected = 0
    for query in plan.queries:
        for value in kafka_io.topic_values(spec.bootstrap_servers, query.topic):
            events += 1
            expected += bool(keeps(value))
    write_json(run_dir / EXPECTED_RECORDS_FILE, {"events": events, "records": expected})


def write_exact_results(spec: StackSpec, config: RunSpec, plan: common.Plan, workload: workloads.Workload,
                        run_dir: Path) -> None:
    """exact.csv: query, window_end, key, exact, events (+ the workload's columns, e.g. kMeans' centroid) — every
    window's result over every event the generator wrote (the input topics), computed without Flink."""
    assert workload.exact_results is not None  # RunSpec.validate: accuracy only for ACCURACY_WORKLOADS
    frames = []
    for query in plan.queries:
        values = kafka_io.topic_values(spec.bootstrap_servers, query.topic, hasattr(workload, "READS_PROGRESS"))
        frames.append(workload.exact_results(values, config, run_dir, query.window_offset_ms).assign(query=query.id))
    exact = pd.concat(frames)
    exact[["query", *(c for c in exact.columns if c != "query")]].to_csv(run_dir / "exact.csv", index=False)
