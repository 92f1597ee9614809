"""klinkctl.sim.calibration: per-role cost per record and selectivity from a run's tasks.csv."""

from __future__ import annotations

from pathlib import Path

import pytest

from klinkctl.errors import KlinkError
from klinkctl.run.config import build
from klinkctl.sim.calibration import read_calibration
from klinkctl.sim.graphs import query_tasks

HEADER = "task,query,role,kind,subtask,records_in,records_out,cpu_ns,bytes_in"


def run_with_tasks(tmp_path: Path, *rows: str) -> Path:
    (tmp_path / "tasks.csv").write_text("\n".join([HEADER, *rows]) + "\n")
    return tmp_path


def test_each_role_pools_the_tasks_of_every_query(tmp_path: Path) -> None:
    run_dir = run_with_tasks(tmp_path,
                             "q00:src#0,q00,source,source,0,1000,1000,2000000,0",
                             "q01:src#0,q01,source,source,0,3000,2000,6000000,0",
                             "q00:win#0,q00,window,window,0,1000,10,5000000,80000",
                             "q01:win#0,q01,window,window,0,2000,30,4000000,160000")
    assert read_calibration(run_dir) == {
        "source": {"cost_ns_per_record": 2000.0, "selectivity": 0.75, "tasks": 2},
        "window": {"cost_ns_per_record": 3000.0, "selectivity": 40 / 3000, "tasks": 2},
    }


def test_a_role_without_records_in_or_with_unmeasured_cpu_is_left_out(tmp_path: Path) -> None:
    run_dir = run_with_tasks(tmp_path,
                             "q00:src#0,q00,source,source,0,0,1000,2000000,0",
                             "q00:op#0,q00,join,op,0,500,250,-1,4000",
                             "q00:op#1,q00,join,op,1,500,250,1000000,4000",
                             "q00:win#0,q00,toll-window,window,0,100,1,300000,8000")
    assert read_calibration(run_dir) == {"toll-window": {"cost_ns_per_record": 3000.0, "selectivity": 0.01,
                                                         "tasks": 1}}


def test_an_idle_subtask_still_counts_among_its_roles_tasks(tmp_path: Path) -> None:
    run_dir = run_with_tasks(tmp_path,
                             "q00:win#0,q00,window,window,0,400,4,800000,0",
                             "q00:win#1,q00,window,window,1,0,0,0,0")
    assert read_calibration(run_dir)["window"] == {"cost_ns_per_record": 2000.0, "selectivity": 0.01, "tasks": 2}


def test_a_run_without_tasks_csv_is_told_to_be_rerun(tmp_path: Path) -> None:
    with pytest.raises(KlinkError, match=r"tasks\.csv is missing: the run predates per-task recording.*"
                                         r"re-run it with `klinkctl bench`"):
        read_calibration(tmp_path)


@pytest.mark.parametrize("rows", [
    (),
    ("q00:src#0,q00,source,source,0,0,0,0,0",),
    ("q00:win#0,q00,window,window,0,100,1,-1,0",),
    ("q00:win#0,q00,window,window,0,lots,1,500,0",),
], ids=["header only", "nothing read", "cpu unmeasured", "not a number"])
def test_a_table_with_no_usable_row_is_refused_in_one_line(tmp_path: Path, rows: tuple[str, ...]) -> None:
    with pytest.raises(KlinkError, match="no task role read a record") as raised:
        read_calibration(run_with_tasks(tmp_path, *rows))
    assert "\n" not in str(raised.value)


def test_a_table_that_is_not_the_agents_is_refused(tmp_path: Path) -> None:
    (tmp_path / "tasks.csv").write_text("task,records_in\nq00:src#0,5\n")
    with pytest.raises(KlinkError, match="columns task,records_in where klink-agent writes task,query,role"):
        read_calibration(tmp_path)
    (tmp_path / "tasks.csv").write_text("")
    with pytest.raises(KlinkError, match="is not a CSV table"):
        read_calibration(tmp_path)


def test_a_source_costs_per_event_when_the_generator_says_how_many_it_sent(tmp_path: Path) -> None:
    run_dir = run_with_tasks(tmp_path,
                             "q00:src#0,q00,source,source,0,100,400,2000000,0",
                             "q00:win#0,q00,window,window,0,400,10,800000,80000")
    (tmp_path / "generator-summary.json").write_text('{"events_sent": 1000}')
    calibration = read_calibration(run_dir)
    assert calibration["source"] == {"cost_ns_per_record": 2000.0, "selectivity": 0.4, "tasks": 1}
    assert calibration["window"]["cost_ns_per_record"] == 2000.0


def test_a_windows_selectivity_is_its_records_out_per_record_in_as_the_simulator_reads_it(tmp_path: Path) -> None:
    """LRB-shaped: the stats window's rows per report, whatever its keys and firings; what `--calibrate-from` gives
    the stats window is what its edge to the toll window sends per record in."""
    run_dir = run_with_tasks(tmp_path,
                             "q00:src#0,q00,source,source,0,600,20000,1000000,0",
                             "q00:win#0,q00,stats-window,window,0,10000,700,5000000,0",
                             "q00:win#0,q00,toll-window,window,0,10700,25,6420000,0",
                             "q01:src#0,q01,source,source,0,600,20000,1000000,0",
                             "q01:win#0,q01,stats-window,window,0,10000,710,5000000,0",
                             "q01:win#0,q01,toll-window,window,0,10710,25,6420000,0")
    (tmp_path / "generator-summary.json").write_text('{"events_sent": 20000}')
    calibration = read_calibration(run_dir)
    assert calibration["stats-window"]["selectivity"] == pytest.approx(1410 / 20000)
    assert calibration["source"]["selectivity"] == pytest.approx(2.0)
    config = build({"workload": "lrb", "window_ms": 5000, "slide_ms": 3000, "stressed": True})
    stats = next(task for task in query_tasks(config, calibration) if task["role"] == "stats-window")
    assert stats["outputs"] == [{"to": "toll-window", "selectivity": pytest.approx(0.0705)}]
