"""Each workload's query as the real job builds it (java-udfs/klink-workloads), task by task: an operator chain per
task, its CPU per input record, where its records go and how many. One function per workload; the simulator
(java-udfs/klink-sim) runs any such graph.

Default costs are CPU per record of the task's thread on this machine, from the agent's tasks.csv of real runs
(docs/simulator.md, "Calibration"); `--calibrate-from` replaces them role by role.
"""

from __future__ import annotations

from collections.abc import Callable

from klinkctl.errors import KlinkError
from klinkctl.run.config import RunSpec

#: Per role: CPU ns per input record and records out per record in (for a window: results per window key).
Costs = dict[str, dict[str, float]]

#: Per workload and role. YSB's are measured here (docs/simulator.md, "Calibration": the sources' thread CPU per
#: event and the windows' per view over the 20 measured runs of docs/data/sim-validation-zipf-8q-20261125-023349); NYT's and LRB's are YSB's scaled by their
#: chains' length until they are calibrated too.
DEFAULT_COSTS: dict[str, Costs] = {
    # YSB: source -> markers -> filter (views: 1 in 3) -> campaign join | window -> output -> sink
    "ysb": {"source": {"cost_ns_per_record": 1670.0, "selectivity": 0.335},
            "window": {"cost_ns_per_record": 900.0, "selectivity": 1.0}},
    # NYT: source -> parse -> validate -> cell -> derive | sliding window -> output -> sink
    "nyt": {"source": {"cost_ns_per_record": 2500.0, "selectivity": 1.0},
            "window": {"cost_ns_per_record": 950.0, "selectivity": 1.0}},
    # LRB: source -> parse -> accidents, crossings | stats-window -> stats-rows | toll-window -> output -> sink
    "lrb": {"source": {"cost_ns_per_record": 2500.0, "selectivity": 1.0},
            "stats-window": {"cost_ns_per_record": 950.0, "selectivity": 1.0},
            "toll-window": {"cost_ns_per_record": 950.0, "selectivity": 1.0}},
}

#: LRB's records that leave the source for the toll window directly (accident and crossing notices), per report.
LRB_NOTICES_PER_REPORT = 0.01
#: LRB's segments per query (stats and toll keys).
LRB_SEGMENTS = 100
#: NYT's grid cells a window reports (its keys).
NYT_CELLS = 100


def task(role: str, kind: str, costs: Costs, config: RunSpec, outputs: list[tuple[str, float]] | None = None,
         window_ms: int = 0, slide_ms: int = 0, offset_ms: int = 0, keys: int = 0, metrics: bool = False) -> dict:
    """One task of the Java spec (io.klink.sim.SimSpec.Task)."""
    scale = config.cost_scale * (config.window_cost_scale if kind == "window" else 1.0)
    return {"role": role, "kind": kind, "costNsPerRecord": costs[role]["cost_ns_per_record"] * scale,
            "fireCostNsPerKey": float(config.fire_cost_ns), "windowMs": window_ms, "slideMs": slide_ms,
            "offsetMs": offset_ms, "keys": keys, "metrics": metrics,
            "outputs": [{"to": to, "selectivity": sel} for to, sel in outputs or []]}


def ysb(config: RunSpec, costs: Costs) -> list[dict]:
    return [task("source", "source", costs, config, [("window", costs["source"]["selectivity"])]),
            task("window", "window", costs, config, window_ms=config.window_ms, keys=config.campaigns, metrics=True)]


def nyt(config: RunSpec, costs: Costs) -> list[dict]:
    return [task("source", "source", costs, config, [("window", costs["source"]["selectivity"])]),
            task("window", "window", costs, config, window_ms=config.window_ms, slide_ms=config.slide_ms,
                 keys=NYT_CELLS, metrics=True)]


def lrb(config: RunSpec, costs: Costs) -> list[dict]:
    toll_ms = config.slide_ms // 3 if config.stressed else config.slide_ms
    return [task("source", "source", costs, config, [("stats-window", costs["source"]["selectivity"]),
                                                     ("toll-window", LRB_NOTICES_PER_REPORT)]),
            task("stats-window", "window", costs, config, [("toll-window", costs["stats-window"]["selectivity"])],
                 window_ms=config.window_ms, slide_ms=config.slide_ms, keys=LRB_SEGMENTS),
            task("toll-window", "window", costs, config, window_ms=toll_ms, offset_ms=config.window_ms,
                 keys=LRB_SEGMENTS, metrics=True)]


GRAPHS: dict[str, Callable[[RunSpec, Costs], list[dict]]] = {"ysb": ysb, "nyt": nyt, "lrb": lrb}


def query_tasks(config: RunSpec, calibration: Costs | None = None) -> list[dict]:
    """The tasks of one query of `config`'s workload, with the calibration's costs where it has the role."""
    if config.workload not in GRAPHS:
        raise KlinkError(f"simulate models the {', '.join(GRAPHS)} workloads, not {config.workload}")
    costs = {role: {**values, **(calibration or {}).get(role, {})}
             for role, values in DEFAULT_COSTS[config.workload].items()}
    return GRAPHS[config.workload](config, costs)


def check_simulable(config: RunSpec) -> None:
    """What the simulator does not model, refused before anything is written."""
    if config.workload not in GRAPHS:
        raise KlinkError(f"simulate models the {', '.join(GRAPHS)} workloads, not {config.workload}")
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
