"""LRB (Linear Road) on the real stack: a short run completes with per-query latencies measured on the toll
window and query-attributable tasks; tolls and accidents are checked in Java (LrbPipelineTest, LrbEventCodecTest)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

pytestmark = pytest.mark.integration


def test_a_short_lrb_run_measures_every_query_on_its_toll_window(running_stack, tmp_path):
    result = running_stack("bench", "lrb", "--results", str(tmp_path), "--queries", "2", "--rate", "500",
                           "--duration", "12s", "--warmup", "2s", "--delay", "exp:100ms", "--stressed", timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "status: completed" in result.stdout
    (run_dir,) = tmp_path.iterdir()
    assert json.loads((run_dir / "summary.json").read_text())["status"] == "completed"
    bench = yaml.safe_load((run_dir / "config.yaml").read_text())["bench"]
    assert (bench["workload"], bench["window_ms"], bench["slide_ms"], bench["stressed"]) == ("lrb", 5000, 3000, True)

    latency = pd.read_csv(run_dir / "latency.csv")
    assert set(latency["query"]) == {"q00", "q01"}
    # the stressed toll window: 1 s, so about one firing per second per query over the 12 s run
    assert (latency["window_end"] - latency["window_start"] == 1000).all()
    assert latency.groupby("query").size().min() >= 6
    assert latency["swm_latency_ms"].between(0, 10_000).all()

    names = set(pd.read_csv(run_dir / "throughput.csv")["job_vertex"])
    for q in ("q00", "q01"):
        for operator in ("parse", "accidents", "crossings", "stats-window", "stats-rows", "toll-window"):
            assert any(f"{q}/{operator}" in n for n in names), (operator, names)
