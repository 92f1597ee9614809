"""The collector's CPU against the live heap on the real G1 TaskManagers of the archived runs: the calibration of the
simulator's `--gc-pressure K` (docs/simulator.md, "The cost of a full heap").

Model (a copying collector: each collection copies the live data and frees the rest, so its work per byte allocated
grows as live / free):

    GC CPU / the TaskManager's other CPU = K * u / (1 - u),    u = live heap / max heap.

Data: every archived run with `late-state.csv` (per ~1 s sample: live heap after the latest collection, cumulative G1
collection time) and `resources.csv` (the TaskManager process's CPU). Per run, consecutive samples are grouped in
windows of WINDOW samples (the REST API repeats values up to 1 s old, so single seconds are noisy); per window:
- GC CPU = growth of `gc_time_ms` / wall time. It is the collections' pause time, which is CPU time here: every run used
  `klinkctl up --tm-cpus 1` (the TaskManager alone on one core), so a pause's parallel GC threads hold that core. The
  concurrent marking threads' CPU is not in it (it counts as other CPU).
- other CPU = the TaskManager's CPU (`resources.csv`, component taskmanager-1) − GC CPU;
- u = the mean live-heap fraction over the window, capped at U_CAP (as the simulator caps it).

K is the ratio estimator Σ GC CPU / Σ (other CPU · u/(1 − u)): the K with which the model gives the measured total GC
CPU. Its 95 % CI comes from a bootstrap over runs. A run is used only when its max heap is established: a single
TaskManager whose config.yaml gives `taskmanager_memory` and `taskmanager_gc: g1` and no memory override; the heap is
Flink's memory model's JVM heap (-Xmx) for that process size, 416 MiB for 1536m, which docs/late-state.md states for
`klinkctl up --tm-cpus 1`. Samples after the last change of the heap reading (a lost TaskManager's stale metrics)
are dropped.

    .venv/bin/python benchmarks/gc_pressure_fit.py [docs/data] [--window 5] [--boot 2000]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

MIB = 1 << 20
#: The simulator's cap on u (io.klink.sim.Node.GC_LIVE_FRACTION_CAP): u/(1−u) = 99 there.
U_CAP = 0.99
#: Windows in which the TaskManager used less CPU than this (cores) are idle: their ratio is noise.
MIN_CPU = 0.2
BINS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)


def flink_heap_bytes(process: str) -> int:
    """-Xmx of a TaskManager with `taskmanager.memory.process.size` = process and Flink's defaults (metaspace 256m,
    JVM overhead 10 % in [192m, 1g], managed 40 % and network 10 % in [64m, 1g] of the Flink memory, framework heap
    and off-heap 128m each): the framework heap plus the task heap."""
    units = {"k": 1 << 10, "m": MIB, "g": 1 << 30}
    size = int(process[:-1]) * units[process[-1].lower()] if process[-1].isalpha() else int(process)
    overhead = min(max(0.1 * size, 192 * MIB), 1 << 30)
    flink = size - 256 * MIB - overhead
    network = min(max(0.1 * flink, 64 * MIB), 1 << 30)
    task_heap = flink - 0.4 * flink - network - 128 * MIB - 128 * MIB
    return int(128 * MIB + task_heap)


def max_heap(run: Path) -> tuple[int | None, str]:
    """The run's TaskManager max heap in bytes, or None and why not."""
    config = run / "config.yaml"
    if not config.exists():
        return None, "no config.yaml"
    stack = (yaml.safe_load(config.read_text()) or {}).get("stack") or {}
    if stack.get("taskmanagers") != 1:
        return None, f"{stack.get('taskmanagers')} TaskManagers"
    if stack.get("taskmanager_gc") != "g1":
        return None, f"collector not recorded as G1 ({stack.get('taskmanager_gc')})"
    if any("memory" in key for key in stack.get("extra_flink_config") or {}):
        return None, "memory overridden in extra_flink_config"
    if not stack.get("taskmanager_memory"):
        return None, "no taskmanager_memory"
    return flink_heap_bytes(str(stack["taskmanager_memory"])), ""


def run_windows(run: Path, heap: int, window: int) -> pd.DataFrame:
    """One run's windows: u, GC CPU, TaskManager CPU (cores)."""
    state = pd.read_csv(run / "late-state.csv")
    if "live_heap_bytes" not in state:
        return pd.DataFrame()
    state = state[state["taskmanager"] == "taskmanager-1"].sort_values("time").reset_index(drop=True)
    changed = state["heap_used_bytes"].ne(state["heap_used_bytes"].shift())
    state = state.loc[: changed[changed].index[-1]]
    res = pd.read_csv(run / "resources.csv")
    cpu = res[res["component"] == "taskmanager-1"][["time", "cpu_percent"]].sort_values("time")
    rows = pd.merge_asof(state, cpu, on="time", direction="nearest", tolerance=700)
    rows = rows.dropna(subset=["cpu_percent", "live_heap_bytes"]).reset_index(drop=True)
    rows["u"] = (rows["live_heap_bytes"] / heap).clip(upper=U_CAP)
    out = []
    for _, w in rows.groupby(rows.index // window):
        seconds = (w["time"].iloc[-1] - w["time"].iloc[0]) / 1000
        if len(w) < window or seconds <= 0:
            continue
        gc = (w["gc_time_ms"].iloc[-1] - w["gc_time_ms"].iloc[0]) / 1000 / seconds
        out.append({"u": w["u"].iloc[1:].mean(), "gc": gc, "cpu": w["cpu_percent"].iloc[1:].mean() / 100,
                    "seconds": seconds})
    frame = pd.DataFrame(out)
    if not frame.empty:
        frame["run"] = str(run)
    return frame


def collect(data: Path, window: int) -> tuple[pd.DataFrame, list[tuple[str, str]], float]:
    """Every usable run's windows, the runs left out (and why), and the largest heap used seen (bytes)."""
    frames, left_out, used_max = [], [], 0.0
    for state in sorted(data.rglob("late-state.csv")):
        run = state.parent
        heap, why = max_heap(run)
        if "stale-metrics" in run.parts:
            heap, why = None, "stale metrics of a lost TaskManager (docs/late-state.md)"
        if heap is None:
            left_out.append((str(run.relative_to(data)), why))
            continue
        used_max = max(used_max, pd.read_csv(state)["heap_used_bytes"].max() / heap)
        frames.append(run_windows(run, heap, window))
    windows = pd.concat([f for f in frames if not f.empty], ignore_index=True)
    windows["other"] = windows["cpu"] - windows["gc"]
    windows = windows[(windows["cpu"] >= MIN_CPU) & (windows["other"] > 0)].reset_index(drop=True)
    windows["x"] = windows["u"] / (1 - windows["u"])
    return windows, left_out, used_max


def fit_k(windows: pd.DataFrame) -> float:
    return float(windows["gc"].sum() / (windows["other"] * windows["x"]).sum())


def bootstrap_k(windows: pd.DataFrame, reps: int, seed: int = 0) -> tuple[float, float]:
    """95 % percentile interval of K over runs resampled with replacement."""
    rng = np.random.default_rng(seed)
    by_run = {run: (g["gc"].sum(), (g["other"] * g["x"]).sum()) for run, g in windows.groupby("run")}
    sums = np.array(list(by_run.values()))
    draws = rng.integers(0, len(sums), size=(reps, len(sums)))
    ks = sums[draws, 0].sum(axis=1) / sums[draws, 1].sum(axis=1)
    return float(np.percentile(ks, 2.5)), float(np.percentile(ks, 97.5))


def by_bin(windows: pd.DataFrame, k: float) -> pd.DataFrame:
    """Per u bin: windows, runs, seconds, GC share of the TaskManager's CPU, measured GC/other, model K·x, the bin's K."""
    g = windows.groupby(pd.cut(windows["u"], BINS), observed=True)
    table = pd.DataFrame({
        "windows": g.size(), "runs": g["run"].nunique(), "seconds": g["seconds"].sum().round(0).astype(int),
        "mean u": g["u"].mean(), "GC share": g["gc"].sum() / g["cpu"].sum(),
        "GC/other": g["gc"].sum() / g["other"].sum(),
        "model": k * (g.apply(lambda w: (w["other"] * w["x"]).sum(), include_groups=False) / g["other"].sum()),
    })
    table["K of bin"] = table["GC/other"] / (table["model"] / k)
    return table


def power_check(windows: pd.DataFrame) -> tuple[float, float]:
    """Fit GC/other = c · x^p by least squares on the logs of the per-bin ratios (bins with ≥ 3 windows): p = 1 is
    the copying collector's form."""
    g = windows.groupby(pd.cut(windows["u"], BINS), observed=True)
    sums = g.agg(n=("gc", "size"), gc=("gc", "sum"), other=("other", "sum"))
    sums["x"] = g.apply(lambda w: (w["other"] * w["x"]).sum(), include_groups=False) / sums["other"]
    sums = sums[sums["n"] >= 3]
    p, log_c = np.polyfit(np.log(sums["x"]), np.log(sums["gc"] / sums["other"]), 1)
    return float(p), float(np.exp(log_c))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", default="docs/data", type=Path)
    parser.add_argument("--window", type=int, default=5, help="samples (~1 s each) per window")
    parser.add_argument("--boot", type=int, default=2000, help="bootstrap resamples over runs")
    args = parser.parse_args(argv)
    windows, left_out, used_max = collect(args.data, args.window)
    k = fit_k(windows)
    low, high = bootstrap_k(windows, args.boot)
    print(f"runs used: {windows['run'].nunique()}; windows: {len(windows)} of {args.window} samples, "
          f"{windows['seconds'].sum():.0f} s; left out: {len(left_out)} runs")
    for run, why in left_out:
        print(f"  left out {run}: {why}")
    print(f"max heap: {flink_heap_bytes('1536m') / MIB:.0f} MiB for 1536m (every run used); largest heap used seen: "
          f"{used_max:.3f} of it")
    print(f"K = {k:.4f}  95 % CI [{low:.4f}, {high:.4f}] (bootstrap over runs, {args.boot} resamples)")
    for family, g in windows.groupby(windows["run"].str.extract(r"([a-z-]+?)-\d{8}", expand=False)):
        print(f"  {family}: K = {fit_k(g):.4f} ({g['run'].nunique()} runs, {len(g)} windows)")
    p, c = power_check(windows)
    print(f"power check: GC/other = {c:.4f} * (u/(1-u))^{p:.2f} on the bins with >= 3 windows (p = 1: the model)")
    print(by_bin(windows, k).round(4).to_string())


if __name__ == "__main__":
    main()
