"""ysb-records: YSB's stages before its windows (deserialize, filter views, project, join ad to campaign), measured
per record as the tail seed measured Yahoo!'s topologies (tail-latency-storm-du-gupta.txt §5.2).

The generator's YSB events go through a spout and YSB's four stages, each behind the `--tail` exchange, to the
per-record latency sinks (io.klink.workloads.ysb.YsbRecordsJob on io.klink.workloads.tail.RecordPipeline). The
filter drops clicks and purchases, so the sinks expect the views the input topics hold (`reaches_sinks`).
"""

from __future__ import annotations

import json
from pathlib import Path

from klinkctl import kafka_io
from klinkctl.run.config import RunSpec
from klinkctl.workloads import common, exclamation, ysb

JAVA_BUILDER = "io.klink.workloads.ysb.YsbRecordsJob"
#: YSB's stages: deserialize, filter, projection, join.
STAGES = 4
event_time = kafka_io.json_event_time
generator_args = ysb.generator_args
exact_results = None
window_errors = None


def write_job_config(plan_: common.Plan, config: RunSpec, bootstrap: str, run_dir: Path) -> Path:
    campaigns_file = ysb.write_campaigns(config, run_dir)
    return common.write_job_config(run_dir, exclamation.record_job_config(
        plan_, config, bootstrap, JAVA_BUILDER, STAGES, str(campaigns_file.resolve())))


def reaches_sinks(value: bytes) -> bool:
    """Whether a generated event passes YSB's filter (a view)."""
    return json.loads(value)["event_type"] == "view"
