"""A bench run's configuration: defaults <- YAML config file <- command-line options, validated up front."""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, fields
from pathlib import Path

import yaml

from klinkctl import catalog, privileges
from klinkctl.cpus import parse_cpu_list
from klinkctl.delay import DelayModel, GapModel, parse_delay, parse_inter_event, preset
from klinkctl.errors import KlinkError
from klinkctl.run.load import apply_load, check_load
from klinkctl.units import duration_ms

WORKLOADS = catalog.workloads()
#: A workload's own defaults, under the file and the command line (NYT: DEBS-style 2 s windows sliding by 1 s;
#: LRB: the paper's segment statistics over 5 s sliding by 3 s; kMeans: 3 s tumbling windows, the thesis'; a
#: sampler's sub-streams must divide NYT's 1 s slide, so 500 ms there).
WORKLOAD_DEFAULTS: dict[str, dict[str, int]] = {"nyt": {"window_ms": 2000, "slide_ms": 1000, "substream_ms": 500},
                                                "lrb": {"window_ms": 5000, "slide_ms": 3000},
                                                "kmeans": {"window_ms": 3000}}
#: Scheduling policies of the runtime scheduler (the catalog's, from io.klink.scheduler.policy.Policies);
#: `default` is plain Flink (the scheduler never pauses anything).
AGENT_POLICIES = catalog.policies()
#: Policies carried out from outside Flink by klinkctl itself; the agent stays on `default` meanwhile
#: (os-priority: Lachesis-style nice values, klinkctl.run.os_priority).
OUTSIDE_POLICIES = ("os-priority",)
POLICIES = AGENT_POLICIES + OUTSIDE_POLICIES
#: Samplers in front of each query's window (the catalog's, from io.klink.sampler.Samplers); `none` = the job's
#: bounded-out-of-orderness watermarks, every event counted.
SAMPLERS = ("none", *catalog.samplers())
#: Workloads whose exact window results the harness computes from the generated events (accuracy, samplers).
ACCURACY_WORKLOADS = ("ysb", "nyt", "kmeans")


@dataclass(frozen=True)
class BenchConfig:
    workload: str = "ysb"
    queries: int = 1
    rate: int = 1000  # events/s per query
    duration_ms: int = 60_000
    warmup_ms: int = 10_000
    window_ms: int = 10_000  # YSB's 10 s; the paper's variant uses 3 s
    slide_ms: int = 0  # sliding windows (nyt): the slide; 0 = tumbling (ysb)
    delay: str = "const:0ms"  # network delay model, or preset:<CC|GG|EC|EG> (network + inter-event)
    inter_event: str = ""  # inter-event gap model; "" = the preset's, else const (the exact schedule)
    seed: int = 42
    policy: str = "default"
    watermark_bound_ms: int = 1000  # bounded out-of-orderness B
    marker_interval_ms: int = 200  # 0 = no blocking markers (to measure their overhead)
    watermark_interval_ms: int = 200
    campaigns: int = 100
    ads_per_campaign: int = 10
    # runtime scheduler (klink-agent), ignored by `default`: r, h, f, b, C of the paper
    cycle_ms: int = 120
    history: int = 400
    confidence: float = 0.95
    memory_bound: float = 0.8
    cores: int | None = None  # C, pipelines running at once (every policy); None = every core the TaskManager has
    aging: int = 0  # X: force in a task runnable but not chosen for X cycles; 0 = off, the paper's (klink/fcfs/hr/sbox)
    strict_slack: bool = False  # klink: select C pipelines every cycle, even when all work fits in one cycle
    fill_cycle: bool = False  # klink: add pipelines beyond C in slack order until their work covers one cycle
    enforce: str = "pause"  # how the scheduler holds back tasks it did not choose: pause, or priority (nice 19)
    os_priority_period_ms: int = 1000  # os-priority: how often backlogs are read and nice values set
    generator_cpus: str = ""  # cores the generator is pinned to ("" = not pinned)
    pack_bytes: int = 65536  # events of one send burst per Kafka record, up to this size; 0 = a record per event
    data: str = ""  # nyt: a DEBS 2015 CSV to replay instead of synthetic trips ("" = synthetic)
    k: int = 5  # kmeans: clusters per window
    kmeans_iterations: int = 20  # kmeans: at most this many Lloyd iterations per window
    stressed: bool = False  # lrb: the toll window (the last) is 1/3 of the statistics slide (the paper's stressed LRB)
    accidents: float | None = None  # lrb: accidents started per minute per query (None = 2)
    # sampling (klink-sampler, thesis Ch. 4); `confidence` above is also the sampler's 1 − δ
    sampler: str = "none"
    error: float = 0.05  # r_thr: the relative error target of a window's result
    substream_ms: int = 600  # f: sub-stream length, a divisor of the window
    substream_history: int = 50  # m: sub-streams the sampler's estimates look back over
    accuracy: bool = False  # error.csv against exact results (always on with a sampler)
    # --load F --capacity FILE: rate = round(F x the rate of a capacity.json; klinkctl.run.load)
    load: float | None = None
    capacity: str = ""

    def validate(self) -> BenchConfig:
        if self.workload not in WORKLOADS:
            raise KlinkError(f"unknown workload {self.workload!r}; valid: {', '.join(WORKLOADS)}")
        if self.policy not in POLICIES:
            raise KlinkError(f"unknown policy {self.policy!r}; valid: {', '.join(POLICIES)}")
        for name in ("queries", "rate", "duration_ms", "window_ms", "watermark_interval_ms", "campaigns",
                     "ads_per_campaign", "k", "kmeans_iterations"):
            if getattr(self, name) <= 0:
                raise KlinkError(f"{_option(name)} must be greater than 0, got {getattr(self, name)}")
        self._validate_slide()
        for name in ("warmup_ms", "watermark_bound_ms", "marker_interval_ms"):
            if getattr(self, name) < 0:
                raise KlinkError(f"{_option(name)} must not be negative, got {getattr(self, name)}")
        if self.warmup_ms >= self.duration_ms:
            raise KlinkError(f"--warmup ({self.warmup_ms} ms) must be shorter than --duration ({self.duration_ms} ms)")
        if self.inter_event and preset(self.delay):
            raise KlinkError(f"--delay {self.delay} sets the inter-event model too; drop --inter-event "
                             f"{self.inter_event} or give the network delay model instead of the preset")
        self.network_delay()
        self.gaps()
        self._validate_scheduler()
        self._validate_generator()
        if self.generator_cpus:
            parse_cpu_list(self.generator_cpus, "--generator-cpus")
        if self.data:
            check_debs_csv(Path(self.data), self.workload)
        self._validate_sampler()
        self._validate_lrb()
        if self.load is not None or self.capacity:
            check_load(self.to_dict())
        return self

    @property
    def measures_accuracy(self) -> bool:
        return self.accuracy or self.sampler != "none"

    def _validate_sampler(self) -> None:
        if self.sampler not in SAMPLERS:
            raise KlinkError(f"unknown sampler {self.sampler!r}; valid: {', '.join(SAMPLERS)}")
        if self.measures_accuracy and self.workload not in ACCURACY_WORKLOADS:
            raise KlinkError(f"--sampler/--accuracy need exact window results, which the harness computes for "
                             f"{', '.join(ACCURACY_WORKLOADS)} only, not {self.workload}")
        if not 0 < self.error < 1:
            raise KlinkError(f"--error must be between 0 and 1 (exclusive), e.g. 0.05, got {self.error}")
        if self.substream_history < 1:
            raise KlinkError(f"--substream-history must be at least 1, got {self.substream_history}")
        if self.sampler != "none" and (self.substream_ms <= 0 or self.window_ms % self.substream_ms):
            raise KlinkError(f"--substream ({self.substream_ms} ms) must be positive and divide --window "
                             f"({self.window_ms} ms), e.g. --window 3s --substream 600ms")
        if self.sampler != "none" and self.slide_ms and self.slide_ms % self.substream_ms:
            raise KlinkError(f"--substream ({self.substream_ms} ms) must divide --slide ({self.slide_ms} ms): each "
                             f"sliding window is made of whole sub-streams, e.g. --slide 1s --substream 500ms")

    def sampler_settings(self) -> dict | None:
        """The job config's sampler (io.klink.workloads.common.QueryPipelines.Sampler), None without one."""
        if self.sampler == "none":
            return None
        return {"kind": self.sampler, "substreamMs": self.substream_ms, "error": self.error,
                "confidence": self.confidence, "history": self.substream_history, "seed": self.seed}

    def _validate_lrb(self) -> None:
        if self.workload != "lrb":
            for name in ("stressed", "accidents"):
                if getattr(self, name) not in (False, None):
                    raise KlinkError(f"{_option(name)} applies to the lrb workload only, not {self.workload}")
            return
        if self.accidents is not None and not 0 <= self.accidents <= 1000:
            raise KlinkError(f"--accidents must be between 0 and 1000 per minute, got {self.accidents}")
        if self.stressed and self.slide_ms % 3:
            raise KlinkError(f"--stressed makes the toll window a third of --slide; {self.slide_ms} ms is not "
                             f"divisible by 3")

    def _validate_slide(self) -> None:
        sliding = "slide_ms" in WORKLOAD_DEFAULTS.get(self.workload, {})
        if not sliding and self.slide_ms:
            raise KlinkError(f"--slide applies to sliding-window workloads only; {self.workload} windows tumble")
        if self.workload == "lrb":  # panes of gcd(window, slide): any slide up to the window
            if not 0 < self.slide_ms <= self.window_ms:
                raise KlinkError(f"--slide must be greater than 0 and at most --window ({self.window_ms} ms), "
                                 f"got {self.slide_ms} ms")
        elif sliding and (self.slide_ms <= 0 or self.window_ms % self.slide_ms):
            raise KlinkError(f"--window ({self.window_ms} ms) must be a multiple of a positive --slide "
                             f"({self.slide_ms} ms)")

    def _validate_generator(self) -> None:
        if not 0 <= self.pack_bytes <= MAX_PACK_BYTES:
            raise KlinkError(f"--pack-bytes must be 0 (one Kafka record per event) to {MAX_PACK_BYTES}, "
                             f"got {self.pack_bytes}")

    def _validate_scheduler(self) -> None:
        if self.cycle_ms <= 0:
            raise KlinkError(f"--cycle must be greater than 0, got {self.cycle_ms} ms")
        if self.os_priority_period_ms < 100:
            raise KlinkError(f"--os-priority-period must be at least 100ms (one REST read per vertex each period), "
                             f"got {self.os_priority_period_ms} ms")
        if self.history < 1:
            raise KlinkError(f"--history must be at least 1 epoch, got {self.history}")
        if not 0 < self.confidence < 1:
            raise KlinkError(f"--confidence must be between 0 and 1 (exclusive), e.g. 0.95, got {self.confidence}")
        if not 0 < self.memory_bound <= 1:
            raise KlinkError(f"--memory-bound must be in (0, 1], e.g. 0.8, got {self.memory_bound}")
        if self.aging < 0:
            raise KlinkError(f"--aging must be 0 (off, as in the paper) or a number of cycles, got {self.aging}")
        if self.cores is not None and self.cores < 1:
            raise KlinkError(f"--cores must be at least 1, got {self.cores}")
        if self.enforce not in ENFORCEMENTS:
            raise KlinkError(f"--enforce must be one of {', '.join(ENFORCEMENTS)}, got {self.enforce!r}")
        if self.enforce == "priority" and not privileges.children_get("CAP_SYS_NICE"):
            raise KlinkError("--enforce priority lowers task threads' OS priority and raises it back, which needs "
                             "CAP_SYS_NICE (root, or ambient: docs/reliability.md, \"Privileges\") for klinkctl and "
                             "the stack it started; or use --enforce pause")
        if self.policy == "os-priority" and not privileges.children_get("CAP_SYS_NICE"):
            raise KlinkError("--policy os-priority lowers task threads' nice values back to 0 after raising them, "
                             "which needs CAP_SYS_NICE (root, or ambient: docs/reliability.md, \"Privileges\")")

    def network_delay(self) -> DelayModel:
        return parse_delay(self.delay)

    def gaps(self) -> GapModel:
        named = preset(self.delay)
        return parse_inter_event(self.inter_event or (named.inter_event_shape if named else "const"), self.rate)

    @property
    def agent_policy(self) -> str:
        """What the TaskManagers' runtime scheduler runs: the policy, or `default` for one run from outside."""
        return "default" if self.policy in OUTSIDE_POLICIES else self.policy

    def scheduler_params(self) -> dict[str, object]:
        """The agent's parameter names (java-udfs: io.klink.scheduler.policy.PolicyConfig)."""
        params: dict[str, object] = {"r": self.cycle_ms, "h": self.history, "f": self.confidence,
                                     "b": self.memory_bound}
        if self.cores is not None:
            params["C"] = self.cores
        if self.strict_slack:
            params["strict"] = "true"
        if self.fill_cycle:
            params["fill"] = "true"
        if self.aging:
            params["age"] = self.aging
        if self.enforce != "pause":
            params["enforce"] = self.enforce
        return params

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


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


#: klink-generator's --pack-bytes limit (GeneratorArgs.MAX_PACK_BYTES: below the producer's max request).
MAX_PACK_BYTES: int = catalog.generator()["maxPackBytes"]
#: klink-agent Enforcement: pause (suspend the mailbox, the paper's §5) or priority (nice 19, work-conserving).
ENFORCEMENTS = catalog.enforcements()

_DURATION_FIELDS = {"duration_ms": "duration", "warmup_ms": "warmup", "window_ms": "window", "slide_ms": "slide",
                    "watermark_bound_ms": "watermark-bound", "marker_interval_ms": "marker-interval",
                    "watermark_interval_ms": "watermark-interval", "cycle_ms": "cycle", "substream_ms": "substream",
                    "os_priority_period_ms": "os-priority-period"}


_INT_FIELDS = {"pack_bytes", "queries", "rate", "seed", "campaigns", "ads_per_campaign", "history", "cores", "aging",
               "substream_history",
               "k", "kmeans_iterations"}
_FLOAT_FIELDS = {"confidence", "memory_bound", "error", "accidents", "load"}
_BOOL_FIELDS = {"strict_slack", "fill_cycle", "accuracy", "stressed"}
_TEXT_FIELDS = {f.name for f in fields(BenchConfig) if f.type == "str"}


_WHOLE_NUMBER = re.compile(r"-?[0-9]+")  # ASCII digits only: str.isdigit() also takes '²', which int() refuses


def _integer(value: object, option: str) -> int:
    if isinstance(value, bool) or not _WHOLE_NUMBER.fullmatch(str(value).strip()):
        raise KlinkError(f"{option} must be a whole number, got {value!r}")
    return int(str(value).strip())


def _number(value: object, option: str) -> float:
    try:
        if isinstance(value, bool):
            raise ValueError
        number = float(str(value).strip())
        if not math.isfinite(number):
            raise ValueError
        return number
    except ValueError:
        raise KlinkError(f"{option} must be a number, got {value!r}") from None


def _boolean(value: object, option: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in ("true", "false", "1", "0", "yes", "no"):
        raise KlinkError(f"{option} must be true or false, got {value!r}")
    return text in ("true", "1", "yes")


def _option(field: str) -> str:
    return "--" + _DURATION_FIELDS.get(field, field.replace("_", "-"))


def _normalise(raw: dict, source: str) -> dict:
    """Config keys as users write them (`duration: 60s`, `watermark-bound: 1s`) -> BenchConfig fields."""
    by_name = {f.name: f.name for f in fields(BenchConfig)}
    by_name.update({alias.replace("-", "_"): name for name, alias in _DURATION_FIELDS.items()})
    values = {}
    for key, value in raw.items():
        name = by_name.get(str(key).replace("-", "_"))
        if name is None:
            raise KlinkError(f"unknown setting {key!r} in {source}; valid: "
                             f"{', '.join(sorted(_option(f.name)[2:] for f in fields(BenchConfig)))}")
        if name in _DURATION_FIELDS:
            value = duration_ms(value, _option(name))
        elif name in _INT_FIELDS:
            value = _integer(value, _option(name))
        elif name in _FLOAT_FIELDS:
            value = _number(value, _option(name))
        elif name in _BOOL_FIELDS:
            value = _boolean(value, _option(name))
        elif name in _TEXT_FIELDS:
            value = str(value)  # YAML reads `generator-cpus: 0` as the number 0
        values[name] = value
    return values


def load_yaml(path: Path) -> dict:
    try:
        raw = yaml.safe_load(path.read_text())
    except OSError as error:
        raise KlinkError(f"cannot read config {path}: {error.strerror}") from None
    except yaml.YAMLError as error:
        raise KlinkError(f"config {path} is not valid YAML: {str(error).splitlines()[0]}") from None
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise KlinkError(f"config {path} must be a mapping of settings, got {type(raw).__name__}")
    return _normalise(raw.get("bench", raw), str(path))


#: Settings only one workload reads: given for another, they would be silently ignored, so they are refused.
WORKLOAD_ONLY = {"k": "kmeans", "kmeans_iterations": "kmeans"}


def _refuse_options_of_other_workloads(given: dict) -> None:
    workload = str(given.get("workload", BenchConfig.workload))
    for name, owner in WORKLOAD_ONLY.items():
        if name in given and workload != owner:
            raise KlinkError(f"{_option(name)} applies to the {owner} workload only, not {workload}; drop it")


def resolve(config_file: Path | None, overrides: dict) -> BenchConfig:
    """Defaults, then the config file, then every command-line option that was given."""
    values = load_yaml(config_file) if config_file else {}
    given = {k: v for k, v in overrides.items() if v is not None}
    values.update(_normalise(given, "the command line"))
    values = apply_load(values)
    _refuse_options_of_other_workloads(values)
    values = {**WORKLOAD_DEFAULTS.get(str(values.get("workload", BenchConfig.workload)), {}), **values}
    try:
        return BenchConfig(**values).validate()
    except TypeError as error:
        raise KlinkError(f"invalid bench settings: {error}") from None
