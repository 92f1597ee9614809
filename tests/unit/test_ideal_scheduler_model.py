"""The fluid model behind docs/scheduler.md's reading of Klink's ratios (benchmarks/ideal_scheduler_model.py)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from ideal_scheduler_model import Model, simulate  # noqa: E402

NO_STALLS = 1e-9


def test_without_stalls_every_window_fires_one_watermark_bound_after_its_end() -> None:
    model = Model(queries=4, rho=0.9, bound_s=1.0, duration_s=60, stalls_per_s=NO_STALLS)
    for policy in ("ps", "oracle"):
        latencies = simulate(model, policy)
        assert len(latencies) == 4 * 10  # windows ending after the 30 s warm-up, 3 s each
        assert latencies == pytest.approx(1.0, abs=2 * model.step_s)


def test_a_single_query_has_nothing_to_reorder() -> None:
    model = Model(queries=1, rho=0.9, bound_s=1.0, duration_s=90)
    assert simulate(model, "oracle").tolist() == simulate(model, "ps").tolist()


def test_after_stalls_the_oldest_swm_first_beats_sharing_but_not_the_watermark_bound() -> None:
    model = Model(queries=4, rho=0.95, bound_s=1.0, duration_s=120, stalls_per_s=0.2)
    ps, oracle = simulate(model, "ps"), simulate(model, "oracle")
    assert ps.mean() > 1.1  # the stalls queued work ...
    assert 1.0 <= oracle.mean() < ps.mean()  # ... which ordering drains sooner, never below B
