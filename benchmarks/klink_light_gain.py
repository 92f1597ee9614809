"""Where Klink's gain over Default in the best 2-query cell comes from (issues 18 and 22, thirty-seventh session).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/klink_light_gain.py > docs/data/klink-light-gain-20261129.txt

Reads the stored sweeps (valid runs only, as `klinkctl compare` does) through klinkctl.results and splits each
measured window's SWM latency (latency.csv, output_at − window_end) in two:

* **phase** = swm − window_end: by how much the watermark that fired the window overshot its end. The sources
  emit a watermark every 200 ms (`watermark_interval_ms`), max event time read − B − 1, so the first one at or
  past the end lands anywhere in [0, 200) ms past it, depending on where the source's 200 ms timer ticks relative
  to the window end — a phase set when the source task starts (and drifting a few ms per window as the timer
  comes late), not by the events;
* **rest** = output_at − swm: B, how far the sources' reading lags the events, the firing and the output.

Then per cell Klink/Default of the latency, of the rest alone and the phase difference; whether the phase is
uniform (as a timer started at a random moment makes it); what the few non-light cycles did to the windows
around them; per-window distributions; the tasks' CPU per record and the sources' read rate.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps

from klinkctl.results.groups import paired_ratio_interval, ratio_interval
from klinkctl.results.runset import load_runset
from klinkctl.results.stats import t_interval
from klinkctl.results.tables import generation_end_ms, measured_rows, read_table

DATA = Path(__file__).resolve().parent.parent / "docs" / "data"
SWEEPS = (
    "klink-regimes-slice-2q-20261128-231730",  # 1.0 and 1.1 of capacity
    "klink-regimes-slice-2q-overload-20261128-233047",  # 1.25 and 1.4
    "klink-regimes-slice-2q-1.4-20261128-234352",  # 1.4, 10 a side
    "klink-regimes-slice-2q-policies-20261129-022920",  # 112 000 per query, every policy
    "klink-2q-cells-20261129-032536",  # 112 000 per query, B 200 ms / 1 s × uniform / Zipf
)
BEST_SWEEPS = SWEEPS[2:]  # the best cell measured below the overload: 1.4 (10 a side), policies, cells
PERIOD_MS = 200  # watermark_interval_ms of every run here (checked below)
REFERENCE, OTHERS = "default", ("klink", "os-priority")


def load_windows(sweeps: tuple[str, ...] = SWEEPS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(windows, runs): one row per measured window (after the warm-up, not partial), one row per valid run."""
    windows, runs = [], []
    for sweep in sweeps:
        for run in load_runset(DATA / sweep).runs:
            bench = run.config["bench"]
            assert int(bench["watermark_interval_ms"]) == PERIOD_MS, run.run_dir
            cell = f"B={bench['watermark_bound_ms']}ms {bench['delay'].split(':')[0]} {int(bench['rate']) // 1000}k/q"
            keys = dict(sweep=sweep, cell=cell, policy=bench["policy"], rep=run.repetition, run=run.run_id)
            end = generation_end_ms(run.summary, bench)
            frame = measured_rows(read_table(run.run_dir / "latency.csv"), end)
            frame = frame.sort_values("window_end").assign(**keys)
            frame["k"] = frame.groupby("query").cumcount()
            frame["phase"] = frame["swm"] - frame["window_end"]
            frame["rest"] = frame["output_at"] - frame["swm"]
            windows.append(frame)
            runs.append({**keys, "run_dir": run.run_dir, "generation_end": end, "bound": int(bench["watermark_bound_ms"]),
                         "read": run.summary["throughput"]["flink_source_records_per_s"],
                         "offered": run.summary["throughput"]["generator_events_per_s"],
                         "light": (run.summary.get("scheduler") or {}).get("light_cycle_fraction"),
                         **task_cpu(run.run_dir)})
    windows = pd.concat(windows, ignore_index=True)
    per_run = windows.groupby("run")[["swm_latency_ms", "phase", "rest"]].mean()
    return windows, pd.DataFrame(runs).join(per_run, on="run")


def task_cpu(run_dir: Path) -> dict[str, float]:
    """CPU per record (µs) of the sources (per record they emit) and of the windows (per record in), tasks.csv."""
    tasks = read_table(run_dir / "tasks.csv")
    src, win = tasks[tasks["role"] == "source"], tasks[tasks["role"] == "window"]
    return {"src_us": src["cpu_ns"].sum() / src["records_out"].sum() / 1e3,
            "win_us": win["cpu_ns"].sum() / win["records_in"].sum() / 1e3}


def welch_difference(reference: pd.Series, other: pd.Series) -> tuple[float, float, float, float]:
    """(other − reference mean, CI low, high, two-sided p) by Welch's t."""
    test = sps.ttest_ind(other, reference, equal_var=False)
    interval = test.confidence_interval(0.95)
    return other.mean() - reference.mean(), interval.low, interval.high, test.pvalue


def by_cell(runs: pd.DataFrame) -> pd.DataFrame:
    """Per cell and policy against Default: latency ratio, the rest's ratio, the phase difference, read ratio."""
    rows = []
    for (sweep, cell), group in runs.groupby(["sweep", "cell"], sort=False):
        ref = group[group["policy"] == REFERENCE]
        for policy in OTHERS:
            other = group[group["policy"] == policy]
            if other.empty or ref.empty:
                continue
            lat = ratio_interval(ref["swm_latency_ms"], other["swm_latency_ms"])
            paired = paired_ratio_interval(dict(zip(ref["rep"], ref["swm_latency_ms"])),
                                           dict(zip(other["rep"], other["swm_latency_ms"])))
            rest = ratio_interval(ref["rest"], other["rest"])
            phase = welch_difference(ref["phase"], other["phase"])
            read = ratio_interval(ref["read"], other["read"])
            rows.append(dict(sweep=sweep, cell=cell, policy=policy, n=f"{len(ref)}/{len(other)}",
                             lat_ms=f"{ref['swm_latency_ms'].mean():.0f}/{other['swm_latency_ms'].mean():.0f}",
                             ratio=_ci(lat), paired=_ci(paired[:3]),
                             phase_ms=f"{ref['phase'].mean():.0f}/{other['phase'].mean():.0f}",
                             phase_diff=f"{phase[0]:+.0f} [{phase[1]:+.0f}, {phase[2]:+.0f}] p={phase[3]:.3f}",
                             rest_ms=f"{ref['rest'].mean():.0f}/{other['rest'].mean():.0f}", rest_ratio=_ci(rest),
                             read_ratio=_ci(read)))
    return pd.DataFrame(rows)


def _ci(triple) -> str:
    value, low, high = triple[:3]
    return f"{value:.3f} [{low:.3f}–{high:.3f}]" if math.isfinite(low) else f"{value:.3f}"


def phase_equalised(runs: pd.DataFrame) -> str:
    """Klink/Default when every run's phase is replaced by the pooled mean phase: what the rest alone gives."""
    lines = []
    for (sweep, cell), group in runs.groupby(["sweep", "cell"], sort=False):
        group = group[group["policy"].isin([REFERENCE, "klink"])]
        mean_phase = group["phase"].mean()
        equalised = group["rest"] + mean_phase
        ref, kl = equalised[group["policy"] == REFERENCE], equalised[group["policy"] == "klink"]
        lines.append(f"  {sweep} {cell}: {len(ref)}/{len(kl)} runs, pooled mean phase {mean_phase:.0f} ms, "
                     f"Klink/Default {_ci(ratio_interval(ref, kl))}")
    return "\n".join(lines)


def phase_is_random(windows: pd.DataFrame, runs: pd.DataFrame) -> str:
    """The first measured window's phase per run and query, against U(0, 200) (KS), per policy; how much of the
    per-run latency the per-run phase explains."""
    first = windows[windows["k"] == 0]
    lines = []
    for policy in (REFERENCE, "klink"):
        values = first.loc[first["policy"] == policy, "phase"].astype(float).clip(0, PERIOD_MS - 1e-9)
        ks = sps.kstest(values, sps.uniform(0, PERIOD_MS).cdf)
        lines.append(f"  {policy}: {len(values)} first windows, mean phase {values.mean():.0f} ms, quartiles "
                     f"{values.quantile(0.25):.0f}/{values.median():.0f}/{values.quantile(0.75):.0f}, "
                     f"KS against U(0,200) D={ks.statistic:.3f} p={ks.pvalue:.2f}")
    within = windows.groupby(["run", "query"])["phase"].agg(["std", "count"])
    step = windows.sort_values("window_end").groupby(["run", "query"])["phase"].diff()
    step = (step + PERIOD_MS / 2) % PERIOD_MS - PERIOD_MS / 2  # across the wrap-around
    previous = windows.sort_values("window_end").groupby(["run", "query"])["phase"].shift()
    low = previous < PERIOD_MS / 2
    lines.append(f"  within a run and query the phase moves from one window to the next (3 s) by a median "
                 f"{step.median():.1f} ms (IQR {step.quantile(0.25):.1f}–{step.quantile(0.75):.1f}): the 200 ms timer "
                 f"drifts later a little each period; the two queries of a run: correlation of their mean phase "
                 f"{_query_correlation(windows):.2f}")
    for policy in (REFERENCE, "klink"):
        mine = windows["policy"] == policy
        lines.append(f"  {policy}: median step {step[mine].median():.1f} ms, MAD "
                     f"{(step[mine] - step[mine].median()).abs().median():.1f}; from a phase below 100 ms "
                     f"{step[mine & low].median():.1f}, from above {step[mine & ~low & previous.notna()].median():.1f}"
                     " (no pull toward any phase)")
    for bound in (200, 1000):
        part = runs[(runs["bound"] == bound) & (runs["rest"] < bound + 100)]  # no congested run
        fit = sps.linregress(part["phase"], part["swm_latency_ms"])
        lines.append(f"  per-run mean latency on per-run mean phase, B={bound} ms runs whose mean rest is below "
                     f"B + 100 ms ({len(part)} of {(runs['bound'] == bound).sum()}): slope {fit.slope:.2f}, "
                     f"R² {fit.rvalue ** 2:.2f}")
    return "\n".join(lines)


def _query_correlation(windows: pd.DataFrame) -> float:
    means = windows.groupby(["run", "query"])["phase"].mean().unstack("query")
    return float(means.iloc[:, 0].corr(means.iloc[:, 1]))


def pooled_phase(runs: pd.DataFrame) -> str:
    """Phase difference Klink − Default pooled over groups of cells (runs independent: a phase per run)."""
    lines = []
    groups = {
        "B=200 ms at 112k/q (1.4 sweep, policies, cells uniform and Zipf)":
            runs["sweep"].isin(BEST_SWEEPS) & runs["cell"].str.startswith("B=200ms"),
        "B=1 s at 112k/q (cells uniform and Zipf)": runs["cell"].str.startswith("B=1000ms"),
        "B=200 ms below 112k/q (80k, 88k, 100k)":
            runs["cell"].str.startswith("B=200ms") & ~runs["cell"].str.contains("112k"),
        "every cell but the congested 1.4 of the overload sweep": ~((runs["sweep"].str.contains("overload"))
                                                                    & runs["cell"].str.contains("112k")),
    }
    for name, mask in groups.items():
        group = runs[mask]
        ref, kl = group[group["policy"] == REFERENCE], group[group["policy"] == "klink"]
        diff = welch_difference(ref["phase"], kl["phase"])
        rest = welch_difference(ref["rest"], kl["rest"])
        null = uniform_null(len(ref), len(kl), diff[0])
        lines.append(f"  {name}: {len(ref)}/{len(kl)} runs; phase {ref['phase'].mean():.0f} → "
                     f"{kl['phase'].mean():.0f} ms (sd of a run's mean {ref['phase'].std():.0f}/{kl['phase'].std():.0f}), Klink − Default {diff[0]:+.0f} [{diff[1]:+.0f}, {diff[2]:+.0f}] "
                     f"p={diff[3]:.3f}; rest {ref['rest'].mean():.0f} → {kl['rest'].mean():.0f} ms, "
                     f"{rest[0]:+.1f} [{rest[1]:+.1f}, {rest[2]:+.1f}] p={rest[3]:.2f}; a phase difference at least "
                     f"this large with every run's phase drawn U(0,200) for both queries alike: p={null:.4f}")
    return "\n".join(lines)


def uniform_null(n_reference: int, n_other: int, observed: float, draws: int = 200_000, seed: int = 1) -> float:
    """Two-sided Monte Carlo p of a difference in mean phase ≥ |observed| when each run's phase is one U(0, 200)
    draw (both queries alike: the most spread a run mean can have, so the largest p)."""
    rng = np.random.default_rng(seed)
    difference = (rng.uniform(0, PERIOD_MS, (draws, n_other)).mean(axis=1)
                  - rng.uniform(0, PERIOD_MS, (draws, n_reference)).mean(axis=1))
    return float((np.abs(difference) >= abs(observed)).mean())


def selection_cycles(windows: pd.DataFrame, runs: pd.DataFrame) -> str:
    """Klink's non-light cycles: when, whom they run, and the windows they touch against the untouched ones."""
    klink_runs = runs[runs["policy"] == "klink"]
    episodes, touched_rows, chosen_due, timing = [], [], [], []
    for run in klink_runs.itertuples():
        cycles = read_table(run.run_dir / "scheduler.csv")
        cycles = cycles[cycles["tasks"] > 0]
        select = cycles[~cycles["why"].fillna("").str.startswith("light")]
        ends = windows[windows["run"] == run.run]
        # next deadline of each query at each selection cycle, and whether the chosen query is the one due first
        lat = read_table(run.run_dir / "latency.csv")
        for row in select.itertuples():
            chosen = {task.split(":")[0] for task in str(row.decisions).split(";") if task}
            due = {q: (f["window_end"][f["window_end"] >= row.time - 0].min() - row.time) for q, f in lat.groupby("query")}
            due = {q: d for q, d in due.items() if not pd.isna(d)}
            if len(chosen) == 1 and len(due) == 2:
                chosen_due.append(dict(first_due=min(due, key=due.get) in chosen,
                                       to_deadline=due[next(iter(chosen))]))
        end = run.generation_end
        last_fired = ends["fired_at"].max()
        timing.append(dict(first_after_end_s=(select["time"].min() - end) / 1e3,
                           first_after_last_firing_s=(select["time"].min() - last_fired) / 1e3,
                           before_end=int((select["time"] <= end).sum())))
        gap = (select["time"].diff() > 200).cumsum()
        for _, episode in select.groupby(gap):
            episodes.append(dict(run=run.run, start=episode["time"].iloc[0], cycles=len(episode),
                                 gc_ms=episode["gc_ms"].sum()))
        for window in ends.itertuples():
            inside = select[(select["time"] >= window.window_end - 3000) & (select["time"] <= window.fired_at)]
            touched_rows.append(dict(run=run.run, touched=len(inside) > 0, rest=window.rest,
                                     latency=window.swm_latency_ms, phase=window.phase))
    episodes, touched, chosen_due = pd.DataFrame(episodes), pd.DataFrame(touched_rows), pd.DataFrame(chosen_due)
    timing = pd.DataFrame(timing)
    default = windows[windows["policy"] == REFERENCE]
    lines = [f"  {len(klink_runs)} Klink runs: light cycles {klink_runs['light'].min():.0%}–{klink_runs['light'].max():.0%}; "
             f"{len(episodes)} episodes of selection cycles (a gap > 200 ms starts a new one), "
             f"{episodes['cycles'].median():.0f} cycles long at the median (max {episodes['cycles'].max()}), "
             f"{(episodes['gc_ms'] > 0).mean():.0%} of them with a GC pause inside",
             f"  selection cycles before the generator's end: {timing['before_end'].sum()}; the first one comes "
             f"{timing['first_after_end_s'].min():.1f}–{timing['first_after_end_s'].max():.1f} s after the generator's "
             f"end, {timing['first_after_last_firing_s'].min():.2f}–{timing['first_after_last_firing_s'].max():.2f} s "
             "after the run's last measured window fired (the drain: progress records only)"]
    if not chosen_due.empty:
        lines.append(f"  single-query selection cycles: {len(chosen_due)}; the chosen query is the one whose window "
                     f"ends first in {chosen_due['first_due'].mean():.0%}; its window ends a median "
                     f"{chosen_due['to_deadline'].median():.0f} ms after the cycle")
    for flag, part in touched.groupby("touched"):
        lines.append(f"  windows {'with' if flag else 'without'} a selection cycle between their start and their "
                     f"firing: {len(part)}, latency {part['latency'].mean():.0f} ms, rest {part['rest'].mean():.0f} "
                     f"ms, phase {part['phase'].mean():.0f} ms")
    lines.append(f"  Default's windows in the same cells: {len(default)}, latency {default['swm_latency_ms'].mean():.0f} "
                 f"ms, rest {default['rest'].mean():.0f} ms, phase {default['phase'].mean():.0f} ms")
    return "\n".join(lines)


def distributions(windows: pd.DataFrame) -> str:
    """Per-window quantiles of latency and rest per query and policy; the mean without each side's 2 worst."""
    lines = []
    part = windows[windows["policy"].isin([REFERENCE, "klink"])]
    for (query, policy), group in part.groupby(["query", "policy"]):
        q = group["swm_latency_ms"].quantile([0.1, 0.5, 0.9, 0.99]).round().astype(int).tolist()
        r = group["rest"].quantile([0.1, 0.5, 0.9, 0.99]).round().astype(int).tolist()
        lines.append(f"  {query} {policy:8s} {len(group):3d} windows: latency p10/p50/p90/p99 {q}, mean "
                     f"{group['swm_latency_ms'].mean():.0f}; rest {r}, mean {group['rest'].mean():.0f}")
    for policy, group in part.groupby("policy"):
        trimmed = group["swm_latency_ms"].sort_values().iloc[:-2]
        rest = group["rest"].sort_values().iloc[:-2]
        lines.append(f"  {policy}: without its 2 worst windows, latency mean {trimmed.mean():.1f} ms, rest "
                     f"{rest.mean():.1f} ms; windows with rest > 300 ms: {(group['rest'] > 300).sum()}")
    return "\n".join(lines)


def overheads(part: pd.DataFrame) -> str:
    lines = []
    for policy, group in part.groupby("policy"):
        lines.append(f"  {policy:12s} {len(group):2d} runs: source CPU {group['src_us'].mean():.3f} µs/record "
                     f"(sd {group['src_us'].std():.3f}), window {group['win_us'].mean():.3f} µs/record, read "
                     f"{group['read'].mean() / 1e3:.1f} of {group['offered'].mean() / 1e3:.1f} k/s")
    ref, kl = part[part["policy"] == REFERENCE], part[part["policy"] == "klink"]
    lines.append(f"  Klink/Default source CPU per record {_ci(ratio_interval(ref['src_us'], kl['src_us']))}, "
                 f"window {_ci(ratio_interval(ref['win_us'], kl['win_us']))}, read "
                 f"{_ci(ratio_interval(ref['read'], kl['read']))}")
    both = part[part["policy"].isin([REFERENCE, "klink"])]
    fit = sps.linregress(both["src_us"], both["rest"])
    lines.append(f"  per run, rest on source CPU per record: slope {fit.slope:.0f} ms per µs, R² {fit.rvalue ** 2:.2f}")
    return "\n".join(lines)


def main() -> None:
    windows, runs = load_windows()
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 20)
    best = runs[runs["sweep"].isin(BEST_SWEEPS) & runs["cell"].str.startswith("B=200ms uniform 112k")]
    best_windows = windows[windows["run"].isin(best["run"])]
    print(__doc__.split("\n\n")[0].strip(), "\n")
    print("Sweeps (docs/data):", ", ".join(SWEEPS), "\n")
    print("1. Per cell, against Default (Default/other; ratio = geometric means with Welch 95 % CI on logs; phase "
          "difference other − Default, Welch; rest = output_at − swm):")
    print(by_cell(runs).to_string(index=False), "\n")
    print("2. With the phase set to the pooled mean of both sides (latency = rest + that mean), Klink/Default:")
    print(phase_equalised(runs), "\n")
    print("3. Is the phase a random draw per run?")
    print(phase_is_random(windows[windows["policy"].isin([REFERENCE, "klink"])],
                          runs[runs["policy"].isin([REFERENCE, "klink"])]), "\n")
    print("4. Phase and rest, Klink − Default, pooled over cells (Welch over runs):")
    print(pooled_phase(runs), "\n")
    print(f"5. Klink's selection (non-light) cycles in the best cell (B=200ms uniform, 112k/q; {', '.join(BEST_SWEEPS)}):")
    print(selection_cycles(best_windows, best), "\n")
    print("6. Per-window distributions in the best cell (the same three sweeps pooled):")
    print(distributions(best_windows), "\n")
    print("7. Task CPU per record (tasks.csv) and read rate (summary.json), best cell, the same three sweeps pooled:")
    print(overheads(best))


if __name__ == "__main__":
    sys.exit(main())
