"""rides: the AdCom ride aggregation (seed adcom-edbt21.txt §4.1; docs/combiner.md). Trips per pick-up region
(Zipf-skewed) over tumbling windows, with a combiner before the shuffle or none; the job config, the generator's
arguments, and the exact window results (the job's parse and aggregate redone in pandas)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from klinkctl.results import accuracy
from klinkctl.run.combiner_relay import COMBINER_COLUMNS, COMBINER_TABLE
from klinkctl.run.config import RunSpec
from klinkctl.workloads import common

JAVA_BUILDER = "io.klink.workloads.rides.RidesJob"
#: The combiners of ours, whose controller logs combiner.csv (the others: none, Flink's minibatch).
CONTROLLED_COMBINERS = ("adcom", "local-global")
event_time = common.last_column_event_time  # region,driver,passengers,fare,event_time


def write_job_config(plan_: common.Plan, config: RunSpec, bootstrap: str, run_dir: Path) -> Path:
    """The job config; with a combiner of ours also combiner.csv's header. The combiner's controller posts the rows
    and its λ to klinkctl's control channel, where every instance takes λ (klinkctl.run.combiner_relay); Flink's
    mini-batch aggregation (minibatch) has no controller."""
    if config.combiner in CONTROLLED_COMBINERS:
        (run_dir / COMBINER_TABLE).write_text(COMBINER_COLUMNS + "\n")
    return common.write_job_config(run_dir, common.job_config(
        plan_, config, bootstrap, JAVA_BUILDER, aggregate=config.ride_aggregate, combiner=config.combiner,
        combinerParallelism=config.combiner_parallelism, combinerIntervalMs=config.combiner_interval_ms,
        combinerMaxRecords=config.combiner_max_records, bandLow=config.adcom_band_low,
        bandHigh=config.adcom_band_high, kp=config.adcom_kp, ki=config.adcom_ki,
        minIntervalMs=config.adcom_min_interval_ms, maxIntervalMs=config.adcom_max_interval_ms,
        controlPeriodMs=config.adcom_period_ms, controlUrl=plan_.control.url, stackToken=plan_.control.stack))


def generator_args(config: RunSpec) -> list[str]:
    return ["--workload", "rides", "--regions", str(config.regions), "--key-skew", repr(config.key_skew)]


def trips(values: Iterable[bytes]) -> pd.DataFrame:
    """region, driver, passengers, fare, event_time of every trip the job's parse keeps (RidesJob.Parse)."""
    rows = []
    for value in values:
        c = value.split(b",")
        if len(c) != 5 or not c[0].startswith(b"r"):
            continue  # the generator's progress records
        try:
            rows.append((c[0].decode(), int(c[1]), int(c[2]), float(c[3]), int(c[4])))
        except ValueError:
            continue
    return pd.DataFrame(rows, columns=["key", "driver", "passengers", "fare", "event_time"])


def window_end(event_times: np.ndarray, size_ms: int, offset_ms: int) -> np.ndarray:
    """TumblingWindows.windowEnd: the end of the tumbling window holding each event time."""
    return event_times - np.mod(event_times - offset_ms, size_ms) + size_ms


def exact_results(values: Iterable[bytes], config: RunSpec, run_dir: Path, window_offset_ms: int) -> pd.DataFrame:
    """Per window and region: exact = the aggregate (passengers summed, or distinct drivers), events = trips,
    max_fare = the highest fare (RideAggregate.Partial.toResult's fields)."""
    frame = trips(values)
    frame["window_end"] = window_end(frame["event_time"].to_numpy(dtype=np.int64), config.window_ms,
                                     window_offset_ms)
    groups = frame.groupby(["window_end", "key"])
    exact = (groups["passengers"].sum() if config.ride_aggregate == "passengers" else groups["driver"].nunique())
    return pd.DataFrame({"exact": exact.astype(float), "events": groups.size(),
                         "max_fare": groups["fare"].max()}).reset_index()


window_errors: accuracy.WindowErrors = accuracy.l1_over_keys()
