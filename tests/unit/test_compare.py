"""`klinkctl compare`: loading run directories and CSVs, the comparison table, and bad input."""

import csv
import shutil
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from klinkctl.cli import KlinkGroup
from klinkctl.errors import KlinkError
import yaml

from klinkctl.results.compare import COLUMNS, PER_RUN_COLUMNS, compare_groups, compare_per_run, render
from klinkctl.cli.compare import compare
from klinkctl.results.runs import expand_inputs, load_run

HEADER = ["run", "policy", "query", "window_start", "window_end", "swm", "fired_at", "output_at",
          "swm_latency_ms", "keys", "events", "late_dropped", "warmup"]
EXPECTED = ("expected a run directory with latency.csv, a latency CSV file, or a directory of run directories "
            "(e.g. a sweep directory)")
NO_SUMMARY = {"comparison": {"valid": False, "invalid_reasons": ["no summary.json"]}}
SWEEP = Path(__file__).parents[1] / "fixtures" / "report-sweep"


def write_latency(path, name, policy, latencies, warmup_latencies=(), header=HEADER):
    """A latency.csv: warm-up rows (latency 10000, to be left out) first, as the runner writes them."""
    rows = [(value, "true") for value in warmup_latencies] + [(value, "false") for value in latencies]
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for index, (latency, warm) in enumerate(rows):
            record = dict(zip(HEADER, [name, policy, "q1", index * 1000, index * 1000 + 1000, index * 1000 + 1000,
                                       0, 0, latency, 5, 50, 0, warm]))
            writer.writerow([record.get(column, "") for column in header])
    return path


def make_run(root, name, policy, latencies, status="completed", reason=None, summary=True, bench=None,
             **summary_fields):
    """A run directory; with ``bench`` also a config.yaml (its resolved bench settings)."""
    run_dir = root / name
    run_dir.mkdir(parents=True)
    write_latency(run_dir / "latency.csv", name, policy, latencies, warmup_latencies=[10_000.0] * 5)
    if summary:
        (run_dir / "summary.json").write_text(json.dumps({
            "status": status, "reason": reason, "run": name, "policy": policy,
            "swm_latency_ms": {"mean": float(np.mean(latencies)) if len(latencies) else None},
            "windows_censored_total": 0,
            "throughput": {"generator_events_per_s": 5000.0, "flink_records_in_per_s": 4990.0},
            "generator": {"events_sent": 100, "events_scheduled": 100, "achieved_rate": 5000.0,
                          "target_rate": 5000, "behind_fraction": 0.0, "fell_behind": False},
            **summary_fields}))
    if bench is not None:
        (run_dir / "config.yaml").write_text(yaml.safe_dump({"run": name, "bench": {"policy": policy, **bench}}))
    return run_dir


@pytest.fixture
def runs(tmp_path):
    rng = np.random.default_rng(0)
    base = rng.gamma(4.0, 25.0, 300)
    return {
        "fifo": make_run(tmp_path, "run-fifo", "fifo", base),
        "edf": make_run(tmp_path, "run-edf", "edf", base * 2),
        "same": make_run(tmp_path, "run-same", "fifo", rng.gamma(4.0, 25.0, 300), status="failed",
                         reason="TaskManager lost"),
    }


def invoke(*args):
    group = KlinkGroup("klinkctl")  # turns a KlinkError into "error: ..." and exit 2, as main does
    group.add_command(compare)
    return CliRunner().invoke(group, ["compare", *map(str, args)])


def repetitions(root, policy, means, bench=None, spread=0.05, **summary_fields):
    """One run per value of ``means`` (seeds 1, 2, …): 50 windows around that mean."""
    rng = np.random.default_rng(len(means))
    return [make_run(root, f"{policy}-{seed}", policy, mean * (1 + spread * rng.standard_normal(50)),
                     bench={"seed": seed, **(bench or {})}, **summary_fields)
            for seed, mean in enumerate(means, start=1)]


# --- loading ---------------------------------------------------------------------------------

def test_a_run_dir_loads_without_its_warmup_rows(runs):
    run = load_run(runs["fifo"])
    assert run.label == "run-fifo" and run.policy == "fifo"
    assert run.latency.size == 300 and run.warmup_rows == 5
    assert run.latency.max() < 10_000.0
    assert run.summary["status"] == "completed"


def test_warmup_values_are_read_case_insensitively(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("swm_latency_ms,warmup\n1,True\n2,FALSE\n3,false\n4,\n")
    assert load_run(path).latency.tolist() == [2.0, 3.0, 4.0]


def test_a_latency_csv_alone_is_labelled_by_its_stem_and_has_no_summary(tmp_path):
    path = write_latency(tmp_path / "baseline.csv", "r", "fifo", [1.0, 2.0, 3.0], warmup_latencies=[99.0])
    run = load_run(path)
    assert run.label == "baseline" and run.policy == "fifo" and run.summary == NO_SUMMARY
    assert run.latency.tolist() == [1.0, 2.0, 3.0]


def test_a_latency_csv_inside_a_run_dir_is_read_as_that_run(runs):
    run = load_run(runs["edf"] / "latency.csv")
    assert run.label == "run-edf" and run.summary["policy"] == "edf"


def test_a_run_dir_without_summary_still_loads(tmp_path):
    run = load_run(make_run(tmp_path, "bare", "fifo", [1.0, 2.0], summary=False))
    assert run.summary == NO_SUMMARY and run.latency.size == 2 and run.bench == {}


def test_mixed_policies_give_no_policy(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_text("policy,swm_latency_ms\nfifo,1\nedf,2\n")
    assert load_run(path).policy is None


def test_a_csv_without_warmup_column_keeps_every_row_and_skips_empty_latencies(tmp_path):
    path = tmp_path / "lat.csv"
    path.write_text("swm_latency_ms\n1.5\n\n2.5\n")
    assert load_run(path).latency.tolist() == [1.5, 2.5]


def one_line_error(path):
    with pytest.raises(KlinkError) as caught:
        load_run(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and EXPECTED in message
    return message


def test_a_missing_path_is_one_line_naming_it(tmp_path):
    assert "no such file or directory" in one_line_error(tmp_path / "nope")


def test_a_dir_without_latency_csv_is_one_line(tmp_path):
    (tmp_path / "empty-run").mkdir()
    assert "no latency.csv" in one_line_error(tmp_path / "empty-run")


def test_a_csv_without_the_latency_column_is_one_line(tmp_path):
    path = write_latency(tmp_path / "lat.csv", "r", "fifo", [1.0], header=[c for c in HEADER if c != "swm_latency_ms"])
    assert "no swm_latency_ms column" in one_line_error(path)


def test_an_empty_csv_is_one_line(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    assert "empty" in one_line_error(tmp_path / "empty.csv")


def test_a_non_numeric_latency_names_the_line(tmp_path):
    path = tmp_path / "lat.csv"
    path.write_text("swm_latency_ms\n1\nabc\n")
    assert "line 3" in one_line_error(path)


def test_a_broken_summary_is_one_line(tmp_path):
    run_dir = make_run(tmp_path, "r", "fifo", [1.0, 2.0])
    (run_dir / "summary.json").write_text("{not json")
    with pytest.raises(KlinkError, match="summary.json: not valid JSON"):
        load_run(run_dir)



def test_a_summary_gets_its_comparison_verdict_on_loading(tmp_path):
    censored = load_run(make_run(tmp_path, "r", "fifo", [1.0, 2.0], windows_censored_total=3))
    assert censored.summary["comparison"] == {"valid": False, "invalid_reasons": ["censored windows"]}
    assert censored.validity.reasons == ["censored windows"]


def test_a_directory_of_run_dirs_is_every_run_in_it(tmp_path):
    repetitions(tmp_path / "sweep", "fifo", [100, 110])
    frame = compare_groups([tmp_path / "sweep"])
    assert frame["runs"].tolist() == ["fifo-1 fifo-2"]


# --- groups across runs ----------------------------------------------------------------------

def test_repetitions_of_one_configuration_form_one_group_with_a_t_interval(tmp_path):
    paths = repetitions(tmp_path, "fifo", [100, 120, 110])
    row = compare_groups(paths).iloc[0]
    means = [load_run(path).latency.mean() for path in paths]
    assert row["label"] == "fifo" and row["n"] == 3 and row["n_invalid"] == 0
    assert row["mean_ms"] == pytest.approx(np.mean(means))
    assert (row["mean_ci_low"], row["mean_ci_high"]) == pytest.approx(
        tuple(scipy_t_interval(means)))
    assert row["verdict"] == "reference" and row["ratio"] == 1.0 and math.isnan(row["ratio_ci_low"])


def scipy_t_interval(values):
    from scipy import stats as sps
    return sps.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=sps.sem(values))


def test_clearly_separated_groups_of_five_are_significant(tmp_path):
    paths = repetitions(tmp_path, "default", [100, 104, 98, 101, 97]) + \
        repetitions(tmp_path, "klink", [200, 210, 195, 205, 190])
    frame = compare_groups(paths)
    assert frame["label"].tolist() == ["default", "klink"] and frame["n"].tolist() == [5, 5]
    klink = frame.iloc[1]
    assert klink["ratio_ci_low"] < klink["ratio"] < klink["ratio_ci_high"]
    assert 1.9 < klink["ratio"] < 2.1 and klink["ratio_ci_low"] > 1.0
    assert klink["significant"] is True and klink["verdict"] == "significant"
    assert not any("fewer than 5" in note for note in frame.attrs["notes"])


def test_identical_groups_have_a_ratio_ci_containing_one(tmp_path):
    paths = repetitions(tmp_path, "default", [100, 130, 90]) + repetitions(tmp_path, "klink", [100, 130, 90])
    klink = compare_groups(paths).iloc[1]
    assert klink["ratio_ci_low"] < 1.0 < klink["ratio_ci_high"] and klink["verdict"] == "not significant"


def test_one_run_each_gets_no_verdict_and_a_note(tmp_path):
    paths = repetitions(tmp_path, "default", [100]) + repetitions(tmp_path, "klink", [300])
    frame = compare_groups(paths)
    klink = frame.iloc[1]
    assert klink["ratio"] == pytest.approx(3.0, rel=0.05) and math.isnan(klink["ratio_ci_low"])
    assert klink["significant"] is None and klink["verdict"] == "no verdict"
    assert "klink: 1 run: no verdict; run ≥ 5 repetitions" in frame.attrs["notes"]
    text = render(frame, "table")
    assert "note: default: 1 run: no verdict" in text and " — " in text.splitlines()[-5] + " — "


def test_fewer_than_five_runs_are_noted(tmp_path):
    paths = repetitions(tmp_path, "default", [100, 104]) + repetitions(tmp_path, "klink", [200, 210])
    notes = compare_groups(paths).attrs["notes"]
    assert any(note.startswith("fewer than 5 runs in default, klink") for note in notes)


def test_variants_get_their_own_labels_and_groups(tmp_path):
    paths = repetitions(tmp_path / "a", "klink", [100, 101], bench={"cores": 2}) + \
        repetitions(tmp_path / "b", "klink", [100, 101], bench={"cores": 4, "enforce": "priority"})
    frame = compare_groups(paths)
    assert frame["label"].tolist() == ["klink[C=2]", "klink[priority,C=4]"]
    merged = compare_groups(paths, group_by=["policy"])
    assert merged["label"].tolist() == ["policy=klink"] and merged["n"].tolist() == [4]


def test_other_differing_settings_are_named_in_the_label(tmp_path):
    paths = repetitions(tmp_path / "a", "default", [100], bench={"rate": 1000, "confidence": 0.9}) + \
        repetitions(tmp_path / "b", "default", [100], bench={"rate": 2000, "confidence": 0.5})
    assert compare_groups(paths)["label"].tolist() == ["default rate=1000", "default rate=2000"]
    paths = repetitions(tmp_path / "c", "default", [100], bench={"confidence": 0.9}) + \
        repetitions(tmp_path / "d", "default", [100], bench={"confidence": 0.5})
    assert compare_groups(paths)["label"].tolist() == ["default confidence=0.9", "default confidence=0.5"]


# --- invalid runs ----------------------------------------------------------------------------

def mixed_validity(root):
    """Three valid default runs, one censored and one whose generator was 5 % short of the rate."""
    paths = repetitions(root / "ok", "default", [100, 104, 98])
    paths += repetitions(root / "censored", "default", [500], windows_censored_total=2)
    paths += repetitions(root / "slow", "default", [400],
                         generator={"achieved_rate": 4750.0, "target_rate": 5000, "fell_behind": True})
    return paths


def test_invalid_runs_are_left_out_and_counted_in_one_line(tmp_path):
    frame = compare_groups(mixed_validity(tmp_path))
    row = frame.iloc[0]
    assert row["n"] == 3 and row["n_invalid"] == 2 and row["mean_ms"] < 110
    assert frame.attrs["notes"][0] == ("left out 2 invalid runs (1 censored windows, 1 generator below 99 % of "
                                       "the requested rate); --include-invalid to include them")


def test_include_invalid_keeps_them_in_the_statistics(tmp_path):
    frame = compare_groups(mixed_validity(tmp_path), include_invalid=True)
    assert frame.iloc[0]["n"] == 5 and frame.iloc[0]["mean_ms"] > 150
    assert frame.attrs["notes"][0].startswith("included 2 invalid runs")


def test_a_group_of_invalid_runs_only_shows_no_numbers_and_no_verdict(tmp_path):
    paths = repetitions(tmp_path / "a", "default", [100, 101]) + \
        repetitions(tmp_path / "b", "klink", [50, 51], windows_censored_total=1)
    klink = compare_groups(paths).iloc[1]
    assert klink["n"] == 0 and klink["n_invalid"] == 2 and math.isnan(klink["ratio"])
    assert klink["verdict"] == "no verdict"


def test_a_failed_run_is_invalid_and_noted(runs):
    frame = compare_groups([runs["fifo"], runs["same"]])
    assert frame.iloc[0]["n"] == 1 and frame.iloc[0]["n_invalid"] == 1
    assert "run-same failed (TaskManager lost): its numbers cover only what it measured" in frame.attrs["notes"]
    assert "1 status failed" in frame.attrs["notes"][0]


# --- the sources' throughput ----------------------------------------------------------------

def read_rates(root, policy, rates):
    """One run per value of ``rates`` (seeds 1, 2, …; None: a summary.json without the field), latency ~100 ms,
    its sources reading that many records/s (summary.json → throughput.flink_source_records_per_s)."""
    return [make_run(root, f"{policy}-{seed}", policy, [100.0, 101.0, 99.0], bench={"seed": seed},
                     throughput={"generator_events_per_s": 5000.0,
                                 **({} if rate is None else {"flink_source_records_per_s": rate})})
            for seed, rate in enumerate(rates, start=1)]


def welch_log_ratio(reference, other):
    """Geometric mean of ``other`` / that of ``reference`` and its Welch t CI on logs, straight from SciPy."""
    from scipy import stats as sps
    log_a, log_b = np.log(reference), np.log(other)
    interval = sps.ttest_ind(log_b, log_a, equal_var=False).confidence_interval(0.95)
    return np.exp(log_b.mean() - log_a.mean()), np.exp(interval.low), np.exp(interval.high)


DEFAULT_READ, KLINK_READ = [10_000.0, 10_200.0, 9_900.0, 10_100.0], [9_950.0, 10_150.0, 9_800.0, 10_050.0]


def test_groups_show_the_records_per_s_their_sources_read_with_the_ratio_and_its_ci(tmp_path):
    frame = compare_groups(read_rates(tmp_path, "default", DEFAULT_READ) + read_rates(tmp_path, "klink", KLINK_READ))
    default, klink = frame.iloc[0], frame.iloc[1]
    assert klink["source_records_per_s"] == pytest.approx(np.mean(KLINK_READ)) == pytest.approx(9_987.5)
    assert (klink["source_records_per_s_ci_low"], klink["source_records_per_s_ci_high"]) == pytest.approx(
        tuple(scipy_t_interval(KLINK_READ)))
    ratio, low, high = welch_log_ratio(DEFAULT_READ, KLINK_READ)
    assert ratio == pytest.approx(0.99376, abs=1e-5)  # geometric means: 9986.7 / 10 049.4
    assert (low, high) == pytest.approx((0.96993, 1.01818), abs=1e-5)
    assert (klink["source_records_ratio"], klink["source_records_ratio_ci_low"],
            klink["source_records_ratio_ci_high"]) == pytest.approx((ratio, low, high))
    assert low < 0.995 and ratio < 1.0 < high  # ≥ 99.5 % of Default's not shown with 4 runs a side
    assert default["source_records_ratio"] == 1.0 and math.isnan(default["source_records_ratio_ci_low"])
    assert default["verdict"] == "reference" and klink["n"] == 4  # the rate takes no part in n or the verdict
    text = render(frame, "table")
    assert "read k/s [CI]" in text and "read × [CI]" in text and "throughput.flink_source_records_per_s" in text
    assert f"10.0 [9.7–10.2]   {ratio:.3f} [{low:.3f}–{high:.3f}]" in text


def test_the_sources_rate_is_in_csv_and_json(tmp_path):
    frame = compare_groups(read_rates(tmp_path, "default", DEFAULT_READ) + read_rates(tmp_path, "klink", KLINK_READ))
    record = json.loads(render(frame, "json"))[1]
    assert record["source_records_per_s"] == pytest.approx(9_987.5)
    assert record["source_records_ratio_ci_high"] == pytest.approx(welch_log_ratio(DEFAULT_READ, KLINK_READ)[2])
    row = list(csv.DictReader(render(frame, "csv").splitlines()))[1]
    assert float(row["source_records_ratio"]) == pytest.approx(0.99376, abs=1e-5)
    assert COLUMNS.index("source_records_per_s") == COLUMNS.index("p99_ci_high") + 1
    assert COLUMNS[COLUMNS.index("p99_ratio_ci_high") + 1] == "source_records_ratio"


def test_runs_without_the_sources_rate_get_empty_cells_not_an_error(tmp_path):
    paths = (read_rates(tmp_path / "a", "default", [None, None]) + read_rates(tmp_path / "b", "klink", KLINK_READ[:2])
             + read_rates(tmp_path / "c", "edf", [10_000.0, None, None]))
    frame = compare_groups(paths).set_index("label")
    assert frame["n"].tolist() == [2, 2, 3]  # the latency is compared as before
    assert math.isnan(frame.loc["default", "source_records_per_s"])
    assert math.isnan(frame.loc["default", "source_records_ratio"])  # the reference has none: no ratio at all
    assert math.isnan(frame.loc["klink", "source_records_ratio"]) and math.isnan(frame.loc["edf", "source_records_ratio"])
    assert frame.loc["klink", "source_records_per_s"] == pytest.approx(np.mean(KLINK_READ[:2]))
    assert frame.loc["edf", "source_records_per_s"] == 10_000.0  # the one run that has it, no interval
    assert math.isnan(frame.loc["edf", "source_records_per_s_ci_low"])
    records = {record["label"]: record for record in json.loads(render(frame.reset_index(), "json"))}
    assert records["default"]["source_records_per_s"] is None and records["klink"]["source_records_ratio"] is None
    rows = {row["label"]: row for row in csv.DictReader(render(frame.reset_index(), "csv").splitlines())}
    assert rows["default"]["source_records_per_s"] == "" and rows["edf"]["source_records_per_s_ci_low"] == ""
    default_line = next(line for line in render(frame.reset_index(), "table").splitlines()
                        if line.startswith(" default"))
    assert default_line.split()[-5:] == ["1.000", "ref", "—", "—", "—"]  # paired, read k/s, read ×
    mixed = compare_groups(read_rates(tmp_path / "d", "default", DEFAULT_READ[:2]) +
                           read_rates(tmp_path / "e", "klink", [None, 9_900.0]))
    assert mixed.iloc[1]["source_records_ratio"] == pytest.approx(9_900.0 / np.sqrt(10_000.0 * 10_200.0))
    assert math.isnan(mixed.iloc[1]["source_records_ratio_ci_low"])  # one run with it: no interval


def test_the_table_with_the_sources_rate_keeps_to_its_width(tmp_path):
    paths = read_rates(tmp_path / "a", "default", [225_511.1, 209_342.8]) + \
        read_rates(tmp_path / "b", "klink", [224_668.0, 217_121.0])
    lines = render(compare_groups(paths), "table").splitlines()
    rows = [line for line in lines if line.startswith((" default", " klink"))]
    assert len(rows) == 2 and all(len(line) <= 200 for line in lines if line.startswith(" "))
    assert "217.4 [" in rows[0]  # thousands of records/s, one decimal


# --- per run (within-run) --------------------------------------------------------------------

def test_per_run_rows_have_within_run_cis_and_no_verdict(runs):
    frame = compare_per_run([runs["fifo"], runs["edf"], runs["same"]])
    assert list(frame.columns) == PER_RUN_COLUMNS and "significant" not in frame
    assert frame["run"].tolist() == ["run-fifo", "run-edf", "run-same"]
    edf = frame.iloc[1]
    assert edf["ratio_mean"] == pytest.approx(2.0)
    assert edf["mean_within_run_ci_low"] < edf["mean"] < edf["mean_within_run_ci_high"]
    assert frame["valid"].tolist() == [True, True, False] and frame.iloc[2]["invalid_reasons"] == "status failed"
    text = render(frame, "table")
    assert "within-run CI" in text and "no verdict" in text and "FAILED" in text


def test_per_run_is_reproducible_for_a_seed(runs):
    paths = [runs["fifo"], runs["edf"]]
    assert compare_per_run(paths, seed=3).equals(compare_per_run(paths, seed=3))


def test_per_run_rows_have_the_records_per_s_their_sources_read(tmp_path):
    paths = read_rates(tmp_path, "default", [224_668.0, None]) + [write_latency(tmp_path / "alone.csv", "alone",
                                                                                "fifo", [100.0, 110.0])]
    frame = compare_per_run(paths)
    assert frame["source_records_per_s"].iloc[0] == 224_668.0
    assert frame["source_records_per_s"].iloc[1:].isna().all()  # no field, no summary.json at all
    assert PER_RUN_COLUMNS.index("source_records_per_s") == PER_RUN_COLUMNS.index("generator_events_per_s") + 1
    rows = list(csv.DictReader(render(frame, "csv").splitlines()))
    assert [row["source_records_per_s"] for row in rows] == ["224668.0", "", ""]
    assert [record["source_records_per_s"] for record in json.loads(render(frame, "json"))] == [224_668.0, None, None]
    text = render(frame, "table")
    assert "read k/s" in text and "throughput.flink_source_records_per_s" in text
    cells = [line.split()[-2] for line in text.splitlines() if line.startswith((" default", " alone"))]
    assert cells == ["224.7", "—", "—"]  # thousands, one decimal, as in the group table


def test_a_run_with_no_windows_is_noted_per_run(tmp_path, runs):
    empty = make_run(tmp_path, "run-empty", "fifo", [])
    frame = compare_per_run([runs["fifo"], empty])
    assert frame.iloc[1]["windows"] == 0 and math.isnan(frame.iloc[1]["ratio_mean"])
    assert "run-empty has 0 window(s)" in render(frame, "table")


# --- rendering -------------------------------------------------------------------------------

def test_json_and_csv_have_the_group_columns(tmp_path):
    frame = compare_groups(repetitions(tmp_path, "default", [100, 104]) + repetitions(tmp_path, "klink", [200, 210]))
    records = json.loads(render(frame, "json"))
    assert list(records[0]) == COLUMNS and records[0]["ratio_ci_low"] is None and records[0]["significant"] is None
    assert records[1]["verdict"] in ("significant", "not significant") and records[1]["n"] == 2
    rows = list(csv.DictReader(render(frame, "csv").splitlines()))
    assert list(rows[0]) == COLUMNS and [row["label"] for row in rows] == ["default", "klink"]


def test_the_table_says_what_its_intervals_are(tmp_path):
    text = render(compare_groups(repetitions(tmp_path, "default", [100, 104])), "table")
    assert "CI across runs (Student t)" in text and "Welch t on log latency" in text and "ratio [CI]" in text


def test_an_unknown_format_is_refused(runs):
    with pytest.raises(ValueError, match="unknown format"):
        render(compare_groups([runs["fifo"]]), "xml")


# --- the command, end to end ----------------------------------------------------------------

def test_cli_prints_one_row_per_group_by_default(tmp_path):
    repetitions(tmp_path / "runs", "default", [100, 104])
    repetitions(tmp_path / "runs", "klink", [200, 210])
    result = invoke(tmp_path / "runs")
    assert result.exit_code == 0, result.output
    assert "default" in result.output and "klink" in result.output and "fewer than 5 runs" in result.output


def test_cli_on_a_sweep_directory_leaves_out_its_invalid_runs_in_one_line():
    result = invoke(SWEEP)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("note:") and "invalid run" in line]
    assert lines == ["note: left out 2 invalid runs (2 censored windows); --include-invalid to include them"]
    included = invoke(SWEEP, "--include-invalid")
    assert "note: included 2 invalid runs" in included.output


def test_cli_per_run_labels_the_intervals_within_run(runs):
    result = invoke(runs["fifo"], runs["edf"], "--per-run")
    assert result.exit_code == 0, result.output
    assert "within-run CI" in result.output and "signif." not in result.output


@pytest.mark.parametrize("options", [("--group-by", "policy"), ("--reference", "default"), ("--include-invalid",)])
def test_cli_per_run_refuses_the_grouped_tables_options(runs, options):
    result = invoke(runs["fifo"], runs["edf"], "--per-run", *options)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{options[0]} apply only to the grouped table, not to --per-run" in result.output


def test_cli_json_keeps_notes_out_of_stdout(tmp_path):
    paths = repetitions(tmp_path, "default", [100])
    result = invoke(*paths, "--format", "json")
    assert result.exit_code == 0 and json.loads(result.stdout)[0]["n"] == 1
    assert "note: default: 1 run: no verdict" in result.stderr
    result = invoke(*paths, "--format", "csv", "--per-run")
    assert result.exit_code == 0 and result.stdout.splitlines()[0] == ",".join(PER_RUN_COLUMNS)


def test_cli_confidence_changes_the_intervals(tmp_path):
    paths = repetitions(tmp_path, "default", [100, 120, 110])
    narrow = json.loads(invoke(*paths, "--format", "json", "--confidence", "0.5").stdout)[0]
    wide = json.loads(invoke(*paths, "--format", "json", "--confidence", "0.99").stdout)[0]
    assert wide["mean_ci_high"] - wide["mean_ci_low"] > narrow["mean_ci_high"] - narrow["mean_ci_low"]


def test_cli_an_unknown_grouping_key_is_one_line_listing_the_valid_ones():
    result = invoke(SWEEP, "--group-by", "policy,colour")
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert result.output.startswith("error: unknown grouping key colour; valid: workload, queries, window_ms")
    assert "group" not in result.stdout.split("error:")[0]  # nothing computed before the error


def test_cli_an_empty_grouping_key_is_a_usage_error(runs):
    result = invoke(runs["fifo"], "--group-by", ",")
    assert result.exit_code == 2 and "--group-by" in result.output


def test_cli_group_by_rate_pools_the_policies():
    result = invoke(SWEEP, "--group-by", "rate", "--format", "json")
    records = json.loads(result.stdout)
    assert [record["label"] for record in records] == ["rate=10000", "rate=60000"]
    assert [record["n"] + record["n_invalid"] for record in records] == [7, 7]


def test_cli_group_by_given_twice_merges_the_keys_in_order():
    result = invoke(SWEEP, "--group-by", "rate", "--group-by", "policy,rate", "--format", "json")
    assert result.exit_code == 0, result.output
    assert result.stdout == invoke(SWEEP, "--group-by", "rate,policy", "--format", "json").stdout
    labels = [record["label"] for record in json.loads(result.stdout)]
    assert labels[:2] == ["rate=10000,policy=klink", "rate=60000,policy=sbox"]  # rate first, policy kept
    assert len(labels) == 8 and all(label.startswith("rate=") for label in labels)


def test_cli_an_empty_group_by_among_others_is_one_usage_line(runs):
    result = invoke(runs["fifo"], "--group-by", "policy", "--group-by", " , ")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "'--group-by': ' , ' names no setting" in result.output


def test_cli_without_runs_is_a_usage_error():
    result = invoke()
    assert result.exit_code == 2 and "Missing argument 'RUNS...'" in result.output


@pytest.mark.parametrize("value", ["0", "1", "1.5", "-0.2"])
def test_cli_refuses_a_confidence_outside_0_1(runs, value):
    result = invoke(runs["fifo"], "--confidence", value)
    assert result.exit_code == 2 and "--confidence" in result.output


def test_cli_refuses_an_unknown_format(runs):
    result = invoke(runs["fifo"], "--format", "xml")
    assert result.exit_code == 2 and "'xml' is not one of 'table', 'csv', 'json'" in result.output


def test_cli_missing_path_is_one_error_line(runs, tmp_path):
    result = invoke(runs["fifo"], tmp_path / "nope")
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {tmp_path / 'nope'}: no such file or directory; {EXPECTED}"


def test_cli_csv_without_the_column_is_one_error_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("run,policy\nr,fifo\n")
    result = invoke(path)
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {path}: no swm_latency_ms column; {EXPECTED}"


def test_a_variant_label_is_printed_as_written_not_taken_for_markup(tmp_path):
    make_run(tmp_path, "run-a", "klink", [100, 120], bench={"enforce": "priority", "cores": 2})
    result = invoke(tmp_path / "run-a")
    assert result.exit_code == 0, result.output
    assert "klink[priority,C=2]" in result.output


def test_a_sweeps_warmup_runs_are_not_compared(tmp_path):
    root = tmp_path / "sweep"
    shutil.copytree(SWEEP, root)
    index = pd.read_csv(root / "index.csv", dtype=str, keep_default_na=False)
    first = index["run_dir"].iloc[0]
    index["warmup"] = np.where(index["run_dir"] == first, "true", "false")
    index.to_csv(root / "index.csv", index=False)
    assert root / first not in expand_inputs([root])
    assert len(expand_inputs([root])) == len(index) - 1 - sum(not (root / d / "latency.csv").is_file()
                                                               for d in index["run_dir"].iloc[1:])


def test_the_reference_group_can_be_named(tmp_path):
    paths = repetitions(tmp_path, "default", [100, 104, 98, 101, 97]) + \
        repetitions(tmp_path, "klink", [200, 210, 195, 205, 190])
    frame = compare_groups(paths, reference="klink")
    assert frame.attrs["reference"] == "klink"
    assert frame.set_index("label").loc["klink", "verdict"] == "reference"
    assert 0.47 < frame.set_index("label").loc["default", "ratio"] < 0.53


def test_a_reference_that_names_no_group_lists_the_groups(tmp_path):
    paths = repetitions(tmp_path, "default", [100, 104])
    with pytest.raises(KlinkError, match="--reference 'klnk' names no group; the groups are: default"):
        compare_groups(paths, reference="klnk")


def test_windows_ending_after_the_generator_stopped_are_left_out_as_in_the_summary(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "latency.csv").write_text("query,window_end,swm_latency_ms,warmup\n"
                                         "q00,1000,5000,true\nq00,2000,100,false\nq00,3000,110,false\n"
                                         "q00,4000,3000,false\n")  # 4000: after the generator stopped
    (run_dir / "summary.json").write_text(json.dumps({"status": "completed", "warmup_until_ms": 1500}))
    (run_dir / "config.yaml").write_text(yaml.safe_dump({"bench": {"warmup_ms": 1000, "duration_ms": 3000}}))
    assert load_run(run_dir).latency.tolist() == [100.0, 110.0]


@pytest.mark.parametrize("inside, swms", [(69, 74), (74, 74), (0, 10), (1, 1)])
def test_a_coverage_fraction_gets_a_binomial_interval_inside_zero_to_one(inside, swms):
    from klinkctl.results.stats import proportion_interval
    low, high = proportion_interval(inside, swms)
    assert 0 <= low <= inside / swms <= high <= 1 and low < high


def test_69_of_74_swms_inside_cannot_tell_93_from_95_percent():
    from klinkctl.results.stats import proportion_interval
    low, high = proportion_interval(69, 74)
    assert low < 0.9 and high > 0.95  # the 0.9-of-capacity cell of docs/scheduler.md
    assert all(math.isnan(bound) for bound in proportion_interval(0, 0))
