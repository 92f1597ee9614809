"""`klinkctl simulate` and `sweep` with mode: simulate, through the real command line and the real simulator jar
(java-udfs/klink-sim): no stack, a bench-shaped run directory, the same files for the same seed, and a report
that labels its figures simulated."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import yaml

SETTINGS = """workload: ysb
queries: 4
rate: 4000
duration: 12s
warmup: 4s
window: 2s
watermark-bound: 200ms
delay: uniform:0-400ms
node-cpu: 0.1
"""


def klinkctl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "klinkctl", *args], capture_output=True, text=True, timeout=300,
                          check=False)


def simulate(tmp_path: Path, *options: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    config = tmp_path / "sim.yaml"
    config.write_text(SETTINGS)
    done = klinkctl("simulate", str(config), "--results", str(tmp_path / "results"), "--format", "json", *options)
    assert done.returncode == 0, done.stderr
    return Path(done.stderr.strip().splitlines()[-1].removeprefix("results: "))


def test_a_simulated_run_writes_what_bench_writes_and_says_it_is_simulated(tmp_path: Path) -> None:
    run = simulate(tmp_path, "--policy", "klink")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["simulated"] is True and summary["status"] == "completed"
    assert summary["model"]["node_cpu"] == 0.1 and summary["model"]["costs"]["window"]["cost_ns_per_record"] > 0
    assert summary["windows_censored_total"] == 0 and summary["windows_measured"] == summary["windows_expected"]
    assert summary["swm_latency_ms"]["mean"] > 200  # at least the watermark bound
    assert summary["scheduler"]["cycles"] > 50 and summary["estimator"]["klink"]["swms"] > 0
    latency = pd.read_csv(run / "latency.csv")
    assert set(latency["query"]) == {"q00", "q01", "q02", "q03"}


def test_the_same_seed_gives_the_same_windows_and_another_seed_others(tmp_path: Path) -> None:
    first = pd.read_csv(simulate(tmp_path / "a", "--seed", "5") / "latency.csv")
    again = pd.read_csv(simulate(tmp_path / "b", "--seed", "5") / "latency.csv")
    other = pd.read_csv(simulate(tmp_path / "c", "--seed", "6") / "latency.csv")
    columns = ["query", "window_end", "output_at", "events"]
    assert first[columns].equals(again[columns])
    assert not first[columns].equals(other[columns])


def test_a_simulate_sweep_needs_no_stack_and_its_report_labels_every_figure(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep.yaml"
    fixed = "".join(f"  {line}\n" for line in SETTINGS.splitlines() if not line.startswith("workload"))
    sweep.write_text(f"name: simsweep\nmode: simulate\nworkload: ysb\nrepetitions: 2\nfixed:\n{fixed}"
                     "variants:\n  default: {policy: default}\n  klink: {policy: klink}\n")
    done = klinkctl("sweep", str(sweep), "--results", str(tmp_path), "--state-dir", str(tmp_path / "no-stack"))
    assert done.returncode == 0, done.stdout + done.stderr
    (directory,) = tmp_path.glob("simsweep-*")
    cells = pd.read_csv(directory / "cells.csv")
    assert list(cells["variant"]) == ["default", "klink"] and (cells["n"] == 2).all()
    report = klinkctl("report", str(directory))
    assert report.returncode == 0, report.stderr
    assert "Simulated</strong>: 4 of 4 runs" in (directory / "report" / "index.html").read_text()


def test_capacity_of_a_simulated_machine_is_its_cpu_over_the_work_per_event_and_a_sweep_runs_at_a_load(
        tmp_path: Path) -> None:
    capacity_file = tmp_path / "capacity-sim.json"
    # about 13 700 events/s per query at the default costs: the ramp from 4 000 takes 5 probes to pass it, and
    # halving to 5 % 4 more
    done = klinkctl("capacity", "ysb", "--simulate", "--queries", "4", "--window", "2s", "--watermark-bound", "200ms",
                    "--delay", "uniform:0-400ms", "--node-cpu", "0.1", "--duration", "20s", "--warmup", "6s",
                    "--start-rate", "4000", "--factor", "1.5", "--max-probes", "10",
                    "--results", str(tmp_path / "results"), "--out", str(capacity_file))
    assert done.returncode == 0, done.stderr
    capacity = json.loads(capacity_file.read_text())
    assert capacity["stack"] == {"simulated": True} and capacity["bottleneck"] == "flink" and capacity["converged"]
    assert all((Path(probe["run_dir"]) / "generator.csv").is_file() for probe in capacity["probes"])
    model = json.loads((Path(capacity["probes"][0]["run_dir"]) / "summary.json").read_text())["model"]
    source, window = model["costs"]["source"], model["costs"]["window"]
    ns_per_event = source["cost_ns_per_record"] + source["outputs"][0]["selectivity"] * window["cost_ns_per_record"]
    tasks_share = model["node_cpu"] * (1 - model["background_cpu"])
    assert 0.85 < capacity["total_rate"] / (tasks_share * 1e9 / ns_per_event) < 1.05
    sweep = tmp_path / "at-load.yaml"
    sweep.write_text(f"name: at-load\nmode: simulate\nworkload: ysb\nrepetitions: 1\nfixed:\n  queries: 4\n"
                     f"  window: 2s\n  watermark-bound: 200ms\n  delay: uniform:0-400ms\n  node-cpu: 0.1\n"
                     f"  capacity: {capacity_file}\ngrid:\n  load: [0.5, 1.2]\n")
    swept = klinkctl("sweep", str(sweep), "--results", str(tmp_path / "sweeps"), "--state-dir", str(tmp_path / "none"))
    assert swept.returncode == 0, swept.stderr
    runs = [(yaml.safe_load((path / "config.yaml").read_text())["bench"], json.loads((path / "summary.json").read_text()))
            for path in (tmp_path / "sweeps").glob("at-load-*/sim-*")]
    offered = {config["load"]: (config["rate"], summary["throughput"]) for config, summary in runs}
    assert {load: rate for load, (rate, _) in offered.items()} == {0.5: round(0.5 * capacity["rate"]),
                                                                     1.2: round(1.2 * capacity["rate"])}
    read = {load: throughput["flink_source_records_per_s"] / (rate * 4) for load, (rate, throughput) in offered.items()}
    assert read[0.5] > 0.97 and read[1.2] < 0.9  # below its capacity the machine keeps up, above it does not
