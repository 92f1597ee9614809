"""(c) of `klinkctl capacity`: the send lag that can enter the measured windows' SWM latency (capacity_criteria.
entering_send_lags) against 5 % of the mean latency, and stored searches judged again with it (capacity_rejudge).
The numbers are those of the stored probes in docs/data (docs/capacity.md, "Which send lag enters the latency")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from klinkctl.errors import KlinkError
from klinkctl.run import capacity as cap, capacity_criteria as criteria
from klinkctl.run.capacity_rejudge import rejudge
from klinkctl.run.config import RunSpec

START = 1_795_919_091_259  # capacity-ysb-20261129-021911, probe at 113 137: the generation's start (epoch ms)
#: that probe's generator.csv max_lag_ms per second: 64 ms spikes in seconds 1 (warm-up) and 7 (no window's SWM)
SECOND_LAGS = [10.578, 64.749, 21.297, 4.981, 6.156, 9.802, 12.268, 64.028, 2.580, 10.888, 5.736, 14.849, 3.000]
#: its five measured windows: end (epoch ms) and SWM latency (ms); mean 321.2 ms, so 5 % is 16.06 ms
ENDS = np.array([1795919096619, 1795919097456, 1795919099619, 1795919100456, 1795919102619])
LATENCY = np.array([374.0, 287.0, 386.0, 342.0, 217.0])


def lag_rows(lags=SECOND_LAGS) -> pd.DataFrame:
    return pd.DataFrame({"second": np.arange(len(lags)), "max_lag_ms": lags})


def ysb_summary(lag_p99_ms=21.503, max_lag_ms=64.749, mean_ms=321.2, offered=226_272.7) -> dict:
    return {"status": "completed", "warmup_until_ms": START + 4000,
            "throughput": {"generator_events_per_s": offered},
            "generator": {"lag_p99_ms": lag_p99_ms, "max_lag_ms": max_lag_ms}, "swm_latency_ms": {"mean": mean_ms}}


def full_read(offered=226_249.0) -> criteria.ReadRate:
    return criteria.ReadRate(offered, offered, 7.0, 1552)


def test_only_the_seconds_in_which_a_windows_watermark_is_swept_enter_it():
    lags = criteria.entering_send_lags(ENDS, lag_rows(), START, 200, 200)
    # end + B - start = 5.56, 6.397, 8.56, 9.397, 11.56 s (+ 0.2 s): seconds 5, 6, 8, 9, 11; never 1 or 7
    assert lags.tolist() == [9.802, 12.268, 2.580, 10.888, 14.849]
    straddling = criteria.entering_send_lags(np.array([START + 4_900]), lag_rows(), START, 0, 200)
    assert straddling.tolist() == [max(SECOND_LAGS[4], SECOND_LAGS[5])]  # 4.9–5.1 s: both rows can hold the events
    assert np.isnan(criteria.entering_send_lags(ENDS, lag_rows()[:5], START, 200, 200)[1:]).all()  # rows missing
    assert np.isnan(criteria.entering_send_lags(ENDS, pd.DataFrame(), START, 200, 200)).all()


def test_the_probe_the_p99_rule_stopped_at_113137_is_sustainable_by_the_lag_that_enters_its_windows():
    windows = pd.DataFrame({"window_end": ENDS, "swm_latency_ms": LATENCY,
                            "send_lag_ms": criteria.entering_send_lags(ENDS, lag_rows(), START, 200, 200)})
    verdict = criteria.assess(ysb_summary(), windows, full_read(), 226_274)
    generator = verdict.criteria["generator"]
    assert verdict.verdict == criteria.SUSTAINABLE and generator.passed
    assert generator.values["lag_statistic"] == criteria.LAG_ENTERING
    assert generator.values["lag_ms"] == pytest.approx(10.077, abs=0.001)  # mean of the five; p99 was 21.5
    assert generator.values["lag_limit_ms"] == pytest.approx(16.06)
    assert generator.values["lag_p99_ms"] == 21.503  # kept, for the record
    assert "send lag entering the 5 windows 10 ms (mean; largest 15 ms)" in generator.why
    # the rule before: the run's p99 (21.5 ms) against the same limit would have stopped it
    assert generator.values["lag_p99_ms"] > generator.values["lag_limit_ms"]


def test_a_generator_late_when_the_windows_fire_is_still_the_bottleneck_and_the_stop_says_by_what():
    late = [10.0, 12.0, 95.0, 90.0, 110.0, 80.0, 100.0, 95.0, 120.0, 85.0, 99.0, 101.0, 4.0]  # late most seconds
    windows = pd.DataFrame({"window_end": ENDS, "swm_latency_ms": LATENCY,
                            "send_lag_ms": criteria.entering_send_lags(ENDS, lag_rows(late), START, 200, 200)})
    verdict = criteria.assess(ysb_summary(lag_p99_ms=120.0, max_lag_ms=120.0), windows, full_read(), 226_274)
    assert verdict.verdict == criteria.GENERATOR
    assert verdict.criteria["generator"].values["lag_ms"] == pytest.approx((80 + 100 + 120 + 85 + 101) / 5)
    stopped = cap.generator_stop(113_137, verdict)
    assert "send lag entering the 5 windows 97 ms" in stopped
    assert "a lag (entering windows, mean) of at most 5% of the mean latency, 16 ms" in stopped
    result = cap.search(lambda rate: cap.Probe(rate, verdict), cap.SearchSettings(start_rate=113_137))
    assert result.bottleneck == criteria.GENERATOR and result.stopped == stopped


def test_without_per_second_lags_the_runs_largest_lag_decides_and_then_its_p99():
    windows = pd.DataFrame({"window_end": ENDS, "swm_latency_ms": LATENCY, "send_lag_ms": np.nan})
    by_max = criteria.assess(ysb_summary(), windows, full_read(), 226_274).criteria["generator"]
    assert not by_max.passed and by_max.values["lag_statistic"] == criteria.LAG_MAX and by_max.values["lag_ms"] == 64.749
    plain = windows.drop(columns="send_lag_ms")
    by_p99 = criteria.assess(ysb_summary(lag_p99_ms=12.0, max_lag_ms=None), plain, full_read(), 226_274)
    assert by_p99.verdict == criteria.SUSTAINABLE
    assert by_p99.criteria["generator"].values["lag_statistic"] == criteria.LAG_P99


def _probe_dir(directory: Path, lags=SECOND_LAGS) -> Path:
    directory.mkdir(parents=True)
    rows = [{"run": "r", "policy": "default", "query": f"q0{i % 2}", "window_end": end, "swm_latency_ms": latency,
             "warmup": False} for i, (end, latency) in enumerate(zip(ENDS, LATENCY))]
    pd.DataFrame(rows).to_csv(directory / "latency.csv", index=False)
    lag_rows(lags).assign(sent=1, scheduled=1, behind_events=0).to_csv(directory / "generator.csv", index=False)
    (directory / "summary.json").write_text(json.dumps(ysb_summary()))
    return directory


def test_measured_windows_carry_the_lag_that_enters_each(tmp_path):
    config = RunSpec(workload="ysb", queries=2, duration_ms=12_000, warmup_ms=4_000, watermark_bound_ms=200,
                     watermark_interval_ms=200)
    directory = _probe_dir(tmp_path / "probe")
    windows = criteria.measured_windows(directory, ysb_summary(), config)
    assert windows["send_lag_ms"].tolist() == [9.802, 12.268, 2.580, 10.888, 14.849]


def _stored_search(root: Path) -> Path:
    """A search like capacity-ysb-20261129-021911 (80 000 passed, 160 000 failed on Flink, 113 137 'generator')."""
    search_dir = root / "capacity-ysb-x"
    _probe_dir(search_dir / "probe-113137")
    stored = lambda rate, verdict, dir_="": {  # noqa: E731
        "rate": rate, "total_rate": 2 * rate, "run_dir": f"results/capacity-ysb-x/{dir_}", "passed": verdict ==
        "sustainable", "verdict": verdict, "why": verdict,
        "criteria": {"source_read": {"passed": True, "why": "", "offered_per_s": 2.0 * rate, "read_per_s": 2.0 * rate,
                                     "span_s": 7.0, "metrics_lag_ms": 1552},
                     "generator": {"passed": verdict != "generator", "why": "", "lag_p99_ms": 21.503}}}
    document = {"rate": 80_000, "bottleneck": "generator", "stopped": "at 113137 ...",
                "config": {"queries": 2, "duration_ms": 12_000, "warmup_ms": 4_000, "watermark_bound_ms": 200,
                           "watermark_interval_ms": 200},
                "search": {"start_rate": 40_000, "factor": 2.0, "precision": 0.05, "max_probes": 8, "max_rate": None},
                "probes": [stored(40_000, "sustainable"), stored(80_000, "sustainable"), stored(160_000, "flink"),
                           stored(113_137, "generator", "probe-113137")]}
    path = search_dir / "capacity.json"
    path.write_text(json.dumps(document))
    return path


def test_a_stored_search_judged_again_goes_on_past_the_probe_the_p99_rule_stopped(tmp_path):
    found = rejudge(_stored_search(tmp_path))
    assert found.changed == [3] and found.probes[3][1].assessment.verdict == criteria.SUSTAINABLE
    assert found.result is None and found.next_rate == 134_543  # √(113 137 × 160 000): never run


def test_bad_input_to_the_rejudging_is_one_line(tmp_path):
    broken = tmp_path / "capacity.json"
    broken.write_text("{not json")
    with pytest.raises(KlinkError, match="not a readable capacity.json"):
        rejudge(broken)
    broken.write_text("[]")
    with pytest.raises(KlinkError, match="not a capacity.json"):
        rejudge(broken)
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "capacity_rejudge.py"
    ran = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True,
                         cwd=script.parents[1], env={"PYTHONPATH": str(script.parents[1])})
    assert ran.returncode == 2 and ran.stderr.strip().count("\n") == 0 and "error:" in ran.stderr
    assert "Traceback" not in ran.stderr
