"""The simulator's options (`klinkctl simulate`, a sweep's `mode: simulate`): the simulated machine, its queues and
what the agent's work costs. Part of every run spec (klinkctl.run.declared); `bench` ignores them."""

from __future__ import annotations

from klinkctl.options import Section, option

QUEUE_MODES = ("credit", "heap")
ENVELOPE_ENCODINGS = ("compact", "pojo")


class SimOptions(Section):
    nodes: int = option(1, "(simulate) TaskManagers (nodes); queries are spread over them round robin, each "
                           "pipeline on one node.", gt=0)
    node_cpu: float = option(1.0, "(simulate) CPU of each node's TaskManager in cores; a fraction models a CPU quota "
                                  "(e.g. 0.25 for `klinkctl up --tm-cpu-quota 0.25`).", gt=0)
    background_cpu: float = option(0.355, "(simulate) Share of each node's CPU that threads other than the tasks use "
                                          "(Kafka fetchers, garbage collection, network): the tasks never get it and "
                                          "the policies never see it. Measured here: at its highest throughput the "
                                          "task threads used 64.5 % of the TaskManager's CPU (with the "
                                          "PojoSerializer's task costs: docs/simulator.md, \"Calibration\").",
                                   ge=0, lt=1)
    background_burst_ms: float = option(160.0, "(simulate) 0: the background work is done as it arises; > 0: in "
                                               "stop-the-world bursts of this much CPU, ms (garbage collection), "
                                               "which the tasks wait behind. Calibrated here on one real cell (8 "
                                               "queries at 0.9 of capacity, Default: docs/simulator.md).", ge=0)
    background_burst_spread: float = option(0.0, "(simulate) 0: every run's bursts are --background-burst-ms long; "
                                                 "s > 0: each run's burst length is drawn from its seed, "
                                                 "--background-burst-ms x exp(s z - s^2/2), a log-normal whose mean "
                                                 "is --background-burst-ms (z: the normal quantile of the seed's "
                                                 "place in the golden ratio's sequence, so a sweep's consecutive seeds "
                                                 "spread over it), as the real TaskManager's stalls vary from run to "
                                                 "run: s = 0.47-0.62 there (benchmarks/sim_burst_spread.py, "
                                                 "docs/simulator.md, \"Stalls that vary from run to run\").",
                                            ge=0, le=3)
    other_threads_share: float = option(0.0, "(simulate) Share of the background CPU (--background-cpu) that is not "
                                             "the collector's but other threads' (JIT compilers, Kafka fetchers, "
                                             "network): done in bursts of --other-threads-burst-ms that the tasks "
                                             "wait behind but the scheduler thread (the agent's, at the highest "
                                             "priority) does not. 0: every burst is stop-the-world (the model "
                                             "before 2026-11-28, and the default: docs/simulator.md, \"The stall "
                                             "model against the real cycle intervals\").", ge=0, le=1)
    other_threads_burst_ms: float = option(0.0, "(simulate) The other threads' (--other-threads-share) work comes in "
                                                "bursts of this much CPU, ms; 0: as it arises.", ge=0)
    gc_pressure: float = option(0.0, "(simulate) K of the collector's cost of a full heap: the node's background "
                                     "CPU grows by K * u/(1 - u) of its other CPU, u the live-heap fraction the "
                                     "policies see (capped at 0.99), done as the other background work "
                                     "(--background-burst-ms). 0: a full heap costs nothing. Fitted on real G1 "
                                     "TaskManagers: 0.073 [0.054-0.097] (benchmarks/gc_pressure_fit.py, "
                                     "docs/simulator.md \"The cost of a full heap\").", ge=0)
    network_flush_ms: int = option(0, "(simulate) Flink's output flusher (execution.buffer-timeout; the YSB, NYT and "
                                      "LRB jobs keep Flink's 100 ms): what a task sends downstream, records and "
                                      "watermarks, waits in its network buffer until its flusher runs, every this "
                                      "many ms at a phase of its own; 0: it arrives at once (the model before "
                                      "2026-11-28, and the default: docs/simulator.md, \"The stall model against the "
                                      "real cycle intervals\").", duration=True, ge=0)
    cpu_period_ms: int = option(100, "(simulate) The CPU quota's period (Linux CFS bandwidth control): a node with "
                                     "0.25 of a core runs a full core for 25 ms of every 100 ms; 0 = the CPU is "
                                     "shared out evenly over time.", duration=True, ge=0)
    queues: str = option("credit", "(simulate) Input queues: credit = Flink 2.x credit-based flow control (bounded; "
                                   "the backlog waits in Kafka), heap = unbounded on-heap queues (Flink 1.x, the "
                                   "paper's setting).", choices=QUEUE_MODES)
    queue_capacity: int = option(3000, "(simulate) Records a task's input queue holds with credit-based flow control "
                                       "(Flink's default buffers: ~10 x 32 KiB per input gate at ~100 B a record).",
                                 gt=0)
    heap_mb: int = option(512, "(simulate) TaskManager heap, MiB: the memory fraction Klink's memory management "
                               "(bound b) watches.", gt=0)
    record_bytes: int = option(200, "(simulate) Heap bytes one queued record takes (heap queues).", gt=0)
    events_per_delay: int = option(1, "(simulate) 1: every event its own network delay, as the generator draws "
                                      "them; n: one delay per n events of the same ms (the same distribution, "
                                      "coarser arrivals, n times fewer elements: for paper-scale runs).", gt=0)
    calibrate_from: str = option("", "(simulate) A real run's directory (its tasks.csv, written by the agent): "
                                     "per-task costs and selectivities come from it instead of the workload's "
                                     "defaults.")
    envelope_encoding: str = option("compact", "(simulate) Whose measured task costs a query's tasks take where "
                                               "--calibrate-from gives none: compact = the jobs' envelope encoding "
                                               "since 2026-11-28; pojo = Flink's PojoSerializer before it (YSB only: "
                                               "the real runs the validation compares with; docs/simulator.md, "
                                               "\"Calibration\").", choices=ENVELOPE_ENCODINGS)
    source_record_cost_ns: float = option(0.0, "(simulate) 0: a source costs its calibrated CPU per event whatever "
                                               "the rate (the model before 2026-11-29, and the default); A > 0: A "
                                               "ns of it per Kafka record, the rest per event, the records per "
                                               "event from the generator's send bursts at the run's rate and "
                                               "queries (one record per topic and look at the clock; the cost per "
                                               "event stays the calibrated one in the calibration cell, falls at "
                                               "higher rates per query). Fitted for YSB: 728 (benchmarks/"
                                               "sim_record_cost_fit.py, docs/simulator.md, \"Per-record source "
                                               "costs\").", ge=0)
    window_time_cost_ns: float = option(0.0, "(simulate) 0: a window task costs its calibrated CPU per record "
                                             "whatever the rate (the default); D > 0: D ns of CPU per ms of "
                                             "simulated time, whatever it reads (flushed buffers, watermarks, "
                                             "timers), and its calibrated cost less what D made of it in the "
                                             "calibration run per record (the cost per record stays the "
                                             "calibrated one at the calibration's rate, falls at higher rates per "
                                             "query). Fitted for YSB: 1173 (benchmarks/sim_record_cost_fit.py, "
                                             "docs/simulator.md, \"Per-ms window costs\").", ge=0)
    cost_scale: float = option(1.0, "(simulate) Multiplies every task's per-record cost (e.g. to model a slower "
                                    "machine).", gt=0)
    window_cost_scale: float = option(1.0, "(simulate) Multiplies the window tasks' per-record cost on top of "
                                           "--cost-scale (sources and other tasks keep theirs): > 1 models a window "
                                           "that costs more than its input, so that with heap queues records queue "
                                           "between tasks (docs/simulator.md, \"A window that costs more than its "
                                           "source\").", gt=0)
    fire_cost_ns: int = option(1000, "(simulate) CPU per result key a window firing costs (window, output and sink "
                                     "operators), ns.", ge=0)
    switch_cost_ns: int = option(0, "(simulate) CPU to resume one paused task, ns (0: pausing is free).", ge=0)
    cycle_cost_ns: int = option(100_000, "(simulate) Scheduler CPU per cycle, ns, plus --cycle-cost-per-task-ns per "
                                         "task (the agent's collect + decide + pause/resume).", ge=0)
    cycle_cost_per_task_ns: int = option(20_000, "(simulate) Scheduler CPU per cycle and registered task, ns.", ge=0)


#: The names `bench` leaves out of its command line: they describe a simulated machine.
SIM_OPTION_NAMES = tuple(SimOptions.model_fields)
