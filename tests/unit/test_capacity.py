"""`klinkctl capacity`: the sustainability decision of one probe, and the search as a pure function of a fake
probe callback (no stack). The real search runs in tests/integration/test_capacity.py."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from klinkctl.errors import KlinkError
from klinkctl import flink_jobs
from klinkctl.run import capacity as cap, capacity_criteria as criteria
from klinkctl.run import capacity_warmup
from klinkctl.run.config import RunSpec

THRESHOLDS = criteria.Thresholds()


def windows(latency_ms, every_ms: int = 1000) -> pd.DataFrame:
    return pd.DataFrame({"window_end": 1_000_000 + every_ms * np.arange(len(latency_ms)),
                         "swm_latency_ms": latency_ms})


def summary(offered=40_000.0, lag_p99_ms=2.0, status="completed", mean_latency_ms=1_000.0) -> dict:
    return {"status": status, "reason": "" if status == "completed" else "job x ended as FAILED",
            "throughput": {"generator_events_per_s": offered}, "generator": {"lag_p99_ms": lag_p99_ms},
            "swm_latency_ms": {"mean": mean_latency_ms}}


def rates(offered=40_000.0, read=40_000.0, span_s=15.0) -> criteria.ReadRate:
    return criteria.ReadRate(offered, read, span_s, 900)


FLAT = 1200 + 40 * np.random.default_rng(1).standard_normal(16)  # noisy, no trend
GROWING = np.linspace(1200, 4000, 16)  # overload: the backlog grows


# ---------------------------------------------------------------- one probe


def test_flat_latency_full_read_and_a_kept_schedule_are_sustainable():
    verdict = criteria.assess(summary(), windows(FLAT), rates(), 40_000)
    assert verdict.verdict == criteria.SUSTAINABLE
    assert all(c.passed for c in verdict.criteria.values())
    assert set(verdict.criteria) == {"latency_trend", "source_read", "generator"}


def test_latency_growing_over_the_run_is_not_sustainable_even_if_flink_read_everything():
    verdict = criteria.assess(summary(), windows(GROWING), rates(), 40_000)
    assert verdict.verdict == criteria.FLINK
    trend = verdict.criteria["latency_trend"]
    assert not trend.passed and "trends upward" in trend.why
    assert trend.values["slope_ci_ms_per_s"][0] > 0 and trend.values["growth_fraction"] > THRESHOLDS.max_growth_fraction


def test_a_significant_but_small_rise_is_not_a_trend():
    small = np.linspace(1200, 1300, 16)  # +8 % of the mean over the span: significant, below the 20 % limit
    trend = criteria.latency_trend(windows(small)["window_end"].to_numpy(), small, THRESHOLDS)
    assert trend.passed and trend.values["slope_ci_ms_per_s"][0] > 0
    assert trend.values["growth_fraction"] == pytest.approx(100 / 1250, rel=0.01)


def test_a_large_but_noisy_rise_without_a_significant_slope_is_not_a_trend():
    noisy = np.array([500, 4000, 400, 3900, 600, 4100, 450, 3000.0])
    trend = criteria.latency_trend(windows(noisy)["window_end"].to_numpy(), noisy, THRESHOLDS)
    assert trend.passed and trend.values["slope_ci_ms_per_s"][0] <= 0


def test_too_few_windows_decide_no_trend_and_say_so():
    trend = criteria.latency_trend(np.array([1, 2, 3]), np.array([100.0, 2000.0, 9000.0]), THRESHOLDS)
    assert trend.passed and "only 3 measured windows" in trend.why


def test_flink_reading_less_than_99_percent_of_what_was_offered_is_not_sustainable():
    verdict = criteria.assess(summary(), windows(FLAT), rates(read=36_000, span_s=20), 40_000)  # 90 % (± 5 %)
    assert verdict.verdict == criteria.FLINK and "Flink read 90.0% (± 5.0%)" in verdict.why
    assert criteria.assess(summary(), windows(FLAT), rates(read=39_700), 40_000).verdict == criteria.SUSTAINABLE  # 99.25 %


def test_a_shortfall_within_a_second_of_events_over_the_span_is_measurement_error():
    within = criteria.assess(summary(), windows(FLAT), rates(read=37_800, span_s=20), 40_000)  # 94.5 % + 5 % >= 99 %
    assert within.verdict == criteria.SUSTAINABLE
    beyond = criteria.assess(summary(), windows(FLAT), rates(read=37_400, span_s=20), 40_000)  # 93.5 % + 5 % < 99 %
    assert beyond.verdict == criteria.FLINK


def test_a_generator_behind_schedule_while_flink_reads_everything_is_generator_bound():
    late = criteria.assess(summary(lag_p99_ms=80), windows(FLAT), rates(), 40_000)  # limit: 5 % of 1 000 ms
    assert late.verdict == criteria.GENERATOR and "p99 send lag 80 ms" in late.why and "50 ms" in late.why
    assert criteria.assess(summary(lag_p99_ms=40), windows(FLAT), rates(), 40_000).verdict == criteria.SUSTAINABLE
    short = criteria.assess(summary(offered=36_000), windows(FLAT), rates(36_000, 36_000), 40_000)  # sent 90 % of the target
    assert short.verdict == criteria.GENERATOR


def test_a_generator_behind_while_flink_also_falls_behind_is_flinks_limit():
    verdict = criteria.assess(summary(offered=38_000, lag_p99_ms=400), windows(GROWING), rates(38_000, 30_000), 40_000)
    assert verdict.verdict == criteria.FLINK


def test_a_failure_while_latency_falls_steeply_is_a_start_up_transient_not_a_verdict():
    catching_up = np.linspace(10_000, 5_000, 14)  # the first job on a fresh TaskManager: read 55 % of the span
    verdict = criteria.assess(summary(lag_p99_ms=90), windows(catching_up), rates(read=22_000), 40_000)
    assert verdict.verdict == criteria.UNSTEADY and "not steady state" in verdict.why and "Flink read 55.0%" in verdict.why
    assert criteria.assess(summary(), windows(catching_up), rates(), 40_000).verdict == criteria.SUSTAINABLE  # caught up
    gentle = np.linspace(1_300, 1_200, 14)  # falling by less than 20 %: a failure is a failure
    assert criteria.assess(summary(), windows(gentle), rates(read=20_000), 40_000).verdict == criteria.FLINK


def test_a_failed_run_aborts_with_its_reason():
    verdict = criteria.assess(summary(status="failed"), windows([]), None, 40_000)
    assert verdict.verdict == criteria.ABORTED and "job x ended as FAILED" in verdict.why


def test_no_throughput_measured_is_not_sustainable():
    verdict = criteria.assess(summary(), windows(FLAT), None, 40_000)
    assert verdict.verdict == criteria.FLINK and "no throughput measured" in verdict.why


def throughput_table(read_per_s: float, start_ms: int, lag_ms: int, seconds: int, queries: int = 2) -> pd.DataFrame:
    """throughput.csv as the sampler writes it: every ~1.1 s, per source, the rate since its previous sample
    (nothing before the counters move, lag_ms after the generation's start)."""
    rows = []
    for time in range(start_ms - 3000, start_ms + lag_ms + seconds * 1000, 1100):
        rate = read_per_s / queries if time > start_ms + lag_ms else 0.0
        rows += [{"time": time, "job_vertex": f"Source: q0{q}/source -> q0{q}/join", "records_in_per_s": rate}
                 for q in range(queries)]
    rows.append({"time": start_ms, "job_vertex": "q00/window -> q00/sink", "records_in_per_s": 5.0})
    return pd.DataFrame(rows)


def sent_table(per_s: int, seconds: int) -> pd.DataFrame:
    return pd.DataFrame({"second": range(seconds), "sent": per_s})


def test_read_rate_fits_the_cumulative_reads_over_the_span_shifted_by_the_counters_lag():
    rate = criteria.read_rate(throughput_table(9_000, 1_000_000, 2_500, 20), sent_table(10_000, 20), 1_000_000,
                         5_000, 20_000)
    assert rate.metrics_lag_ms == pytest.approx(2_500, abs=1_100)
    assert rate.offered_per_s == pytest.approx(10_000) and rate.read_per_s == pytest.approx(9_000, rel=0.01)
    assert 13 < rate.span_s <= 15


def test_read_rate_without_flink_samples_is_none():
    assert criteria.read_rate(pd.DataFrame(), sent_table(10, 20), 0, 5_000, 20_000) is None
    silent = throughput_table(0, 1_000_000, 0, 20)
    assert criteria.read_rate(silent, sent_table(10, 20), 1_000_000, 5_000, 20_000) is None


# ---------------------------------------------------------------- the search, with a fake probe


def machine(capacity: float, generator_limit: float = math.inf, fail_at: int | None = None,
            unsteady: int = 0):
    """A fake stack: sustainable up to `capacity` events/s per query; the generator cannot send more than
    `generator_limit`; the probe at rate `fail_at` fails as a run; the first `unsteady` probes are unsteady."""
    rates: list[int] = []

    def probe(rate: int) -> cap.Probe:
        rates.append(rate)
        if len(rates) <= unsteady:
            return cap.Probe(rate, criteria.Assessment(criteria.UNSTEADY, "latency fell"))
        if rate == fail_at:
            return cap.Probe(rate, criteria.Assessment(criteria.ABORTED, "run failed: job ended as FAILED"))
        if rate > generator_limit:
            return cap.Probe(rate, criteria.Assessment(criteria.GENERATOR, "generator late"))
        verdict = criteria.SUSTAINABLE if rate <= capacity else criteria.FLINK
        return cap.Probe(rate, criteria.Assessment(verdict, verdict), f"run-{rate}")

    return probe, rates


@pytest.mark.parametrize("capacity", [1_000, 9_999, 10_000, 23_456, 61_000, 79_000])
def test_the_search_brackets_the_capacity_within_the_precision(capacity):
    probe, rates = machine(capacity)
    settings = cap.SearchSettings(start_rate=10_000, precision=0.05, max_probes=12)
    result = cap.search(probe, settings)
    assert result.bottleneck == criteria.FLINK and result.converged
    assert result.rate <= capacity < result.rate * 1.05
    lowest_failed = min(p.rate for p in result.probes if not p.passed)
    assert lowest_failed <= result.rate * 1.05
    assert [p.rate for p in result.probes] == rates


def test_the_ramp_doubles_until_a_failure_then_bisects_geometrically():
    probe, rates = machine(50_000)
    result = cap.search(probe, cap.SearchSettings(start_rate=10_000, factor=2, max_probes=12))
    assert rates[:4] == [10_000, 20_000, 40_000, 80_000]
    assert rates[4] == round(math.sqrt(40_000 * 80_000))
    assert len(rates) == 4 + 4  # a bracket of 2x shrinks to 5 % in ceil(log2(ln 2 / ln 1.05)) = 4 bisections
    assert result.rate == max(p.rate for p in result.probes if p.passed)


@pytest.mark.parametrize("capacity", [10_500, 23_456, 61_000, 123_377, 150_000])
def test_the_default_search_converges_within_its_probe_limit_up_to_16x_the_start_rate(capacity):
    """The default factor 4: a capacity up to 16x the start rate takes at most 3 ramp and 5 bisection probes."""
    probe, rates = machine(capacity)
    result = cap.search(probe, cap.SearchSettings())
    assert result.converged and len(rates) <= cap.SearchSettings().max_probes


def test_when_the_first_probe_fails_the_search_ramps_down():
    probe, rates = machine(3_000)
    result = cap.search(probe, cap.SearchSettings(start_rate=10_000, factor=2, max_probes=12))
    assert rates[:3] == [10_000, 5_000, 2_500]
    assert result.converged and result.rate <= 3_000 < result.rate * 1.05


def test_the_search_stops_at_max_probes_and_says_so():
    probe, rates = machine(61_000)
    result = cap.search(probe, cap.SearchSettings(factor=2, start_rate=10_000, max_probes=5))
    assert len(rates) == 5 and not result.converged
    assert result.bottleneck == criteria.FLINK  # bracketed (40 000 passed, 80 000 failed), just not to 5 %
    assert result.rate == 56_569 and "--max-probes 5" in result.stopped


def test_every_probe_passing_up_to_the_limit_is_not_reached():
    probe, _ = machine(1e9)
    limited = cap.search(probe, cap.SearchSettings(factor=2, start_rate=1_000, max_probes=3))
    assert limited.bottleneck == cap.NOT_REACHED and limited.rate == 4_000 and not limited.converged
    probe, rates = machine(1e9)
    capped = cap.search(probe, cap.SearchSettings(factor=2, start_rate=1_000, max_probes=10, max_rate=3_000))
    assert rates == [1_000, 2_000, 3_000] and capped.bottleneck == cap.NOT_REACHED
    assert "--max-rate 3000" in capped.stopped


def test_a_generator_bound_probe_ends_the_search_with_the_last_sustainable_rate():
    probe, rates = machine(capacity=1e9, generator_limit=30_000)
    result = cap.search(probe, cap.SearchSettings(factor=2, start_rate=10_000, max_probes=12))
    assert rates == [10_000, 20_000, 40_000]
    assert result.bottleneck == criteria.GENERATOR and result.rate == 20_000 and "generator, not Flink" in result.stopped


def test_a_failed_run_ends_the_search_with_a_clear_message():
    probe, rates = machine(capacity=50_000, fail_at=20_000)
    result = cap.search(probe, cap.SearchSettings(factor=2, start_rate=10_000, max_probes=12))
    assert rates == [10_000, 20_000] and result.bottleneck == criteria.ABORTED
    assert "probe at 20000 events/s per query failed: run failed" in result.stopped


def test_a_probe_that_lost_its_taskmanager_counts_as_unsustainable_when_the_stack_is_restarted():
    def probe(rate: int) -> cap.Probe:
        if rate >= 40_000:
            return cap.Probe(rate, criteria.lost_taskmanager(summary(status="failed"), restarted=True))
        return cap.Probe(rate, criteria.Assessment(criteria.SUSTAINABLE, "ok"))

    result = cap.search(probe, cap.SearchSettings(factor=2, start_rate=10_000, precision=0.15, max_probes=12))
    assert [p.rate for p in result.probes][:4] == [10_000, 20_000, 40_000, 28_284]
    assert result.converged and result.bottleneck == criteria.FLINK and 34_000 <= result.rate < 40_000
    assert result.probes[2].assessment.verdict == criteria.LOST


def test_a_lost_taskmanager_without_restarts_ends_the_search_and_names_the_option():
    verdict = criteria.lost_taskmanager(summary(status="failed"), restarted=False)
    assert verdict.verdict == criteria.ABORTED and "job x ended as FAILED" in verdict.why
    assert "--on-lost-taskmanager restart" in verdict.why


def _bench_probe_runs(tmp_path, status: str, lost: bool, restarts: bool) -> cap.Probe:
    from types import SimpleNamespace

    config = RunSpec(workload="ysb", duration_ms=30_000, warmup_ms=6_000)
    outcome = SimpleNamespace(run_dir=tmp_path, summary=summary(status=status))
    return cap.bench_probe(config, lambda _: outcome, THRESHOLDS, lost=lambda: lost, restarts=restarts)(10_000)


def test_a_probe_refused_before_it_started_ends_the_search_with_the_reason():
    def refused(_):
        raise KlinkError("--late-state aion keeps up to 900 MiB of p-buckets")

    config = RunSpec(workload="ysb", duration_ms=30_000, warmup_ms=6_000)
    probe = cap.bench_probe(config, refused, THRESHOLDS)(10_000)
    assert probe.assessment.verdict == criteria.ABORTED
    assert probe.assessment.why == "refused before it started: --late-state aion keeps up to 900 MiB of p-buckets"


@pytest.mark.parametrize("restarts, verdict", [(True, criteria.OUT_OF_MEMORY), (False, criteria.ABORTED)])
def test_a_job_out_of_heap_is_not_sustainable_even_when_its_taskmanager_stayed_up(tmp_path, restarts, verdict):
    from types import SimpleNamespace

    config = RunSpec(workload="ysb", duration_ms=30_000, warmup_ms=6_000)
    failed = {**summary(status="failed"), "reason": "job 9 ended as FAILED: java.lang.OutOfMemoryError: Java heap space"}
    outcome = SimpleNamespace(run_dir=tmp_path, summary=failed)
    probe = cap.bench_probe(config, lambda _: outcome, THRESHOLDS, lost=lambda: False, restarts=restarts)(40_000)
    assert probe.assessment.verdict == verdict and "its job ran out of heap" in probe.assessment.why
    assert criteria.OUT_OF_MEMORY in criteria.BROKE_THE_STACK


@pytest.mark.parametrize("lost, restarts, verdict", [(True, True, criteria.LOST), (True, False, criteria.ABORTED),
                                                     (False, True, criteria.ABORTED)])
def test_bench_probe_asks_about_the_taskmanagers_only_when_a_run_failed(tmp_path, lost, restarts, verdict):
    probe = _bench_probe_runs(tmp_path, "failed", lost, restarts)
    assert probe.assessment.verdict == verdict and ("lost a TaskManager" in probe.assessment.why) == lost


def test_an_unsteady_probe_is_repeated_once_at_the_same_rate():
    probe, rates = machine(25_000, unsteady=1)
    result = cap.search(probe, cap.SearchSettings(factor=2, start_rate=10_000, max_probes=12))
    assert rates[:3] == [10_000, 10_000, 20_000] and result.converged
    assert [p.assessment.verdict for p in result.probes[:2]] == [criteria.UNSTEADY, criteria.SUSTAINABLE]


def test_unsteady_twice_at_a_rate_counts_as_unsustainable():
    probe, rates = machine(25_000, unsteady=2)
    result = cap.search(probe, cap.SearchSettings(factor=2, start_rate=10_000, max_probes=12))
    assert rates[:3] == [10_000, 10_000, 5_000]
    assert 5_000 <= result.rate < 10_000 and result.converged


def test_nothing_sustainable_down_to_one_event_per_second():
    probe, rates = machine(capacity=0)
    result = cap.search(probe, cap.SearchSettings(start_rate=4, factor=2, max_probes=10))
    assert rates == [4, 2, 1] and result.rate is None and result.bottleneck == cap.NOT_REACHED


def test_the_search_reports_every_probe_as_it_finishes():
    probe, _ = machine(25_000)
    seen: list[int] = []
    result = cap.search(probe, cap.SearchSettings(max_probes=6), on_probe=lambda p: seen.append(p.rate))
    assert seen == [p.rate for p in result.probes]


@pytest.mark.parametrize("settings, message", [
    (cap.SearchSettings(start_rate=0), "--start-rate must be at least 1"),
    (cap.SearchSettings(factor=1.0), "--factor must be greater than 1"),
    (cap.SearchSettings(precision=0), "--precision must be between 0 and 1"),
    (cap.SearchSettings(max_probes=0), "--max-probes must be at least 1"),
    (cap.SearchSettings(start_rate=5_000, max_rate=1_000), "--max-rate (1000) must not be below --start-rate"),
])
def test_bad_search_settings_are_one_clear_error(settings, message):
    with pytest.raises(KlinkError, match=message.replace("(", r"\(").replace(")", r"\)")):
        settings.validate()


def test_capacity_document_lists_every_probe_with_its_criteria():
    verdict = criteria.assess(summary(), windows(GROWING), rates(read=30_000), 40_000)
    result = cap.SearchResult(20_000, criteria.FLINK, True, "done", [
        cap.Probe(20_000, criteria.assess(summary(), windows(FLAT), rates(), 40_000), "/r/a"),
        cap.Probe(21_000, verdict, "/r/b")])
    document = cap.capacity_document("ysb", {"workload": "ysb", "queries": 2, "rate": 21_000}, {"tm": 1},
                                     cap.Path("/r"), result, cap.SearchSettings(), THRESHOLDS)
    assert document["kind"] == "klinkctl-capacity" and document["rate"] == 20_000 and document["total_rate"] == 40_000
    assert document["config"]["rate"] == 20_000 and document["bottleneck"] == "flink"
    first, second = document["probes"]
    assert first["passed"] and not second["passed"] and second["run_dir"] == "/r/b"
    assert second["criteria"]["source_read"]["read_fraction"] == pytest.approx(0.75)
    assert not second["criteria"]["latency_trend"]["passed"]


@pytest.mark.parametrize("value, expected", [("auto", None), ("AUTO", None), ("0", 0), ("3", 3)])
def test_warmup_runs_are_auto_or_a_whole_number(value, expected):
    assert capacity_warmup.parse_warmup_runs(value) == expected


@pytest.mark.parametrize("value", ["-1", "two", "1.5", "\u0663", ""])
def test_other_warmup_runs_are_one_clear_error(value):
    with pytest.raises(KlinkError, match="--warmup-runs must be auto or a whole number"):
        capacity_warmup.parse_warmup_runs(value)


@pytest.mark.parametrize("jobs_before, expected", [(0, capacity_warmup.WARM_AFTER_JOBS), (3, capacity_warmup.WARM_AFTER_JOBS - 3),
                                                  (capacity_warmup.WARM_AFTER_JOBS, 0), (40, 0)])
def test_auto_warms_up_until_the_jobmanager_has_run_enough_jobs(monkeypatch, jobs_before, expected):
    monkeypatch.setattr(flink_jobs, "jobs_run", lambda spec: jobs_before)
    rule, runs = capacity_warmup.warmups_needed(spec=None, requested=None)
    assert runs == expected and f"had run {jobs_before} jobs" in rule


def test_a_requested_number_of_warmup_runs_is_run_whatever_the_stack_ran(monkeypatch):
    monkeypatch.setattr(flink_jobs, "jobs_run", lambda spec: pytest.fail("asked the stack"))
    assert capacity_warmup.warmups_needed(spec=None, requested=2) == ("--warmup-runs 2", 2)


def test_warmup_runs_are_shorter_than_probes_but_longer_than_their_warmup():
    probe = RunSpec(workload="ysb", duration_ms=30_000, warmup_ms=6_000)
    assert capacity_warmup.warmup_run_config(probe).duration_ms == capacity_warmup.WARMUP_RUN_MS
    long_warmup = RunSpec(workload="ysb", duration_ms=60_000, warmup_ms=20_000)
    assert capacity_warmup.warmup_run_config(long_warmup).duration_ms == 21_000
    short = RunSpec(workload="ysb", duration_ms=10_000, warmup_ms=2_000)
    assert capacity_warmup.warmup_run_config(short).duration_ms == 10_000


def test_warmup_runs_keep_a_rate_schedule_that_fits_them_and_run_steady_otherwise():
    """A probe's 4x surge at 10-20 s does not fit a 15 s warm-up run: refusing it there would stop the search
    half-way."""
    surge = RunSpec(workload="rides", duration_ms=30_000, warmup_ms=6_000, rate_schedule="surge:4x@10s+10s")
    assert capacity_warmup.warmup_run_config(surge).rate_schedule == "steady"
    early = surge.changed(rate_schedule="surge:4x@2s+10s")
    assert capacity_warmup.warmup_run_config(early).rate_schedule == "surge:4x@2s+10s"
    ramp = surge.changed(rate_schedule="ramp:4x")
    assert capacity_warmup.warmup_run_config(ramp).rate_schedule == "ramp:4x"


def _warmup_outcomes(tmp_path, compiling: list[float | None], status: str = "completed"):
    """A fake run(config, n): warm-up run n's resources.csv has its TaskManager at 25 % of a core, of which the
    compilers used compiling[n - 1] (None: no compiler rows, as containers write)."""
    from types import SimpleNamespace

    def run(config, number):
        run_dir = tmp_path / f"warmup-{number}"
        run_dir.mkdir(parents=True)
        rows = [{"time": t, "component": "taskmanager-1", "pid": 7, "cpu_percent": 25.0} for t in (1, 2)]
        if compiling[number - 1] is not None:
            rows += [{"time": t, "component": "jit:taskmanager-1", "pid": 7, "cpu_percent": 25.0 * compiling[number - 1]}
                     for t in (1, 2)]
        pd.DataFrame(rows).to_csv(run_dir / "resources.csv", index=False)
        return SimpleNamespace(run_dir=run_dir, summary={"status": status})
    return run


def test_auto_warmup_goes_on_until_the_compilers_settle(tmp_path):
    probe = RunSpec(workload="ysb", duration_ms=30_000, warmup_ms=6_000)
    run = _warmup_outcomes(tmp_path, [0.4, 0.3, 0.2, 0.15, 0.08, 0.3])
    assert [d.rsplit("-", 1)[1] for d in capacity_warmup.run_warmups(probe, 2, run, until_compiled=True)] == \
        ["1", "2", "3", "4", "5"]  # the 5th used 8 % <= JIT_SETTLED_SHARE


def test_a_stack_that_has_run_its_jobs_still_gets_one_run_to_show_its_compilers_settled(tmp_path):
    probe = RunSpec(workload="ysb", duration_ms=30_000, warmup_ms=6_000)
    assert len(capacity_warmup.run_warmups(probe, 0, _warmup_outcomes(tmp_path, [0.01]), until_compiled=True)) == 1
    assert capacity_warmup.run_warmups(probe, 0, _warmup_outcomes(tmp_path, [0.5])) == []  # a number: as asked


def test_without_compiler_rows_the_job_rule_alone_decides_and_the_runs_are_bounded(tmp_path):
    probe = RunSpec(workload="ysb", duration_ms=30_000, warmup_ms=6_000)
    assert len(capacity_warmup.run_warmups(probe, 3, _warmup_outcomes(tmp_path / "a", [None] * 9),
                                           until_compiled=True)) == 3
    never = _warmup_outcomes(tmp_path / "b", [0.5] * 99)
    assert len(capacity_warmup.run_warmups(probe, 1, never, until_compiled=True)) == capacity_warmup.MAX_AUTO_WARMUPS


def test_the_search_says_how_far_the_compilers_got_and_when_they_never_settled(tmp_path):
    probe = RunSpec(workload="ysb", duration_ms=30_000, warmup_ms=6_000)
    lines: list[str] = []
    capacity_warmup.run_warmups(probe, 1, _warmup_outcomes(tmp_path, [0.5] * 99), until_compiled=True,
                                report=lines.append)
    assert lines[0] == "  the JIT compilers used 50% of the TaskManagers' CPU"
    assert lines[-1].startswith(f"  the compilers had not settled after {capacity_warmup.MAX_AUTO_WARMUPS} warm-up runs")


# --- probe timing of late-event state ------------------------------------------------------------

def late_spec(**fields) -> RunSpec:
    return RunSpec(**{"workload": "average", "late_state": "aion", "allowed_lateness_ms": 20_000, "window_ms": 1000,
                      "warmup_ms": cap.PROBE_WARMUP_MS, "duration_ms": cap.PROBE_DURATION_MS, **fields})


def test_a_late_state_probe_warms_up_until_its_state_is_full_unless_told_otherwise():
    duration, warmup, note = cap.probe_times(late_spec(), warmup_given=False, duration_given=False)
    assert (duration, warmup) == (22_000 + cap.LATE_STATE_JUDGED_MS, 22_000) and "until the windows' state" in note
    # a given duration is kept, a given short warm-up too, with a note that says what it risks
    assert cap.probe_times(late_spec(), warmup_given=False, duration_given=True)[:2] == (30_000, 22_000)
    duration, warmup, note = cap.probe_times(late_spec(warmup_ms=5000), warmup_given=True, duration_given=False)
    assert (duration, warmup) == (30_000, 5000) and note.startswith("--warmup 5000 ms is shorter than the 21000 ms")
    # nothing to wait for: Klink's workloads, or a warm-up that covers the growth
    assert cap.probe_times(RunSpec(workload="ysb"), warmup_given=False, duration_given=False)[2] is None
    assert cap.probe_times(late_spec(warmup_ms=21_000, duration_ms=40_000), warmup_given=True,
                           duration_given=True) == (40_000, 21_000, None)


def test_a_simulated_machine_option_on_the_real_stack_is_refused_in_one_line(tmp_path):
    from click.testing import CliRunner

    from klinkctl.cli import main

    done = CliRunner().invoke(main, ["capacity", "ysb", "--node-cpu", "0.25", "--state-dir", str(tmp_path / "none")])
    assert done.exit_code == 2
    assert done.output.strip() == ("error: --node-cpu describes a simulated machine: add --simulate, or leave it out "
                                   "on the real stack")


@pytest.mark.parametrize("args, message", [
    (["--warmup-runs", "3"], "error: --warmup-runs is for the real stack; a simulated TaskManager neither warms up nor "
                             "is lost: leave it out with --simulate"),
    (["--policy", "os-priority"], "error: --policy os-priority sets OS priorities of real threads from outside "
                                  "Flink; the simulator has none: use bench for it")])
def test_what_a_simulated_search_cannot_do_is_refused_before_anything_is_written(tmp_path, args, message):
    from click.testing import CliRunner

    from klinkctl.cli import main

    done = CliRunner().invoke(main, ["capacity", "ysb", "--simulate", "--results", str(tmp_path / "results"), *args])
    assert done.exit_code == 2 and done.output.strip() == message
    assert not (tmp_path / "results").exists()
