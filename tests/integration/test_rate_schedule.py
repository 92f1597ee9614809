"""--rate-schedule on the real stack: a short rides run with a 4x surge. The generator's per-second counts
(generator.csv) and the windows Flink fired (latency.csv `events`) follow the schedule, not the base rate, and the
summaries record it (klinkctl/rate_schedule.py, io.klink.generator.RateSchedule)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from klinkctl.rate_schedule import parse

pytestmark = pytest.mark.integration

RATE = 800
SURGE = "surge:4x@2s+2s"
SCHEDULE = parse(SURGE, 6000)
EXPECTED_PER_SECOND = [RATE, RATE, 4 * RATE, 4 * RATE, RATE, RATE]


def test_a_surge_quadruples_what_the_generator_sends_and_flink_counts_inside_its_window(running_stack, tmp_path):
    stack = running_stack  # the session's stack: this test's own wall time is the bench run, ~45 s
    results = tmp_path / "results"
    result = stack("bench", "rides", "--results", str(results), "--rate", str(RATE), "--duration", "6s",
                   "--warmup", "1s", "--window", "1s", "--rate-schedule", SURGE, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = results.iterdir()

    assert [SCHEDULE.events(s * 1000, (s + 1) * 1000, RATE) for s in range(6)] == EXPECTED_PER_SECOND
    per_second = pd.read_csv(run_dir / "generator.csv").set_index("second")
    assert per_second.loc[0:5, "scheduled"].tolist() == EXPECTED_PER_SECOND  # the schedule, exactly
    assert per_second["sent"].sum() == sum(EXPECTED_PER_SECOND)  # every event, some a little late (second 6)
    sent = per_second.loc[0:5, "sent"]
    # 4x a second: 2 surge seconds against 4 others (sends a few ms late on a loaded machine move a few events across
    # a second's boundary; the schedule above is exact)
    assert sent.loc[2:3].sum() / sent.drop([2, 3]).sum() == pytest.approx(4 * 2 / 4, rel=0.1)

    generator = json.loads((run_dir / "generator-summary.json").read_text())
    assert generator["rate_schedule"] == SURGE
    assert generator["target_rate"] == pytest.approx(RATE * SCHEDULE.mean_multiplier(), abs=0.1)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed", summary["reason"]
    assert summary["generator"]["rate_schedule"] == SURGE
    assert summary["generator"]["events_scheduled"] == sum(EXPECTED_PER_SECOND)

    # every trip reached the window: windows wholly inside the surge counted 4x the trips of those outside it
    start = generator["start_ms"]
    windows = pd.read_csv(run_dir / "latency.csv")
    inside = windows[(windows["window_start"] >= start + 2000) & (windows["window_end"] <= start + 4000)]
    outside = windows[(windows["window_end"] <= start + 2000) & (windows["window_start"] >= start)
                      | (windows["window_start"] >= start + 4000) & (windows["window_end"] <= start + 6000)]
    assert len(inside) >= 1 and len(outside) >= 2
    assert (inside["events"] - 4 * RATE).abs().max() <= 1
    assert (outside["events"] - RATE).abs().max() <= 1
