"""The fluid model behind docs/scheduler.md's reading of Klink's ratios (benchmarks/ideal_scheduler_model.py)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from dataclasses import replace  # noqa: E402

import numpy as np  # noqa: E402

from ideal_scheduler_model import Model, ideal_cell, share, simulate  # noqa: E402
from klinkctl.results.ideal_model import drain_needed_s  # noqa: E402
from klinkctl.delay import parse_delay  # noqa: E402

NO_STALLS = 1e-9


def test_without_stalls_every_window_fires_one_watermark_bound_after_its_end() -> None:
    model = Model(queries=4, rho=0.9, bound_s=1.0, duration_s=60, stalls_per_s=NO_STALLS, step_s=0.005)
    for policy in ("ps", "oracle"):
        latencies = simulate(model, policy)
        assert len(latencies) == 4 * 10  # windows ending after the 30 s warm-up, 3 s each
        assert latencies == pytest.approx(1.0, abs=2 * model.step_s)


def test_a_single_query_has_nothing_to_reorder() -> None:
    model = Model(queries=1, rho=0.9, bound_s=1.0, duration_s=90, step_s=0.005)
    assert simulate(model, "oracle").tolist() == simulate(model, "ps").tolist()


def test_after_stalls_the_oldest_swm_first_beats_sharing_but_not_the_watermark_bound() -> None:
    model = Model(queries=4, rho=0.95, bound_s=1.0, duration_s=120, stalls_per_s=0.2, step_s=0.005)
    ps, oracle = simulate(model, "ps"), simulate(model, "oracle")
    assert ps.mean() > 1.1  # the stalls queued work ...
    assert 1.0 <= oracle.mean() < ps.mean()  # ... which ordering drains sooner, never below B


def test_processor_sharing_gives_small_queues_all_they_need_and_splits_the_rest() -> None:
    assert share(1.0, np.array([0.1, 2.0, 2.0, 0.0])).tolist() == pytest.approx([0.1, 0.45, 0.45, 0.0])
    assert share(5.0, np.array([0.1, 2.0])).tolist() == pytest.approx([0.1, 2.0])


def test_a_delay_that_is_never_small_delays_every_swm_by_its_least_delay() -> None:
    model = Model(queries=2, rho=0.5, bound_s=0.2, duration_s=60, stalls_per_s=NO_STALLS, delay="uniform:300-400ms")
    latencies = simulate(model, "ps")  # B + the 300 ms every event is late, + the wait for an event that early
    assert latencies.min() >= 0.5 - 0.001 and latencies.max() < 0.55


def test_an_ideal_cell_reads_both_policies_on_the_same_draws() -> None:
    one = ideal_cell(1, 1.0, 0.2, 3.0, "zipf:0.99:0-1600ms", seeds=3)
    assert (one.mean_ratio, one.p99_ratio, one.seeds) == (1.0, 1.0, 3)
    eight = ideal_cell(8, 1.0, 0.2, 3.0, "uniform:0-400ms", seeds=4)
    assert eight.mean_ratio < 0.8 and eight.mean_ratio_ci[1] < 1.0
    assert eight.oracle_mean_s >= 0.2 and eight.ps_mean_s > eight.oracle_mean_s


def test_sampled_delays_are_whole_ms_from_the_model() -> None:
    model = parse_delay("zipf:0.99:0-1600ms")
    delays = model.sample_ms(100_000, np.random.default_rng(1))
    assert delays.min() >= 0 and delays.max() <= 1600 and np.all(delays == np.round(delays))
    assert delays.mean() == pytest.approx(model.mean_ms, rel=0.02)


def test_like_a_run_the_model_drains_so_that_every_window_ending_within_it_fires() -> None:
    model = Model(queries=4, rho=1.1, bound_s=0.2, duration_s=20, warmup_s=0, step_s=0.005, stalls_per_s=NO_STALLS)
    censored = simulate(model, "ps")
    drained = simulate(replace(model, drain_s=drain_needed_s(model)), "ps")
    assert len(drained) > len(censored) and len(drained) >= 4 * 5  # 3 s windows ending in 3-20 s: 5-6 a query
    assert drained.max() > censored.max()  # the latest windows, the slowest, were the ones cut off
