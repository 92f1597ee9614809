"""A run's spec: the options every component declares (generator, job and workload, scheduler, sampler, load),
parsed once from defaults <- YAML config file <- command-line options, and validated before anything starts."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError, model_validator

from klinkctl import privileges, rate_schedule
from klinkctl.cpus import parse_cpu_list
from klinkctl.delay import DelayModel, GapModel, parse_delay, parse_inter_event, preset
from klinkctl.errors import KlinkError
from klinkctl.files import read_yaml
from klinkctl.options import from_user, one_line
from klinkctl.rate_schedule import MAX_RATE, RateSchedule
from klinkctl.run.declared import OPTIONS, SECTIONS
from klinkctl.run.load import LoadOptions, apply_load, check_load
from klinkctl.run.scheduler_control import AGENT_POLICIES, ENFORCEMENTS, OUTSIDE_POLICIES, POLICIES
from klinkctl.sampling import ACCURACY_WORKLOADS, EXACT_WORKLOADS, SAMPLERS
from klinkctl.workloads.options import FILTERING_WORKLOADS, LATE, SLIDING, WORKLOAD_DEFAULTS, WORKLOADS, JobOptions

__all__ = ["AGENT_POLICIES", "ACCURACY_WORKLOADS", "ENFORCEMENTS", "OUTSIDE_POLICIES", "POLICIES", "SAMPLERS",
           "WORKLOADS", "WORKLOAD_DEFAULTS", "RunSpec", "OPTIONS", "resolve", "load_yaml", "user_settings"]


class RunSpec(*reversed(SECTIONS)):  # pydantic lists the fields of the last base first
    """Every component's options in one typed object (each declared once, by its component); built once per run
    by `resolve` (or a sweep's plan) and passed on as it is."""

    @model_validator(mode="after")
    def _consistent(self) -> RunSpec:
        """The checks that span options (types and ranges are each option's own declaration)."""
        self._refuse_options_of_other_workloads()
        if self.warmup_ms >= self.duration_ms:
            raise KlinkError(f"--warmup ({self.warmup_ms} ms) must be shorter than --duration ({self.duration_ms} ms)")
        if self.inter_event and preset(self.delay):
            raise KlinkError(f"--delay {self.delay} sets the inter-event model too; drop --inter-event "
                             f"{self.inter_event} or give the network delay model instead of the preset")
        self.network_delay, self.gaps, self.rates  # parsed once, here: a malformed spec fails before anything starts
        self._validate_slide()
        self._validate_privileges()
        if self.generator_cpus:
            parse_cpu_list(self.generator_cpus, "--generator-cpus")
        if self.data:
            check_debs_csv(Path(self.data), self.workload)
        self._validate_combiner()
        self._validate_tail()
        if self.workload in LATE:
            from klinkctl import late_backends  # reads the installed Flink's jar: only for these workloads
            late_backends.check(self.workload, self.late_state, self.sampler, self.late_trigger,
                                self.predictive_cleanup, self.allowed_lateness_ms)
            late_backends.check_posts(self.workload, self.payload_bytes)
            late_backends.check_destaging(self.late_state, self.destage_idle_ms, self.destage_scarce,
                                          self.destage_very_scarce)
        self._validate_sampler()
        if self.stressed and self.slide_ms % 3:
            raise KlinkError(f"--stressed makes the toll window a third of --slide; {self.slide_ms} ms is not "
                             f"divisible by 3")
        if self.load is not None or self.capacity:
            check_load(self.to_dict())
        return self

    def _refuse_options_of_other_workloads(self) -> None:
        """An option one workload reads, given for another, would be silently ignored: refused instead."""
        for name in self.model_fields_set:
            owners = _BY_NAME[name].workloads if name in _BY_NAME else None
            if owners and self.workload not in owners and getattr(self, name) != _BY_NAME[name].default:
                named = (f"{', '.join(owners[:-1])} and {owners[-1]} workloads" if len(owners) > 1
                         else f"{owners[0]} workload")
                raise KlinkError(f"--{_BY_NAME[name].cli} applies to the {named} only, not {self.workload}; drop it")

    @property
    def measures_accuracy(self) -> bool:
        return self.accuracy or self.sampler != "none" or self.workload in EXACT_WORKLOADS

    def _validate_sampler(self) -> None:
        if self.measures_accuracy and self.workload not in ACCURACY_WORKLOADS:
            raise KlinkError(f"--sampler/--accuracy need exact window results, which the harness computes for "
                             f"{', '.join(ACCURACY_WORKLOADS)} only, not {self.workload}")
        if self.sampler != "none" and (self.substream_ms <= 0 or self.window_ms % self.substream_ms):
            raise KlinkError(f"--substream ({self.substream_ms} ms) must be positive and divide --window "
                             f"({self.window_ms} ms), e.g. --window 3s --substream 600ms")
        if self.sampler != "none" and self.slide_ms and self.slide_ms % self.substream_ms:
            raise KlinkError(f"--substream ({self.substream_ms} ms) must divide --slide ({self.slide_ms} ms): each "
                             f"sliding window is made of whole sub-streams, e.g. --slide 1s --substream 500ms")

    def _validate_combiner(self) -> None:
        """The rides workload's combiner and its PI controller (klinkctl/workloads/options.py RidesOptions)."""
        if self.workload != "rides":
            return
        if self.adcom_band_low > self.adcom_band_high:
            raise KlinkError(f"--adcom-band-low ({self.adcom_band_low}) must not exceed --adcom-band-high "
                             f"({self.adcom_band_high}): they are the desired buffer utilisation band ρ_d")
        if self.adcom_min_interval_ms > self.adcom_max_interval_ms:
            raise KlinkError(f"--adcom-min-interval ({self.adcom_min_interval_ms} ms) must not exceed "
                             f"--adcom-max-interval ({self.adcom_max_interval_ms} ms)")
        if self.sampler != "none":
            raise KlinkError("--sampler does not apply to the rides workload (its window merges partial "
                             "aggregates); use --accuracy to check its windows against exact results")

    def _validate_tail(self) -> None:
        if self.tail == "replay" and self.workload in FILTERING_WORKLOADS:
            raise KlinkError(f"--tail replay waits for every record to reach the sinks, and {self.workload}'s "
                             "filter drops most of them (each would be replayed); use replicate, or the "
                             "exclamation workload")
        if self.stage_speed_of and self.stage_cost_model == "cpu":
            raise KlinkError("--stage-speeds slows the wall-clock service times of --stage-cost-model wall or "
                             "wall-exp; with cpu costs slow a TaskManager with `klinkctl up --tm-quota` instead")

    def sampler_settings(self) -> dict | None:
        """The job config's sampler (io.klink.workloads.common.QueryPipelines.Sampler), None without one."""
        if self.sampler == "none":
            return None
        return {"kind": self.sampler, "substreamMs": self.substream_ms, "error": self.error,
                "confidence": self.confidence, "history": self.substream_history, "seed": self.seed}

    def _validate_slide(self) -> None:
        if self.workload == "lrb":  # panes of gcd(window, slide): any slide up to the window
            if not 0 < self.slide_ms <= self.window_ms:
                raise KlinkError(f"--slide must be greater than 0 and at most --window ({self.window_ms} ms), "
                                 f"got {self.slide_ms} ms")
        elif self.workload in SLIDING and (self.slide_ms <= 0 or self.window_ms % self.slide_ms):
            raise KlinkError(f"--window ({self.window_ms} ms) must be a multiple of a positive --slide "
                             f"({self.slide_ms} ms)")

    def _validate_privileges(self) -> None:
        if self.enforce == "priority" and not privileges.children_get("CAP_SYS_NICE"):
            raise KlinkError("--enforce priority lowers task threads' OS priority and raises it back, which needs "
                             "CAP_SYS_NICE (root, or ambient: docs/reliability.md, \"Privileges\") for klinkctl and "
                             "the stack it started; or use --enforce pause")
        if self.policy == "os-priority" and not privileges.children_get("CAP_SYS_NICE"):
            raise KlinkError("--policy os-priority lowers task threads' nice values back to 0 after raising them, "
                             "which needs CAP_SYS_NICE (root, or ambient: docs/reliability.md, \"Privileges\")")

    @cached_property
    def network_delay(self) -> DelayModel:
        return parse_delay(self.delay)

    @cached_property
    def gaps(self) -> GapModel:
        named = preset(self.delay)
        return parse_inter_event(self.inter_event or (named.inter_event_shape if named else "const"), self.rate)

    @cached_property
    def rates(self) -> RateSchedule:
        """--rate-schedule over --duration (klinkctl/rate_schedule.py)."""
        rates = rate_schedule.parse(self.rate_schedule, self.duration_ms)
        if self.rate * rates.peak_multiplier() > MAX_RATE:
            raise KlinkError(f"--rate-schedule {rates.spec} takes --rate {self.rate} above the generator's "
                             f"{MAX_RATE} events/s per query")
        return rates

    def to_dict(self) -> dict:
        return self.model_dump()

    def changed(self, **changes: Any) -> RunSpec:
        """The same spec with `changes` (field values), validated again."""
        return build({**self.model_dump(), **changes})


#: DEBS 2015 Grand Challenge trip columns, in file order.
DEBS_COLUMNS = ("medallion", "hack_license", "pickup_datetime", "dropoff_datetime", "trip_time_in_secs",
                "trip_distance", "pickup_longitude", "pickup_latitude", "dropoff_longitude", "dropoff_latitude",
                "payment_type", "fare_amount", "surcharge", "mta_tax", "tip_amount", "tolls_amount", "total_amount")
_DEBS_NUMERIC = range(4, 17)


def check_debs_csv(path: Path, workload: str) -> None:
    """--data: a readable DEBS 2015 CSV whose first trip has the 17 columns (the generator checks every row)."""
    if workload != "nyt":
        raise KlinkError(f"--data replays DEBS 2015 taxi trips: it needs workload nyt, not {workload}")
    try:
        with path.open(encoding="ascii", errors="replace") as rows:
            first = rows.readline().strip()
            if first.startswith("medallion"):
                first = rows.readline().strip()
    except OSError as error:
        raise KlinkError(f"--data {path}: {error.strerror}") from None
    cells = first.split(",")
    if len(cells) != len(DEBS_COLUMNS):
        raise KlinkError(f"--data {path} is not a DEBS 2015 trip CSV: its first trip has {len(cells)} columns, "
                         f"expected {len(DEBS_COLUMNS)} ({', '.join(DEBS_COLUMNS)})")
    for i in (i for i in _DEBS_NUMERIC if i != DEBS_COLUMNS.index("payment_type")):
        try:
            float(cells[i])
        except ValueError:
            raise KlinkError(f"--data {path} is not a DEBS 2015 trip CSV: {DEBS_COLUMNS[i]} of its first trip "
                             f"is {cells[i]!r}, not a number") from None


_BY_NAME = {o.name: o for o in OPTIONS}


def user_settings(raw: dict, source: str) -> dict[str, Any]:
    """Settings as users write them (`duration: 60s`, `watermark-bound: 1s`) -> RunSpec field values."""
    return from_user(raw, OPTIONS, source)


def build(values: dict[str, Any]) -> RunSpec:
    """A validated RunSpec from field values, with `--load` applied; any problem is one KlinkError line."""
    try:
        given_load = {k: values[k] for k in ("load", "capacity") if k in values}
        values = apply_load({**values, **LoadOptions.model_validate(given_load).model_dump(include=set(given_load))})
        workload = str(values.get("workload", JobOptions.model_fields["workload"].default))
        return RunSpec.model_validate({**WORKLOAD_DEFAULTS.get(workload, {}), **values})
    except ValidationError as error:
        raise KlinkError(one_line(error, OPTIONS)) from None


def load_yaml(path: Path) -> dict:
    raw = read_yaml(path, f"config {path}")
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise KlinkError(f"config {path} must be a mapping of settings, got {type(raw).__name__}")
    return user_settings(raw.get("bench", raw), str(path))


def resolve(config_file: Path | None, overrides: dict) -> RunSpec:
    """Defaults, then the config file, then every command-line option that was given (Click has already
    typed them)."""
    values = load_yaml(config_file) if config_file else {}
    values.update(user_settings({k: v for k, v in overrides.items() if v is not None}, "the command line"))
    return build(values)
