"""The average workload with late events on the real stack (docs/late-state.md): AION's buckets and Flink's heap
window state each give, for every window whose events no watermark can have dropped, a final result (after the
re-executions for late events, here on §3.4's staleness trigger) equal to the exact recomputation from the input
topic; AION destages to its p-buckets on the TaskManager's disk (reported as a Flink metric), which are gone after
the run, and reports each window's executions and staleness. The bucket logic itself is tested in Java (AionWindowsTest)."""

from __future__ import annotations

import pandas as pd
import pytest

from klinkctl.workloads import average
from tests.integration.conftest import (assert_aion_kept_late_windows_on_disk, assert_flink_kept_late_windows,
                                       cleaned_up_windows, exact_final_results, run_late_state_bench)

pytestmark = pytest.mark.integration

# log-normal delays (the paper's late arrivals, §5): with B = 100 ms about a quarter of the events are late;
# p99.9 ≈ 0.8 s, inside the 1.5 s lateness, so no window loses an event and each can be checked (a delay past
# L + B = 1.6 s has probability ~1e-5); the short lateness lets most windows be cleaned up before the run ends
SHORT_RUN = ("--rate", "2000", "--duration", "5s", "--warmup", "1s", "--window", "1s", "--watermark-bound", "100ms",
             "--delay", "lognormal:120ms:0.6", "--allowed-lateness", "1500ms", "--m-bucket-events", "1000",
             "--rho-min", "0.1")


def run(stack, results, late_state: str, *extra: str):
    return run_late_state_bench(stack, results, "average", SHORT_RUN, late_state, *extra, timeout=120)


def final_results_equal_the_exact_ones(run_dir, only=None) -> int:
    """Every checked window (of those `only` lists; default all) has the exact sums and counts; the windows
    compared."""
    return exact_final_results(run_dir, average, only)["window_end"].nunique()


def test_aion_and_flink_heap_give_the_exact_final_results_and_aion_destages_to_disk(running_stack, tmp_path):
    run_dir, report = run(running_stack, tmp_path / "aion", "aion", "--late-trigger", "staleness",
                          "--staleness-bound", "0.05", "--payload-bytes", "512")  # payloads through the p-buckets
    windows = final_results_equal_the_exact_ones(run_dir, only=cleaned_up_windows(report))
    assert_aion_kept_late_windows_on_disk(running_stack, run_dir, report, windows, min_late=20)
    assert report["max_p_bucket_bytes"] > 512 * 1000  # a destaged window (~1 800 events) with their payloads
    assert report["aion"]["prestaged"] > 0  # §3.2's proactive caching (on by default) read windows ahead
    assert report["gc_share"] is not None
    assert report["p_bucket_bytes_at_end"] is not None  # the last sample before the job was cancelled
    assert (pd.read_csv(run_dir / "late-state.csv")["heap_used_bytes"] > 0).all()
    # §3.4's trigger: every window cleaned up reports its executions (at most the planned ones: each consumes a
    # planned age, the last at cleanup) and its staleness; the final execution at cleanup kept the results exact
    staleness = report["staleness"]
    assert staleness["windows"] >= report["windows_checked"] and staleness["executions_max"] >= 1
    assert all(0 <= w["executions"] <= w["planned"] and w["planned"] >= 1 for w in staleness["per_window"])
    assert all(0 <= w["max_staleness"] <= 1 for w in staleness["per_window"])

    run_dir, report = run(running_stack, tmp_path / "heap", "flink-heap")
    assert_flink_kept_late_windows(report, final_results_equal_the_exact_ones(run_dir), min_late=20)
