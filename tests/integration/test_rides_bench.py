"""The rides workload on the real stack (docs/combiner.md): AdCom's controller decides every period and writes
combiner.csv, and with or without a combiner every fired window equals the exact aggregate the harness computes
from the input topic. The controller's arithmetic is checked in Java (PiControllerTest)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

pytestmark = pytest.mark.integration

SHORT_RUN = ("--rate", "3000", "--duration", "4s", "--warmup", "1s", "--window", "1s", "--accuracy",
             "--combiner-parallelism", "2", "--key-skew", "1.2")


def run(stack, results, *options: str):
    result = stack("bench", "rides", "--results", str(results), *SHORT_RUN, *options, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = results.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed", summary["reason"]
    return run_dir, summary


def assert_windows_equal_the_exact_results(run_dir, aggregate: str) -> None:
    results = pd.read_csv(run_dir / "results.csv")
    exact = pd.read_csv(run_dir / "exact.csv")
    assert len(results) > 20
    fired = exact[exact["window_end"].isin(results["window_end"])]
    both = results.merge(fired, on=["query", "window_end", "key"], how="outer", indicator=True)
    assert (both["_merge"] == "both").all(), both[both["_merge"] != "both"]  # no region missing or extra
    fields = both["fields"].map(json.loads)
    assert (both["value"] == both["exact"]).all()  # passengers summed / distinct drivers
    assert (fields.str[0] == both["events"]).all()  # trips
    if aggregate == "passengers":
        assert (fields.str[2] == both["max_fare"]).all()


def test_adcom_logs_its_decisions_and_no_combiner_and_adcom_both_give_the_exact_windows(running_stack, tmp_path):
    stack = running_stack  # two TaskManagers: the combiner's instances send partials across them
    run_dir, summary = run(stack, tmp_path / "adcom", "--combiner", "adcom", "--ride-aggregate", "drivers")
    assert summary["accuracy"]["max_error"] == 0
    assert_windows_equal_the_exact_results(run_dir, "drivers")
    decisions = pd.read_csv(run_dir / "combiner.csv")
    assert len(decisions) >= 5 and (decisions["mode"] == "adcom").all()
    assert (decisions["rho"].str.split(";").str.len() == 2).all()  # one utilisation per combiner instance
    assert decisions["interval_ms"].between(20, 10_000).all()
    # at 3000 trips/s the buffers stay far below the band: e(t) < 0 shortens λ from its initial 500 ms
    assert (decisions["error"] < 0).all() and decisions["interval_ms"].iloc[-1] < 500

    run_dir, summary = run(stack, tmp_path / "none", "--combiner", "none")
    assert summary["accuracy"]["max_error"] == 0
    assert_windows_equal_the_exact_results(run_dir, "passengers")
    assert not (run_dir / "combiner.csv").exists()
