"""The bigrams workload with late events on the real stack (docs/workloads.md, docs/late-state.md): synthetic posts
from the generator, every bigram counted per key and window by AION's buckets and by Flink's heap window state;
for every window whose events no watermark can have dropped, the final result (posts, words, bigrams, distinct
bigrams and the digest of the counts) equals the harness's exact recomputation from the input topic, and AION's
posts went through its p-buckets on disk. The window function itself is tested in Java (BigramsTest) and its
digest against Python's (tests/unit/test_bigrams.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from klinkctl.workloads import bigrams
from tests.integration.conftest import (assert_aion_kept_late_windows_on_disk, assert_flink_kept_late_windows,
                                       cleaned_up_windows, exact_final_results, run_late_state_bench)

pytestmark = pytest.mark.integration

# as test_late_state_bench's: log-normal delays (about a quarter of the events late, p99.9 inside L + B), a short
# lateness so most windows are cleaned up in the run; a lower rate and 1 KB posts (each ~200 words) keep the
# window function's work small on a shared machine, and a small m-bucket sends posts to the p-buckets. At this
# rate about 1 % of the 2 000 posts come after their window fired (20 measured), so "some were accepted" is > 5.
SHORT_RUN = ("--rate", "400", "--duration", "5s", "--warmup", "1s", "--window", "1s", "--watermark-bound", "100ms",
             "--delay", "lognormal:120ms:0.6", "--allowed-lateness", "1500ms", "--m-bucket-events", "100",
             "--rho-min", "0.1", "--payload-bytes", "1024", "--vocabulary-size", "5000", "--word-skew", "1.0")


def run(stack, results, late_state: str, *extra: str):
    return run_late_state_bench(stack, results, "bigrams", SHORT_RUN, late_state, *extra, timeout=180)


def final_results_equal_the_exact_ones(run_dir, only=None) -> int:
    """Every checked window (of those `only` lists; default all) has the exact digest; the windows compared."""
    both = exact_final_results(run_dir, bigrams, only)  # posts, words, bigrams, distinct bigrams and digest
    assert (both["bigrams"] > both["posts"] * 50).all()  # ~1 KB posts: far more bigrams than posts
    return both["window_end"].nunique()


def test_aion_and_flink_heap_count_every_bigram_exactly_and_aion_keeps_posts_on_disk(running_stack, tmp_path):
    run_dir, report = run(running_stack, tmp_path / "aion", "aion", "--late-trigger", "staleness",
                          "--staleness-bound", "0.05")
    windows = final_results_equal_the_exact_ones(run_dir, only=cleaned_up_windows(report))
    assert_aion_kept_late_windows_on_disk(running_stack, run_dir, report, windows, min_late=5)
    assert report["aion"]["overflow_writes"] > 0  # m-buckets of 100 posts
    assert report["max_p_bucket_bytes"] > 1024 * 100  # at least a hundred ~1 KB posts on disk at once
    assert len(pd.read_csv(run_dir / "error.csv")) >= 3

    run_dir, report = run(running_stack, tmp_path / "heap", "flink-heap")
    assert_flink_kept_late_windows(report, final_results_equal_the_exact_ones(run_dir), min_late=5)
