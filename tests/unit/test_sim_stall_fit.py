"""benchmarks/sim_stall_fit.py's tables, and the settings klinkctl.sim.validation adds to its simulate sweeps."""

import json
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from sim_stall_fit import only_variants, per_cell  # noqa: E402
from klinkctl.errors import KlinkError  # noqa: E402
from klinkctl.sim.validation import TABLE, config_with, parse_args, parse_settings, table_path  # noqa: E402


def _sweep(directory: Path, variant_column: bool, scheduler: dict) -> Path:
    """A sweep directory as `klinkctl sweep` writes one: a sweep of one variant names it in neither table."""
    named = {"variant": "klink"} if variant_column else {}
    runs = []
    for seed in (42, 43):
        run_dir = directory / f"run-{seed}"
        run_dir.mkdir(parents=True)
        (run_dir / "summary.json").write_text(json.dumps({"scheduler": scheduler}))
        (run_dir / "config.yaml").write_text(yaml.safe_dump({"bench": {"rate": 1000, "seed": seed}}))
        runs.append({"run_dir": run_dir.name, "status": "completed", **named})
    pd.DataFrame(runs).to_csv(directory / "index.csv", index=False)
    cells = {"mean_ms": 500.0, "mean_ci_low": 400.0, "mean_ci_high": 600.0, "p99_ms": 900.0}
    pd.DataFrame([{**named, **cells}]).to_csv(directory / "cells.csv", index=False)
    return directory


@pytest.mark.parametrize("variant_column", [True, False])
def test_a_sweep_of_one_variant_gives_that_variants_cell(tmp_path, variant_column):
    scheduler = {"light_cycle_fraction": 0.5, "mean_cycle_interval_ms": 121.0, "p99_cycle_interval_ms": 200.0}
    cell = per_cell(_sweep(tmp_path, variant_column, scheduler), "klink").iloc[0]
    assert cell["variant"] == "klink" and cell["mean_ms"] == 500 and cell["light_cycle_fraction"] == 0.5


def test_runs_without_a_scheduler_keep_its_columns_empty(tmp_path):
    cell = per_cell(_sweep(tmp_path, False, {}), "default").iloc[0]
    assert cell["variant"] == "default" and pd.isna(cell["p99_cycle_interval_ms"])


def test_only_the_named_variants_are_kept_and_an_unknown_one_is_refused(tmp_path):
    config = tmp_path / "sim.yaml"
    config.write_text(yaml.safe_dump({"fixed": {}, "variants": {"default": {"policy": "default"},
                                                                 "klink": {"policy": "klink"}}}))
    path, kept = only_variants(config, ["klink"], tmp_path)
    assert kept == ["klink"] and list(yaml.safe_load(path.read_text())["variants"]) == ["klink"]
    assert only_variants(config, None, tmp_path)[1] == ["default", "klink"]
    with pytest.raises(SystemExit, match="no variant rrr"):
        only_variants(config, ["rrr"], tmp_path)


def test_settings_are_parsed_as_yaml_and_added_to_the_fixed_ones(tmp_path):
    settings = parse_settings(["background-burst-spread=0.6", "network-flush=100ms"])
    assert settings == {"background-burst-spread": 0.6, "network-flush": "100ms"}
    config = tmp_path / "sim.yaml"
    config.write_text(yaml.safe_dump({"fixed": {"queries": 8}, "variants": {}}))
    assert config_with(config, {}, tmp_path / "unused") == config
    work = tmp_path / "work"
    work.mkdir()
    written = yaml.safe_load(config_with(config, settings, work).read_text())
    assert written["fixed"] == {"queries": 8, **settings}


@pytest.mark.parametrize("item", ["background-burst-spread", "=0.6"])
def test_a_setting_without_a_name_and_a_value_is_refused(item):
    with pytest.raises(KlinkError, match="OPTION=VALUE"):
        parse_settings([item])


@pytest.mark.parametrize("argv, written", [
    ([], TABLE),
    (["--set", "background-burst-spread=0.6"], None),
    (["--validations", "8q-zipf-0.9"], None),
    (["--set", "background-burst-spread=0.6", "--out", "x.csv"], Path("x.csv")),
])
def test_only_the_committed_model_on_every_validation_rewrites_the_committed_table(argv, written):
    assert table_path(parse_args(argv)) == written
