"""YSB: the job config for the YSB job (campaign table) and the generator's event arguments."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl import generator, kafka_io
from klinkctl.results import accuracy
from klinkctl.run.config import RunSpec
from klinkctl.workloads import common

JAVA_BUILDER = "io.klink.workloads.ysb.YsbJob"
event_time = kafka_io.json_event_time


def write_job_config(plan_: common.Plan, config: RunSpec, bootstrap: str, run_dir: Path) -> Path:
    campaigns_file = write_campaigns(config, run_dir)
    return common.write_job_config(run_dir, common.job_config(plan_, config, bootstrap, JAVA_BUILDER,
                                                              campaignsFile=str(campaigns_file.resolve())))


def write_campaigns(config: RunSpec, run_dir: Path) -> Path:
    """campaigns.json: the campaign table the generator draws its ads from and the job joins against."""
    campaigns_file = run_dir / "campaigns.json"
    campaigns_file.write_text(json.dumps(generator.campaigns(config.seed, config.campaigns, config.ads_per_campaign)))
    return campaigns_file


def generator_args(config: RunSpec) -> list[str]:
    return ["--workload", "ysb", "--campaigns", str(config.campaigns),
            "--ads-per-campaign", str(config.ads_per_campaign)]


def exact_results(values: Iterable[bytes], config: RunSpec, run_dir: Path, window_offset_ms: int) -> pd.DataFrame:
    """Views per campaign per window from every generated event, independently of the Flink job (YSB's filter
    and join done here in pandas): columns window_end, key, exact."""
    campaign_of = {ad: campaign for campaign, ads in json.loads((run_dir / "campaigns.json").read_text()).items()
                   for ad in ads}
    times, keys = [], []
    for value in values:
        event = json.loads(value)
        if event["event_type"] == "view":
            times.append(event["event_time"])
            keys.append(campaign_of[event["ad_id"]])
    event_times = np.array(times, dtype=np.int64)
    size = config.window_ms
    window_ends = event_times - np.mod(event_times - window_offset_ms, size) + size
    views = pd.DataFrame({"window_end": window_ends, "key": keys})
    exact = views.groupby(["window_end", "key"]).size().rename("exact").reset_index()
    return exact.assign(events=exact["exact"])


#: The L1 error of the views per campaign (the window's rounded weighted counts).
window_errors: accuracy.WindowErrors = accuracy.l1_over_keys()
