"""The simulator's stall model against the real runs' scheduler cycles (docs/simulator.md, "Validation", "The stall
model"): simulates one validation's sweep (klinkctl.sim.validation) with extra settings and prints, per variant
and cell, the mean and p99 SWM latency and the scheduler's light-cycle fraction and cycle intervals (mean, p99),
the simulated beside the real sweep's (their summary.json "scheduler" sections, mean over runs).

    python benchmarks/sim_stall_fit.py 8q-zipf-0.9 --set background-burst-ms=20 --set other-threads-share=0.75 \
        --set other-threads-burst-ms=80 --set network-flush=100ms --variants klink rr
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import pandas as pd
import yaml

from klinkctl.results.sweep_table import CELLS_FILE
from klinkctl.sim.validation import (TOLERANCE, VALIDATIONS, Validation, config_with, parse_settings, run_sweep,
                                     same_ranking)

SCHEDULER_STATS = ("light_cycle_fraction", "mean_cycle_interval_ms", "p99_cycle_interval_ms")


def with_variant(table: pd.DataFrame, sole_variant: str | None) -> pd.DataFrame:
    """The table with a variant column: a sweep of one variant has none (the variant does not vary), so it gets
    that variant's name."""
    if "variant" in table or sole_variant is None:
        return table
    return table.assign(variant=sole_variant)


def run_stats(sweep_dir: Path, sole_variant: str | None = None) -> pd.DataFrame:
    """Per run of a sweep directory: variant, rate and the summary's scheduler statistics."""
    index = with_variant(pd.read_csv(sweep_dir / "index.csv"), sole_variant)
    if "warmup" in index:
        index = index[~index["warmup"].astype(str).str.lower().eq("true")]
    rows = []
    for _, run in index.iterrows():
        summary = json.loads((sweep_dir / run["run_dir"] / "summary.json").read_text())
        scheduler = summary.get("scheduler") or {}
        config = yaml.safe_load((sweep_dir / run["run_dir"] / "config.yaml").read_text())
        rows.append({"variant": run["variant"], "rate": config["bench"]["rate"],
                     **{key: scheduler.get(key) for key in SCHEDULER_STATS}})
    return pd.DataFrame(rows).astype({key: float for key in SCHEDULER_STATS})  # NaN where no scheduler ran


def per_cell(sweep_dir: Path, sole_variant: str | None = None) -> pd.DataFrame:
    """Per variant and rate: the cells' mean and p99 latency and the runs' mean scheduler statistics.
    sole_variant: the name of a sweep's only variant, which its tables do not name."""
    stats = run_stats(sweep_dir, sole_variant).groupby(["variant", "rate"], dropna=False).mean(
        numeric_only=True).reset_index()
    cells = with_variant(pd.read_csv(sweep_dir / CELLS_FILE), sole_variant)
    keys = ["variant", "rate"] if "rate" in cells else ["variant"]
    if "rate" not in cells:
        stats = stats.drop(columns="rate")
    return cells[keys + ["mean_ms", "mean_ci_low", "mean_ci_high", "p99_ms"]].merge(stats, on=keys, how="left")


def only_variants(sim_config: Path, variants: list[str] | None, work: Path) -> tuple[Path, list[str]]:
    """The sweep's config with only the named variants (none: all of them), written into work, and their names."""
    config = yaml.safe_load(sim_config.read_text())
    unknown = sorted(set(variants or ()) - set(config["variants"]))
    if unknown:
        raise SystemExit(f"{sim_config.name} has no variant {', '.join(unknown)}; "
                         f"it has {', '.join(config['variants'])}")
    if variants:
        config["variants"] = {name: value for name, value in config["variants"].items() if name in variants}
    path = work / f"only-{sim_config.name}"
    path.write_text(yaml.safe_dump(config))
    return path, list(config["variants"])


def simulated(validation: Validation, settings: dict, variants: list[str] | None) -> pd.DataFrame:
    with tempfile.TemporaryDirectory() as work:
        config, kept = only_variants(config_with(validation.sim_config, settings, Path(work)), variants, Path(work))
        results = Path(work) / "results"
        results.mkdir()
        return per_cell(run_sweep(config, results), kept[0] if len(kept) == 1 else None)


def compare(validation_name: str, settings: dict, variants: list[str] | None) -> pd.DataFrame:
    (validation,) = [v for v in VALIDATIONS if v.name == validation_name]
    real = per_cell(validation.real_sweep)
    sim = simulated(validation, settings, variants).drop(columns=["mean_ci_low", "mean_ci_high"])
    keys = [key for key in ("variant", "rate") if key in sim]
    table = real.merge(sim, on=keys, suffixes=("_real", "_sim"))
    table["mean_err"] = table["mean_ms_sim"] / table["mean_ms_real"] - 1
    table["p99_err"] = table["p99_ms_sim"] / table["p99_ms_real"] - 1
    table["within"] = (table["mean_err"].abs() <= TOLERANCE) & (table["p99_err"].abs() <= TOLERANCE)
    table.insert(0, "validation", validation_name)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("validation", choices=[v.name for v in VALIDATIONS])
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                        help="a simulate option added to the sweep's fixed settings")
    parser.add_argument("--variants", nargs="*", help="only these variants (default: all)")
    parser.add_argument("--out", type=Path, help="also write the table to this CSV file")
    args = parser.parse_args()
    settings = parse_settings(args.set)
    table = compare(args.validation, settings, args.variants)
    print(f"{args.validation} {settings}")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print(f"{int(table['within'].sum())} of {len(table)} cells within ±{TOLERANCE:.0%}, policies rank "
          f"{'the same' if same_ranking(table) else 'differently'}")
    if args.out:
        table.to_csv(args.out, index=False, float_format="%.4g")


if __name__ == "__main__":
    main()
