"""`klinkctl bench`: one benchmark run. Its options are the bench settings (klinkctl.run.config); `capacity`
takes them from here (klinkctl.cli.capacity)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from klinkctl.cli.options import format_option, results_option, state_dir_option
from klinkctl.cli.output import console, print_summary
from klinkctl.cli.stack import running_stack
from klinkctl.errors import RunNotCompleted


@click.command()
@format_option  # kept apart from the bench settings below
@click.argument("workload")
@state_dir_option
@results_option
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False),
              help="YAML file of bench settings (same names as these options); options given here win.")
@click.option("--queries", type=str, help="Independent query pipelines, each with its own topic. [1]")
@click.option("--rate", type=str, help="Events per second per query. [1000]")
@click.option("--duration", type=str, help="Event generation time, e.g. 60s, 2m. [60s]")
@click.option("--warmup", type=str, help="Leading time left out of the summary (rows kept). [10s]")
@click.option("--window", type=str, help="Window size (YSB: tumbling, 10s, the paper's variant 3s; NYT: sliding, 2s; "
              "LRB: the sliding segment statistics, 5s; kmeans: tumbling, 3s). [10s; nyt 2s; lrb 5s; kmeans 3s]")
@click.option("--slide", type=str, help="Slide of sliding windows (nyt, lrb; lrb's toll window is as long). "
              "[nyt 1s; lrb 3s]")
@click.option("--delay", type=str, help="Network delay of each event (sent at event_time + delay): const:300ms, "
              "uniform:0-2s, normal:300ms:50ms, exp:240ms, gamma:60:4ms, lognormal:200ms:0.5, pareto:100ms:2.5, "
              "zipf:0.99:0-2s (seeded); or a thesis preset of network + inter-event models: preset:CC (const 150ms, "
              "gaps const), preset:GG (gamma:60:4ms, gaps gamma k=2), preset:EC (exp:240ms, gaps const), preset:EG "
              "(exp:240ms, gaps gamma k=2). [const:0ms]")
@click.option("--inter-event", type=str, help="Inter-event generation gaps of each query's events, mean 1/rate: "
              "const (exact schedule) or gamma:<k> (bursty; gamma:2 at --rate 1000 = the thesis' Gamma(2, 0.5ms)). "
              "[const, or the preset's]")
@click.option("--seed", type=str, help="Seed of events, campaigns and window offsets. [42]")
@click.option("--policy", type=str, help="Scheduling policy: default (plain Flink), rr, fcfs, hr, sbox, klink, "
              "klink-nomm (the agent inside the TaskManager), os-priority (nice values from outside; local backend, "
              "CAP_SYS_NICE). [default]")
@click.option("--watermark-bound", type=str, help="Bounded out-of-orderness B of the watermarks. [1s]")
@click.option("--marker-interval", type=str, help="Blocking latency marker period per source; 0 = no markers. [200ms]")
@click.option("--cycle", type=str, help="Scheduler: cycle length r. [120ms]")
@click.option("--history", type=str, help="Scheduler (klink, LR): epochs of delay history h. [400]")
@click.option("--confidence", type=str, help="Confidence, 0 < f < 1: Klink's SWM interval f (scheduler) and the "
              "sampler's 1 - delta. [0.95]")
@click.option("--memory-bound", type=str, help="Scheduler (klink): memory-used fraction b that starts memory "
              "management, 0 < b <= 1. [0.8]")
@click.option("--cores", type=str, help="Scheduler: pipelines (queries) running at once C, for every policy. "
              "[cores of the TaskManager]")
@click.option("--aging", type=str, help="Scheduler (klink, fcfs, hr, sbox): force in a task that was runnable but "
              "not chosen for this many cycles; 0 = off, as in the paper (on, a deviation). [0]")
@click.option("--strict-slack", is_flag=True, default=None, help="Scheduler (klink): select C pipelines by slack "
              "every cycle, as in the paper, even when all queued work fits in one cycle (default: such cycles "
              "pause nothing).")
@click.option("--fill-cycle", is_flag=True, default=None, help="Scheduler (klink): when the C least-slack "
              "pipelines hold less work than one cycle's CPU, add further pipelines in slack order until they do "
              "(work-conserving; a deviation, the paper runs C).")
@click.option("--enforce", type=str, help="Scheduler: how tasks not chosen are held back: pause (suspend their "
              "input, the paper's) or priority (keep running at nice 19: work-conserving; needs CAP_SYS_NICE). [pause]")
@click.option("--os-priority-period", type=str, help="Policy os-priority (Lachesis-style, from outside Flink): "
              "how often input backlogs are read from Flink's REST metrics and task threads' nice values set. [1s]")
@click.option("--k", type=str, help="kmeans: clusters each window's k-means finds. [5]")
@click.option("--kmeans-iterations", type=str, help="kmeans: Lloyd iterations per window at most. [20]")
@click.option("--campaigns", type=str, help="ysb: campaigns (window keys), each with 10 ads. [100]")
@click.option("--data", type=str, help="nyt: replay this DEBS 2015 trip CSV (17 columns; first 500 000 rows, "
              "cyclically) instead of synthetic trips. [synthetic]")
@click.option("--sampler", type=str, help="Sampling / stream progress in front of each window (ysb, nyt, "
              "kmeans): aion, aion-minus, kslack, aq-kslack, or none (the job's bounded-out-of-orderness "
              "watermarks). [none]")
@click.option("--error", type=str, help="Sampler: relative error target r_thr of each window's result. [0.05]")
@click.option("--substream", type=str, help="Sampler: sub-stream length f, a divisor of --window "
              "(nyt: and of --slide). [600ms; nyt: 500ms]")
@click.option("--substream-history", type=str, help="Sampler: sub-streams m its estimates look back over. [50]")
@click.option("--accuracy", is_flag=True, default=None, help="Write error.csv: each window's relative error "
              "against exact results computed from the generated events (always on with a sampler; ysb, nyt, kmeans).")
@click.option("--stressed", is_flag=True, default=None, help="lrb: the toll window (the query's last) is a third of "
              "--slide, so its deadlines come 3x as often (the paper's stressed LRB).")
@click.option("--accidents", type=str, help="lrb: accidents started per minute per query (seeded; 0 = none). [2]")
@click.option("--generator-cpus", type=str, help="Pin the event generator to these cores, e.g. 0 (taskset). [not pinned]")
@click.option("--pack-bytes", type=str, help="Generator: the events a query gets in one send burst travel in one "
              "Kafka record of at most this many bytes (no event waits); 0 = one record per event. [65536]")
@click.option("--load", type=str, help="Run at this fraction of --capacity's rate instead of --rate (e.g. 0.9): "
              "rate = round(F x its events/s per query).")
@click.option("--capacity", type=str, help="A capacity.json of `klinkctl capacity` for the same workload and "
              "load settings (the policy and its parameters may differ); needs --load.")
def bench(fmt: str, workload: str, state_dir: Path | None, results_dir: Path, config_file: Path | None,
          **options) -> None:
    """Run a benchmark WORKLOAD (ysb, nyt, lrb, kmeans) on the stack and write results/<run-id>/."""
    from klinkctl.run.bench import run_bench
    from klinkctl.run.config import resolve

    config = resolve(config_file, {"workload": workload, **options})  # every value checked before anything starts
    spec, processes = running_stack(state_dir)
    with console.status(f"{workload} run") as spinner:
        outcome = run_bench(spec, config, results_dir, processes, progress=lambda line: spinner.update(line))
    if fmt == "json":
        click.echo(json.dumps(outcome.summary, indent=2))
    else:
        print_summary(outcome.summary)
    click.echo(f"results: {outcome.run_dir}", err=fmt == "json")
    if outcome.summary["status"] != "completed":
        raise RunNotCompleted(f"run {outcome.summary['status']}: {outcome.summary['reason']}")
