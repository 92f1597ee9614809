"""Each workload's query as the real job builds it (java-udfs/klink-workloads), task by task: an operator chain per
task, its CPU per input record, where its records go and how many. One function per workload; the simulator
(java-udfs/klink-sim) runs any such graph.

Default costs are CPU per record of the task's thread on this machine, from the agent's tasks.csv of real runs
(docs/simulator.md, "Calibration"); `--calibrate-from` replaces them role by role.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from klinkctl.errors import KlinkError
from klinkctl.run.config import RunSpec

#: Per role: CPU ns per input record and records out per record in. For a window too, since 2026-11-29: its firings
#: emit its records × selectivity × slide / size (java-udfs/klink-sim SimTask), which is what tasks.csv measures, so
#: `--calibrate-from` needs no model of the run's firings and keys. (Results per key and firing, the model before,
#: would have needed both, and LRB's keys grow with the rate: 200 segments per expressway, one per 1 000 reports/s.)
Costs = dict[str, dict[str, float]]

#: Per workload and role, the mean over the measured runs (warm-ups left out) of each sweep's `read_calibration`
#: (docs/simulator.md, "Calibration"): docs/data/sim-calibration-{ysb-20261128-192144, nyt-20261128-192645,
#: lrb-20261128-192946}, 3 runs each on `klinkctl up --tm-cpus 1 --tm-cpu-quota 0.25` with the compact envelope
#: encoding (docs/workloads.md), rounded to 10 ns; selectivities are the sweeps' means to three significant figures
#: (a window's matters only where it has an output edge: LRB's stats window). tests/unit/test_sim_costs.py holds
#: them to those sweeps.
DEFAULT_COSTS: dict[str, Costs] = {
    # YSB: source -> markers -> filter (views: 1 in 3) -> campaign join | window -> output -> sink
    "ysb": {"source": {"cost_ns_per_record": 960.0, "selectivity": 0.335},
            "window": {"cost_ns_per_record": 640.0, "selectivity": 0.00412}},
    # NYT: source -> parse -> validate -> cell -> derive | sliding window -> output -> sink
    "nyt": {"source": {"cost_ns_per_record": 1830.0, "selectivity": 0.983},
            "window": {"cost_ns_per_record": 790.0, "selectivity": 0.00260}},
    # LRB: source -> parse -> accidents, crossings | stats-window -> stats-rows | toll-window -> output -> sink.
    # The source's selectivity is all it sends per report, to both windows (lrb() splits it). The stats window's is
    # its stats rows per report: 0.0699-0.0707 in the sweep's 3 runs, 6 559-7 134 rows per query and run of 100 000
    # reports (8-9 firings of the 5 s / 3 s window, each a row per segment with reports, of up to 1 000: 5
    # expressways x 2 directions x 100, and the instrumentation records it passes on). The model before sent one
    # result per key (LRB_SEGMENTS, 100) and firing: 0.0033 per report at Fig. 7's 10 000 reports/s, a twentieth.
    "lrb": {"source": {"cost_ns_per_record": 1410.0, "selectivity": 2.003},
            "stats-window": {"cost_ns_per_record": 570.0, "selectivity": 0.0702},
            "toll-window": {"cost_ns_per_record": 640.0, "selectivity": 0.00233}},
}

#: YSB's costs with Flink's PojoSerializer for envelopes, the encoding before 2026-11-28: the mean over the 20
#: measured runs of docs/data/sim-validation-zipf-8q-20261125-023349 (same stack). The validation's real sweeps ran
#: with it, so their twins pin it (`envelope-encoding: pojo`).
POJO_ENCODING_YSB_COSTS: Costs = {"source": {"cost_ns_per_record": 1670.0, "selectivity": 0.335},
                                  "window": {"cost_ns_per_record": 900.0, "selectivity": 0.00393}}

#: Per envelope encoding (--envelope-encoding): the workloads whose costs were measured with it.
COSTS_BY_ENCODING: dict[str, dict[str, Costs]] = {"compact": DEFAULT_COSTS, "pojo": {"ysb": POJO_ENCODING_YSB_COSTS}}

#: LRB's records that leave the source for the toll window directly (crossing and accident notices), per report:
#: the toll windows' records in less the stats windows' records out, 1.000 per report in every query of
#: docs/data/sim-calibration-lrb-20261128-192946 (the generator's cars cross into a new segment at every report).
LRB_NOTICES_PER_REPORT = 1.0
#: Per workload and envelope encoding, the cell (queries, events/s per query) its default costs were measured in
#: (docs/simulator.md, "Calibration"): --source-record-cost-ns keeps each source's cost per event there.
CALIBRATION_CELLS: dict[str, dict[str, tuple[int, float]]] = {
    "compact": {"ysb": (8, 8618.0), "nyt": (4, 5000.0), "lrb": (4, 5000.0)},
    "pojo": {"ysb": (8, 8618.0)}}

#: How often the generator looks at the clock, µs: GENERATOR_LOOK_US + GENERATOR_LOOK_US_PER_TOPIC x its topics (each
#: look visits every topic). Every event whose send time came since the last look goes in one Kafka record per topic
#: (docs/workloads.md). Fitted by benchmarks/sim_record_cost_fit.py on 266 real YSB runs' events per record, 2-16
#: queries at 2 500-160 000 events/s per query (docs/data/sim-record-cost-fit.txt; docs/simulator.md, "Per-record
#: source costs").
GENERATOR_LOOK_US = 66.7
GENERATOR_LOOK_US_PER_TOPIC = 5.46
#: The YSB source's CPU per Kafka record with the compact encoding, ns (the same fit: 728 ± 35 per record and 488 ± 6
#: per event over 113 runs): the value --source-record-cost-ns is meant to take.
YSB_SOURCE_NS_PER_KAFKA_RECORD = 728.0

#: Per envelope encoding, workload and window role, the records one window task read per ms of its lifetime (the
#: generator's run plus the drain) in the calibration sweep of its default cost, the mean over the measured runs
#: (klinkctl.sim.calibration.window_records_per_ms; tests/unit/test_sim_window_time_cost.py holds them to the
#: sweeps): --window-time-cost-ns keeps each window's cost per record there.
CALIBRATION_WINDOW_RECORDS_PER_MS: dict[str, dict[str, dict[str, float]]] = {
    "compact": {"ysb": {"window": 2.439}, "nyt": {"window": 4.285},
                "lrb": {"stats-window": 4.160, "toll-window": 4.441}},
    "pojo": {"ysb": {"window": 2.421}}}
#: The YSB window's CPU per ms of wall time with the compact encoding, ns (benchmarks/sim_record_cost_fit.py: 1 173 ±
#: 60 per ms and 150 ± 5 per record over the 113 runs of the source fit, R^2 0.93 against 0 for a constant cost per
#: record; docs/data/sim-window-cost-fit.txt): the value --window-time-cost-ns is meant to take.
YSB_WINDOW_NS_PER_MS = 1173.0

def generator_look_us(topics: int) -> float:
    return GENERATOR_LOOK_US + GENERATOR_LOOK_US_PER_TOPIC * topics


def events_per_kafka_record(rate_per_topic, look_us: float):
    """Events a Kafka record carries at `rate_per_topic` events/s when the generator looks at the clock every
    `look_us` µs: x / (1 - exp(-x)) with x = rate x look, the mean of a Poisson count given it is at least one (a look
    that finds no event due sends no record). 1 at low rates, rate x look at high ones. Takes arrays too."""
    x = np.asarray(rate_per_topic, dtype=float) * look_us * 1e-6
    safe = np.where(x > 1e-9, x, 1.0)
    value = np.where(x > 1e-9, safe / -np.expm1(-safe), 1.0 + x / 2)
    return float(value) if value.ndim == 0 else value


#: LRB's segments per query (stats and toll keys; the model's, for the firing cost: the real job's are 200 per
#: expressway, 1 000 at 5 000 reports/s; not re-derived).
LRB_SEGMENTS = 100
#: NYT's grid cells a window reports (its keys).
NYT_CELLS = 100


def task(role: str, kind: str, costs: Costs, config: RunSpec, outputs: list[tuple[str, float]] | None = None,
         window_ms: int = 0, slide_ms: int = 0, offset_ms: int = 0, keys: int = 0, metrics: bool = False) -> dict:
    """One task of the Java spec (io.klink.sim.SimSpec.Task). A source's cost is per event; with
    --source-record-cost-ns its Kafka records are charged apart (source_record_split)."""
    scale = config.cost_scale * (config.window_cost_scale if kind == "window" else 1.0)
    cost = costs[role]["cost_ns_per_record"]
    per_kafka_record, events_per_record, per_ms = 0.0, 1.0, 0.0
    if kind == "source" and config.source_record_cost_ns > 0:
        cost, per_kafka_record, events_per_record = source_record_split(config, cost, costs[role].get("cell"))
    if kind == "window" and config.window_time_cost_ns > 0:
        cost, per_ms = window_time_split(config, role, cost, costs[role].get("records_per_ms"))
    return {"role": role, "kind": kind, "costNsPerRecord": cost * scale,
            "costNsPerKafkaRecord": per_kafka_record * scale, "eventsPerKafkaRecord": events_per_record,
            "costNsPerMs": per_ms * scale,
            "fireCostNsPerKey": float(config.fire_cost_ns), "windowMs": window_ms, "slideMs": slide_ms,
            "offsetMs": offset_ms, "keys": keys, "metrics": metrics,
            "outputs": [{"to": to, "selectivity": sel} for to, sel in outputs or []]}


def source_record_split(config: RunSpec, cost_per_event: float,
                        cell: tuple[int, float] | None = None) -> tuple[float, float, float]:
    """A source's (CPU per event, CPU per Kafka record, events per Kafka record) with --source-record-cost-ns A: its
    calibrated cost per event c was measured in a cell (queries, rate per query) whose records carried e_cal events, so
    it is c - A/e_cal per event plus A per record; at this run's rate and topics (its queries) a record carries e
    events (events_per_kafka_record with the generator's look period), so a source pays c - A/e_cal + A/e per event:
    c itself in the calibration cell, less at higher rates per query, more at lower ones."""
    queries, rate = cell or CALIBRATION_CELLS[config.envelope_encoding][config.workload]
    record_ns = config.source_record_cost_ns
    per_event = cost_per_event - record_ns / events_per_kafka_record(rate, generator_look_us(queries))
    if per_event <= 0:
        raise KlinkError(f"--source-record-cost-ns {record_ns:g}: more than the source's whole cost per event in its "
                         f"calibration cell ({cost_per_event:g} ns at {queries} x {rate:g} events/s); give less")
    return per_event, record_ns, events_per_kafka_record(config.rate, generator_look_us(config.queries))


def window_time_split(config: RunSpec, role: str, cost_per_record: float,
                      records_per_ms: float | None = None) -> tuple[float, float]:
    """A window's (CPU per record, CPU per ms) with --window-time-cost-ns D: its calibrated cost per record c was
    measured in a run whose window tasks read rho records per ms of their lifetime, so D of each ms is c - D/rho per
    record and D per ms; at rho it costs c per record, at higher rates less."""
    rho = records_per_ms or CALIBRATION_WINDOW_RECORDS_PER_MS[config.envelope_encoding][config.workload][role]
    per_ms = config.window_time_cost_ns
    per_record = cost_per_record - per_ms / rho
    if per_record <= 0:
        raise KlinkError(f"--window-time-cost-ns {per_ms:g}: more than the {role}'s whole cost per record in its "
                         f"calibration run ({cost_per_record:g} ns at {rho:g} records per ms); give less")
    return per_record, per_ms


def ysb(config: RunSpec, costs: Costs) -> list[dict]:
    return [task("source", "source", costs, config, [("window", costs["source"]["selectivity"])]),
            task("window", "window", costs, config, window_ms=config.window_ms, keys=config.campaigns, metrics=True)]


def nyt(config: RunSpec, costs: Costs) -> list[dict]:
    return [task("source", "source", costs, config, [("window", costs["source"]["selectivity"])]),
            task("window", "window", costs, config, window_ms=config.window_ms, slide_ms=config.slide_ms,
                 keys=NYT_CELLS, metrics=True)]


def lrb(config: RunSpec, costs: Costs) -> list[dict]:
    toll_ms = config.slide_ms // 3 if config.stressed else config.slide_ms
    to_stats = costs["source"]["selectivity"] - LRB_NOTICES_PER_REPORT
    return [task("source", "source", costs, config, [("stats-window", to_stats),
                                                     ("toll-window", LRB_NOTICES_PER_REPORT)]),
            task("stats-window", "window", costs, config, [("toll-window", costs["stats-window"]["selectivity"])],
                 window_ms=config.window_ms, slide_ms=config.slide_ms, keys=LRB_SEGMENTS),
            task("toll-window", "window", costs, config, window_ms=toll_ms, offset_ms=config.window_ms,
                 keys=LRB_SEGMENTS, metrics=True)]


GRAPHS: dict[str, Callable[[RunSpec, Costs], list[dict]]] = {"ysb": ysb, "nyt": nyt, "lrb": lrb}


def query_tasks(config: RunSpec, calibration: Costs | None = None) -> list[dict]:
    """The tasks of one query of `config`'s workload, with the calibration's costs where it has the role."""
    check_modelled(config)
    costs = {role: {**values, **(calibration or {}).get(role, {})}
             for role, values in COSTS_BY_ENCODING[config.envelope_encoding][config.workload].items()}
    if config.source_record_cost_ns > 0 and calibration and "source" in calibration and config.calibrate_from:
        from klinkctl.sim.calibration import calibration_cell  # graphs stays free of pandas for the common path
        costs["source"]["cell"] = calibration_cell(Path(config.calibrate_from))
    if config.window_time_cost_ns > 0 and calibration and config.calibrate_from:
        from klinkctl.sim.calibration import window_records_per_ms
        for role, rho in window_records_per_ms(Path(config.calibrate_from)).items():
            if role in calibration and role in costs:
                costs[role]["records_per_ms"] = rho
    return GRAPHS[config.workload](config, costs)


def check_modelled(config: RunSpec) -> None:
    """The workload has a graph, and costs measured with the run's envelope encoding."""
    if config.workload not in GRAPHS:
        raise KlinkError(f"simulate models the {', '.join(GRAPHS)} workloads, not {config.workload}")
    measured = COSTS_BY_ENCODING[config.envelope_encoding]
    if config.workload not in measured:
        raise KlinkError(f"--envelope-encoding {config.envelope_encoding}: costs were measured with it for "
                         f"{', '.join(measured)} only, not {config.workload}")


def check_simulable(config: RunSpec) -> None:
    """What the simulator does not model, refused before anything is written."""
    check_modelled(config)
    if config.policy == "os-priority":
        raise KlinkError("--policy os-priority sets OS priorities of real threads from outside Flink; the simulator "
                         "has none: use bench for it")
    if config.placement == "split" and config.nodes < 2:
        raise KlinkError("--placement split puts a query's source and the rest of its pipeline on two nodes: give "
                         "--nodes 2 or more")
    if config.sampler != "none" or config.accuracy:
        raise KlinkError("the simulator counts events, not their values: --sampler and --accuracy need bench")
    if config.rates.kind != "steady":
        raise KlinkError(f"--rate-schedule {config.rates.spec}: the simulator generates a steady rate only; "
                         "measure the schedule with bench")
