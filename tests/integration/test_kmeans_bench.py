"""kMeans on the real stack: a short run completes with per-query latencies, one window task per query whose
k-means finds the generator's drifting clusters; the clustering itself is checked in Java (KMeansWindowsTest)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

pytestmark = pytest.mark.integration


def test_a_short_kmeans_run_measures_every_query(running_stack, tmp_path):
    result = running_stack("bench", "kmeans", "--results", str(tmp_path), "--queries", "2", "--rate", "2000",
                           "--duration", "12s", "--warmup", "3s", "--k", "5", "--delay", "exp:50ms", timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = tmp_path.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed"

    latency = pd.read_csv(run_dir / "latency.csv")
    assert set(latency["query"]) == {"q00", "q01"}
    assert (latency["window_end"] - latency["window_start"] == 3000).all()
    full = latency[latency["events"] > 5000]  # 3 s at 2 000 points/s, minus the ~2 % outliers the filter drops
    assert len(full) >= 4 and (full["events"] <= 6000).all()
    assert (full["keys"] == 5).all()  # five centroids per window

    names = set(pd.read_csv(run_dir / "throughput.csv")["job_vertex"])
    for q in ("q00", "q01"):
        assert any(f"{q}/parse" in n and f"{q}/filter" in n for n in names), names
        assert any(f"{q}/window" in n for n in names), names
