"""The runtime scheduler on a real TaskManager: a short `--policy rr` run pauses tasks and still completes."""

from __future__ import annotations

import json
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest
import yaml

pytestmark = pytest.mark.integration


def test_round_robin_pauses_tasks_and_the_run_completes(running_stack, tmp_path):
    result = running_stack("bench", "ysb", "--results", str(tmp_path), "--queries", "2", "--rate", "500",
                           "--duration", "14s", "--warmup", "4s", "--window", "2s", "--policy", "rr",
                           "--cores", "1")  # C counts pipelines: 2 queries on C = 2 would never pause
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = tmp_path.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed"

    cycles = pd.read_csv(run_dir / "scheduler.csv")
    assert list(cycles.columns) == ["time", "policy", "tasks", "running", "paused", "cycle_ns", "decisions", "why",
                                    "memory_used", "cycle_cpu_ns", "gc_ms", "remote_tasks", "source_records_in",
                                    "task_cpu_ns", "safepoint_ms"]
    assert (cycles["gc_ms"] >= 0).all() and cycles["gc_ms"].iloc[0] == 0  # collection time since the last cycle
    assert cycles["memory_used"].between(0, 1).all() and (cycles["memory_used"] > 0).any()  # live heap after GC
    busy_cpu = cycles.loc[cycles["tasks"] > 0, "cycle_cpu_ns"]  # the scheduler thread's own CPU, within the cycle
    assert (busy_cpu > 0).all() and (busy_cpu <= cycles.loc[cycles["tasks"] > 0, "cycle_ns"] + 1e6).all()
    assert 0 < summary["scheduler"]["cpu_cores_used"] < 0.5
    assert (cycles["policy"] == "rr").all()
    assert len(cycles) >= 50  # one row per 120 ms cycle over the run
    assert (cycles["paused"] > 0).any()
    busy = cycles[cycles["tasks"] > 0]
    assert (busy["running"] + busy["paused"] == busy["tasks"]).all()
    assert busy["source_records_in"].sum() > 0 and (busy["task_cpu_ns"] >= 0).all()  # what each choice got done

    latency = pd.read_csv(run_dir / "latency.csv")
    assert set(latency["query"]) == {"q00", "q01"}  # paused tasks were resumed: every query produced windows
    # both TaskManagers' agents took the run over the control channel and said when they had sent everything
    agents = json.loads((run_dir / "agents.json").read_text())
    assert len(agents) == 2 and all(agent["took_run"] and agent["done"] for agent in agents.values())
    # klinkctl no longer listens: the next run starts on plain Flink
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", running_stack.ports[4]), timeout=2)


def test_klink_schedules_by_slack_learns_swm_arrivals_and_every_query_keeps_firing(running_stack, tmp_path):
    result = running_stack("bench", "ysb", "--results", str(tmp_path), "--queries", "2", "--rate", "500",
                           "--duration", "16s", "--warmup", "4s", "--window", "2s", "--delay", "const:200ms",
                           "--policy", "klink", "--cores", "1", "--strict-slack")  # select even at this light load; no aging, as in the paper
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = tmp_path.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed"

    cycles = pd.read_csv(run_dir / "scheduler.csv")
    assert (cycles["policy"] == "klink").all() and len(cycles) >= 50
    slacks = cycles["why"].dropna()
    assert slacks.str.contains("q00=").any() and slacks.str.contains(r"q01=-?\d", regex=True).any()
    running_queries = cycles["decisions"].dropna().str.findall(r"(q\d\d):").map(set)
    assert (running_queries.map(len) <= 1).all()  # C = 1: one pipeline at a time
    assert set().union(*running_queries) == {"q00", "q01"}  # neither query was starved

    swms = pd.read_csv(run_dir / "estimator.csv")
    assert set(swms["estimator"]) == {"klink", "lr"} and set(swms["query"]) == {"q00", "q01"}
    assert summary["estimator"]["klink"]["swms"] > 0
    # the TaskManager may append an idle cycle (no tasks) after the summary was written
    assert summary["scheduler"]["cycles"] == (cycles["tasks"] > 0).sum()
    overhead = summary["scheduler"]
    assert overhead["p99_cycle_interval_beyond_gc_ms"] <= overhead["p99_cycle_interval_ms"]
    # HotSpot's safepoint totals reached the agent (a collection is a safepoint too)
    assert overhead["safepoint_stall_fraction"] >= overhead["gc_stall_fraction"] * 0.9
    assert 0 <= overhead["gc_stall_fraction"] < 1
    # klinkctl set the agent's scheduler thread ahead of the tasks (root here has CAP_SYS_NICE)
    nices = yaml.safe_load((run_dir / "config.yaml").read_text())["scheduler_thread_nice"]
    assert sorted(nices) == ["taskmanager-1", "taskmanager-2"]  # the fixture's stack
    assert set(nices.values()) == {-20 if os.geteuid() == 0 else 0}
    latency = pd.read_csv(run_dir / "latency.csv")
    assert set(latency["query"]) == {"q00", "q01"}


def test_klink_on_pipelines_spanning_both_taskmanagers_sees_the_other_ones_part_of_each(running_stack, tmp_path):
    result = running_stack("bench", "ysb", "--results", str(tmp_path), "--queries", "2", "--rate", "500",
                           "--duration", "14s", "--warmup", "4s", "--window", "2s", "--policy", "klink", "--cores", "1",
                           "--strict-slack", "--placement", "split")
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = tmp_path.iterdir()
    tasks = pd.read_csv(run_dir / "placement.csv")
    sources = set(tasks.loc[tasks["vertex"].str.contains("source"), "taskmanager"])
    windows = set(tasks.loc[tasks["vertex"].str.contains("window"), "taskmanager"])
    assert len(sources) == len(windows) == 1 and sources != windows  # every pipeline spans both TaskManagers

    cycles = pd.read_csv(run_dir / "scheduler.csv")
    busy = cycles[cycles["tasks"] > 0]
    # each TaskManager's scheduler saw the other's two tasks (a window or a source per query) in most cycles
    assert busy["remote_tasks"].max() == 2 and (busy["remote_tasks"] == 2).mean() > 0.5
    slacks = busy["why"].dropna()
    assert slacks.str.contains(r"q00=-?\d", regex=True).any() and slacks.str.contains(r"q01=-?\d", regex=True).any()
    assert set(pd.read_csv(run_dir / "latency.csv")["query"]) == {"q00", "q01"}


def _task_thread_nices(state_dir) -> dict[str, int]:
    """Nice value of every Flink task thread (named after its first operator, q00/...) of this stack's
    TaskManagers, read from /proc."""
    nices = {}
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes()
            if b"TaskManagerRunner" not in cmdline or str(state_dir).encode() not in cmdline:
                continue
            for task in (proc / "task").iterdir():
                stat = (task / "stat").read_text()
                name = (task / "comm").read_text().strip()
                if "q0" in name:
                    nices[f"{proc.name}/{task.name}:{name}"] = int(stat[stat.rindex(")") + 2:].split()[16])
        except (OSError, ValueError):
            continue
    return nices


def _bench_watching_nices(stack, results, *args: str):
    """A 2-query YSB bench run, and every nice value its task threads had while it ran (sampled every 200 ms)."""
    seen: set[int] = set()
    with ThreadPoolExecutor(1) as pool:
        run = pool.submit(stack, "bench", "ysb", "--results", str(results), "--queries", "2", "--warmup", "4s",
                          "--window", "2s", *args)
        while not run.done():
            seen |= set(_task_thread_nices(stack.state_dir).values())
            time.sleep(0.2)
        return run.result(), seen


@pytest.mark.skipif(os.geteuid() != 0, reason="priority enforcement needs root")
def test_with_priority_enforcement_tasks_not_chosen_run_at_nice_19_and_are_restored_after_the_run(
        running_stack, tmp_path):
    result, seen = _bench_watching_nices(running_stack, tmp_path, "--rate", "500", "--duration", "14s", "--policy",
                                         "rr", "--cores", "1", "--enforce", "priority")
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = tmp_path.iterdir()
    assert json.loads((run_dir / "summary.json").read_text())["status"] == "completed"
    cycles = pd.read_csv(run_dir / "scheduler.csv")
    assert len(cycles) >= 50 and (cycles["paused"] > 0).any()
    assert {0, 19} <= seen  # chosen tasks at nice 0, the others demoted, never anything else
    assert seen <= {0, 19}
    latency = pd.read_csv(run_dir / "latency.csv")
    assert set(latency["query"]) == {"q00", "q01"}  # demoted tasks still ran
    # after the run every task thread that is left is back at normal priority
    assert set(_task_thread_nices(running_stack.state_dir).values()) <= {0}


@pytest.mark.skipif(os.geteuid() != 0, reason="os-priority raises nice values back, which needs root")
def test_os_priority_renices_every_vertex_by_its_backlog_from_outside_and_restores_the_threads(running_stack, tmp_path):
    result, seen = _bench_watching_nices(running_stack, tmp_path, "--rate", "2000", "--duration", "12s", "--policy",
                                         "os-priority")
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = tmp_path.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed" and summary["policy"] == "os-priority"
    assert not (run_dir / "scheduler.csv").exists()  # the agent stayed on default: nothing paused

    periods = pd.read_csv(run_dir / "os_priority.csv", dtype={"threads": str})
    assert periods["time"].nunique() >= 8  # one period a second over the run
    assert periods["vertex"].nunique() == 4  # a source and a window task per query
    threads_found = periods.dropna(subset=["threads"]).groupby("vertex")["threads"].first()
    assert len(threads_found) == 4  # a task thread was found for every vertex
    assert (periods.groupby("time")["nice"].nunique() > 1).any()  # the vertices were told apart by backlog
    assert summary["os_priority"]["threads_touched"] > 0 and summary["os_priority"]["unmapped_vertices"] == []
    # restored before the job was cancelled, while every thread it changed still ran
    assert summary["os_priority"]["threads_restored"] == summary["os_priority"]["threads_touched"]
    assert summary["os_priority"]["restore_problems"] == []
    assert max(seen) > 0  # the task threads' nice values did change while the job ran
    latency = pd.read_csv(run_dir / "latency.csv")
    assert set(latency["query"]) == {"q00", "q01"}  # the demoted vertices still ran
    # every task thread that is left is back at normal priority
    assert set(_task_thread_nices(running_stack.state_dir).values()) <= {0}
