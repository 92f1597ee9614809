"""The regime map's table (configs/klink-regimes.yaml): per cell (queries, load, watermark bound, delay model)
every policy's mean and p99 SWM latency with t intervals across runs, the runs used and left out, Klink / Default
with a Welch interval across runs (``groups``), the ratio an ideal order reaches in the fluid model of one core
(``ideal_model.ideal_cell``: oracle / ps) and Klink's share of the ideal reduction:

    share = (Default − Klink) / (Default − ideal),  ideal = Default × (oracle / ps of the model)
          = (1 − Klink/Default) / (1 − oracle/ps)

for the mean and for the p99, Klink/Default being cells.csv's ratio (geometric means of the per-run numbers,
``groups.ratio_interval``). Where the model's ideal gains at most NO_ROOM_GAIN the cell has "no room" and no
share. The share's interval is the Klink/Default interval's mapped through the same formula (the model's own
spread left out). Written by `klinkctl report` as regimes.csv and regimes.md when the runs hold Default and Klink
at several cells with a load.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from klinkctl.files import write_atomically
from klinkctl.results import groups
from klinkctl.results.ideal_model import ideal_cell
from klinkctl.errors import KlinkError
from klinkctl.results.runset import Run, RunSet

#: The axes of a cell, as bench settings (config.yaml's names).
CELL_KEYS = ("queries", "load", "watermark_bound_ms", "delay")
SCHEDULER = "scheduler"  # a run's variant, or its policy as configured (scheduler_of)
VARIANT = "variant"
DEFAULT, KLINK = "default", "klink"
#: An ideal order that gains at most this fraction of Default's latency leaves no room to judge a share by.
NO_ROOM_GAIN = 0.10
#: The target of issue 18: Klink reaches at least this share of the ideal reduction where there is room.
TARGET_SHARE = 0.80
NO_ROOM = "no room"
CSV_FILE, MARKDOWN_FILE = "regimes.csv", "regimes.md"
#: What index.html shows of the table (regimes.csv has every column).
HTML_COLUMNS = ("queries", "load", "watermark_bound_ms", "delay", "default_n", "default_n_invalid", "default_mean_ms",
                "klink_n", "klink_n_invalid", "klink_mean_ms", "klink_default_mean_ratio", "klink_default_mean_ci_low",
                "klink_default_mean_ci_high", "klink_default_p99_ratio", "ideal_mean_ratio", "ideal_p99_ratio",
                "mean_share", "p99_share", "meets_target")

#: Seeds of the model per cell (about 1 s per cell of 20 s runs, up to 9 s at 32 queries: ~3 min for 96 cells).
MODEL_SEEDS = 10

#: (mean ratio, p99 ratio) of the ideal order to processor sharing in a cell (its CELL_KEYS values).
IdealRatios = Callable[[dict[str, Any]], tuple[float, float]]


def regime_run_rows(runset: RunSet) -> pd.DataFrame:
    """One row per completed run (invalid ones included, column ``valid``) with its scheduler and cell."""
    return pd.DataFrame([{**groups.run_row(run.run_id, run.params, run.data.validity,
                                            run.data.latency, run.repetition),
                          SCHEDULER: scheduler_of(run)} for run in runset.runs + runset.invalid_runs])


def scheduler_of(run: Run) -> str:
    """A run's side in the table: its sweep variant (configs/klink-regimes.yaml names them after their
    policies), else its policy as configured (default, klink, sbox, ...; not the label, klink[C=2])."""
    return str(run.params.get(VARIANT) or run.config["bench"].get("policy") or DEFAULT)


def regime_map(runset: RunSet, model_seeds: int = MODEL_SEEDS) -> pd.DataFrame | None:
    """The regime table of a regime map's runs (is_regime_map) against the model; None for other runs."""
    runs = regime_run_rows(runset)
    if not is_regime_map(runs):
        return None
    return regime_table(runs, model_ideal(runset, model_seeds), runset.confidence, runset.include_invalid)


def model_ideal(runset: RunSet, seeds: int = MODEL_SEEDS) -> IdealRatios:
    """The fluid model's oracle/ps per cell, with the runs' window, length, warm-up and watermark interval (the
    same in every cell of a regime map: the first run's)."""
    bench = (runset.runs + runset.invalid_runs)[0].config["bench"]

    def ratios(cell: dict[str, Any]) -> tuple[float, float]:
        try:
            bound = ideal_cell(int(cell["queries"]), float(cell["load"]), float(cell["watermark_bound_ms"]) / 1000,
                               bench["window_ms"] / 1000, str(cell["delay"]), seeds, bench["duration_ms"] / 1000,
                               bench["warmup_ms"] / 1000, watermark_interval_s=bench["watermark_interval_ms"] / 1000)
        except KlinkError:  # no window of the model fired after the warm-up: no ideal, the cell's share shows "-"
            return math.nan, math.nan
        return bound.mean_ratio, bound.p99_ratio

    return ratios


def is_regime_map(runs: pd.DataFrame) -> bool:
    """Runs of Default and Klink at a load (relative to a capacity): one cell (a slice of the map) or more."""
    if runs.empty or not set(CELL_KEYS) <= set(runs.columns) or runs["load"].isna().all():
        return False
    return {DEFAULT, KLINK} <= set(runs[SCHEDULER])


def policy_cells(runs: pd.DataFrame, confidence: float = 0.95, include_invalid: bool = False) -> pd.DataFrame:
    """One row per (cell, scheduler): n runs used, n_invalid left out, mean and p99 with t intervals across runs
    (hidden ``_mean_values``/``_p99_values``: the per-run numbers)."""
    return groups.describe_groups(runs, [*CELL_KEYS, SCHEDULER], confidence, include_invalid)


def share_of_ideal(klink_ratio: float, ideal_ratio: float) -> float | str:
    """(Default − Klink) / (Default − ideal) from Klink/Default and ideal/Default; NO_ROOM where the ideal gains
    at most NO_ROOM_GAIN (or the ratios are undefined: nan)."""
    if not (math.isfinite(klink_ratio) and math.isfinite(ideal_ratio)):
        return math.nan
    if 1 - ideal_ratio <= NO_ROOM_GAIN:
        return NO_ROOM
    return (1 - klink_ratio) / (1 - ideal_ratio)


def regime_table(runs: pd.DataFrame, ideal: IdealRatios, confidence: float = 0.95,
                 include_invalid: bool = False) -> pd.DataFrame:
    """Per cell: every scheduler's statistics side by side (``<scheduler>_mean_ms``, ``_ci_low``, ...), Klink /
    Default (mean and p99) with intervals, the model's ideal ratios, and Klink's share of the ideal reduction."""
    per_policy = policy_cells(runs, confidence, include_invalid)
    rows = [_cell_row(dict(zip(CELL_KEYS, key)), cell.set_index(SCHEDULER), ideal, confidence)
            for key, cell in per_policy.groupby(list(CELL_KEYS), dropna=False, sort=True)]
    return pd.DataFrame(rows)


def _cell_row(cell: dict[str, Any], by_policy: pd.DataFrame, ideal: IdealRatios, confidence: float) -> dict[str, Any]:
    row: dict[str, Any] = dict(cell)
    for policy, stats in by_policy.iterrows():
        row.update({f"{policy}_{column}": stats[column] for column in
                    ("n", "n_invalid", "mean_ms", "mean_ci_low", "mean_ci_high", "p99_ms", "p99_ci_low", "p99_ci_high")})
    if not {DEFAULT, KLINK} <= set(by_policy.index):
        return row
    ideal_mean, ideal_p99 = ideal(cell)
    for name, ideal_ratio in (("mean", ideal_mean), ("p99", ideal_p99)):
        default, klink = by_policy.loc[DEFAULT], by_policy.loc[KLINK]
        ratio, low, high = groups.ratio_interval(default[f"_{name}_values"], klink[f"_{name}_values"], confidence)
        share = share_of_ideal(ratio, ideal_ratio)
        share_ci = (share_of_ideal(high, ideal_ratio), share_of_ideal(low, ideal_ratio)) \
            if isinstance(share, float) else (math.nan, math.nan)
        row.update({f"klink_default_{name}_ratio": ratio, f"klink_default_{name}_ci_low": low,
                    f"klink_default_{name}_ci_high": high, f"ideal_{name}_ratio": ideal_ratio,
                    f"{name}_share": share, f"{name}_share_ci_low": share_ci[0], f"{name}_share_ci_high": share_ci[1]})
    row["meets_target"] = meets_target(row)
    return row


def meets_target(row: dict[str, Any]) -> bool | None:
    """Klink reaches TARGET_SHARE of the ideal's mean reduction; None where there is no room or no share."""
    share = row.get("mean_share")
    return bool(share >= TARGET_SHARE) if isinstance(share, float) and math.isfinite(share) else None


def markdown(table: pd.DataFrame, policies: list[str]) -> str:
    """The table as Markdown: per cell each policy's mean and p99 [CI] ms (runs used / left out), Klink/Default,
    the ideal's ratio and Klink's share."""
    header = ["queries", "load", "B", "delay", *policies, "Klink/Default mean [CI]", "p99 [CI]", "ideal mean",
              "ideal p99", "share mean [CI]", "share p99"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for _, row in table.iterrows():
        cells = [str(row["queries"]), f"{row['load']:g}", f"{row['watermark_bound_ms']:g} ms", str(row["delay"]),
                 *(_policy_text(row, policy) for policy in policies),
                 *(_ratio_text(row, f"klink_default_{name}") for name in ("mean", "p99")),
                 _number(row.get("ideal_mean_ratio")), _number(row.get("ideal_p99_ratio")),
                 _share_text(row, "mean"), _share_text(row, "p99")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_regimes(table: pd.DataFrame, out_dir: Path) -> list[Path]:
    """regimes.csv (every column) and regimes.md in ``out_dir``."""
    policies = [column.removesuffix("_mean_ms") for column in table.columns
                if column.endswith("_mean_ms") and not column.startswith("klink_default")]
    written = [out_dir / CSV_FILE, out_dir / MARKDOWN_FILE]
    write_atomically(written[0], table.to_csv(index=False))
    write_atomically(written[1], markdown(table, policies))
    return written


def _policy_text(row: pd.Series, policy: str) -> str:
    """mean [CI] / p99 [CI] ms (runs used/left out); "-" with the counts where no run was used."""
    if _missing(row.get(f"{policy}_n")):
        return "-"
    counts = f"({int(row[f'{policy}_n'])}/{int(row[f'{policy}_n_invalid'])})"
    if _missing(row.get(f"{policy}_mean_ms")):
        return f"- {counts}"
    stats = [f"{_number(row[f'{policy}_{name}_ms'], '.0f')} [{_number(row[f'{policy}_{name}_ci_low'], '.0f')}–"
             f"{_number(row[f'{policy}_{name}_ci_high'], '.0f')}]" for name in ("mean", "p99")]
    return f"{stats[0]} / {stats[1]} {counts}"


def _ratio_text(row: pd.Series, prefix: str) -> str:
    ratio = row.get(f"{prefix}_ratio")
    if _missing(ratio):
        return "-"
    return f"{ratio:.2f} [{_number(row[f'{prefix}_ci_low'])}–{_number(row[f'{prefix}_ci_high'])}]"


def _share_text(row: pd.Series, name: str) -> str:
    share = row.get(f"{name}_share")
    if isinstance(share, str):
        return share
    if _missing(share):
        return "-"
    low, high = row[f"{name}_share_ci_low"], row[f"{name}_share_ci_high"]
    return f"{share:.0%}" + ("" if _missing(low) else f" [{low:.0%}–{high:.0%}]")


def _number(value: Any, form: str = ".2f") -> str:
    return "-" if _missing(value) else format(float(value), form)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))
