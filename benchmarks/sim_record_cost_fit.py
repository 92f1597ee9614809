"""What a YSB source's CPU costs per Kafka record and per event, and how many events a Kafka record carries at a
given rate per topic (docs/simulator.md, "Per-record source costs").

The generator sends every event whose send time had come when it last looked at the clock in one Kafka record per
topic (docs/workloads.md), so a source's records in (tasks.csv) are send bursts, not events. Per real run (warm-up
runs left out): the sources' thread CPU, their records in, and the events they read (their records out over the
source chain's selectivity, 0.335: the calibration runs read every event sent, 1.000 of events_sent). Then

  - the source CPU as cost_per_record x records + cost_per_event x events, least squares over the runs on the
    per-event form  cpu/events = cost_per_event + cost_per_record x records/events  (each run weighs the same);
  - events per record against the rate per topic r, as a generator that looks at the clock every T seconds and
    sends what came due since in one record: the count per look is Poisson(r T), the looks that find none send
    nothing, so events per record = x / (1 - exp(-x)), x = r T (klinkctl.sim.graphs.events_per_kafka_record); T
    either one constant or T0 + T1 x topics (each look visits every topic);
  - the window tasks' CPU per input record against a part per record and one per ms of wall time, per input
    network buffer or per source Kafka record (the window section of the output; docs/simulator.md, "Per-ms window
    costs").

    python benchmarks/sim_record_cost_fit.py RUN_OR_SWEEP_DIR_OR_CSV ... [--csv OUT.csv] [--skip-sweep NAME]

A .csv argument is a table the script wrote before (--csv): docs/data/sim-record-cost-fit-{compact,pojo}.csv hold the
runs the fits in docs/data/sim-record-cost-fit.txt and sim-window-cost-fit.txt used (the window columns since
2026-11-29, later), some of them from results/ directories that are not archived.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import least_squares

from klinkctl.results.runs import CONFIG_FILE, read_bench
from klinkctl.sim.graphs import DEFAULT_COSTS, events_per_kafka_record

SELECTIVITY = DEFAULT_COSTS["ysb"]["source"]["selectivity"]


def warmups(sweep: Path) -> set[str]:
    """Run names a sweep (index.csv's warmup column) or a capacity search (capacity.json's warmup_runs) left out."""
    names: set[str] = set()
    if (sweep / "index.csv").is_file():
        index = pd.read_csv(sweep / "index.csv")
        names |= set(index.loc[index["warmup"].astype(str).str.lower() == "true", "run_id"])
    if (sweep / "capacity.json").is_file():
        names |= {Path(p).name for p in json.loads((sweep / "capacity.json").read_text()).get("warmup_runs", [])}
    return names


def run_row(run: Path) -> dict | None:
    """One run's source totals, or None for a run that is not YSB or has no usable tasks.csv."""
    try:
        bench = read_bench(run / CONFIG_FILE)
        generator = json.loads((run / "generator-summary.json").read_text())
        tasks = pd.read_csv(run / "tasks.csv")
    except (OSError, KeyError, ValueError):
        return None
    sources = tasks[tasks["kind"] == "source"]
    if bench.get("workload") != "ysb" or sources.empty or (sources["cpu_ns"] < 0).any():
        return None
    events = sources["records_out"].sum() / SELECTIVITY
    try:
        drain_s = json.loads((run / "drain.json").read_text()).get("waited_ms", 0) / 1000
    except (OSError, ValueError):
        drain_s = 0.0
    # the sources' lifetime, roughly: the generator's run plus the drain, per source task
    source_s = (float(generator.get("elapsed_s") or 0) + drain_s) * len(sources)
    row = {"sweep": run.parent.name, "run": run.name, "queries": int(bench["queries"]),
           "rate_per_topic": float(bench["rate"]), "policy": bench.get("policy"),
           "pack_bytes": bench.get("pack_bytes"), "events_sent": generator.get("events_sent"),
           "events_read": events, "records_in": int(sources["records_in"].sum()),
           "source_cpu_ns": int(sources["cpu_ns"].sum()), "source_s": source_s,
           "events_per_record": events / sources["records_in"].sum(),
           "ns_per_event": sources["cpu_ns"].sum() / events}
    windows = tasks[tasks["kind"] == "window"]
    if not windows.empty and (windows["cpu_ns"] >= 0).all() and windows["records_in"].sum() > 0:
        # the windows' totals, and their lifetime as the sources' (the generator's run plus the drain, per task)
        row |= {"window_records_in": int(windows["records_in"].sum()), "window_cpu_ns": int(windows["cpu_ns"].sum()),
                "window_bytes_in": int(windows["bytes_in"].sum()),
                "window_s": source_s / len(sources) * len(windows)}
    return row


def collect(paths: list[Path]) -> pd.DataFrame:
    rows, tables = [], []
    for path in paths:
        if path.suffix == ".csv":  # a table this script wrote (--csv): the runs as they were read
            tables.append(pd.read_csv(path))
            continue
        runs = [path] if (path / "tasks.csv").is_file() else sorted(p for p in path.iterdir() if p.is_dir())
        skip = warmups(path) if not (path / "tasks.csv").is_file() else set()
        for run in runs:
            if run.name in skip:
                continue
            row = run_row(run)
            if row is not None:
                rows.append(row)
    table = pd.concat([pd.DataFrame(rows), *tables], ignore_index=True).drop_duplicates("run")
    return table[table["pack_bytes"].fillna(0) > 0].reset_index(drop=True)


def _least_squares(columns: list[np.ndarray], y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """y against the columns and a constant (last), OLS: the design matrix, coefficients, residuals and R^2."""
    design = np.column_stack([*columns, np.ones_like(y)])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    residual = y - design @ coef
    return design, coef, residual, float(1 - residual @ residual / ((y - y.mean()) @ (y - y.mean())))


def _least_squares_se(columns: list[np.ndarray], y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float,
                                                                         float]:
    """_least_squares with each coefficient's standard error and the residuals' sd (n - p degrees of freedom)."""
    design, coef, residual, r2 = _least_squares(columns, y)
    sigma2 = residual @ residual / (len(y) - design.shape[1])
    se = np.sqrt(np.diag(sigma2 * np.linalg.pinv(design.T @ design)))  # pinv: forms whose terms are collinear
    return coef, se, residual, r2, float(np.sqrt(sigma2))


def fit_costs(table: pd.DataFrame) -> dict:
    """cpu/events = b + a x records/events, OLS: a (ns per record), b (ns per event), their standard errors, R^2
    and the residuals' spread, in ns per event."""
    x = (table["records_in"] / table["events_read"]).to_numpy()
    y = table["ns_per_event"].to_numpy()
    coef, se, residual, r2, sd = _least_squares_se([x], y)
    sigma2 = sd ** 2
    return {"ns_per_record": float(coef[0]), "ns_per_record_se": float(se[0]), "ns_per_event": float(coef[1]),
            "ns_per_event_se": float(se[1]), "r2": float(r2), "residual_sd_ns": float(np.sqrt(sigma2)),
            "max_abs_residual_ns": float(np.abs(residual).max()), "runs": len(y)}


def fit_alternatives(table: pd.DataFrame) -> list[tuple[str, np.ndarray, float]]:
    """cpu/events against a fixed cost per source and second instead of (and beside) the per-record cost: the
    coefficients and R^2 of each, to show how far the runs tell them apart."""
    y = table["ns_per_event"].to_numpy()
    per_record = (table["records_in"] / table["events_read"]).to_numpy()
    per_second = (table["source_s"] / table["events_read"]).to_numpy()
    out = []
    for name, columns in [("ns per source-second + ns per event", [per_second]),
                          ("ns per record + ns per source-second + ns per event", [per_record, per_second])]:
        _, coef, _, r2 = _least_squares(columns, y)
        out.append((name, coef, r2))
    return out


#: Flink's network buffer (taskmanager.memory.segment-size, 32 KiB) and output flusher (execution.buffer-timeout,
#: 100 ms in the YSB job): a window's input channel gets a buffer when one fills and, every flush, the part-filled one.
BUFFER_BYTES = 32768
FLUSH_MS = 100


def window_terms(table: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per run, the window tasks' candidate cost drivers per window input record: input network buffers (one per
    flush and task, plus the full ones its bytes fill), wall-time ms (per task), and the source's Kafka records."""
    records = table["window_records_in"].to_numpy(dtype=float)
    ms = table["window_s"].to_numpy(dtype=float) * 1000
    full = table["window_bytes_in"].to_numpy(dtype=float) / BUFFER_BYTES
    return {"ms": ms / records, "buffers": (ms / FLUSH_MS + full) / records, "flushes": ms / FLUSH_MS / records,
            "full buffers": full / records, "kafka records": table["records_in"].to_numpy(dtype=float) / records}


#: The window's candidate forms: the cost drivers besides the constant per record (ns per window input record).
WINDOW_FORMS: list[tuple[str, list[str]]] = [
    ("per record only", []),
    ("per record + per ms of wall time", ["ms"]),
    ("per record + per input buffer (flushes + full buffers)", ["buffers"]),
    ("per record + per flush + per full buffer", ["flushes", "full buffers"]),
    ("per record + per source Kafka record", ["kafka records"]),
    ("per record + per ms + per source Kafka record", ["ms", "kafka records"]),
]


def fit_window(table: pd.DataFrame) -> list[dict]:
    """The window tasks' CPU per input record against each of WINDOW_FORMS, OLS with each run one point: the
    coefficients (ns per unit of each driver, then ns per record), their 95 % intervals, R^2, adjusted R^2 and the
    residuals' sd (ns per record)."""
    from scipy.stats import t as student
    terms = window_terms(table)
    y = (table["window_cpu_ns"] / table["window_records_in"]).to_numpy(dtype=float)
    fits = []
    for name, drivers in WINDOW_FORMS:
        if drivers:
            coef, se, residual, r2, sd = _least_squares_se([terms[d] for d in drivers], y)
        else:
            coef, residual = np.array([y.mean()]), y - y.mean()
            sd, r2 = float(y.std(ddof=1)), 0.0
            se = np.array([sd / np.sqrt(len(y))])
        p = len(coef)
        half = student.ppf(0.975, len(y) - p) * se
        fits.append({"form": name, "terms": [*drivers, "record"], "coef": coef, "ci95": half, "r2": r2,
                     "r2_adjusted": 1 - (1 - r2) * (len(y) - 1) / (len(y) - p), "residual_sd_ns": sd,
                     "max_abs_residual_ns": float(np.abs(residual).max()), "runs": len(y)})
    return fits


def print_window_fit(table: pd.DataFrame) -> None:
    windows = table.dropna(subset=["window_records_in"]) if "window_records_in" in table else table.iloc[0:0]
    if windows.empty:
        return
    windows = windows.assign(window_ns_per_record=windows["window_cpu_ns"] / windows["window_records_in"],
                             window_records_per_ms=windows["window_records_in"] / (windows["window_s"] * 1000))
    cells = windows.groupby(["queries", "rate_per_topic"]).agg(
        runs=("run", "size"), records_per_ms=("window_records_per_ms", "median"),
        bytes_per_record=("window_bytes_in", "sum"), records=("window_records_in", "sum"),
        ns_per_record=("window_ns_per_record", "median"), ns_min=("window_ns_per_record", "min"),
        ns_max=("window_ns_per_record", "max"))
    cells["bytes_per_record"] /= cells.pop("records")
    print("\nwindow tasks (per window task: records in per ms of wall time; CPU per record in):")
    print(cells.to_string(float_format=lambda v: f"{v:.2f}"))
    terms = window_terms(windows)
    corr = np.corrcoef(terms["ms"], terms["buffers"])[0, 1]
    print(f"  correlations of the drivers per record: ms/buffers {corr:.3f}, "
          f"ms/kafka records {np.corrcoef(terms['ms'], terms['kafka records'])[0, 1]:.3f}")
    units = {"ms": "ns per ms", "buffers": "ns per buffer", "flushes": "ns per flush",
             "full buffers": "ns per full buffer", "kafka records": "ns per source Kafka record",
             "record": "ns per record"}
    print("window CPU per record in = the form's terms (OLS, each run one point; ± the 95 % interval):")
    for fit in fit_window(windows):
        terms_text = ", ".join(f"{c:.4g} ± {h:.2g} {units[t]}" for t, c, h in zip(fit["terms"], fit["coef"],
                                                                                    fit["ci95"]))
        print(f"  {fit['form']}: {terms_text}; R^2 = {fit['r2']:.3f} (adjusted {fit['r2_adjusted']:.3f}), "
              f"residual sd {fit['residual_sd_ns']:.0f} ns/record (max {fit['max_abs_residual_ns']:.0f}), "
              f"{fit['runs']} runs")


def fit_look_period(rates: np.ndarray, topics: np.ndarray, events_per_record: np.ndarray,
                    per_topic: bool = True) -> dict:
    """The generator's look period T = T0 + T1 x topics (µs; T1 = 0 with per_topic False) that makes x/(1 - exp(-x)),
    x = r T, best fit events per record (least squares on the log), and the fit's relative residuals. Each look
    visits every topic (generates, sends and flushes a record per topic), so T grows with the topics."""
    def residual(params: np.ndarray) -> np.ndarray:
        look = params[0] + (params[1] if per_topic else 0.0) * topics
        return np.log(events_per_kafka_record(rates, look)) - np.log(events_per_record)
    fit = least_squares(residual, x0=[60.0, 5.0], bounds=([1e-3, 0.0], [1e6, 1e4]))
    relative = np.exp(fit.fun) - 1
    return {"look_us": float(fit.x[0]), "look_us_per_topic": float(fit.x[1]) if per_topic else 0.0,
            "rms_relative": float(np.sqrt(np.mean(relative ** 2))),
            "max_abs_relative": float(np.abs(relative).max()), "runs": len(rates)}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--csv", type=Path, help="write the per-run table here")
    parser.add_argument("--skip-sweep", action="append", default=[], metavar="NAME",
                        help="leave out the runs of this sweep (its directory's name; repeatable)")
    args = parser.parse_args(argv)
    table = collect(args.paths)
    table = table[~table["sweep"].isin(args.skip_sweep)].reset_index(drop=True)
    if args.csv:
        table.to_csv(args.csv, index=False, float_format="%.6g")
    pd.set_option("display.width", 200)
    cells = table.groupby(["queries", "rate_per_topic"]).agg(
        runs=("run", "size"), events_per_record=("events_per_record", "median"),
        ns_per_event=("ns_per_event", "median"), ns_min=("ns_per_event", "min"), ns_max=("ns_per_event", "max"))
    print(cells.to_string(float_format=lambda v: f"{v:.2f}"))
    costs = fit_costs(table)
    print("\nsource CPU = a x records + b x events (OLS on ns per event, each run one point):")
    print(f"  a = {costs['ns_per_record']:.0f} ± {costs['ns_per_record_se']:.0f} ns per Kafka record, "
          f"b = {costs['ns_per_event']:.0f} ± {costs['ns_per_event_se']:.0f} ns per event; R^2 = {costs['r2']:.3f}, "
          f"residual sd {costs['residual_sd_ns']:.0f} ns/event (max {costs['max_abs_residual_ns']:.0f}), "
          f"{costs['runs']} runs")
    if "source_s" in table and table["source_s"].gt(0).all():
        corr = np.corrcoef(table["records_in"] / table["events_read"], table["source_s"] / table["events_read"])[0, 1]
        print(f"  records per event against source-seconds per event: correlation {corr:.2f}; alternatives:")
        for name, coef, r2 in fit_alternatives(table):
            print(f"    {name}: {', '.join(f'{c:.4g}' for c in coef)}; R^2 = {r2:.3f}")
    print_window_fit(table)
    rates, topics = table["rate_per_topic"].to_numpy(), table["queries"].to_numpy(dtype=float)
    epr = table["events_per_record"].to_numpy()
    for per_topic in (False, True):
        look = fit_look_period(rates, topics, epr, per_topic)
        form = f"T = {look['look_us']:.1f} + {look['look_us_per_topic']:.2f} x topics µs" if per_topic else \
            f"T = {look['look_us']:.1f} µs"
        print(f"events per record = x/(1-exp(-x)), x = rate per topic x T, {form}: rms relative residual "
              f"{look['rms_relative']:.1%} (max {look['max_abs_relative']:.1%}), {look['runs']} runs")
        for q, group in table.groupby("queries"):
            law = events_per_kafka_record(group["rate_per_topic"].to_numpy(),
                                          look["look_us"] + look["look_us_per_topic"] * q)
            print(f"    {q} queries: measured {group['events_per_record'].median():.2f}, law {np.median(law):.2f} "
                  f"events per record (medians)")

if __name__ == "__main__":
    main(sys.argv[1:])
