"""A bench run's configuration: defaults <- YAML config file <- command-line options, validated up front."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from pathlib import Path

import yaml

from klinkctl.delay import parse_delay
from klinkctl.errors import KlinkError
from klinkctl.units import duration_ms

WORKLOADS = ("ysb",)
#: Scheduling policies of the runtime scheduler (java-udfs: io.klink.scheduler.policy.Policies.NAMES);
#: `default` is plain Flink (the scheduler never pauses anything).
POLICIES = ("default", "rr", "fcfs", "hr", "sbox", "klink", "klink-nomm")


@dataclass(frozen=True)
class BenchConfig:
    workload: str = "ysb"
    queries: int = 1
    rate: int = 1000  # events/s per query
    duration_ms: int = 60_000
    warmup_ms: int = 10_000
    window_ms: int = 10_000  # YSB's 10 s; the paper's variant uses 3 s
    delay: str = "const:0ms"
    seed: int = 42
    policy: str = "default"
    watermark_bound_ms: int = 1000  # bounded out-of-orderness B
    marker_interval_ms: int = 200  # 0 = no blocking markers (to measure their overhead)
    watermark_interval_ms: int = 200
    campaigns: int = 100
    ads_per_campaign: int = 10

    def validate(self) -> BenchConfig:
        if self.workload not in WORKLOADS:
            raise KlinkError(f"unknown workload {self.workload!r}; valid: {', '.join(WORKLOADS)}")
        if self.policy not in POLICIES:
            raise KlinkError(f"unknown policy {self.policy!r}; valid: {', '.join(POLICIES)}")
        for name in ("queries", "rate", "duration_ms", "window_ms", "watermark_interval_ms", "campaigns",
                     "ads_per_campaign"):
            if getattr(self, name) <= 0:
                raise KlinkError(f"{_option(name)} must be greater than 0, got {getattr(self, name)}")
        for name in ("warmup_ms", "watermark_bound_ms", "marker_interval_ms"):
            if getattr(self, name) < 0:
                raise KlinkError(f"{_option(name)} must not be negative, got {getattr(self, name)}")
        if self.warmup_ms >= self.duration_ms:
            raise KlinkError(f"--warmup ({self.warmup_ms} ms) must be shorter than --duration ({self.duration_ms} ms)")
        parse_delay(self.delay)
        return self

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


_DURATION_FIELDS = {"duration_ms": "duration", "warmup_ms": "warmup", "window_ms": "window",
                    "watermark_bound_ms": "watermark-bound", "marker_interval_ms": "marker-interval",
                    "watermark_interval_ms": "watermark-interval"}


_INT_FIELDS = {"queries", "rate", "seed", "campaigns", "ads_per_campaign"}


def _integer(value: object, option: str) -> int:
    if isinstance(value, bool) or not str(value).strip().lstrip("-").isdigit():
        raise KlinkError(f"{option} must be a whole number, got {value!r}")
    return int(str(value).strip())


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


def resolve(config_file: Path | None, overrides: dict) -> BenchConfig:
    """Defaults, then the config file, then every command-line option that was given."""
    values = load_yaml(config_file) if config_file else {}
    given = {k: v for k, v in overrides.items() if v is not None}
    values.update(_normalise(given, "the command line"))
    try:
        return BenchConfig(**values).validate()
    except TypeError as error:
        raise KlinkError(f"invalid bench settings: {error}") from None
