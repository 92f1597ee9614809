"""`klinkctl sweep`: grid expansion (count, order, seeds), validation before anything runs, and the runner's
index / resume logic. run_bench is replaced by a fake here, for the planner and resume logic only; the
real sweep runs in tests/integration/test_sweep.py."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from klinkctl.cli import main
from klinkctl.errors import ExitCode, KlinkError
from klinkctl.paths import PROJECT_ROOT
from klinkctl.run import sweep as sweeps
from klinkctl.run import sweep_directory, sweep_plan
from klinkctl.run.bench import RunOutcome
from klinkctl.run.config import WORKLOADS, RunSpec, user_settings
from klinkctl.run.load import capacity_path
from klinkctl.sim.options import SIM_OPTION_NAMES
from klinkctl.units import duration_ms
from klinkctl.cli.output import format_duration
from klinkctl.progress import eta_s

STACK = object()  # the runner hands the stack through to run_bench; the fake never looks at it

GRID_2X3 = """
workload: ysb
repetitions: 2
base-seed: 7
fixed: {duration: 20s, warmup: 5s, window: 3s, generator-cpus: 0}
grid: {queries: [1, 2], policy: [default, klink, rr]}
"""


def sweep_file(tmp_path: Path, text: str, name: str = "grid") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return path


def plan(tmp_path: Path, text: str, repetitions: int | None = None) -> list[sweep_plan.PlannedRun]:
    return sweep_plan.read_sweep_file(sweep_file(tmp_path, text), repetitions)[1]


def read_index(directory: Path) -> list[dict[str, str]]:
    with (directory / sweep_directory.INDEX_FILE).open(newline="") as handle:
        return list(csv.DictReader(handle))


class FakeBench:
    """run_bench's stand-in: writes a run directory and returns the scripted status of each call."""

    def __init__(self, statuses: dict[int, str | BaseException] | None = None, prefix: str = "ysb",
                 reasons: dict[int, str] | None = None) -> None:
        self.statuses = statuses or {}
        self.reasons = reasons or {}  # a call's reason instead of "<status> here"
        self.prefix = prefix  # of the run directories' names: a second fake in one sweep needs its own
        self.calls: list[tuple[int, str, int]] = []  # (call number, policy, seed)
        self.awaited: list[bool] = []  # each call's await_last_windows
        self.index_during_runs: list[list[dict[str, str]]] = []

    def __call__(self, spec, config, results_root: Path, stack_processes, progress,
                 await_last_windows: bool = True) -> RunOutcome:
        number = len(self.calls) + 1
        self.calls.append((number, config.policy, config.seed))
        self.awaited.append(await_last_windows)
        self.index_during_runs.append(read_index(results_root))
        progress("running")
        scripted = self.statuses.get(number, "completed")
        if isinstance(scripted, BaseException):
            raise scripted
        run_id = f"{self.prefix}-{config.policy}-{number:03d}"
        run_dir = results_root / run_id
        run_dir.mkdir()
        reason = self.reasons.get(number, "" if scripted == "completed" else f"{scripted} here")
        summary = {"run": run_id, "status": scripted, "reason": reason}
        (run_dir / "summary.json").write_text(json.dumps(summary))
        return RunOutcome(run_dir, summary)


@pytest.fixture
def fake_bench(monkeypatch):
    def install(statuses: dict[int, str | BaseException] | None = None, prefix: str = "ysb",
                reasons: dict[int, str] | None = None) -> FakeBench:
        fake = FakeBench(statuses, prefix, reasons)
        monkeypatch.setattr(sweeps, "run_bench", fake)
        monkeypatch.setattr(sweeps, "stack_problem", lambda spec: None)
        return fake
    return install


def new_sweep(tmp_path: Path, text: str = GRID_2X3) -> sweep_directory.Sweep:
    spec, runs = sweep_plan.read_sweep_file(sweep_file(tmp_path, text))
    return sweep_directory.create_sweep(spec, runs, tmp_path / "results")


# --- planning -----------------------------------------------------------------------------------

def test_grid_expands_repetition_by_repetition_with_the_policies_of_a_point_back_to_back(tmp_path):
    runs = plan(tmp_path, GRID_2X3)
    assert len(runs) == 2 * 3 * 2
    assert [run.index for run in runs] == list(range(1, 13))
    order = [(run.repetition, run.params["queries"], run.params["policy"]) for run in runs]
    assert order == [
        (1, 1, "default"), (1, 1, "klink"), (1, 1, "rr"), (1, 2, "default"), (1, 2, "klink"), (1, 2, "rr"),
        # the policies' order rotates by one per repetition, so no policy always runs first
        (2, 1, "klink"), (2, 1, "rr"), (2, 1, "default"), (2, 2, "klink"), (2, 2, "rr"), (2, 2, "default"),
    ]


def test_repetition_k_of_every_grid_point_has_seed_base_plus_k_minus_one(tmp_path):
    runs = plan(tmp_path, GRID_2X3)
    assert {(run.repetition, run.seed, run.config.seed) for run in runs} == {(1, 7, 7), (2, 8, 8)}
    assert sweep_plan.DEFAULT_BASE_SEED == 42  # without base-seed, repetition 1 is a plain bench run's seed
    assert plan(tmp_path, "workload: ysb\ngrid: {rate: [10]}")[0].seed == 42


def test_every_run_gets_its_bench_config_from_fixed_and_its_grid_point(tmp_path):
    run = plan(tmp_path, GRID_2X3)[4]
    config = run.config
    assert (config.workload, config.queries, config.policy) == ("ysb", 2, "klink")
    assert (config.duration_ms, config.warmup_ms, config.window_ms) == (20_000, 5_000, 3_000)
    assert config.generator_cpus == "0"  # YAML's number 0 stays the core list "0", not "not pinned"
    assert run.params == {"queries": 2, "policy": "klink"}
    assert run.label == "queries=2 policy=klink rep 1"


def test_a_grid_can_vary_the_workload_each_with_its_own_defaults(tmp_path):
    runs = plan(tmp_path, """
repetitions: 1
fixed: {window: 3s}
grid: {workload: [ysb, nyt, kmeans], sampler: [kslack, aion]}
""")
    assert [(r.config.workload, r.config.sampler) for r in runs] == [
        ("ysb", "kslack"), ("ysb", "aion"), ("nyt", "kslack"), ("nyt", "aion"),
        ("kmeans", "kslack"), ("kmeans", "aion")]
    nyt = runs[2].config
    assert (nyt.window_ms, nyt.slide_ms, nyt.substream_ms) == (3000, 1000, 500)  # nyt's slide and sub-streams
    assert (runs[0].config.slide_ms, runs[0].config.substream_ms) == (0, 600)
    assert runs[2].params == {"workload": "nyt", "sampler": "kslack"}


def test_grid_keys_take_the_bench_names_and_aliases(tmp_path):
    runs = plan(tmp_path, """
workload: ysb
repetitions: 1
grid: {watermark-bound: [1s, 2s], strict_slack: [true], delay: ["const:300ms", "zipf:0.99:0-2s"]}
""")
    assert [(r.config.watermark_bound_ms, r.config.delay) for r in runs] == [
        (1000, "const:300ms"), (1000, "zipf:0.99:0-2s"), (2000, "const:300ms"), (2000, "zipf:0.99:0-2s")]
    assert all(r.config.strict_slack for r in runs)


def test_without_a_grid_a_sweep_repeats_the_fixed_settings(tmp_path):
    runs = plan(tmp_path, "workload: ysb\nrepetitions: 4\nfixed: {policy: klink}")
    assert [(r.repetition, r.seed, r.config.policy, r.params) for r in runs] == [
        (k, 41 + k, "klink", {}) for k in range(1, 5)]


def test_repetitions_default_to_three_and_the_command_line_overrides_them(tmp_path):
    text = "workload: ysb\ngrid: {policy: [default, klink]}"
    assert len(plan(tmp_path, text)) == 3 * 2
    assert len(plan(tmp_path, text, repetitions=10)) == 10 * 2


def test_a_runs_estimate_is_lead_events_drain_and_overhead(tmp_path):
    (run,) = plan(tmp_path, "workload: ysb\nrepetitions: 1\nfixed: {duration: 20s, warmup: 6s, delay: 'const:300ms'}")
    # lead 2.5 s + 20 s of events + drain (300 ms delay + 1 s bound + 200 ms watermark interval + 2 s)
    assert run.estimated_s == pytest.approx(2.5 + 20 + 3.5 + sweep_plan.RUN_OVERHEAD_S)


@pytest.mark.parametrize("text, message", [
    ("- just a list", r"a sweep file is a mapping of name, mode, workload, .*; got list"),
    ("workload: ysb\ngrids: {policy: [klink]}", r"unknown key 'grids'; valid: name, mode, workload, repetitions"),
    ("grid: {policy: [klink]}", r"no workload \(e.g. workload: ysb, or grid: \{workload: \[ysb, nyt\]\}\)"),
    ("workload: ysb\ngrid: {polcy: [klink]}", r"unknown setting 'polcy' in .*grid.yaml \(grid\); did you mean 'policy'\?"),
    ("workload: ysb\nfixed: {durration: 3s}", r"unknown setting 'durration' in .*\(fixed\)"),
    ("workload: ysb\ngrid: {policy: klink}", r"grid: 'policy' must be a list of values, e.g. policy: \[klink\]"),
    ("workload: ysb\ngrid: {policy: []}", r"grid: 'policy' has no values"),
    ("workload: ysb\ngrid: {policy: [klink, klink]}", r"grid: 'policy' lists klink more than once"),
    ("workload: ysb\ngrid: {policy: [klink, fifo]}", r"run 2 \(policy=fifo\): unknown policy 'fifo'; valid: default"),
    ("workload: ysb\ngrid: {rate: [1000, lots]}", r"grid.yaml: run 2 \(rate=lots\): --rate must be a whole number, got 'lots'"),
    ("workload: ysb\nfixed: {duration: 10s}\ngrid: {warmup: [5s, 10s]}",
     r"run 2 \(warmup=10s\): --warmup \(10000 ms\) must be shorter than --duration"),
    ("workload: ysb\ngrid: {delay: ['exp:240ms', 'exp:fast']}", r"run 2 \(delay=exp:fast\): malformed delay spec"),
    ("workload: ysb\nfixed: {seed: 3}", r"fixed: 'seed' is not a sweep setting; .*base-seed"),
    ("workload: ysb\nfixed: {workload: nyt}", r"fixed: 'workload' is not a sweep setting; give the workload at the top"),
    ("fixed: {window: 3s}\ngrid: {workload: [ysb, lrb], sampler: [aion]}",
     r"run 2 \(workload=lrb, sampler=aion\): --sampler/--accuracy need"),
    ("workload: ysb\nfixed: {duration: 10s}\ngrid: {duration_ms: [5000]}",
     r"'duration_ms' in grid sets the same setting as 'duration' in fixed"),
    ("workload: ysb\nrepetitions: 0", r"repetitions must be at least 1, got 0"),
    ("workload: ysb\nrepetitions: many", r"repetitions must be a whole number, got 'many'"),
    ("workload: ysb\nfixed: [duration]", r"fixed must be a mapping of bench settings, got list"),
    ("workload: ysb\nname: 'my sweep'", r"name 'my sweep' must be letters, digits"),
    ("workload: tpch", r"unknown workload 'tpch'; valid: ysb"),
    ("workload: ysb\ngrid: {policy: [klink}", r"is not valid YAML"),
])
def test_a_bad_sweep_file_is_one_clear_error(tmp_path, text, message):
    with pytest.raises(KlinkError, match=message) as error:
        plan(tmp_path, text)
    assert "\n" not in str(error.value)


def test_a_bad_grid_on_the_command_line_starts_nothing_and_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr("klinkctl.stack.running.ensure_stack", lambda *_args, **_kwargs: pytest.fail("the stack must not be touched"))
    path = sweep_file(tmp_path, "workload: ysb\ngrid: {policy: [default, klink], rate: [1000, -5]}")
    result = CliRunner().invoke(main, ["sweep", str(path), "--results", str(tmp_path / "results")])
    assert result.exit_code == ExitCode.USAGE
    assert result.output.strip().splitlines() == [
        f"error: {path}: run 3 (policy=default, rate=-5): --rate must be greater than 0, got -5"]
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("config", sorted((PROJECT_ROOT / "configs").glob("*.yaml")), ids=lambda p: p.name)
def test_every_shipped_config_plans(config, tmp_path, monkeypatch):
    raw = yaml.safe_load(config.read_text())
    if "capacity" in (raw.get("fixed") or {}):  # measured on the machine that ran the sweep: stand-ins here
        monkeypatch.chdir(tmp_path)
        write_stand_in_capacities(raw, tmp_path)
    spec, runs = sweep_plan.read_sweep_file(config)
    assert runs and spec.workload in WORKLOADS
    assert config.read_text().startswith("#")  # what the paper ran, what we run and why


#: Settings a capacity is measured with that shipped sweep files set or vary per cell (its {field} placeholders).
CAPACITY_CELL_SETTINGS = ("queries", "watermark-bound", "watermark-interval", "delay", "placement")


def write_stand_in_capacities(raw: dict, root: Path) -> None:
    """A capacity file per cell the sweep's capacity (a path, or a {field} template) names, of the same settings."""
    fixed, grid = raw["fixed"], raw.get("grid") or {}
    axes = [grid.get(key, [fixed[key]] if key in fixed else [None]) for key in CAPACITY_CELL_SETTINGS]
    for values in itertools.product(*axes):
        cell = user_settings({key: value for key, value in zip(CAPACITY_CELL_SETTINGS, values) if value is not None},
                             "test")
        # a simulated sweep's capacity was measured on the simulated machine its fixed settings describe
        machine = {field: value for key, value in fixed.items() if key != "capacity"
                   for field, value in user_settings({key: value}, "test").items() if field in SIM_OPTION_NAMES}
        measured = RunSpec(window_ms=duration_ms(fixed["window"], "window"),
                           generator_cpus=str(fixed.get("generator-cpus", "")), **machine, **cell).to_dict()
        path = root / capacity_path(fixed["capacity"], cell)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"kind": "klinkctl-capacity", "version": 1, "workload": "ysb", "rate": 20_000,
                                    "bottleneck": "flink", "stopped": "test", "config": {**measured, "rate": 20_000}}))


def test_the_smoke_sweep_fits_in_two_and_a_half_minutes():
    _, runs = sweep_plan.read_sweep_file(PROJECT_ROOT / "configs" / "smoke.yaml")
    assert {run.config.policy for run in runs} == {"default", "klink"} and [run.warmup for run in runs].count(True) == 1
    assert sum(run.estimated_s for run in runs) < 150


def test_dry_run_lists_the_runs_and_the_estimate_and_starts_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr("klinkctl.stack.running.ensure_stack", lambda *_args, **_kwargs: pytest.fail("the stack must not be touched"))
    path = sweep_file(tmp_path, GRID_2X3)
    result = CliRunner().invoke(main, ["sweep", str(path), "--dry-run", "--results", str(tmp_path / "results")])
    assert result.exit_code == 0, result.output
    total_s = 12 * (2.5 + 20 + 3.2 + sweep_plan.RUN_OVERHEAD_S)  # lead + events + drain + the rest, per run
    assert f"12 runs, estimated {format_duration(total_s)}" in result.output
    assert "klink" in result.output and "rr" in result.output
    assert not (tmp_path / "results").exists()


def test_eta_scales_what_is_left_by_how_far_off_the_finished_runs_were():
    assert eta_s(600, 0, 0) == 600
    assert eta_s(600, done_actual_s=120, done_estimate_s=100) == pytest.approx(720)
    assert eta_s(-5, 10, 10) == 0
    assert [format_duration(s) for s in (9.4, 75, 3600 * 2 + 60 * 5)] == ["9s", "1m15s", "2h05m"]


# --- running and resuming -----------------------------------------------------------------------

def test_a_sweep_runs_every_run_in_order_and_indexes_it(tmp_path, fake_bench):
    fake = fake_bench()
    sweep = new_sweep(tmp_path)
    outcome = sweeps.run_sweep(sweep, STACK, {})
    assert [(policy, seed) for _, policy, seed in fake.calls] == [
        (r.config.policy, r.seed) for r in sweep.runs]
    assert outcome.counts == {"pending": 0, "completed": 12, "failed": 0, "interrupted": 0}
    assert not outcome.interrupted and not outcome.failed
    with (sweep.directory / "index.csv").open() as handle:
        header = handle.readline().strip().split(",")
    assert header == ["index", "run_id", "status", "repetition", "seed", "started_at", "finished_at", "wall_s",
                      "reason", "run_dir", "warmup", "queries", "policy"]
    rows = read_index(sweep.directory)
    assert [row["run_id"] for row in rows] == [f"ysb-{r.config.policy}-{n:03d}" for n, r in enumerate(sweep.runs, 1)]
    for row in rows:
        assert row["status"] == "completed" and row["started_at"] <= row["finished_at"]
        assert float(row["wall_s"]) >= 0
        assert (sweep.directory / row["run_dir"] / "summary.json").is_file()  # relative to the sweep dir
    assert not list(sweep.directory.glob("*.tmp"))


def test_the_index_lists_every_planned_run_before_the_first_starts(tmp_path, fake_bench):
    fake = fake_bench()
    sweep = new_sweep(tmp_path)
    assert [row["status"] for row in read_index(sweep.directory)] == ["pending"] * 12
    sweeps.run_sweep(sweep, STACK, {})
    during_third = fake.index_during_runs[2]
    assert [row["status"] for row in during_third[:3]] == ["completed", "completed", "pending"]
    assert during_third[2]["started_at"] and not during_third[3]["started_at"]


def test_sweep_yaml_is_the_resolved_sweep_and_reads_back_as_a_sweep_file(tmp_path):
    sweep = new_sweep(tmp_path)
    saved = yaml.safe_load((sweep.directory / "sweep.yaml").read_text())
    assert saved == {"name": "grid", "mode": "bench", "workload": "ysb", "repetitions": 2, "base-seed": 7, "warmup-runs": 0,
                     "order": "grid", "on-lost-taskmanager": "stop", "fixed": {"duration": "20s", "warmup": "5s", "window": "3s", "generator-cpus": 0},
                     "grid": {"queries": [1, 2], "policy": ["default", "klink", "rr"]}, "variants": {}}
    spec, runs = sweep_plan.read_sweep_file(sweep.directory / "sweep.yaml")
    assert runs == sweep.runs
    assert sweep.directory.parent == tmp_path / "results" and sweep.directory.name.startswith("grid-")


def test_a_failed_run_is_recorded_and_the_sweep_goes_on(tmp_path, fake_bench):
    fake = fake_bench({2: "failed", 5: KlinkError("Kafka went away")})
    sweep = new_sweep(tmp_path)
    outcome = sweeps.run_sweep(sweep, STACK, {})
    assert len(fake.calls) == 12
    assert [row.index for row in outcome.failed] == [2, 5]
    rows = read_index(sweep.directory)
    assert (rows[1]["status"], rows[1]["reason"]) == ("failed", "failed here")
    assert (rows[4]["status"], rows[4]["reason"], rows[4]["run_dir"]) == ("failed", "KlinkError: Kafka went away", "")
    assert outcome.counts["completed"] == 10


@pytest.mark.parametrize("interrupt", ["interrupted", KeyboardInterrupt()], ids=["run_bench returns", "raises"])
def test_an_interrupted_run_is_recorded_and_stops_the_sweep(tmp_path, fake_bench, interrupt):
    fake = fake_bench({3: interrupt})
    sweep = new_sweep(tmp_path)
    outcome = sweeps.run_sweep(sweep, STACK, {})
    assert outcome.interrupted and len(fake.calls) == 3
    assert [row["status"] for row in read_index(sweep.directory)] == ["completed"] * 2 + ["interrupted"] + ["pending"] * 9


def test_resume_skips_completed_runs_and_redoes_failed_interrupted_and_unstarted_ones(tmp_path, fake_bench):
    fake_bench({2: "failed", 4: "interrupted"})
    first = new_sweep(tmp_path)
    sweeps.run_sweep(first, STACK, {})
    completed_before = {row["index"]: row["run_id"] for row in read_index(first.directory) if row["status"] == "completed"}

    again = fake_bench()
    resumed = sweep_directory.open_sweep(first.directory)
    assert [run.index for run in resumed.unfinished()] == [2] + list(range(4, 13))
    outcome = sweeps.run_sweep(resumed, STACK, {})
    assert [(policy, seed) for _, policy, seed in again.calls] == [
        (run.config.policy, run.seed) for run in first.runs if run.index != 1 and run.index != 3]
    assert outcome.counts["completed"] == 12 and not outcome.interrupted
    rows = read_index(first.directory)
    assert {row["index"]: row["run_id"] for row in rows if row["index"] in completed_before} == completed_before


def test_a_run_the_sweep_was_killed_in_is_redone(tmp_path, fake_bench):
    sweep = new_sweep(tmp_path)
    fake_bench({1: SystemExit(9)})  # the process dies mid-run: the row stays pending with a start time
    with pytest.raises(SystemExit):
        sweeps.run_sweep(sweep, STACK, {})
    row = read_index(sweep.directory)[0]
    assert row["status"] == "pending" and row["started_at"]
    assert [run.index for run in sweep_directory.open_sweep(sweep.directory).unfinished()][0] == 1


def test_resume_with_more_repetitions_appends_runs_and_refuses_fewer(tmp_path, fake_bench):
    fake_bench()
    sweep = new_sweep(tmp_path)
    sweeps.run_sweep(sweep, STACK, {})
    with pytest.raises(KlinkError, match="--repetitions 1 is fewer than the 2 of the sweep"):
        sweep_directory.open_sweep(sweep.directory, repetitions=1)
    grown = sweep_directory.open_sweep(sweep.directory, repetitions=3)
    assert [(run.index, run.repetition, run.seed) for run in grown.unfinished()] == [(i, 3, 9) for i in range(13, 19)]
    assert yaml.safe_load((sweep.directory / "sweep.yaml").read_text())["repetitions"] == 2  # nothing written yet
    sweeps.run_sweep(grown, STACK, {})
    assert yaml.safe_load((sweep.directory / "sweep.yaml").read_text())["repetitions"] == 3
    assert len(read_index(sweep.directory)) == 18


def test_an_index_that_does_not_match_its_sweep_is_refused(tmp_path):
    sweep = new_sweep(tmp_path)
    index = sweep.directory / "index.csv"
    index.write_text(index.read_text().replace(",klink\n", ",sbox\n", 1))
    with pytest.raises(KlinkError, match=r"index.csv: row 2 is not run 2 of sweep.yaml \(queries=1 policy=klink"):
        sweep_directory.open_sweep(sweep.directory)
    with pytest.raises(KlinkError, match="is not a sweep directory"):
        sweep_directory.open_sweep(tmp_path)


def test_cli_runs_a_sweep_and_says_how_it_went(tmp_path, monkeypatch, fake_bench):
    monkeypatch.setattr("klinkctl.stack.running.ensure_stack", lambda *_args, **_kwargs: (STACK, {}))
    fake_bench({3: "failed"})
    path = sweep_file(tmp_path, GRID_2X3)
    result = CliRunner().invoke(main, ["sweep", str(path), "--results", str(tmp_path / "results")])
    assert result.exit_code == ExitCode.SWEEP_INCOMPLETE
    (directory,) = (tmp_path / "results").iterdir()
    assert "11 completed, 1 failed" in result.output
    assert result.output.strip().splitlines()[-1] == (
        f"error: 1 of 12 runs failed (run 3; reasons in {directory / 'index.csv'}); rerun them with "
        f"klinkctl sweep --resume {directory}")

    fake_bench()
    resumed = CliRunner().invoke(main, ["sweep", "--resume", str(directory)])
    assert resumed.exit_code == 0, resumed.output
    assert "[1/1] completed queries=1 policy=rr rep 1" in resumed.output
    assert f"all 12 runs completed; figures: klinkctl report {directory}" in resumed.output

    nothing = CliRunner().invoke(main, ["sweep", "--resume", str(directory)])
    assert nothing.exit_code == 0 and "nothing to run" in nothing.output


def test_cli_interrupted_sweep_exits_130_and_says_how_to_resume(tmp_path, monkeypatch, fake_bench):
    monkeypatch.setattr("klinkctl.stack.running.ensure_stack", lambda *_args, **_kwargs: (STACK, {}))
    fake_bench({2: "interrupted"})
    path = sweep_file(tmp_path, GRID_2X3)
    result = CliRunner().invoke(main, ["sweep", str(path), "--results", str(tmp_path / "results")])
    (directory,) = (tmp_path / "results").iterdir()
    assert result.exit_code == 130
    assert f"interrupted; resume with: klinkctl sweep --resume {directory}" in result.output


def test_cli_wants_a_sweep_file_or_a_sweep_to_resume(tmp_path):
    assert CliRunner().invoke(main, ["sweep"]).output.startswith("error: no sweep file")
    path = sweep_file(tmp_path, GRID_2X3)
    both = CliRunner().invoke(main, ["sweep", str(path), "--resume", str(tmp_path)])
    assert both.exit_code == 2 and "not both" in both.output


def test_a_sweep_of_another_workload_gets_that_workloads_defaults(tmp_path):
    sweep_file = tmp_path / "nyt.yaml"
    sweep_file.write_text("name: nyt-rates\nworkload: nyt\ngrid:\n  rate: [1000, 2000]\n")
    _, runs = sweep_plan.read_sweep_file(sweep_file)
    assert {(run.config.window_ms, run.config.slide_ms) for run in runs} == {(2000, 1000)}


def test_a_stack_that_goes_down_stops_the_sweep_before_the_next_run(tmp_path, fake_bench, monkeypatch):
    fake_bench()
    sweep = new_sweep(tmp_path)
    answers = iter([None, None, "the Kafka broker does not answer at 127.0.0.1:9092"])
    monkeypatch.setattr(sweeps, "stack_problem", lambda spec: next(answers))
    outcome = sweeps.run_sweep(sweep, STACK, {})
    assert outcome.stack_down == "the Kafka broker does not answer at 127.0.0.1:9092"
    assert not outcome.interrupted and outcome.failed == []
    assert [row["status"] for row in read_index(sweep.directory)][:3] == ["completed", "completed", "pending"]
