"""`klinkctl sweep`: policy variants side by side, warm-up runs, shuffled grid order — planning, validation,
index.csv, resume and the dry run. run_bench is the fake of test_sweep.py (planner and resume logic only)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from klinkctl.cli import main
from klinkctl.errors import KlinkError
from klinkctl.run import sweep as sweeps
from klinkctl.run import sweep_directory, sweep_plan
from tests.unit.test_sweep import STACK, fake_bench, plan, read_index, sweep_file  # noqa: F401 (fixture)

VARIANTS = """
workload: ysb
repetitions: 2
warmup-runs: 1
fixed: {duration: 20s, warmup: 5s, window: 3s, queries: 8}
grid: {rate: [28500, 31000]}
variants:
  default: {policy: default}
  klink: {policy: klink, enforce: priority}
  klink-f90: {policy: klink, enforce: priority, confidence: 0.9}
"""

SHUFFLED = """
workload: ysb
repetitions: 4
order: shuffled
fixed: {duration: 20s, warmup: 5s}
grid: {rate: [1000, 2000, 3000, 4000, 5000], policy: [default, klink]}
"""


def measured(runs: list[sweep_plan.PlannedRun]) -> list[sweep_plan.PlannedRun]:
    return [run for run in runs if not run.warmup]


# --- variants -----------------------------------------------------------------------------------

def test_variants_run_back_to_back_at_every_grid_point_rotated_per_repetition(tmp_path):
    runs = measured(plan(tmp_path, VARIANTS))
    order = [(run.repetition, run.params["rate"], run.params["variant"]) for run in runs]
    assert order == [
        (1, 28500, "default"), (1, 28500, "klink"), (1, 28500, "klink-f90"),
        (1, 31000, "default"), (1, 31000, "klink"), (1, 31000, "klink-f90"),
        (2, 28500, "klink"), (2, 28500, "klink-f90"), (2, 28500, "default"),
        (2, 31000, "klink"), (2, 31000, "klink-f90"), (2, 31000, "default"),
    ]


def test_a_variants_runs_get_its_settings_on_top_of_fixed_and_the_grid(tmp_path):
    settings = {(run.params["variant"], run.params["rate"]): (run.config.policy, run.config.enforce,
                                                              run.config.confidence, run.config.rate,
                                                              run.config.queries) for run in plan(tmp_path, VARIANTS)}
    assert settings == {
        ("default", 28500): ("default", "pause", 0.95, 28500, 8), ("default", 31000): ("default", "pause", 0.95, 31000, 8),
        ("klink", 28500): ("klink", "priority", 0.95, 28500, 8), ("klink", 31000): ("klink", "priority", 0.95, 31000, 8),
        ("klink-f90", 28500): ("klink", "priority", 0.9, 28500, 8),
        ("klink-f90", 31000): ("klink", "priority", 0.9, 31000, 8)}


def test_variants_and_a_policy_axis_interleave_together(tmp_path):
    text = ("workload: ysb\nfixed: {duration: 20s, warmup: 5s}\nrepetitions: 2\n"
            "grid: {policy: [default, klink]}\nvariants: {marked: {}, unmarked: {marker-interval: 0}}")
    runs = plan(tmp_path, text)
    assert [(run.repetition, run.params["policy"], run.params["variant"]) for run in runs] == [
        (1, "default", "marked"), (1, "default", "unmarked"), (1, "klink", "marked"), (1, "klink", "unmarked"),
        (2, "default", "unmarked"), (2, "klink", "marked"), (2, "klink", "unmarked"), (2, "default", "marked")]
    assert {(run.params["variant"], run.config.marker_interval_ms) for run in runs} == {("marked", 200), ("unmarked", 0)}


@pytest.mark.parametrize("text, message", [
    ("variants: [klink]", r"variants must be a mapping of names to bench settings, got list"),
    ("variants: {klink: [policy]}", r"variant klink must be a mapping of bench settings, got list"),
    ("variants: {'klink f90': {policy: klink}}", r"variant 'klink f90': a name is letters, digits"),
    ("variants: {k: {polcy: klink}}", r"unknown setting 'polcy' in .*grid.yaml \(variant k\); did you mean 'policy'"),
    ("variants: {k: {confidence: high}}", r"grid.yaml: run 1 \(rate=1000, variant=k\): --confidence must be a number, got 'high'"),
    ("variants: {k: {policy: fifo}}", r"run 1 \(rate=1000, variant=k\): unknown policy 'fifo'; valid: default"),
    ("variants: {k: {confidence: 1.5, policy: klink}}", r"run 1 \(rate=1000, variant=k\): --confidence"),
    ("variants: {k: {rate: 5}}", r"'rate' in variant k sets the same setting as 'rate' in grid; give it once"),
    ("variants: {k: {duration: 9s}}", r"'duration' in variant k sets the same setting as 'duration' in fixed"),
    ("variants: {k: {seed: 3}}", r"variant k: 'seed' is not a sweep setting; .*base-seed"),
    ("variants: {k: {workload: nyt}}", r"variant k: 'workload' is not a sweep setting"),
    ("variants: {a: {policy: klink}, b: {policy: klink, enforce: pause}}",
     r"variants 'a' and 'b' resolve to the same bench settings; give one"),
    ("warmup-runs: -1", r"warmup-runs must be at least 0, got -1"),
    ("warmup-runs: once", r"warmup-runs must be a whole number, got 'once'"),
    ("order: random", r"order 'random'; valid: grid, shuffled"),
])
def test_a_bad_variant_warmup_or_order_is_one_clear_error(tmp_path, text, message):
    with pytest.raises(KlinkError, match=message) as error:
        plan(tmp_path, f"workload: ysb\nfixed: {{duration: 20s, warmup: 5s}}\ngrid: {{rate: [1000]}}\n{text}")
    assert "\n" not in str(error.value) and str(tmp_path / "grid.yaml") in str(error.value)


# --- warm-up runs -------------------------------------------------------------------------------

def test_warmup_runs_come_first_with_the_first_measured_runs_settings(tmp_path):
    runs = plan(tmp_path, VARIANTS.replace("warmup-runs: 1", "warmup-runs: 2"))
    warmups, first = runs[:2], runs[2]
    assert [run.index for run in runs] == list(range(1, 15))
    assert all(run.warmup and run.repetition == 0 for run in warmups) and not any(r.warmup for r in runs[2:])
    assert all((run.params, run.config, run.seed) == (first.params, first.config, first.seed) for run in warmups)
    assert warmups[0].label == "warm-up rate=28500 variant=default"


def test_warmup_runs_are_indexed_kept_and_not_redone_on_resume(tmp_path, fake_bench):
    first = fake_bench({4: "interrupted"})
    sweep = sweep_directory.create_sweep(*sweep_plan.read_sweep_file(sweep_file(tmp_path, VARIANTS)), tmp_path / "results")
    assert sweeps.run_sweep(sweep, STACK, {}).interrupted
    assert first.awaited == [False, True, True, True]  # a warm-up run does not wait out its backlog's windows
    rows = read_index(sweep.directory)
    assert list(rows[0])[-3:] == ["warmup", "rate", "variant"]
    assert [(row["warmup"], row["repetition"], row["variant"]) for row in rows[:3]] == [
        ("true", "0", "default"), ("false", "1", "default"), ("false", "1", "klink")]
    assert (sweep.directory / rows[0]["run_dir"] / "summary.json").is_file()

    again = fake_bench(prefix="resumed")
    resumed = sweep_directory.open_sweep(sweep.directory)
    assert [run.index for run in resumed.unfinished()] == list(range(4, 14))  # the warm-up run completed
    assert sweeps.run_sweep(resumed, STACK, {}).counts["completed"] == 13
    assert [policy for _, policy, _ in again.calls] == [run.config.policy for run in sweep.runs[3:]]
    assert [row["run_dir"] for row in read_index(sweep.directory)][:3] == [row["run_dir"] for row in rows[:3]]


def test_an_index_from_before_warmup_runs_still_resumes(tmp_path):
    sweep = sweep_directory.create_sweep(*sweep_plan.read_sweep_file(sweep_file(tmp_path, VARIANTS.replace("warmup-runs: 1", ""))),
                                tmp_path / "results")
    index = sweep.directory / "index.csv"
    lines = index.read_text().splitlines()
    index.write_text("\n".join(line.replace(",warmup,", ",").replace(",false,", ",") for line in lines) + "\n")
    assert len(sweep_directory.open_sweep(sweep.directory).unfinished()) == 12


# --- shuffled order -----------------------------------------------------------------------------

def test_shuffled_order_draws_each_repetitions_grid_point_order_from_the_seed(tmp_path):
    runs = plan(tmp_path, SHUFFLED)
    rates = {repetition: [run.params["rate"] for run in runs if run.repetition == repetition] for repetition in (1, 2, 3, 4)}
    points = {repetition: rates[repetition][::2] for repetition in rates}
    assert all(sorted(order) == [1000, 2000, 3000, 4000, 5000] for order in points.values())
    assert len({tuple(order) for order in points.values()}) > 1  # not the same order every repetition
    assert all(rates[r][0::2] == rates[r][1::2] for r in rates)  # a point's policies still back to back
    policies = [run.params["policy"] for run in runs if run.repetition == 2]
    assert policies[:2] == ["klink", "default"]  # and still rotated per repetition
    assert [(r.index, r.params) for r in plan(tmp_path, SHUFFLED)] == [(r.index, r.params) for r in runs]
    other_seed = plan(tmp_path, SHUFFLED + "base-seed: 1\n")
    assert [r.params for r in other_seed] != [r.params for r in runs]


def test_the_grid_order_is_the_default(tmp_path):
    runs = plan(tmp_path, SHUFFLED.replace("order: shuffled", ""))
    assert [run.params["rate"] for run in runs if run.repetition == 3][::2] == [1000, 2000, 3000, 4000, 5000]


# --- the command --------------------------------------------------------------------------------

def test_dry_run_shows_variants_and_warmup_runs(tmp_path, monkeypatch):
    monkeypatch.setattr("klinkctl.stack.running.ensure_stack", lambda *_args, **_kwargs: pytest.fail("the stack must not be touched"))
    result = CliRunner().invoke(main, ["sweep", str(sweep_file(tmp_path, VARIANTS)), "--dry-run"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any("warm-up" in line and "28500" in line and "default" in line for line in lines)
    assert any("klink-f90" in line for line in lines)
    assert "13 runs (1 warm-up), estimated" in result.output


def test_resume_dry_run_lists_an_unfinished_warmup_run(tmp_path, fake_bench):
    fake_bench({1: "failed"})
    sweep = sweep_directory.create_sweep(*sweep_plan.read_sweep_file(sweep_file(tmp_path, VARIANTS)), tmp_path / "results")
    sweeps.run_sweep(sweep, STACK, {})
    result = CliRunner().invoke(main, ["sweep", "--resume", str(sweep.directory), "--dry-run"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "warm-up" in result.output and "1 runs (1 warm-up)" in result.output
