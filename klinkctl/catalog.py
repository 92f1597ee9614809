"""The Java side's names and grammars, as the build writes them (java-udfs/klink-catalog, klink-catalog.json).

Policies, samplers, delay and gap models and workloads are declared once, in Java; klinkctl reads them here
instead of keeping copies. Entries only klinkctl carries out stay Python-side (the `os-priority` policy, the
`none` sampler: see klinkctl.run.config). tests/unit/test_catalog_contract.py checks both sides agree.
"""

from __future__ import annotations

import functools
import json
import sys
from dataclasses import dataclass

from klinkctl.artifacts import CATALOG_FILE, build_java_udfs, java_udfs_stale
from klinkctl.errors import KlinkError

#: The layout this module reads (io.klink.catalog.Catalog.FORMAT).
FORMAT = 1


@dataclass(frozen=True)
class DelayKind:
    name: str
    form: str  # e.g. normal:<mean>:<sigma>; each <...> is a parameter
    parameters: tuple[str, ...]
    example: str
    canonical: str  # the generator's own spec of the example


def _progress(message: str) -> None:
    print(message, file=sys.stderr)


@functools.cache
def load() -> dict:
    """The catalog; a checkout that has never built java-udfs, or whose Java sources changed since (a pull, a
    merge), builds it first (Maven, about two minutes): a stale catalog would lack what the new code reads."""
    if not CATALOG_FILE.is_file() or java_udfs_stale():
        build_java_udfs(progress=_progress, force=True)
    try:
        catalog = json.loads(CATALOG_FILE.read_text())
    except (OSError, ValueError) as error:
        raise KlinkError(f"cannot read the catalog {CATALOG_FILE} ({error}); rebuild it: "
                         "python -m klinkctl.artifacts") from None
    if catalog.get("format") != FORMAT:
        raise KlinkError(f"the catalog {CATALOG_FILE} has format {catalog.get('format')}, klinkctl reads {FORMAT}; "
                         "rebuild java-udfs: python -m klinkctl.artifacts")
    return catalog


def _names(section: str) -> tuple[str, ...]:
    return tuple(entry["name"] for entry in load()[section])


def policies() -> tuple[str, ...]:
    """The runtime scheduler's policies (klink-agent), in the order results draw them."""
    return _names("policies")


def policy_parameter_defaults() -> dict[str, object]:
    """Every policy parameter's default; None = decided at run time (the TaskManager's processors)."""
    return dict(load()["policyParameterDefaults"])


def control_keys() -> frozenset[str]:
    """The keys of a run's control (io.klink.agent.RunControl)."""
    return frozenset(load()["runControl"]["keys"])


def control_parameters() -> frozenset[str]:
    """Every parameter a run's control takes (the policies', the scheduler's, `enforce`)."""
    return frozenset(load()["runControl"]["parameters"])


def agent_options() -> frozenset[str]:
    return frozenset(load()["agentOptions"])


def enforcements() -> tuple[str, ...]:
    return tuple(load()["enforcements"])


def samplers() -> tuple[str, ...]:
    """The samplers of klink-sampler (`none`, no sampler, is klinkctl's)."""
    return _names("samplers")


def delay_kinds() -> tuple[DelayKind, ...]:
    return tuple(DelayKind(k["name"], k["form"], tuple(k["parameters"]), k["example"], k["canonical"])
                 for k in load()["delayKinds"])


def gap_kinds() -> tuple[dict, ...]:
    """Inter-event gap models: name, form and example."""
    return tuple(load()["gapKinds"])


def rate_schedules() -> tuple[dict, ...]:
    """The generator's rate schedules: name, form, example and the example's canonical spec."""
    return tuple(load()["rateSchedules"])


def workloads() -> tuple[str, ...]:
    return _names("workloads")


def tails() -> tuple[str, ...]:
    """The tail-latency techniques and baselines of per-record pipelines (io.klink.workloads.tail.Tails)."""
    return _names("tails")


def stage_costs() -> tuple[str, ...]:
    """How a per-record pipeline's stages spend their cost (io.klink.workloads.tail.StageCost)."""
    return _names("stageCosts")


def combiners() -> tuple[str, ...]:
    """The rides workload's pre-aggregation before the shuffle (io.klink.workloads.rides.RidesJob.COMBINERS)."""
    return _names("combiners")


def late_states() -> tuple[str, ...]:
    """Where late-event windows keep their state (io.klink.workloads.late.LateWindowJob.LATE_STATES)."""
    return _names("lateStates")


def late_triggers() -> tuple[str, ...]:
    """When AION re-executes a past window (io.klink.workloads.late.AionWindows.LATE_TRIGGERS)."""
    return _names("lateTriggers")


def destage_orders() -> tuple[str, ...]:
    """Which window AION destages first when memory is moderately scarce
    (io.klink.workloads.late.DestagePolicies.ORDERS)."""
    return _names("destageOrders")


def late_state_backend_class(name: str) -> str:
    """The Flink class a late state needs in the cluster (its state backend's)."""
    return next(s["backendClass"] for s in load()["lateStates"] if s["name"] == name)


def ride_aggregates() -> tuple[str, ...]:
    """The rides workload's aggregates (io.klink.workloads.rides.RideAggregate)."""
    return _names("rideAggregates")


def _workload(name: str) -> dict:
    return next(w for w in load()["workloads"] if w["name"] == name)


def workload_builder(name: str) -> str:
    """The Java class whose build(env, configJson) adds the workload's queries."""
    return _workload(name)["builder"]


def job_config_keys(name: str) -> frozenset[str]:
    """Every top-level key the workload's job config takes (the Java side refuses any other)."""
    return frozenset(_workload(name)["jobConfigKeys"])


def sampler_settings_keys() -> frozenset[str]:
    return frozenset(load()["jobConfig"]["sampler"])


def query_keys() -> frozenset[str]:
    return frozenset(load()["jobConfig"]["query"])


def generator() -> dict:
    """klink-generator: its workloads, options, switches, maxPackBytes, maxExpressways."""
    return dict(load()["generator"])


def kmeans_plane() -> float:
    """Points outside [-plane, plane]² are outliers the kMeans job drops."""
    return float(load()["kmeans"]["plane"])


def bigrams() -> dict:
    """The bigrams workload's post model as its generator declares it (io.klink.generator.BigramsEventCodec): the
    mean post size, its spread, the vocabulary's default size and Zipf exponent and their limits."""
    return dict(load()["bigrams"])


def p_bucket_min_free_bytes() -> int:
    """The free disk an AION window operator needs beside its p-buckets to start
    (io.klink.workloads.late.PBucketDirectory.MIN_FREE_BYTES)."""
    return int(load()["pBuckets"]["minFreeBytes"])
