"""`klinkctl report`: the t interval over repetitions, finding and grouping runs, the figure tables,
the figures themselves and index.html — on real run directories (tests/fixtures/report-sweep)."""

import base64
import itertools
import json
import math
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner
from matplotlib.container import BarContainer, ErrorbarContainer
from scipy import stats as sps

from klinkctl.cli import KlinkGroup, main
from klinkctl.errors import KlinkError
from klinkctl.results import report, summary as run_summary
from klinkctl.results.report import MissingData, mean_with_ci
from klinkctl.results.runset import EXPECTED, RunSet, load_runset
from klinkctl.results.report_build import build_report
from klinkctl.results.report_figures import FIGURES
from klinkctl.cli.report import report as report_command
from klinkctl.results.runs import load_run
from klinkctl.results.stats import t_interval

SWEEP = Path(__file__).parents[1] / "fixtures" / "report-sweep"
RUNS = SWEEP / "runs"
KLINK_RUN = RUNS / "ysb-klink-20261122-081434"
FAILED = "ysb-hr-20261122-073231"
STARVED = "ysb-fcfs-20261122-081706"
# the fixture's runs all use cores: 2, a non-default scheduler setting: every policy but default shows it
KLINK, FCFS, SBOX = "klink[C=2]", "fcfs[C=2]", "sbox[C=2]"
POLICIES = ["default", FCFS, SBOX, KLINK]  # the paper's order, as every figure draws them
INVALID = ["ysb-fcfs-20261122-081706", "ysb-fcfs-20261122-082901"]  # windows missing (fcfs at 60 000 ev/s)
WRITTEN = {"6a", "6b", "6d", "8", "9c", "9d"}


# --- the t interval ----------------------------------------------------------------------------

def test_t_interval_of_one_to_five_is_the_textbook_value():
    # mean 3, s = sqrt(2.5), s/sqrt(5) = 0.7071; t(0.975, 4) = 2.776445
    low, high = t_interval([1, 2, 3, 4, 5], 0.95)
    assert (low, high) == pytest.approx((3 - 2.776445 * 0.7071068, 3 + 2.776445 * 0.7071068), abs=1e-5)


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
def test_t_interval_matches_scipys_one_sample_t_test(confidence):
    data = np.random.default_rng(7).normal(1200.0, 150.0, 6)
    expected = sps.ttest_1samp(data, 0.0).confidence_interval(confidence)
    assert t_interval(data, confidence) == pytest.approx((expected.low, expected.high))


def test_t_interval_is_undefined_for_one_value_and_a_point_for_equal_values():
    assert all(math.isnan(bound) for bound in t_interval([5.0]))
    assert all(math.isnan(bound) for bound in t_interval([]))
    assert t_interval([4.0, 4.0, 4.0]) == (4.0, 4.0)


def test_mean_with_ci_counts_runs_and_values_per_group():
    frame = pd.DataFrame({"policy": ["a", "a", "a", "b", "b"], "value": [1.0, 2.0, 4.0, 3.0, np.nan]})
    table = mean_with_ci(frame, ["policy"], "value", 0.9).set_index("policy")
    assert table.loc["a", ["runs", "n", "mean"]].tolist() == [3, 3, pytest.approx(7 / 3)]
    assert (table.loc["a", "ci_low"], table.loc["a", "ci_high"]) == pytest.approx(t_interval([1, 2, 4], 0.9))
    assert table.loc["b", ["runs", "n", "mean"]].tolist() == [2, 1, 3.0]
    assert math.isnan(table.loc["b", "ci_low"]) and math.isnan(table.loc["b", "ci_high"])


# --- finding runs ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def runset():
    """Every completed run, the invalid ones included: the figures' arithmetic on all the fixture's data."""
    return load_runset(SWEEP, include_invalid=True)


def test_a_sweep_dir_uses_its_completed_runs_and_lists_the_others(runset):
    assert len(runset.runs) == 14
    assert runset.excluded["run"].tolist() == [FAILED]
    assert runset.excluded["status"].tolist() == ["failed"]
    assert "generator exited with code 2" in runset.excluded["reason"].iloc[0]
    assert runset.sweep_text.startswith("# Fixture")


def test_varying_bench_parameters_become_keys_and_queries_falls_back_to_rate(runset):
    assert runset.varying == ["rate", "policy"]  # config.yaml order; seed and queries are the same everywhere
    assert runset.group_keys == ["policy", "rate"]
    assert runset.x_param == "rate" and runset.others("rate") == []


def test_variants_named_after_their_policies_make_no_panels_but_other_variants_do(runset):
    named = [replace(run, params={**run.params, "variant": run.params["policy"]}) for run in runset.runs]
    assert RunSet(runset.root, named, runset.excluded).others("rate") == []
    two_per_policy = [replace(run, params={**run.params, "variant": f"v{i % 2}"}) for i, run in enumerate(runset.runs)]
    assert RunSet(runset.root, two_per_policy, runset.excluded).others("rate") == ["variant"]


def test_a_variants_own_setting_is_neither_a_panel_nor_the_x_axis(runset):
    policies = sorted({run.params["policy"] for run in runset.runs})
    # one variant sets a numeric option of its own (latency-balance's --balance-period, in tail-when-speeds.yaml)
    own = [replace(run, params={**run.params, "balance_period_ms": 1000 if run.params["policy"] == policies[0]
                                else 5000}) for run in runset.runs]
    assert RunSet(runset.root, own, runset.excluded).x_param == "rate"
    assert RunSet(runset.root, own, runset.excluded).others("rate") == []


def test_the_rate_and_capacity_of_runs_at_a_load_make_no_panels(runset):
    at_load = [replace(run, params={**run.params, "load": 1.0, "capacity": f"cap-{run.params['rate']}.json"})
               for run in runset.runs]
    assert RunSet(runset.root, at_load, runset.excluded).others() == []
    assert runset.others() == ["rate"]  # at a fixed rate, the rate is a setting of its own


def test_a_parameter_the_workload_sets_is_no_x_axis(runset):
    workloads = {"ysb": None, "nyt": 1000, "kmeans": None}  # NYT's slide: the workloads' own defaults
    runs = [replace(run, params={**run.params, "workload": workload, "slide_ms": slide})
            for run, (workload, slide) in zip(runset.runs, itertools.cycle(workloads.items()))]
    fixed_rate = [replace(run, params={**run.params, "rate": 1000}) for run in runs]
    assert RunSet(runset.root, runs, runset.excluded).x_param == "rate"
    assert RunSet(runset.root, fixed_rate, runset.excluded).x_param == "queries"


def test_repetitions_come_from_the_index(runset):
    index = pd.read_csv(SWEEP / "index.csv").set_index("run_id")["repetition"]
    params = runset.params.set_index("run")["repetition"]
    assert (params == index.loc[params.index]).all()


def test_a_directory_of_run_dirs_finds_the_same_runs_without_an_index(runset):
    scanned = load_runset(RUNS, include_invalid=True)
    assert sorted(run.run_id for run in scanned.runs) == sorted(run.run_id for run in runset.runs)
    assert scanned.excluded["run"].tolist() == [FAILED] and scanned.sweep_text is None
    assert set(scanned.params["repetition"]) == {1, 2}


def test_invalid_runs_are_left_out_by_default_and_counted_in_one_note():
    valid = load_runset(SWEEP)
    assert len(valid.runs) == 12 and [run.run_id for run in valid.invalid_runs] == INVALID
    assert valid.excluded["run"].tolist() == [FAILED, *INVALID]
    assert valid.excluded["status"].tolist() == ["failed", "invalid", "invalid"]
    assert set(valid.excluded["reason"].iloc[1:]) == {"censored windows"}
    assert "left out 2 invalid runs (2 censored windows); --include-invalid to include them" in valid.notes


def test_a_run_set_of_invalid_runs_only_is_one_line(tmp_path):
    shutil.copytree(RUNS / STARVED, tmp_path / STARVED)
    with pytest.raises(KlinkError, match=r"left out 1 invalid run \(1 censored windows\).*nothing else to report"):
        load_runset(tmp_path)
    assert len(load_runset(tmp_path, include_invalid=True).runs) == 1


def test_a_single_run_dir_is_a_report_of_one_run():
    single = load_runset(KLINK_RUN)
    assert [run.run_id for run in single.runs] == [KLINK_RUN.name]
    assert single.varying == [] and single.x_param == "queries"


def test_a_starved_run_is_used_but_noted(runset):
    assert any(note.startswith(STARVED) for note in runset.notes)
    table = report.run_table(runset).set_index("run")
    assert table.loc[STARVED, "windows"] == 0 and math.isnan(table.loc[STARVED, "mean_latency_ms"])


def test_an_index_row_without_a_run_dir_is_left_out_with_its_reason(tmp_path):
    sweep = copy_sweep(tmp_path)
    index = pd.read_csv(sweep / "index.csv", dtype=str, keep_default_na=False)
    extra = index.iloc[[0]].assign(run_id="never-started", status="failed", run_dir="", reason="stack down")
    pd.concat([index, extra]).to_csv(sweep / "index.csv", index=False)
    excluded = load_runset(sweep).excluded.set_index("run")
    assert excluded.loc["never-started"].tolist() == ["failed", "stack down"]


def test_runs_with_the_same_id_are_named_by_their_path(tmp_path):
    for copy in ("a", "b"):
        shutil.copytree(KLINK_RUN, tmp_path / copy / KLINK_RUN.name)
    ids = sorted(run.run_id for run in load_runset(tmp_path).runs)
    assert ids == [f"a/{KLINK_RUN.name}", f"b/{KLINK_RUN.name}"]


def one_line_error(path) -> str:
    with pytest.raises(KlinkError) as caught:
        load_runset(path)
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_a_missing_dir_is_one_line(tmp_path):
    assert "no such directory" in one_line_error(tmp_path / "nope")


def test_a_dir_without_runs_is_one_line(tmp_path):
    assert "no runs found" in one_line_error(tmp_path)


def test_a_dir_without_completed_runs_is_one_line(tmp_path):
    shutil.copytree(RUNS / FAILED, tmp_path / FAILED)
    assert "none of the 1 runs completed (failed: 1)" in one_line_error(tmp_path)


# --- figure tables -----------------------------------------------------------------------------

def runs_of(runset, **params):
    return [run for run in runset.runs if all(run.params[key] == value for key, value in params.items())]


def test_latency_means_average_each_runs_mean_with_a_t_interval(runset):
    table = report.latency_means(runset).set_index(["policy", "rate"])
    means = [load_run(run.run_dir).latency.mean() for run in runs_of(runset, policy="default", rate=10000)]
    row = table.loc[("default", 10000)]
    assert row["n"] == 2 and row["mean"] == pytest.approx(np.mean(means))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(t_interval(means))
    starved = table.loc[(FCFS, 60000)]
    assert starved["runs"] == 2 and starved["n"] == 1 and math.isnan(starved["ci_low"])
    assert table.loc[(SBOX, 60000), "n"] == 1


def test_latency_percentiles_pool_the_repetitions(runset):
    table = report.latency_percentiles(runset)
    klink = table[(table["policy"] == KLINK) & (table["rate"] == 60000)].set_index("percentile")
    pooled = np.concatenate([run.data.latency for run in runs_of(runset, policy=KLINK, rate=60000)])
    assert klink.index.tolist() == list(range(40, 100))
    assert klink.loc[99, "latency_ms"] == pytest.approx(np.percentile(pooled, 99))
    assert klink.loc[40, "windows"] == pooled.size


def test_slowdown_is_missing_without_runs_of_one_query(runset):
    with pytest.raises(MissingData, match=r"queries = 1.*per-operator execution costs"):
        report.slowdowns(runset)


def test_slowdown_divides_by_the_same_policy_with_one_query(tmp_path):
    # relabelled copies of real runs (one per policy as queries = 1): checks the arithmetic only
    root = tmp_path / "runs"
    for run in ("ysb-default-20261122-081845", "ysb-default-20261122-082353", "ysb-klink-20261122-081434"):
        shutil.copytree(RUNS / run, root / run)
    for run in ("ysb-default-20261122-081845", "ysb-klink-20261122-081434"):
        shutil.copytree(RUNS / run, root / f"{run}-alone")
        set_bench(root / f"{run}-alone", queries=1)
    runset = load_runset(root)
    table = report.slowdowns(runset).set_index(["policy", "queries"])
    assert table.loc[("default", 1), "mean"] == pytest.approx(1.0)
    alone = load_run(root / "ysb-default-20261122-081845-alone").latency.mean()
    loaded = [load_run(root / run).latency.mean() / alone
              for run in ("ysb-default-20261122-081845", "ysb-default-20261122-082353")]
    assert table.loc[("default", 4), "mean"] == pytest.approx(np.mean(loaded))
    assert table.loc[(KLINK, 4), "n"] == 1


def test_throughput_comes_from_summary_json(runset):
    table = report.throughputs(runset)
    row = table[(table["metric"] == "flink_source_records_per_s") & (table["policy"] == KLINK)
                & (table["rate"] == 10000)].iloc[0]
    values = [run.summary["throughput"]["flink_source_records_per_s"] for run in runs_of(runset, policy=KLINK,
                                                                                          rate=10000)]
    assert row["mean"] == pytest.approx(np.mean(values))
    assert set(table["metric"]) == {"flink_source_records_per_s", "generator_events_per_s"}


def test_estimator_accuracy_is_per_estimator_of_the_klink_runs(runset):
    table = report.estimator_accuracy(runset)
    assert set(table["policy"]) == {KLINK} and set(table["estimator"]) == {"klink", "lr"}
    row = table[(table["estimator"] == "lr") & (table["rate"] == 10000)].iloc[0]
    fractions = [run.summary["estimator"]["lr"]["inside_fraction"] for run in runs_of(runset, policy=KLINK,
                                                                                       rate=10000)]
    assert row["mean"] == pytest.approx(100 * np.mean(fractions)) and row["confidence"] == 0.95
    assert row["delay"] == "const:0ms"
    summaries = [run.summary["estimator"]["lr"] for run in runs_of(runset, policy=KLINK, rate=10000)]
    inside = sum(round(acc["swms"] * acc["inside_fraction"]) for acc in summaries)
    assert row["inside"] == inside and row["swms"] == sum(acc["swms"] for acc in summaries)
    assert row["pooled_inside_pct"] == pytest.approx(100 * inside / row["swms"])
    assert row["pooled_ci_low"] < row["pooled_inside_pct"] < row["pooled_ci_high"] <= 100


def test_scheduler_overhead_is_cycle_time_over_cycle_length(runset):
    table = report.scheduler_overhead(runset)
    assert set(table["policy"]) == {FCFS, SBOX, KLINK}  # default runs no scheduler
    klink = runs_of(runset, policy=KLINK, rate=10000)
    expected = [100 * run.summary["scheduler"]["mean_cycle_us"] / 120_000 for run in klink]
    row = table[(table["policy"] == KLINK) & (table["rate"] == 10000)].iloc[0]
    assert row["mean"] == pytest.approx(np.mean(expected)) and row["cycles"] == sum(
        run.summary["scheduler"]["cycles"] for run in klink)


def test_scheduler_and_estimator_fall_back_to_the_csvs(tmp_path):
    run_dir = shutil.copytree(KLINK_RUN, tmp_path / KLINK_RUN.name)
    summary = json.loads((run_dir / "summary.json").read_text())
    del summary["scheduler"], summary["estimator"]
    (run_dir / "summary.json").write_text(json.dumps(summary))
    runset = load_runset(run_dir)
    expected = run_summary.scheduler_overhead(pd.read_csv(run_dir / "scheduler.csv"))
    assert report.scheduler_overhead(runset)["cycles"].iloc[0] == expected["cycles"] == 100
    accuracy = report.estimator_accuracy(runset).set_index("estimator")
    swms = pd.read_csv(run_dir / "estimator.csv")
    measured_lr = swms[(swms["estimator"] == "lr") & (swms["deadline_ms"] >= summary["warmup_until_ms"])]
    assert accuracy.loc["klink", "mean"] == 100.0 and accuracy.loc["lr", "swms"] == len(measured_lr) == 22
    assert accuracy.loc["lr", "median_width_ms"] == pytest.approx(
        (measured_lr["t_max_ms"] - measured_lr["t_min_ms"]).median())
    assert accuracy.loc["lr", "skipped"] == 0  # an estimator.csv from before the skipped column


def test_a_default_run_alone_has_no_scheduler_or_estimator_data():
    default = load_runset(RUNS / "ysb-default-20261122-081845")
    with pytest.raises(MissingData, match="scheduler.csv"):
        report.scheduler_overhead(default)
    with pytest.raises(MissingData, match="estimator.csv"):
        report.estimator_accuracy(default)


# --- the report --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_report(SWEEP, tmp_path_factory.mktemp("report"))


def sections(built):
    return {section.spec.key: section for section in built.sections}


def test_every_figure_with_data_is_written_as_png_and_svg(built):
    written = sections(built)
    assert {key for key, section in written.items() if section.skipped is None} == WRITTEN
    for key in WRITTEN:
        assert [path.suffix for path in written[key].files] == [".png", ".svg"]
        assert all(path.is_file() and path.stat().st_size > 1000 for path in written[key].files)
    assert written["6a"].stem == "fig6a_latency_vs_rate" and written["6d"].stem == "fig6d_throughput_vs_rate"
    assert written["6c"].skipped.startswith("slowdown needs runs of a query alone")


def test_the_cdf_table_has_a_row_per_configuration_with_its_pooled_windows(built):
    table = sections(built)["6b"].table
    assert len(table) == 7 and list(table.columns[-6:])  # fcfs at 60 000 ev/s: both runs invalid == ["p40_ms", "p50_ms", "p75_ms", "p90_ms", "p95_ms", "p99_ms"]
    klink = table[(table["policy"] == KLINK) & (table["rate"] == 10000)].iloc[0]
    assert klink["windows"] == sum(load_run(RUNS / run).latency.size for run in
                                   ("ysb-klink-20261122-081434", "ysb-klink-20261122-082536"))


def errorbar_labels(ax):
    return [container.get_label() for container in ax.containers if isinstance(container, ErrorbarContainer)]


def test_fig6a_has_one_errorbar_line_per_policy_against_rate(built):
    figure = sections(built)["6a"].figure
    [ax] = figure.axes
    assert errorbar_labels(ax) == POLICIES
    assert ax.get_xlabel().startswith("rate") and ax.get_ylabel() == "mean SWM latency (ms)"
    klink = next(c for c in ax.containers if isinstance(c, ErrorbarContainer) and c.get_label() == KLINK)
    assert klink.lines[0].get_xdata().tolist() == [10000, 60000]


def test_fig6b_has_a_cdf_line_per_policy_in_a_panel_per_rate(built):
    figure = sections(built)["6b"].figure
    assert [ax.get_title() for ax in figure.axes] == ["rate=10000", "rate=60000"]
    for ax, policies in zip(figure.axes, (POLICIES, [p for p in POLICIES if p != FCFS])):
        assert [line.get_label() for line in ax.get_lines()] == policies
        assert ax.get_lines()[0].get_ydata().tolist() == list(range(40, 100))


def test_fig6d_has_a_row_per_throughput_metric(built):
    axes = sections(built)["6d"].figure.axes
    assert [ax.get_ylabel() for ax in axes] == ["Flink sources (records/s)", "generator (events/s)"]
    assert all(errorbar_labels(ax) == POLICIES for ax in axes)


def test_fig8_has_memory_and_cpu_per_component_and_a_line_per_configuration(built):
    figure = sections(built)["8"].figure
    titles = [ax.get_title() for ax in figure.axes]
    assert titles[:4] == ["taskmanager-1", "jobmanager", "kafka", "generator"] and titles[4:] == titles[:4]
    assert {ax.get_ylabel() for ax in figure.axes[:4]} == {"RSS (MB)"}
    assert {ax.get_ylabel() for ax in figure.axes[4:]} == {"CPU (%)"}
    labels = [line.get_label() for line in figure.axes[0].get_lines()]
    assert labels == [f"{policy}, rate={rate}" for rate in (10000, 60000) for policy in POLICIES
                      if (policy, rate) != (FCFS, 60000)]


def test_fig9c_and_9d_have_a_bar_series_per_estimator_and_per_scheduling_policy(built):
    estimator, scheduler = sections(built)["9c"].figure, sections(built)["9d"].figure
    for ax in estimator.axes:
        assert [c.get_label() for c in ax.containers if isinstance(c, BarContainer)] == ["klink-95", "lr-95"]
        assert [tick.get_text() for tick in ax.get_xticklabels()] == ["const:0ms"]
    for ax, policies in zip(scheduler.axes, ([FCFS, SBOX, KLINK], [SBOX, KLINK])):  # fcfs at 60 000: invalid
        assert [c.get_label() for c in ax.containers if isinstance(c, BarContainer)] == policies


def test_index_html_inlines_every_plot_and_lists_skips_exclusions_and_configs(built):
    html = built.html.read_text()
    for section in built.written:
        png = next(path for path in section.files if path.suffix == ".png")
        assert base64.b64encode(png.read_bytes()).decode() in html
        assert f'href="{section.stem}.svg"' in html
    assert "Slowdown — skipped: slowdown needs runs of a query alone" in html
    assert FAILED in html and "generator exited with code 2" in html and STARVED in html
    assert "Student t interval" in html and "plotted against rate instead" in html
    assert html.count("<details>") == 12 and "taskmanager_memory: 1536m" in html
    assert "repetitions: 2" in html  # sweep.yaml
    assert 'src="http' not in html and "<script" not in html  # self-contained


def set_bench(run_dir: Path, **values) -> None:
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    config["bench"].update(values)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config))


def copy_sweep(tmp_path: Path) -> Path:
    return shutil.copytree(SWEEP, tmp_path / "sweep")


# --- the command -------------------------------------------------------------------------------

def invoke(*args):
    group = KlinkGroup("klinkctl")  # turns a KlinkError into "error: ..." and exit 2, as main does
    group.add_command(report_command)
    return CliRunner().invoke(group, ["report", *map(str, args)])


def test_the_command_writes_into_the_run_dir_and_says_what_it_skipped(tmp_path):
    run_dir = shutil.copytree(RUNS / "ysb-default-20261122-081845", tmp_path / "run")
    result = invoke(run_dir)
    assert result.exit_code == 0, result.output
    assert (run_dir / "report" / "index.html").is_file()
    assert (run_dir / "report" / "fig6a_latency_vs_queries.svg").is_file()
    assert f"report: {run_dir / 'report' / 'index.html'}" in result.output
    assert "Fig. 9d skipped: no run has scheduler data" in result.output
    assert "Fig. 9c skipped: no run has estimator data" in result.output
    assert load_runset(run_dir).runs  # the report directory is not taken for a run


def test_the_command_refuses_bad_input_in_one_line(tmp_path):
    result = invoke(tmp_path / "nope")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"error: {tmp_path / 'nope'}: no such directory; "
                                                  f"{EXPECTED}"]
    assert invoke(tmp_path, "--confidence", "1.5").exit_code == 2


def test_report_is_a_klinkctl_command():
    assert "report" in main.commands


def test_every_figure_has_a_distinct_key_and_stem(runset):
    assert len({spec.key for spec in FIGURES}) == len(FIGURES)
    assert len({spec.stem(runset) for spec in FIGURES}) == len(FIGURES)


def test_memory_mode_figure_shows_live_heap_and_memory_mode_cycles_per_second(tmp_path):
    run_dir = shutil.copytree(KLINK_RUN, tmp_path / KLINK_RUN.name)
    cycles = pd.read_csv(run_dir / "scheduler.csv")
    busy = cycles["tasks"] > 0
    cycles["memory_used"] = np.where(busy, 0.9, 0.0)
    cycles["why"] = np.where(busy, "mm:q00=1", "")
    cycles.to_csv(run_dir / "scheduler.csv", index=False)
    table = report.memory_mode(load_runset(run_dir))
    assert set(table.columns) >= {"second", "memory_used", "memory_mode"}
    assert np.allclose(table["memory_used"], 0.9) and np.allclose(table["memory_mode"], 1.0)  # idle cycles left out
    assert table["second"].is_monotonic_increasing and table["second"].min() == 0


def test_the_memory_mode_figure_is_skipped_without_memory_data(runset):
    with pytest.raises(MissingData, match="memory_used"):
        report.memory_mode(runset)


def test_the_late_state_figure_has_a_line_per_late_state_against_the_lateness(tmp_path):
    # relabelled copies of real runs (two late states × two latenesses): checks the arithmetic and the grouping
    root = tmp_path / "runs"
    runs = ["ysb-default-20261122-081845", "ysb-default-20261122-082353", "ysb-klink-20261122-081434",
            "ysb-fcfs-20261122-082901"]
    cells = [("flink-heap", 10_000, "watermark", 300), ("flink-heap", 20_000, "watermark", 400),
             ("aion", 10_000, "staleness", 100), ("aion", 20_000, "staleness", 120)]
    for index, (run, (state, lateness, trigger, live_mb)) in enumerate(zip(runs, cells)):
        run_dir = shutil.copytree(RUNS / run, root / f"{run}-{index}")
        set_bench(run_dir, policy="default", rate=10000, late_state=state, allowed_lateness_ms=lateness,
                  late_trigger=trigger)
        summary = json.loads((run_dir / "summary.json").read_text())
        summary["status"] = "completed"
        summary["late_state"] = {"live_heap_bytes": {"median": live_mb * 2**20}, "gc_share": 0.01,
                                 "heap_used_bytes": {"median": 2 * live_mb * 2**20}}
        (run_dir / "summary.json").write_text(json.dumps(summary))
    runset = load_runset(root, include_invalid=True)
    assert runset.x_param == "allowed_lateness_ms"
    table = report.late_state_memory(runset)
    live = table[table["metric"] == "live_heap_mb"].set_index(["policy", "allowed_lateness_ms"])["mean"]
    assert live.to_dict() == {("aion", 10_000): 100, ("aion", 20_000): 120, ("flink-heap", 10_000): 300,
                              ("flink-heap", 20_000): 400}
    assert set(table["metric"]) == {"live_heap_mb", "heap_used_mb", "gc_percent", "flink_source_records_per_s"}
    spec = next(spec for spec in FIGURES if spec.key == "late")
    figure = spec.draw(table, runset)
    assert len(figure.axes) == 4  # one panel per metric: the trigger follows the late state, no panels of its own
    assert [text.get_text() for text in figure.axes[0].get_legend().get_texts()] == ["aion", "flink-heap"]


def test_the_late_trigger_figure_sets_each_triggers_staleness_against_its_executions(tmp_path):
    # relabelled copies of real runs: two per trigger, each with the staleness summary AION's runs write
    root = tmp_path / "runs"
    runs = ["ysb-default-20261122-081845", "ysb-default-20261122-082353", "ysb-klink-20261122-081434",
            "ysb-fcfs-20261122-082901"]
    cells = [("staleness", 4.0, 0.04), ("staleness", 4.2, 0.06), ("delta-t", 9.0, 0.02), ("delta-t", 11.0, 0.03)]
    for index, (run, (trigger, executions, staleness)) in enumerate(zip(runs, cells)):
        run_dir = shutil.copytree(RUNS / run, root / f"{run}-{index}")
        set_bench(run_dir, policy="default", rate=2000, late_state="aion", late_trigger=trigger)
        summary = json.loads((run_dir / "summary.json").read_text())
        summary["status"] = "completed"
        # windows 1 and 2 s fired before window 1 s was cleaned up (1 s lateness): planned on the prior, left out
        per_window = [{"query": "q00", "window_end": end, "executions": 99 if end <= 2000 else executions,
                       "planned": 0, "late_events": 10, "max_staleness": 0.9 if end <= 2000 else staleness,
                       "bound_ms": 1000} for end in (1000, 2000, 3000, 4000)]
        summary["late_state"] = {"staleness": {"bound": 0.05, "per_window": per_window}}
        (run_dir / "summary.json").write_text(json.dumps(summary))
    runset = load_runset(root, include_invalid=True)
    table = report.late_trigger_staleness(runset).set_index("late_trigger")
    assert table.loc["staleness", ["executions", "max_staleness", "within_bound_pct"]].tolist() == \
        pytest.approx([4.1, 0.05, 50])
    assert table.loc["delta-t", ["executions", "max_staleness", "within_bound_pct"]].tolist() == \
        pytest.approx([10, 0.025, 100])
    assert (table.loc["delta-t", "executions_low"], table.loc["delta-t", "executions_high"]) == \
        pytest.approx(t_interval([9.0, 11.0], runset.confidence))
    spec = next(spec for spec in FIGURES if spec.key == "9s")
    figure = spec.draw(report.late_trigger_staleness(runset), runset)
    assert len(figure.axes[0].containers) == 2  # one point with its error bars per trigger
    assert sorted(text.get_text() for text in figure.axes[0].get_legend().get_texts()) == ["delta-t", "staleness"]
    assert table.loc["delta-t", "learned_windows"] == 4  # two learned windows in each of its two runs
    with pytest.raises(MissingData, match="late_state.staleness"):
        report.late_trigger_staleness(load_runset(SWEEP, include_invalid=True))
