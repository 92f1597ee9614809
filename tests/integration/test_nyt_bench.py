"""NYT (DEBS 2015 taxi trips) on the real stack: a short run completes with per-query latencies and
query-attributable tasks; the window's correctness is checked in Java (NytPipelineTest, SlidingAggregateWindowsTest)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

pytestmark = pytest.mark.integration


def test_a_short_nyt_run_measures_every_query(running_stack, tmp_path):
    result = running_stack("bench", "nyt", "--results", str(tmp_path), "--queries", "2", "--rate", "500",
                           "--duration", "10s", "--warmup", "2s", "--delay", "exp:100ms", timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "status: completed" in result.stdout
    (run_dir,) = tmp_path.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed"
    bench = yaml.safe_load((run_dir / "config.yaml").read_text())["bench"]
    assert (bench["workload"], bench["window_ms"], bench["slide_ms"]) == ("nyt", 2000, 1000)

    latency = pd.read_csv(run_dir / "latency.csv")
    assert set(latency["query"]) == {"q00", "q01"}
    # 2 s windows sliding by 1 s: about one firing per second per query over the 10 s run
    assert latency.groupby("query").size().min() >= 6
    assert (latency["window_end"] - latency["window_start"] == 2000).all()
    assert latency["swm_latency_ms"].between(0, 10_000).all()

    throughput = pd.read_csv(run_dir / "throughput.csv")
    names = set(throughput["job_vertex"])
    for q in ("q00", "q01"):
        assert any(f"{q}/parse" in n and f"{q}/validate" in n for n in names), names
        assert any(f"{q}/window" in n for n in names), names
    assert {"q00", "q01"} <= set(throughput["query"])
