"""Maximum sustainable rate of a bench configuration on the running stack (`klinkctl capacity`).

Three layers: ``klinkctl.run.capacity_criteria.assess`` judges one probe (sustainable or not) from its
summary and its windows; ``search`` finds the capacity from any probe callback (exponential ramp, then
bisection), pure; ``bench_probe`` probes with real bench runs and ``write_capacity`` stores the result.
Warm-up runs before the first probe: klinkctl.run.capacity_warmup. Runs at a fraction of a capacity
(``--load``): klinkctl.run.load.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from klinkctl.errors import KlinkError
from klinkctl.files import write_json
from klinkctl.run.capacity_criteria import (ABORTED, FLINK, GENERATOR, SUSTAINABLE, UNSTEADY, Assessment, Thresholds,
                                            assess, lost_taskmanager, measured_rates, measured_windows)
from klinkctl.run.load import CAPACITY_KIND, FORMAT_VERSION
from klinkctl.stack.health import out_of_memory
from klinkctl.workloads.options import LATE

#: Probe length when the command line gives none: long enough for a handful of windows per query after the
#: warm-up, short enough that a search of 8 probes fits in 6-8 minutes (a probe is 45-60 s of wall time).
PROBE_DURATION_MS = 30_000
PROBE_WARMUP_MS = 6_000
#: What a late-state probe judges after its warm-up, when the command line gives no duration (as above: a handful of
#: 1 s windows, and the 18 s that benchmarks/late_state_capacity.sh judged).
LATE_STATE_JUDGED_MS = 18_000


def probe_times(config, warmup_given: bool, duration_given: bool) -> tuple[int, int, str | None]:
    """(duration, warm-up, a note or None) of every probe. A late-event window keeps its events for the allowed
    lateness after it ends, so its state grows for the lateness plus a window; a probe judged earlier sees latency
    rise with the state, not with a backlog (docs/capacity.md, "Late-event state"). Unless given, the warm-up
    then covers that growth and the duration judges LATE_STATE_JUDGED_MS after it; a given warm-up shorter than
    the growth is kept, and the note says so."""
    growth = config.allowed_lateness_ms + config.window_ms if config.workload in LATE else 0
    if config.warmup_ms >= growth:
        return config.duration_ms, config.warmup_ms, None
    if warmup_given:
        return config.duration_ms, config.warmup_ms, (
            f"--warmup {config.warmup_ms} ms is shorter than the {growth} ms the windows' state grows (allowed "
            f"lateness + window): probes are judged while it grows, and may fail on that growth alone")
    warmup = growth + 1_000
    duration = config.duration_ms if duration_given else max(config.duration_ms, warmup + LATE_STATE_JUDGED_MS)
    return duration, warmup, (f"probes warm up for {warmup} ms, until the windows' state is full (allowed lateness "
                              f"+ window + 1 s), and run {duration} ms")

NOT_REACHED = "not reached (limit)"
# ---------------------------------------------------------------- the search (pure: a function of a probe callback)


@dataclass(frozen=True)
class SearchSettings:
    start_rate: int = 10_000  # events/s per query of the first probe
    factor: float = 4.0  # the ramp multiplies (or, while every probe fails, divides) the rate by this
    precision: float = 0.05  # stop once the lowest failing rate is within this fraction above the highest passing
    max_probes: int = 8
    max_rate: int | None = None  # never probe above this (e.g. a generator limit known in advance)

    def validate(self) -> SearchSettings:
        if self.start_rate < 1:
            raise KlinkError(f"--start-rate must be at least 1 event/s per query, got {self.start_rate}")
        if self.factor <= 1:
            raise KlinkError(f"--factor must be greater than 1, got {self.factor}")
        if not 0 < self.precision < 1:
            raise KlinkError(f"--precision must be between 0 and 1 (exclusive), e.g. 0.05, got {self.precision}")
        if self.max_probes < 1:
            raise KlinkError(f"--max-probes must be at least 1, got {self.max_probes}")
        if self.max_rate is not None and self.max_rate < self.start_rate:
            raise KlinkError(f"--max-rate ({self.max_rate}) must not be below --start-rate ({self.start_rate})")
        return self


@dataclass(frozen=True)
class Probe:
    rate: int
    assessment: Assessment
    run_dir: str = ""

    @property
    def passed(self) -> bool:
        return self.assessment.verdict == SUSTAINABLE


@dataclass(frozen=True)
class SearchResult:
    rate: int | None  # the highest sustainable rate probed (events/s per query); None if no probe passed
    bottleneck: str  # FLINK, GENERATOR or NOT_REACHED; ABORTED if a probe's run failed
    converged: bool  # a sustainable and an unsustainable rate within the precision of each other
    stopped: str  # why the search ended, one sentence
    probes: list[Probe]


ProbeFunction = Callable[[int], Probe]


def search(probe: ProbeFunction, settings: SearchSettings,
           on_probe: Callable[[Probe], None] = lambda _: None) -> SearchResult:
    """Exponential ramp from the start rate until the first unsustainable probe (or, if the first fails,
    down until one passes), then bisection (geometric) until the bracket is within the precision. An unsteady
    probe is repeated once at the same rate; unsteady again, it counts as unsustainable."""
    probes: list[Probe] = []
    passed = failed = None  # highest sustainable rate, lowest rate where Flink could not keep up
    rate: int | None = settings.start_rate
    while rate is not None and len(probes) < settings.max_probes:
        result = probe(rate)
        probes.append(result)
        on_probe(result)
        verdict = result.assessment.verdict
        if verdict == UNSTEADY and sum(p.rate == rate for p in probes) == 1:
            continue  # the same rate again, on a job past its start
        if verdict == ABORTED:
            return SearchResult(passed, ABORTED, False, f"probe at {rate} events/s per query failed: "
                                                        f"{result.assessment.why}", probes)
        if verdict == GENERATOR:
            return SearchResult(passed, GENERATOR, False, generator_stop(rate, result.assessment), probes)
        if verdict == SUSTAINABLE:
            passed = max(passed or 0, rate)
        else:
            failed = min(failed or rate, rate)
        if passed and failed and failed <= passed * (1 + settings.precision):
            return SearchResult(passed, FLINK, True, f"{passed} passed and {failed} failed: within "
                                f"{settings.precision:.0%}", probes)
        rate = next_rate(passed, failed, settings)
    return SearchResult(passed, FLINK if passed and failed else NOT_REACHED, False, _limit_reason(
        rate, passed, failed, settings), probes)


def generator_stop(rate: int, assessment: Assessment) -> str:
    """The `stopped` sentence of a generator-bound probe: which of (c)'s statistics decided, against what."""
    generator = assessment.criteria.get("generator")
    detail = f" ({generator.why})" if generator is not None else ""
    return (f"at {rate} events/s per query the generator, not Flink, is the bottleneck: it missed its schedule"
            f"{detail} while Flink read everything offered")


def next_rate(passed: int | None, failed: int | None, settings: SearchSettings) -> int | None:
    """The rate of the next probe; None when the search cannot go on (the maximum rate passed, or 1 event/s
    failed)."""
    if failed is None:
        ceiling = settings.max_rate or math.inf
        return None if passed >= ceiling else int(min(ceiling, round(passed * settings.factor)))
    if passed is None:
        return None if failed <= 1 else max(1, int(round(failed / settings.factor)))
    middle = int(round(math.sqrt(passed * failed)))
    return middle if passed < middle < failed else None


def _limit_reason(rate: int | None, passed: int | None, failed: int | None, settings: SearchSettings) -> str:
    if rate is not None:
        return f"stopped after --max-probes {settings.max_probes} probes, before the rate was within " \
               f"{settings.precision:.0%}"
    if failed is None:
        return f"every probe up to --max-rate {settings.max_rate} was sustainable"
    if passed is None:
        return "no rate down to 1 event/s per query was sustainable"
    return f"{passed} passed and {failed} failed: no whole rate lies between them"


# ---------------------------------------------------------------- capacity.json


def capacity_document(workload: str, config: dict, stack: dict, directory: Path, result: SearchResult,
                      settings: SearchSettings, thresholds: Thresholds, warmup_runs: list[str] = (),
                      warmup_rule: str = "", restarts: list[dict] = ()) -> dict:
    """capacity.json: the rate, what it applies to, and every probe with its criteria (docs/capacity.md)."""
    queries = int(config["queries"])
    return {
        "kind": CAPACITY_KIND,
        "version": FORMAT_VERSION,
        "workload": workload,
        "rate": result.rate,
        "total_rate": result.rate * queries if result.rate is not None else None,
        "bottleneck": result.bottleneck,
        "converged": result.converged,
        "stopped": result.stopped,
        "config": {**config, "rate": result.rate},
        "stack": stack,
        "directory": str(directory),
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "search": asdict(settings),
        "thresholds": asdict(thresholds),
        "warmup_runs": list(warmup_runs),
        "warmup_rule": warmup_rule,
        "restarts": list(restarts),  # the stack restarted after a probe lost a TaskManager (warm-up runs follow)
        "probes": [_probe_entry(probe, queries) for probe in result.probes],
    }


def _probe_entry(probe: Probe, queries: int) -> dict:
    return {"rate": probe.rate, "total_rate": probe.rate * queries, "run_dir": probe.run_dir,
            "passed": probe.passed, "verdict": probe.assessment.verdict, "why": probe.assessment.why,
            "criteria": {name: {"passed": c.passed, "why": c.why, **c.values}
                         for name, c in probe.assessment.criteria.items()}}


def write_capacity(path: Path, document: dict) -> Path:
    return write_json(path, document)


# ---------------------------------------------------------------- probing with real bench runs


def probe_config(config, rate: int):
    """The bench config of the probe at this rate (load and capacity cleared: the probe runs at a given rate)."""
    return config.changed(rate=rate, load=None, capacity="")


def bench_probe(config, run: Callable, thresholds: Thresholds, lost: Callable[[], bool] = lambda: False,
                restarts: bool = False) -> ProbeFunction:
    """A probe callback that runs one bench run at the rate (run(config) -> RunOutcome) and assesses it. A run
    that did not complete because the stack lost a TaskManager (``lost()``) or its job ran out of heap is not
    sustainable if the caller ``restarts`` the stack before the next probe, else it ends the search."""

    def probe(rate: int) -> Probe:
        probe_settings = probe_config(config, rate)
        try:
            outcome = run(probe_settings)
        except KlinkError as refused:  # e.g. the disk cannot hold this rate's state: the search ends, its file kept
            return Probe(rate, Assessment(ABORTED, f"refused before it started: {refused}"))
        if outcome.summary.get("status") != "completed" and (out_of_memory(outcome.summary) or lost()):
            return Probe(rate, lost_taskmanager(outcome.summary, restarts), str(outcome.run_dir))
        windows = measured_windows(outcome.run_dir, outcome.summary, probe_settings)
        rates = measured_rates(outcome.run_dir, outcome.summary, probe_settings)
        verdict = assess(outcome.summary, windows, rates, rate * probe_settings.queries, thresholds)
        return Probe(rate, verdict, str(outcome.run_dir))

    return probe


def new_capacity_dir(results_root: Path, workload: str) -> Path:
    stem = results_root / f"capacity-{workload}-{time.strftime('%Y%m%d-%H%M%S')}"
    directory, suffix = stem, 1
    while directory.exists():
        suffix += 1
        directory = stem.with_name(f"{stem.name}-{suffix}")
    directory.mkdir(parents=True)
    return directory
