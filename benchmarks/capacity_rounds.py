"""Summarise benchmarks/capacity_rounds.sh: every capacity search under ROOT/<variant>/, then per variant the mean
sustainable rate with a t interval across searches, each variant's capacity against --reference (ratio of geometric
means, Welch interval on logs: klinkctl.results.groups.ratio_interval, as the sweep tables), and the mean SWM latency
of the probe that set each search's rate.

    .venv/bin/python benchmarks/capacity_rounds.py docs/data/<rounds> --reference adcom [--converged]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from klinkctl.results.groups import ratio_interval
from klinkctl.results.stats import t_interval


def search_row(path: Path, capacity: dict) -> dict:
    """One search: its rate, the lowest rate a probe failed at (unsteady probes are retried, not failures), whether
    it bracketed the capacity within its precision, and what stopped it."""
    failed = [p["rate"] for p in capacity["probes"] if p["verdict"] not in ("sustainable", "unsteady")]
    return {"search": path.parent.name, "rate": capacity["rate"], "lowest_failed": min(failed, default=None),
            "converged": capacity["converged"], "bottleneck": capacity["bottleneck"],
            "restarts": len(capacity.get("restarts", [])), "probes": len(capacity["probes"]),
            **_at_rate(path.parent, capacity), "stopped": capacity["stopped"]}


def _at_rate(search_dir: Path, capacity: dict) -> dict:
    """The sustainable probe at the search's rate: its mean SWM latency and the span its latency trend was judged
    over (windows measured; a short span says little about a trend)."""
    for probe in capacity["probes"]:
        if probe["rate"] == capacity["rate"] and probe["passed"]:
            run_dir = Path(probe["run_dir"])
            summary = (run_dir if run_dir.is_dir() else search_dir / run_dir.name) / "summary.json"
            latency = json.loads(summary.read_text()).get("swm_latency_ms") or {} if summary.is_file() else {}
            return {"latency_ms_at_rate": latency.get("mean"),
                    "trend_span_s": (probe["criteria"].get("latency_trend") or {}).get("span_s")}
    return {"latency_ms_at_rate": None, "trend_span_s": None}


def searches(root: Path) -> pd.DataFrame:
    rows = [{"variant": path.parent.parent.name, **search_row(path, json.loads(path.read_text()))}
            for path in sorted(root.glob("*/capacity-*/capacity.json"))]
    return pd.DataFrame(rows)


def per_variant(table: pd.DataFrame, reference: str, column: str = "variant") -> pd.DataFrame:
    """Per variant: searches, mean rate [t interval], and the ratio of its rates to the reference's [Welch CI]."""
    reference_rates = table.loc[table[column] == reference, "rate"].dropna().tolist()
    rows = []
    for name in dict.fromkeys(table[column]):
        rates = table.loc[table[column] == name, "rate"].dropna()
        low, high = t_interval(rates)
        ratio, ratio_low, ratio_high = ratio_interval(rates.tolist(), reference_rates)
        versus = "1" if name == reference else f"{ratio:.2f} [{ratio_low:.2f}–{ratio_high:.2f}]"
        rows.append({column: name, "searches": len(rates), "mean": rates.mean(), "ci": f"{low:.0f}–{high:.0f}",
                     f"{reference} × it": versus})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--reference", required=True, help="the variant the ratios are of (a directory under ROOT)")
    parser.add_argument("--converged", action="store_true", help="only searches that bracketed the capacity within "
                        "their precision (leaves out stopped and unfinished ones)")
    args = parser.parse_args()
    table = searches(args.root)
    if table.empty:
        raise SystemExit(f"no <variant>/capacity-*/capacity.json under {args.root}")
    if args.converged:
        table = table[table["converged"]]
    if args.reference not in set(table["variant"]):
        raise SystemExit(f"no search of variant {args.reference!r} under {args.root}; "
                         f"variants: {', '.join(sorted(set(table['variant'])))}")
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.max_colwidth", 60):
        print(table.drop(columns="stopped").to_string(index=False), end="\n\n")
        print(per_variant(table, args.reference).round(0).to_string(index=False))


if __name__ == "__main__":
    main()
