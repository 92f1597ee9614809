"""`klinkctl simulate` and `sweep` with mode: simulate, through the real command line and the real simulator jar
(java-udfs/klink-sim): no stack, a bench-shaped run directory, the same files for the same seed, and a report
that labels its figures simulated."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

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
