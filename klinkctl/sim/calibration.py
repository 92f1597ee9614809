"""What a simulator is calibrated with from a real run: each task role's CPU cost per input record and its
selectivity, from the per-task totals klink-agent writes into the run directory (``tasks.csv``, docs/results.md)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from klinkctl.errors import KlinkError
from klinkctl.results.runs import CONFIG_FILE, read_bench
from klinkctl.results.summary import read_json

TASKS_FILE = "tasks.csv"
COLUMNS = ["task", "query", "role", "kind", "subtask", "records_in", "records_out", "cpu_ns", "bytes_in"]
COUNTERS = ["records_in", "records_out", "cpu_ns"]


def read_calibration(run_dir: Path) -> dict[str, dict[str, float]]:
    """Per role (``source``, ``window``, ...: the tasks of every query pooled), ``cost_ns_per_record`` = CPU
    time / records in, ``selectivity`` = records out / records in, and ``tasks``, how many were pooled. The
    simulator reads a window's selectivity the same way, records out per record in (its firings emit their
    records × selectivity × slide / size: java-udfs/klink-sim SimTask), so no role needs the run's firings. A role
    that read no record, or one with a task whose CPU time the JVM could not measure, is left out. A source's
    records in are Kafka records, each holding one generator send burst's events (docs/workloads.md): its cost
    and selectivity are per event (the generator's events_sent, every one of which the sources read), as the
    simulator's sources count them, when the run has its generator-summary.json."""
    path = Path(run_dir) / TASKS_FILE
    tasks = _read_tasks(path)
    events = read_json(Path(run_dir) / "generator-summary.json").get("events_sent")
    calibration = {}
    for role, group in tasks.groupby("role", sort=True):
        is_source = (group["kind"] == "source").all()
        records_in = events if is_source and events else group["records_in"].sum()
        if records_in <= 0 or (group["cpu_ns"] < 0).any():
            continue
        calibration[str(role)] = {"cost_ns_per_record": float(group["cpu_ns"].sum() / records_in),
                                  "selectivity": float(group["records_out"].sum() / records_in),
                                  "tasks": len(group)}
    if not calibration:
        raise KlinkError(f"{path}: no task role read a record with its CPU time measured (cpu_ns -1: the "
                         "TaskManager's JVM cannot measure thread CPU); re-run it with `klinkctl bench` and check "
                         "the TaskManagers' .err logs")
    return calibration


def calibration_cell(run_dir: Path) -> tuple[int, float]:
    """The run's (queries, events/s per query), from its config.yaml: the cell its costs were measured in."""
    path = Path(run_dir) / CONFIG_FILE
    bench = read_bench(path)
    try:
        return int(bench["queries"]), float(bench["rate"])
    except (KeyError, TypeError, ValueError):
        raise KlinkError(f"{path}: no bench queries and rate to place the run's source costs "
                         "(--source-record-cost-ns needs them); give a run directory bench wrote") from None


def window_records_per_ms(run_dir: Path) -> dict[str, float]:
    """Per window role, the records one of its tasks read per ms of its lifetime, taken as the generator's run
    (generator-summary.json's elapsed_s) plus the drain (drain.json's waited_ms): the rate its calibrated cost per
    record was measured at, which --window-time-cost-ns splits into a part per record and one per ms."""
    run_dir = Path(run_dir)
    tasks = _read_tasks(run_dir / TASKS_FILE)
    elapsed = read_json(run_dir / "generator-summary.json").get("elapsed_s")
    if not elapsed:
        raise KlinkError(f"{run_dir}: no generator-summary.json elapsed_s to measure its windows' records per ms "
                         "(--window-time-cost-ns needs it); give a run directory bench wrote")
    drain_ms = read_json(run_dir / "drain.json").get("waited_ms") or 0
    lifetime_ms = float(elapsed) * 1000 + float(drain_ms)
    windows = tasks[tasks["kind"] == "window"]
    return {str(role): float(group["records_in"].sum() / len(group) / lifetime_ms)
            for role, group in windows.groupby("role", sort=True)}


def _read_tasks(path: Path) -> pd.DataFrame:
    """The table's rows whose counters are numbers; the run's directory must have the agent's tasks.csv."""
    if not path.is_file():
        raise KlinkError(f"{path} is missing: the run predates per-task recording (or its TaskManagers wrote "
                         "nothing); re-run it with `klinkctl bench`")
    try:
        tasks = pd.read_csv(path, dtype={"role": str}, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise KlinkError(f"{path} is not a CSV table ({' '.join(str(error).split())}); re-run it with "
                         "`klinkctl bench`") from None
    if list(tasks.columns) != COLUMNS:
        raise KlinkError(f"{path} has the columns {','.join(map(str, tasks.columns))} where klink-agent writes "
                         f"{','.join(COLUMNS)}; re-run it with `klinkctl bench`")
    tasks[COUNTERS] = tasks[COUNTERS].apply(pd.to_numeric, errors="coerce")
    return tasks.dropna(subset=COUNTERS)
