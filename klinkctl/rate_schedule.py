"""Rate schedules: how the generator's rate changes over a run (`--rate-schedule`; the generator's
io.klink.generator.RateSchedule does the sending, this module checks a spec before anything starts and says how
many events a schedule puts into a span of the run).

The rate at time t of the run is `--rate` x m(t), m piecewise linear:

- `steady`: m = 1;
- `surge:<k>x@<start>+<length>`: m = k from start for length, 1 elsewhere (the surge must end within the run);
- `ramp:<k>x`: m grows linearly from 1 at the start to k at the end of the run (`--duration`).

Durations need a unit (`10s`, `500ms`; 0 needs none), k is a number in (0, 1000].
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from klinkctl import catalog
from klinkctl.errors import KlinkError
from klinkctl.units import duration_ms

#: Largest factor (RateSchedule.MAX_FACTOR).
MAX_FACTOR = 1000.0
#: The generator's largest rate per query (Schedule.MAX_RATE).
MAX_RATE: int = catalog.generator()["maxRate"]
FORMS = ", ".join(kind["form"] if kind["form"] == kind["example"] else f"{kind['form']} (e.g. {kind['example']})"
                  for kind in catalog.rate_schedules())
_SURGE = re.compile(r"surge:([^@+]+)x@([^@+]+)\+([^@+]+)")
_RAMP = re.compile(r"ramp:([^@+]+)x")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}


@dataclass(frozen=True)
class RateSchedule:
    kind: str  # steady, surge, ramp
    factor: float = 1.0
    start_ms: int = 0  # surge only
    length_ms: int = 0  # surge only
    duration_ms: int = 0  # the run's: a ramp spans it

    @property
    def spec(self) -> str:
        """Canonical, as the generator writes it back (Durations.format, RandomDelays.num)."""
        if self.kind == "steady":
            return "steady"
        if self.kind == "ramp":
            return f"ramp:{_num(self.factor)}x"
        return f"surge:{_num(self.factor)}x@{_format_ms(self.start_ms)}+{_format_ms(self.length_ms)}"

    def multiplier(self, t_ms: float) -> float:
        """m(t): the rate at `t_ms` into the run over `--rate`."""
        if self.kind == "surge":
            return self.factor if self.start_ms <= t_ms < self.start_ms + self.length_ms else 1.0
        if self.kind == "ramp":
            return 1.0 + (self.factor - 1.0) * min(max(t_ms, 0.0), self.duration_ms) / self.duration_ms
        return 1.0

    def base_ms(self, t_ms: float) -> float:
        """W(t) = ∫₀ᵗ m: the time the base rate would need for the events scheduled by `t_ms`."""
        if self.kind == "surge":
            inside = min(max(t_ms - self.start_ms, 0.0), self.length_ms)
            return t_ms + (self.factor - 1.0) * inside
        if self.kind == "ramp":
            x = min(t_ms, self.duration_ms)
            ramped = x + (self.factor - 1.0) * x * x / (2 * self.duration_ms)
            return ramped + self.factor * max(t_ms - self.duration_ms, 0.0)
        return t_ms

    def events(self, from_ms: float, to_ms: float, rate: float) -> float:
        """Events per query a rate of `rate` events/s scheduled in [from_ms, to_ms) of the run."""
        return rate * (self.base_ms(to_ms) - self.base_ms(from_ms)) / 1000.0

    def mean_multiplier(self) -> float:
        return self.base_ms(self.duration_ms) / self.duration_ms if self.duration_ms else 1.0

    def peak_multiplier(self) -> float:
        return 1.0 if self.kind == "steady" else max(1.0, self.factor)


STEADY = RateSchedule("steady")


def parse(spec: str, duration_ms_: int) -> RateSchedule:
    """The schedule `spec` over a run of `duration_ms_`; a malformed one is refused in one line."""
    text = str(spec).strip()
    if text == "steady":
        return RateSchedule("steady", duration_ms=duration_ms_)
    if surge := _SURGE.fullmatch(text):
        factor = _factor(surge.group(1), text)
        start, length = _duration(surge.group(2), text), _duration(surge.group(3), text)
        if length <= 0:
            raise KlinkError(f"--rate-schedule {text}: the surge's length must be > 0")
        if start + length > duration_ms_:
            raise KlinkError(f"--rate-schedule {text}: the surge ends at {_format_ms(start + length)}, after the "
                             f"run's {_format_ms(duration_ms_)} (--duration)")
        return RateSchedule("surge", factor, start, length, duration_ms_)
    if ramp := _RAMP.fullmatch(text):
        return RateSchedule("ramp", _factor(ramp.group(1), text), duration_ms=duration_ms_)
    raise KlinkError(f"invalid --rate-schedule {str(spec)!r}; expected {FORMS}; durations need a unit")


def _factor(text: str, spec: str) -> float:
    value = float(text) if re.fullmatch(r"[0-9]+(\.[0-9]+)?", text) else float("nan")
    if not 0 < value <= MAX_FACTOR:
        raise KlinkError(f"--rate-schedule {spec}: the factor must be a number in (0, {MAX_FACTOR:g}] followed by x, "
                         f"got {text!r}x")
    return value


def _duration(text: str, spec: str) -> int:
    if text != "0" and not text[-1:].isalpha():
        raise KlinkError(f"--rate-schedule {spec}: {text!r} has no unit; write e.g. 10s or 500ms")
    ms = duration_ms(text, f"--rate-schedule {spec}:")
    number, unit = re.fullmatch(r"\s*([0-9.]+)\s*([a-z]*)\s*", text).groups()
    if abs(float(number) * _UNIT_MS.get(unit, 1) - ms) > 1e-6:
        raise KlinkError(f"--rate-schedule {spec}: {text!r} is not a whole number of milliseconds")
    return ms


def _format_ms(ms: int) -> str:
    return "0" if ms == 0 else f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"


def _num(value: float) -> str:
    """RandomDelays.num: an integral value without a fraction, else Java's shortest double."""
    return str(int(value)) if value == int(value) else repr(value)
