"""`klinkctl sweep configs/smoke.yaml` end to end on the real stack (Kafka + Flink on free ports in a temp
state dir): every planned run completed, indexed, with measured latencies; a resume then has nothing to do."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from klinkctl.paths import PROJECT_ROOT

pytestmark = pytest.mark.integration

SMOKE = PROJECT_ROOT / "configs" / "smoke.yaml"


def test_the_smoke_sweep_completes_every_run_with_latency_rows(klinkctl_factory, tmp_path):
    cli = klinkctl_factory()
    up = cli.up()
    assert up.returncode == 0, up.stderr
    results = tmp_path / "results"

    swept = cli("sweep", str(SMOKE), "--results", str(results), timeout=600)
    assert swept.returncode == 0, swept.stdout + swept.stderr
    (sweep_dir,) = results.iterdir()
    assert (sweep_dir / "sweep.yaml").is_file()
    index = pd.read_csv(sweep_dir / "index.csv", dtype=str, keep_default_na=False)
    assert list(index.columns) == ["index", "run_id", "status", "repetition", "seed", "started_at", "finished_at",
                                   "wall_s", "reason", "run_dir", "policy", "queries", "rate"]
    assert list(index["policy"]) == ["default", "klink"] and set(index["seed"]) == {"42"}
    assert set(index["status"]) == {"completed"}, index[["policy", "status", "reason"]].to_string()
    for row in index.itertuples():
        run_dir = sweep_dir / row.run_dir
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["status"] == "completed" and summary["run"] == row.run_id
        latency = pd.read_csv(run_dir / "latency.csv")
        assert (~latency["warmup"]).sum() >= 2, f"{row.policy}: no measured windows"
        assert summary["swm_latency_ms"]["count"] >= 2
    assert (sweep_dir / index["run_dir"][1] / "scheduler.csv").is_file()  # klink ran the runtime scheduler
    assert f"all 2 runs completed; figures: klinkctl report {sweep_dir}" in swept.stdout

    resumed = cli("sweep", "--resume", str(sweep_dir), timeout=120)
    assert resumed.returncode == 0 and "nothing to run" in resumed.stdout, resumed.stdout + resumed.stderr
