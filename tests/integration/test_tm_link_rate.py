"""`klinkctl up --tm-link-rate` on the real stack (docs/backends.md, "Slow shuffle links"): TaskManager 2's shuffle
server is reached through klinkctl's rate-limited relay, so what its producers send to the other TaskManager crosses
the relay, never faster than the link's rate, and the windows stay exact. The token bucket's arithmetic and the
relay's rate on a plain socket are tested in tests/unit/test_relay.py."""

from __future__ import annotations

import json

import pandas as pd
import pytest

pytestmark = pytest.mark.integration

LINK_BYTES_PER_S = 250_000  # 2mbit: well below what two rides combiners send unshaped at this rate


def test_a_shaped_link_carries_the_shuffle_at_most_at_its_rate_and_the_windows_stay_exact(klinkctl_factory,
                                                                                           tmp_path):
    stack = klinkctl_factory()
    result = stack.up("--taskmanagers", "2", "--tm-memory", "1024m", "--jm-memory", "768m", "--tm-link-rate",
                      "2=2mbit")
    assert result.returncode == 0, result.stderr
    assert "tm-link-2" in stack("status").stdout
    results = tmp_path / "rides"
    result = stack("bench", "rides", "--results", str(results), "--rate", "3000", "--duration", "8s", "--warmup",
                   "2s", "--window", "1s", "--accuracy", "--combiner", "none", "--combiner-parallelism", "2",
                   timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = results.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed", summary["reason"]
    assert summary["accuracy"]["max_error"] == 0
    link = summary["tm_links"]["taskmanager-2"]
    assert link["rate_bytes_per_s"] == LINK_BYTES_PER_S
    assert link["bytes_to_clients"] > 10_000  # records of TaskManager 2's tasks went to the other one through it
    # a second's counter growth may straddle a burst of the 16 KiB bucket depth, never more
    assert link["peak_bytes_per_s_to_clients"] <= LINK_BYTES_PER_S * 1.1 + 16 * 1024
    assert len(pd.read_csv(run_dir / "links.csv")) >= 5
    assert stack("down").returncode == 0
    assert "tm-link-2" not in stack("status").stdout
