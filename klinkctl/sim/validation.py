"""Does the simulator reproduce the real stack? Each validation pairs a real sweep kept in docs/data (≥ 5 runs per
variant) with a simulate sweep of the same runs (configs/sim-validate-*.yaml: same queries, rates, delays, policies
and seeds, on the simulated TaskManager the real one was). The agreement table compares, per cell, the simulated
mean and p99 SWM latency with the real ones and their CI across runs, and whether the policies rank the same.

`python -m klinkctl.sim.validation` runs every simulate sweep, writes docs/data/sim-validation.csv and prints it
(docs/simulator.md, "Validation"); tests/integration/test_sim_validation.py re-checks it. With `--set OPTION=VALUE`
(repeatable) every simulate sweep runs with that setting added to its fixed ones (a model option tried against the
committed one); `--validations NAME ...` runs only those. With either, the table is printed, and written only to
`--out FILE` if given."""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from klinkctl.errors import KlinkError
from klinkctl.paths import PROJECT_ROOT
from klinkctl.results.sweep_table import CELLS_FILE

#: The simulator's target (issue 22): mean and p99 within ±20 % of the real stack's.
TOLERANCE = 0.20
TABLE = PROJECT_ROOT / "docs" / "data" / "sim-validation.csv"
#: Cell keys both sweeps may vary; cells are matched on the variant and the ones both have.
CELL_KEYS = ("rate", "queries")


@dataclass(frozen=True)
class Validation:
    name: str
    real_sweep: Path  # a sweep directory with cells.csv (docs/data)
    sim_config: Path  # its simulate sweep (mode: simulate)
    #: Further cells.csv columns both sweeps vary (e.g. watermark_bound_ms, delay): cells are matched on them too,
    #: and each row's validation names them (name/key=value/...), so the table keeps its columns.
    cell_keys: tuple[str, ...] = ()


VALIDATIONS = (
    Validation("8q-uniform-1.1", PROJECT_ROOT / "docs/data/pause-cost-8q-20261125-002521",
               PROJECT_ROOT / "configs/sim-validate-pause-cost-8q.yaml"),
    Validation("8q-uniform-0.9-1.1", PROJECT_ROOT / "docs/data/klink-regimes-slice-8q-20261124-200831",
               PROJECT_ROOT / "configs/sim-validate-slice-8q.yaml"),
    Validation("8q-zipf-0.9", PROJECT_ROOT / "docs/data/sim-validation-zipf-8q-20261125-023349",
               PROJECT_ROOT / "configs/sim-validate-zipf-8q.yaml"),
    Validation("4q-g1-uniform-0.5-0.9-1.1", PROJECT_ROOT / "docs/data/klink-4q-three-loads-20261126-214643",
               PROJECT_ROOT / "configs/sim-validate-4q-g1.yaml"),
    # Today's stack (G1, JIT outside the quota, compact envelopes), all four calibrated on one Default cell of the
    # first (docs/simulator.md, "Validation on today's stack").
    Validation("2q-policies-1.4", PROJECT_ROOT / "docs/data/klink-regimes-slice-2q-policies-20261129-022920",
               PROJECT_ROOT / "configs/sim-validate-2q-policies.yaml"),
    Validation("2q-cells", PROJECT_ROOT / "docs/data/klink-2q-cells-20261129-032536",
               PROJECT_ROOT / "configs/sim-validate-2q-cells.yaml", cell_keys=("watermark_bound_ms", "delay")),
    Validation("2q-uniform-1.0-1.1", PROJECT_ROOT / "docs/data/klink-regimes-slice-2q-20261128-231730",
               PROJECT_ROOT / "configs/sim-validate-2q-slice.yaml"),
    Validation("2q-uniform-1.4", PROJECT_ROOT / "docs/data/klink-regimes-slice-2q-1.4-20261128-234352",
               PROJECT_ROOT / "configs/sim-validate-2q-1.4.yaml"),
)


def agreement(name: str, real: pd.DataFrame, simulated: pd.DataFrame,
              cell_keys: tuple[str, ...] = ()) -> pd.DataFrame:
    """One row per cell: the real mean and p99 with their CIs, the simulated ones, the relative errors, and
    whether both lie within TOLERANCE. With cell_keys, a row's validation is name/key=value/... for its cell."""
    keys = ["variant", *(key for key in CELL_KEYS if key in real and key in simulated), *cell_keys]
    columns = ["mean_ms", "mean_ci_low", "mean_ci_high", "p99_ms", "n"]
    table = real[keys + columns].merge(simulated[keys + ["mean_ms", "p99_ms", "n"]], on=keys,
                                       suffixes=("_real", "_sim"))
    labels = [name] * len(table)
    for key in cell_keys:
        labels = [f"{label}/{key}={value}" for label, value in zip(labels, table.pop(key))]
    table.insert(0, "validation", labels)
    table["mean_error"] = table["mean_ms_sim"] / table["mean_ms_real"] - 1
    table["p99_error"] = table["p99_ms_sim"] / table["p99_ms_real"] - 1
    table["within"] = (table["mean_error"].abs() <= TOLERANCE) & (table["p99_error"].abs() <= TOLERANCE)
    return table


def same_ranking(table: pd.DataFrame) -> bool:
    """True if, in every group of cells that differ only by variant, the simulator orders by mean latency every
    two policies whose real means differ beyond their CIs across runs (overlapping ones have no real order)."""
    groups = [c for c in table.columns if c == "validation" or c in CELL_KEYS]
    for _, cells in (table.groupby(groups, sort=False, dropna=False) if groups else [(None, table)]):
        for (_, a), (_, b) in itertools.combinations(cells.iterrows(), 2):
            faster, slower = (a, b) if a["mean_ms_real"] < b["mean_ms_real"] else (b, a)
            if faster["mean_ci_high"] < slower["mean_ci_low"] and faster["mean_ms_sim"] >= slower["mean_ms_sim"]:
                return False
    return True


def run_sweep(config: Path, results: Path) -> Path:
    """Runs a simulate sweep (`klinkctl sweep`, as a user would) into results and returns its directory."""
    done = subprocess.run([sys.executable, "-m", "klinkctl", "sweep", str(config), "--results", str(results)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise KlinkError(f"klinkctl sweep {config} exited {done.returncode}: {(done.stderr or done.stdout)[-300:]}")
    (directory,) = [p for p in results.iterdir() if p.is_dir()]
    return directory


def simulate_sweep(config: Path, results: Path) -> pd.DataFrame:
    """Runs a simulate sweep and returns its cells."""
    return pd.read_csv(run_sweep(config, results) / CELLS_FILE)


def parse_settings(items: list[str]) -> dict:
    """`OPTION=VALUE` strings (a simulate option as a sweep's YAML names it, its value in YAML) as a dict."""
    settings = {}
    for item in items:
        name, equals, value = item.partition("=")
        if not equals or not name:
            raise KlinkError(f"--set {item!r}: expected OPTION=VALUE, e.g. background-burst-spread=0.6")
        settings[name] = yaml.safe_load(value)
    return settings


def config_with(sim_config: Path, settings: dict, work: Path) -> Path:
    """A simulate sweep's config with settings added to its fixed ones, written into work (none: the config)."""
    if not settings:
        return sim_config
    config = yaml.safe_load(sim_config.read_text())
    config["fixed"].update(settings)
    path = work / sim_config.name
    path.write_text(yaml.safe_dump(config))
    return path


def validate(validation: Validation, work: Path, settings: dict | None = None) -> pd.DataFrame:
    results = work / validation.name
    results.mkdir(parents=True)
    return agreement(validation.name, pd.read_csv(validation.real_sweep / CELLS_FILE),
                     simulate_sweep(config_with(validation.sim_config, settings or {}, work), results),
                     validation.cell_keys)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m klinkctl.sim.validation", description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                        help="a simulate option added to every simulate sweep's fixed settings")
    parser.add_argument("--validations", nargs="+", choices=[v.name for v in VALIDATIONS], metavar="NAME",
                        help="only these validations (default: all: " + ", ".join(v.name for v in VALIDATIONS) + ")")
    parser.add_argument("--out", type=Path, help=f"write the table here (default: docs/data/{TABLE.name} without "
                                                 "--set and --validations, nowhere with either)")
    return parser.parse_args(argv)


def table_path(args: argparse.Namespace) -> Path | None:
    """Where the table goes: --out; else the committed table, unless the model or the validations were changed."""
    return args.out or (None if args.set or args.validations else TABLE)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    settings = parse_settings(args.set)
    chosen = [v for v in VALIDATIONS if not args.validations or v.name in args.validations]
    with tempfile.TemporaryDirectory() as work:
        table = pd.concat([validate(v, Path(work), settings) for v in chosen], ignore_index=True)
    for key in (k for k in CELL_KEYS if k in table):
        table[key] = table[key].astype("Int64")  # whole numbers, not %.4g
    out = table_path(args)
    if out:
        table.to_csv(out, index=False, float_format="%.4g")
    if settings:
        print(f"with {settings}")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    for name, rows in table.groupby("validation", sort=False):
        print(f"{name}: {int(rows['within'].sum())} of {len(rows)} cells within ±{TOLERANCE:.0%}, "
              f"policies rank {'the same' if same_ranking(rows) else 'differently'}")
    print(f"in all: {int(table['within'].sum())} of {len(table)} cells within ±{TOLERANCE:.0%}")


if __name__ == "__main__":
    sys.exit(main())
