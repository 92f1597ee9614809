"""The report's Fig. 4b analogue (AdCom, docs/combiner.md) from the archived first-slice sweep's combiner.csv."""

from __future__ import annotations

import pytest

from klinkctl.paths import PROJECT_ROOT
from klinkctl.results import report_adcom
from klinkctl.results.runset import load_runset

SWEEP = PROJECT_ROOT / "docs" / "data" / "adcom-first-slice-20261126-082806"


def test_combiner_table_has_the_buffer_use_of_both_combiners_and_lambda_of_adcom_only():
    runset = load_runset(SWEEP, include_invalid=True)
    table = report_adcom.combiner_over_time(runset)
    assert set(table["variant"]) == {"adcom", "local-global"}  # none has no combiner, so no combiner.csv
    assert table["rho_avg"].between(0, 1).all()
    adcom, fixed = table[table["variant"] == "adcom"], table[table["variant"] == "local-global"]
    assert (adcom["interval_ms"] == 20).all()  # no back-pressure in that sweep: λ at its minimum (combiner.md)
    assert fixed["interval_ms"].isna().all()  # a fixed interval is not a controller decision


def test_runs_without_combiner_csv_are_missing_data(tmp_path):
    runset = load_runset(SWEEP, include_invalid=True)
    without = [run for run in runset.runs if run.config["bench"]["combiner"] == "none"]
    with pytest.raises(report_adcom.MissingData, match="combiner.csv"):
        report_adcom.combiner_over_time(type(runset)(runset.root, without, runset.excluded))
