"""YSB: the job config for the YSB job (campaign table) and the generator's event arguments."""

from __future__ import annotations

import json
from pathlib import Path

from klinkctl import generator, kafka_io
from klinkctl.run.config import BenchConfig
from klinkctl.workloads import common

JAVA_BUILDER = "io.klink.workloads.ysb.YsbJob"
event_time = kafka_io.json_event_time


def write_job_config(plan_: common.Plan, config: BenchConfig, bootstrap: str, run_dir: Path) -> Path:
    campaigns_file = run_dir / "campaigns.json"
    campaigns_file.write_text(json.dumps(generator.campaigns(config.seed, config.campaigns, config.ads_per_campaign)))
    return common.write_job_config(run_dir, common.job_config(plan_, config, bootstrap, JAVA_BUILDER,
                                                              campaignsFile=str(campaigns_file.resolve())))


def generator_args(config: BenchConfig) -> list[str]:
    return ["--workload", "ysb", "--campaigns", str(config.campaigns),
            "--ads-per-campaign", str(config.ads_per_campaign)]
