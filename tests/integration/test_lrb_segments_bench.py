"""Linear Road's segment statistics with late events on the real stack (docs/workloads.md, docs/late-state.md): lrb's
position reports from the generator, keyed by segment; per segment and window the reports, distinct vehicles and
mean speed by AION's buckets and by Flink's heap window state; for every window whose reports no watermark can have
dropped, the final result equals the harness's exact recomputation from the input topic, late reports were
accepted, and AION's reports went through its p-buckets on disk. The window function and parse are tested in Java
(LrbSegmentsJobTest), the recomputation in tests/unit/test_lrb_segments.py."""

from __future__ import annotations

import pandas as pd
import pytest

from klinkctl.workloads import lrb_segments
from tests.integration.conftest import (assert_aion_kept_late_windows_on_disk, assert_flink_kept_late_windows,
                                       cleaned_up_windows, exact_final_results, run_late_state_bench)

pytestmark = pytest.mark.integration

# as test_late_state_bench's: log-normal delays (about a quarter of the reports late, p99.9 inside L + B), a short
# lateness so most windows are cleaned up in the run. 1 000 reports/s is one expressway (200 segment keys, ~5
# reports each per 1 s window); an m-bucket of 100 sends most of a window's ~1 000 reports to the p-buckets.
SHORT_RUN = ("--rate", "1000", "--duration", "5s", "--warmup", "1s", "--window", "1s", "--watermark-bound", "100ms",
             "--delay", "lognormal:120ms:0.6", "--allowed-lateness", "1500ms", "--m-bucket-events", "100",
             "--rho-min", "0.1")


def run(stack, results, late_state: str, *extra: str):
    return run_late_state_bench(stack, results, "lrb-segments", SHORT_RUN, late_state, *extra, timeout=150)


def segment_statistics_are_exact(run_dir, only=None) -> int:
    """Every checked window's final statistics equal the exact ones; the windows compared."""
    both = exact_final_results(run_dir, lrb_segments, only)
    assert both["key"].str.fullmatch(r"0\.[01]\.\d{1,2}").all()  # xway.dir.seg of the one expressway
    assert (both["reports"] > 1).any()  # segments with several reports: the means are means
    assert both["average_speed"].between(0, 127).all()
    # a car reports every 30 s, so a 1 s window sees each vehicle at most once (LrbSegmentsJobTest counts repeats)
    assert (both["vehicles"] == both["reports"]).all()
    return both["window_end"].nunique()


def test_aion_and_flink_heap_give_each_segments_exact_statistics_with_late_reports(running_stack, tmp_path):
    # the paper's time-based baseline (Δt, 3 executions per window) here; the other tests run the staleness trigger
    run_dir, report = run(running_stack, tmp_path / "aion", "aion", "--late-trigger", "delta-t",
                          "--late-executions", "3")
    windows = segment_statistics_are_exact(run_dir, only=cleaned_up_windows(report))
    assert_aion_kept_late_windows_on_disk(running_stack, run_dir, report, windows, min_late=10)
    assert report["aion"]["overflow_writes"] > 0  # m-buckets of 100 reports
    assert len(pd.read_csv(run_dir / "error.csv")) >= 3
    assert all(w["planned"] == 3 and 0 <= w["executions"] <= 3 for w in report["staleness"]["per_window"])

    run_dir, report = run(running_stack, tmp_path / "heap", "flink-heap")
    assert_flink_kept_late_windows(report, segment_statistics_are_exact(run_dir), min_late=10)
