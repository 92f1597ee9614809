"""--rate-schedule: the parser (one line for bad input, nothing started), the schedule's arithmetic, and that
Python and the generator agree on each form (klinkctl/rate_schedule.py, io.klink.generator.RateSchedule)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from klinkctl import catalog, rate_schedule
from klinkctl.cli import main
from klinkctl.errors import KlinkError
from klinkctl.rate_schedule import parse
from klinkctl.run.config import resolve


@pytest.mark.parametrize("kind", catalog.rate_schedules(), ids=lambda kind: kind["name"])
def test_each_example_has_the_generators_canonical_spec(kind: dict) -> None:
    parsed = parse(kind["example"], 60_000)
    assert parsed.kind == kind["name"]
    assert parsed.spec == kind["canonical"]
    assert kind["form"] in rate_schedule.FORMS


def test_canonical_forms() -> None:
    assert parse(" steady ", 1000).spec == "steady"
    assert parse("surge:4x@10s+10000ms", 30_000).spec == "surge:4x@10s+10s"
    assert parse("surge:2.5x@0s+1.5s", 30_000).spec == "surge:2.5x@0+1500ms"
    assert parse("ramp:4.0x", 30_000).spec == "ramp:4x"
    assert parse("bursts:3.0x@10000ms+2s", 30_000).spec == "bursts:3x@10s+2s"
    assert parse("bursts:0.5x@1.5s+500ms", 30_000).spec == "bursts:0.5x@1500ms+500ms"


@pytest.mark.parametrize("bad, expected", [
    ("", "invalid --rate-schedule ''"),
    ("surge", "expected steady, surge:<k>x@<start>+<length> (e.g. surge:4x@10s+10s), ramp:<k>x"),
    ("surge:4@10s+10s", "invalid --rate-schedule"),
    ("surge:4x@10+10s", "'10' has no unit"),
    ("surge:4x@10s+0s", "length must be > 0"),
    ("surge:0x@1s+1s", "factor must be a number in (0, 1000]"),
    ("surge:-2x@1s+1s", "factor must be"),
    ("surge:nanx@1s+1s", "factor must be"),
    ("surge:2000x@1s+1s", "factor must be"),
    ("surge:4x@1.0005s+1s", "not a whole number of milliseconds"),
    ("surge:4x@25s+10s", "the surge ends at 35s, after the run's 30s (--duration)"),
    ("ramp:x", "invalid --rate-schedule"),
    ("ramp:4", "invalid --rate-schedule"),
    ("ramp:4x@1s", "invalid --rate-schedule"),
    ("steady:1", "invalid --rate-schedule"),
    ("bursts:3x@10s", "invalid --rate-schedule"),
    ("bursts:3@10s+2s", "invalid --rate-schedule"),
    ("bursts:3x@10+2s", "'10' has no unit"),
    ("bursts:3x@10s+0", "the burst's length must be > 0"),
    ("bursts:3x@2s+2s", "the period (2s) must be longer than the burst (2s)"),
    ("bursts:3x@1s+2s", "must be longer than the burst"),
    ("bursts:0x@10s+2s", "factor must be a number in (0, 1000]"),
    ("bursts:1001x@10s+2s", "factor must be"),
])
def test_bad_schedules_are_one_line(bad: str, expected: str) -> None:
    with pytest.raises(KlinkError) as refused:
        parse(bad, 30_000)
    assert expected in str(refused.value)
    assert "\n" not in str(refused.value)


@given(factor=st.integers(1, 400).map(lambda n: n / 4), start_s=st.integers(0, 50), length_s=st.integers(1, 30),
       tail_s=st.integers(0, 30), rate=st.integers(1, 100_000))
def test_a_surge_adds_k_minus_one_times_its_length_of_events(factor: float, start_s: int, length_s: int,
                                                             tail_s: int, rate: int) -> None:
    duration = (start_s + length_s + tail_s) * 1000
    surge = parse(f"surge:{factor}x@{start_s}s+{length_s}s", duration)
    assert parse(surge.spec, duration) == surge
    assert surge.events(0, duration, rate) == pytest.approx(rate * (duration + (factor - 1) * length_s * 1000) / 1000)
    assert surge.events(start_s * 1000, start_s * 1000 + 1000, rate) == pytest.approx(rate * factor)
    assert surge.multiplier(start_s * 1000 - 1) == 1.0 and surge.multiplier((start_s + length_s) * 1000) == 1.0
    assert surge.mean_multiplier() == pytest.approx(surge.events(0, duration, rate) / (rate * duration / 1000))


@given(factor=st.integers(1, 400).map(lambda n: n / 4), period_ms=st.integers(2, 20_000), data=st.data(),
       duration=st.integers(1, 200_000), rate=st.integers(1, 100_000))
def test_bursts_repeat_a_surge_every_period_and_their_integral_is_exact(factor: float, period_ms: int, data,
                                                                         duration: int, rate: int) -> None:
    length = data.draw(st.integers(1, period_ms - 1))
    bursts = parse(f"bursts:{factor}x@{period_ms}ms+{length}ms", duration)
    assert parse(bursts.spec, duration) == bursts and bursts.peak_multiplier() == max(1.0, factor)
    n = data.draw(st.integers(0, 50))
    assert bursts.multiplier(n * period_ms) == factor and bursts.multiplier(n * period_ms + length - 0.5) == factor
    assert bursts.multiplier(n * period_ms + length) == 1.0 and bursts.multiplier((n + 1) * period_ms - 0.5) == 1.0
    whole, partial = divmod(duration, period_ms)  # the last period may be cut short, in or after its burst
    expected = duration + (factor - 1) * (whole * length + min(partial, length))
    assert bursts.base_ms(duration) == pytest.approx(expected)
    assert bursts.events(0, duration, rate) == pytest.approx(rate * expected / 1000)
    assert bursts.mean_multiplier() == pytest.approx(expected / duration)
    low, high = sorted(data.draw(st.floats(0, 1e6)) for _ in range(2))
    assert bursts.base_ms(low) <= bursts.base_ms(high)


@given(factor=st.integers(1, 4000).map(lambda n: n / 4), period_ms=st.integers(2, 20_000),
       fraction=st.floats(0, 1), periods=st.floats(0, 50), later=st.floats(1e-3, 1e4))
def test_bursts_integral_is_the_sum_over_its_windows_and_strictly_increasing(factor: float, period_ms: int,
                                                                             fraction: float, periods: float,
                                                                             later: float) -> None:
    length = max(1, min(period_ms - 1, round(fraction * period_ms)))
    bursts = parse(f"bursts:{factor}x@{period_ms}ms+{length}ms", 1000)
    t = periods * period_ms
    assert bursts.base_ms(t) == pytest.approx(_window_by_window(factor, period_ms, length, t), rel=1e-12, abs=1e-9)
    assert bursts.base_ms(t + later) > bursts.base_ms(t), "W is strictly increasing, so W⁻¹ exists"


def _window_by_window(factor: float, period: int, length: int, t: float) -> float:
    """∫₀ᵗ m, one burst and one gap after the other (the O(periods) reference for the O(1) arithmetic)."""
    def overlap(low: float, high: float) -> float:
        return max(0.0, min(high, t) - low)
    return sum(factor * overlap(n * period, n * period + length) + overlap(n * period + length, (n + 1) * period)
               for n in range(int(t // period) + 1))


@given(factor=st.integers(1, 400).map(lambda n: n / 4), duration_s=st.integers(1, 600),
       t=st.floats(0, 1), u=st.floats(0, 1))
def test_a_ramp_is_linear_and_its_integral_is_monotone(factor: float, duration_s: int, t: float, u: float) -> None:
    duration = duration_s * 1000
    ramp = parse(f"ramp:{factor}x", duration)
    assert ramp.multiplier(0) == 1.0 and ramp.multiplier(duration) == pytest.approx(factor)
    assert ramp.multiplier(t * duration) == pytest.approx(1 + (factor - 1) * t)
    assert ramp.mean_multiplier() == pytest.approx((1 + factor) / 2)
    low, high = sorted((t * duration, u * duration))
    assert ramp.base_ms(low) <= ramp.base_ms(high)


@given(st.text(max_size=30))
def test_any_text_is_a_schedule_or_one_line(text: str) -> None:
    try:
        parsed = parse(text, 60_000)
    except KlinkError as refused:
        assert "\n" not in str(refused)
    else:
        assert parse(parsed.spec, 60_000) == parsed


def test_the_run_spec_checks_the_schedule_against_duration_and_rate() -> None:
    assert resolve(None, {}).rates.spec == "steady"
    assert resolve(None, {"rate_schedule": "surge:4x@2s+3s", "duration": "10s", "warmup": "1s"}).rates.factor == 4
    with pytest.raises(KlinkError, match="after the run's 10s"):
        resolve(None, {"rate_schedule": "surge:4x@8s+3s", "duration": "10s", "warmup": "1s"})
    with pytest.raises(KlinkError, match="above the generator's"):
        resolve(None, {"rate_schedule": "ramp:1000x", "rate": "2000000"})
    with pytest.raises(KlinkError, match="bursts:1000x@10s\\+1s takes --rate 2000000 above the generator's"):
        resolve(None, {"rate_schedule": "bursts:1000x@10s+1s", "rate": "2000000"})


def test_bench_refuses_a_bad_schedule_before_anything_starts(tmp_path) -> None:
    state = tmp_path / "state"
    result = CliRunner().invoke(main, ["bench", "rides", "--state-dir", str(state), "--rate-schedule", "surge:4x"])
    assert result.exit_code == 2
    assert result.output.strip().startswith("error: invalid --rate-schedule 'surge:4x'")
    assert len(result.output.strip().splitlines()) == 1
    assert not state.exists()


def test_simulate_refuses_a_schedule_it_cannot_model(tmp_path) -> None:
    result = CliRunner().invoke(main, ["simulate", "--rate-schedule", "ramp:2x", "--results", str(tmp_path / "sim")])
    assert result.exit_code == 2, result.output
    assert "the simulator generates a steady rate only" in result.output
    assert not (tmp_path / "sim").exists()


def _surge_run(read_in_surge: float, lag_ms: int = 2000, start_ms: int = 1_000_000):
    """A 20 s run at 1 000 events/s with a 4× surge in [8 s, 14 s): Flink reads all but in the surge, its counters
    `lag_ms` behind the generation's start."""
    import pandas as pd

    schedule = parse("surge:4x@8s+6s", 20_000)
    seconds = pd.DataFrame({"second": range(20), "sent": [4000 if 8 <= s < 14 else 1000 for s in range(20)]})
    times = [start_ms + lag_ms + 1000 * s for s in range(20)]
    rates = [read_in_surge if 8 <= s < 14 else 1000.0 for s in range(20)]
    throughput = pd.DataFrame({"time": times, "job_vertex": "Source: q00/source", "records_in_per_s": rates})
    return throughput, seconds, schedule, start_ms


def test_throughput_during_a_surge_is_what_the_sources_read_in_it_shifted_by_the_counters_lag():
    from klinkctl.results.summary import surge_throughput

    got = surge_throughput(*_surge_run(2500.0))
    assert got["offered_events_per_s"] == 4000 and got["read_events_per_s"] == 2500
    assert got["read_fraction"] == pytest.approx(0.625) and got["metrics_lag_ms"] == 2000 and got["span_s"] == 6


def test_no_surge_figure_without_a_surge_or_without_reads():
    from klinkctl.results.summary import surge_throughput

    throughput, seconds, _, start = _surge_run(4000.0)
    assert surge_throughput(throughput, seconds, parse("steady", 20_000), start) is None
    assert surge_throughput(throughput.assign(records_in_per_s=0.0), seconds, parse("surge:4x@8s+6s", 20_000),
                            start) is None
