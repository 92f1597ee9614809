"""klinkctl.results.changelog: the window latency of a changelog query (rides --combiner minibatch)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from klinkctl.results import changelog
from klinkctl.run.collectors import LATENCY_COLUMNS, RESULT_COLUMNS, UPDATE_COLUMNS


def _updates(*rows: tuple) -> pd.DataFrame:
    return pd.DataFrame([("r1", "minibatch", *row) for row in rows], columns=UPDATE_COLUMNS)


def test_a_windows_latency_is_its_last_update_or_its_swm_at_the_output_whichever_came_later() -> None:
    # (query, window_end, updated_at, keys, events, updates, swm, swm_at), in the order the output wrote them
    updates = _updates(("q00", 2000, 1900, 3, 30, 3, -1, -1), ("q00", 2000, 2650, 5, 52, 4, -1, -1),
                       ("q00", 4000, 3500, 2, 9, 2, -1, -1), ("q00", 2000, 2650, 5, 52, 0, 2999, 3100),
                       ("q01", 2000, 2400, 1, 4, 1, 2100, 2300), ("q00", 4000, 4800, 5, 60, 5, 4200, 4700),
                       ("q00", 6000, 5900, 1, 1, 1, -1, -1))  # its SWM never came: no row, as if never fired
    latency = changelog.window_latency(updates, window_ms=2000, warmup_until_ms=3000)
    assert list(latency.columns) == LATENCY_COLUMNS
    assert latency[["query", "window_end", "swm", "fired_at", "output_at", "swm_latency_ms", "keys",
                    "events"]].values.tolist() == [
        ["q00", 2000, 2999, 2650, 3100, 1100, 5, 52],  # waited for its SWM
        ["q00", 4000, 4200, 4800, 4800, 800, 5, 60],  # its last update came after its SWM
        ["q01", 2000, 2100, 2400, 2400, 400, 1, 4]]
    assert latency["window_start"].tolist() == [0, 2000, 0]
    assert latency["warmup"].tolist() == [True, False, True]
    assert (latency["late_dropped"] == 0).all()


def test_no_updates_make_no_latency_rows() -> None:
    assert changelog.window_latency(pd.DataFrame(), 2000, 0).empty


def test_each_keys_final_result_is_its_last_update_and_result_latency_its_last_arrival() -> None:
    results = pd.DataFrame([
        ("r1", "minibatch", "q00", 2000, "r1", 3, 1.0, "[1]", 2100),
        ("r1", "minibatch", "q00", 2000, "r2", 1, 1.0, "[1]", 2150),
        ("r1", "minibatch", "q00", 2000, "r1", 7, 1.0, "[2]", 2600),
        ("r1", "minibatch", "q00", 4000, "r1", 2, 1.0, "[1]", 4300)], columns=RESULT_COLUMNS)
    final = changelog.final_results(results)
    assert final[["window_end", "key", "value"]].values.tolist() == [[2000, "r2", 1], [2000, "r1", 7], [4000, "r1", 2]]
    latency = changelog.result_latency(results)
    assert latency[["window_end", "output_at", "latency_ms"]].values.tolist() == [[2000, 2600, 600], [4000, 4300, 300]]


def test_write_tables_replaces_latency_and_keeps_the_whole_changelog_aside_even_when_run_twice(tmp_path: Path) -> None:
    _updates(("q00", 2000, 2500, 1, 3, 1, 2100, 2200)).to_csv(tmp_path / "updates.csv", index=False)
    pd.DataFrame(columns=LATENCY_COLUMNS).to_csv(tmp_path / "latency.csv", index=False)
    pd.DataFrame([("r1", "minibatch", "q00", 2000, "7", 2, 1.0, "[2]", 2400),
                  ("r1", "minibatch", "q00", 2000, "7", 3, 1.0, "[3]", 2500)],
                 columns=RESULT_COLUMNS).to_csv(tmp_path / "results.csv", index=False)
    for _ in range(2):
        changelog.write_tables(tmp_path, 2000, 0)
        assert pd.read_csv(tmp_path / "latency.csv")["swm_latency_ms"].tolist() == [500]
        assert pd.read_csv(tmp_path / "results.csv", dtype={"key": str})[["key", "value"]].values.tolist() == [["7", 3]]
        assert len(pd.read_csv(tmp_path / "result-updates.csv")) == 2


def test_only_the_minibatch_rides_run_is_a_changelog() -> None:
    assert changelog.applies({"workload": "rides", "combiner": "minibatch"})
    assert not changelog.applies({"workload": "rides", "combiner": "local-global"})
    assert not changelog.applies({"workload": "ysb"})
