"""`klinkctl compare`: loading run directories and CSVs, the comparison table, and bad input."""

import csv
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from klinkctl.cli import KlinkGroup
from klinkctl.errors import KlinkError
from klinkctl.results.compare import COLUMNS, compare_runs, render
from klinkctl.results.compare_cli import compare
from klinkctl.results.runs import load_run

HEADER = ["run", "policy", "query", "window_start", "window_end", "swm", "fired_at", "output_at",
          "swm_latency_ms", "keys", "events", "late_dropped", "warmup"]
EXPECTED = "expected a run directory with latency.csv or a latency CSV file"


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


def make_run(root, name, policy, latencies, status="completed", reason=None, summary=True):
    run_dir = root / name
    run_dir.mkdir()
    write_latency(run_dir / "latency.csv", name, policy, latencies, warmup_latencies=[10_000.0] * 5)
    if summary:
        (run_dir / "summary.json").write_text(json.dumps({
            "status": status, "reason": reason, "run": name, "policy": policy,
            "throughput": {"generator_events_per_s": 5000.0, "flink_records_in_per_s": 4990.0},
            "generator": {"events_sent": 100, "behind_fraction": 0.0, "fell_behind": False}}))
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
    assert run.label == "baseline" and run.policy == "fifo" and run.summary == {}
    assert run.latency.tolist() == [1.0, 2.0, 3.0]


def test_a_latency_csv_inside_a_run_dir_is_read_as_that_run(runs):
    run = load_run(runs["edf"] / "latency.csv")
    assert run.label == "run-edf" and run.summary["policy"] == "edf"


def test_a_run_dir_without_summary_still_loads(tmp_path):
    run = load_run(make_run(tmp_path, "bare", "fifo", [1.0, 2.0], summary=False))
    assert run.summary == {} and run.latency.size == 2


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


# --- comparison ------------------------------------------------------------------------------

def test_compare_runs_has_one_row_per_run_with_every_column(runs):
    frame = compare_runs([runs["fifo"], runs["edf"], runs["same"]])
    assert list(frame.columns) == COLUMNS
    assert frame["run"].tolist() == ["run-fifo", "run-edf", "run-same"]
    assert frame["windows"].tolist() == [300, 300, 300]
    assert frame["status"].tolist() == ["completed", "completed", "failed"]
    assert frame["generator_events_per_s"].tolist() == [5000.0] * 3
    assert frame["fell_behind"].tolist() == [False] * 3


def test_the_first_run_is_the_reference(runs):
    first = compare_runs([runs["fifo"], runs["edf"]]).iloc[0]
    assert first["ratio_mean"] == 1.0 and first["significant"] is None
    assert math.isnan(first["ratio_ci_low"]) and math.isnan(first["mannwhitney_p"])


def test_doubled_latency_is_a_significant_ratio_of_two(runs):
    edf = compare_runs([runs["fifo"], runs["edf"]]).iloc[1]
    assert edf["ratio_mean"] == pytest.approx(2.0)
    assert edf["ratio_ci_low"] < 2.0 < edf["ratio_ci_high"] and edf["significant"] is True
    assert edf["mean_ci_low"] < edf["mean"] < edf["mean_ci_high"]
    assert edf["p99_ci_low"] <= edf["p99"] <= edf["p99_ci_high"]


def test_same_distribution_is_not_significant(runs):
    same = compare_runs([runs["fifo"], runs["same"]]).iloc[1]
    assert same["significant"] is False and same["mannwhitney_p"] > 0.05


def test_summary_statistics_come_from_the_non_warmup_rows(runs):
    row = compare_runs([runs["fifo"]]).iloc[0]
    values = load_run(runs["fifo"]).latency
    assert row["mean"] == pytest.approx(values.mean())
    assert row["p99"] == pytest.approx(np.percentile(values, 99)) and row["max"] < 10_000.0


def test_compare_runs_is_reproducible_for_a_seed(runs):
    paths = [runs["fifo"], runs["edf"]]
    assert compare_runs(paths, seed=3).equals(compare_runs(paths, seed=3))


def test_a_run_with_no_windows_is_compared_with_undefined_numbers(tmp_path, runs):
    empty = make_run(tmp_path, "run-empty", "fifo", [])
    frame = compare_runs([runs["fifo"], empty])
    assert frame.iloc[1]["windows"] == 0 and frame.iloc[1]["significant"] is None
    assert "run-empty has 0 window(s)" in render(frame, "table")


# --- rendering -------------------------------------------------------------------------------

def test_json_parses_with_null_for_undefined_values(runs):
    records = json.loads(render(compare_runs([runs["fifo"], runs["edf"]]), "json"))
    assert [record["run"] for record in records] == ["run-fifo", "run-edf"]
    assert list(records[0]) == COLUMNS
    assert records[0]["ratio_ci_low"] is None and records[0]["significant"] is None
    assert records[1]["significant"] is True and records[1]["windows"] == 300


def test_csv_has_the_columns_as_header(runs):
    text = render(compare_runs([runs["fifo"], runs["edf"]]), "csv")
    rows = list(csv.DictReader(text.splitlines()))
    assert list(rows[0]) == COLUMNS and [row["run"] for row in rows] == ["run-fifo", "run-edf"]
    assert rows[0]["ratio_ci_low"] == "" and rows[1]["significant"] == "True"


def test_table_shows_every_run_the_ratio_and_flags_a_failed_run(runs):
    text = render(compare_runs([runs["fifo"], runs["edf"], runs["same"]]), "table")
    for label in ("run-fifo", "run-edf", "run-same"):
        assert label in text
    assert "ratio [CI]" in text and "2.000 [" in text
    assert "FAILED" in text and "note: run-same failed (TaskManager lost)" in text


def test_an_unknown_format_is_refused(runs):
    with pytest.raises(ValueError, match="unknown format"):
        render(compare_runs([runs["fifo"]]), "xml")


# --- the command, end to end ----------------------------------------------------------------

def test_cli_prints_the_table_by_default(runs):
    result = invoke(runs["fifo"], runs["edf"])
    assert result.exit_code == 0, result.output
    assert "run-fifo" in result.output and "run-edf" in result.output and "ratio" in result.output


def test_cli_json_and_csv_with_a_csv_argument(runs, tmp_path):
    loose = write_latency(tmp_path / "loose.csv", "r", "edf", load_run(runs["fifo"]).latency * 2)
    result = invoke(runs["fifo"], loose, "--format", "json", "--seed", "4", "--confidence", "0.9")
    assert result.exit_code == 0, result.output
    records = json.loads(result.output)
    assert records[1]["run"] == "loose" and records[1]["ratio_mean"] == pytest.approx(2.0)
    assert records[1]["status"] is None
    result = invoke(runs["fifo"], loose, "--format", "csv")
    assert result.exit_code == 0 and result.output.splitlines()[0] == ",".join(COLUMNS)


def test_cli_confidence_changes_the_intervals(runs):
    narrow = json.loads(invoke(runs["fifo"], "--format", "json", "--confidence", "0.5").output)[0]
    wide = json.loads(invoke(runs["fifo"], "--format", "json", "--confidence", "0.99").output)[0]
    assert wide["mean_ci_high"] - wide["mean_ci_low"] > narrow["mean_ci_high"] - narrow["mean_ci_low"]


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
