"""Rate schedules: how the generator's rate changes over a run (`--rate-schedule`; the generator's
io.klink.generator.RateSchedule does the sending, this module checks a spec before anything starts and says how
many events a schedule puts into a span of the run).

The rate at time t of the run is `--rate` x m(t), m piecewise linear:

- `steady`: m = 1;
- `surge:<k>x@<start>+<length>`: m = k from start for length, 1 elsewhere (the surge must end within the run);
- `bursts:<k>x@<period>+<length>`: m = k in the first length of every period ([n·period, n·period + length)),
  1 elsewhere (length < period);
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
_WINDOWED = re.compile(r"(surge|bursts):([^@+]+)x@([^@+]+)\+([^@+]+)")  # surge@start+length, bursts@period+length
_RAMP = re.compile(r"ramp:([^@+]+)x")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}


@dataclass(frozen=True)
class RateSchedule:
    kind: str  # steady, surge, bursts, ramp
    factor: float = 1.0
    start_ms: int = 0  # surge only
    length_ms: int = 0  # surge, bursts: how long each window at k x --rate lasts
    duration_ms: int = 0  # the run's: a ramp spans it
    period_ms: int = 0  # bursts only

    @property
    def spec(self) -> str:
        """Canonical, as the generator writes it back (Durations.format, RandomDelays.num)."""
        if self.kind == "steady":
            return "steady"
        if self.kind == "ramp":
            return f"ramp:{_num(self.factor)}x"
        at = self.period_ms if self.kind == "bursts" else self.start_ms
        return f"{self.kind}:{_num(self.factor)}x@{_format_ms(at)}+{_format_ms(self.length_ms)}"

    def multiplier(self, t_ms: float) -> float:
        """m(t): the rate at `t_ms` into the run over `--rate`."""
        if self.kind in ("surge", "bursts"):
            phase = t_ms % self.period_ms if self.kind == "bursts" else t_ms
            return self.factor if self.start_ms <= phase < self.start_ms + self.length_ms else 1.0
        if self.kind == "ramp":
            return 1.0 + (self.factor - 1.0) * min(max(t_ms, 0.0), self.duration_ms) / self.duration_ms
        return 1.0

    def base_ms(self, t_ms: float) -> float:
        """W(t) = ∫₀ᵗ m: the time the base rate would need for the events scheduled by `t_ms`."""
        if self.kind in ("surge", "bursts"):
            return t_ms + (self.factor - 1.0) * self._surging_ms(t_ms)
        if self.kind == "ramp":
            x = min(t_ms, self.duration_ms)
            ramped = x + (self.factor - 1.0) * x * x / (2 * self.duration_ms)
            return ramped + self.factor * max(t_ms - self.duration_ms, 0.0)
        return t_ms

    def _surging_ms(self, t_ms: float) -> float:
        """How much of [0, t_ms) runs at k x --rate (surge, bursts): whole periods in O(1), then the partial one."""
        if self.kind == "bursts":
            periods, phase = divmod(t_ms, self.period_ms)
            return periods * self.length_ms + min(phase, self.length_ms)
        return min(max(t_ms - self.start_ms, 0.0), self.length_ms)

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
    if windowed := _WINDOWED.fullmatch(text):
        return _windowed(windowed.group(1), _factor(windowed.group(2), text), _duration(windowed.group(3), text),
                         _duration(windowed.group(4), text), text, duration_ms_)
    if ramp := _RAMP.fullmatch(text):
        return RateSchedule("ramp", _factor(ramp.group(1), text), duration_ms=duration_ms_)
    raise KlinkError(f"invalid --rate-schedule {str(spec)!r}; expected {FORMS}; durations need a unit")


def _windowed(kind: str, factor: float, at: int, length: int, text: str, duration_ms_: int) -> RateSchedule:
    """A surge (k x --rate from `at` for `length`) or bursts (k x --rate for `length` every `at`)."""
    if length <= 0:
        raise KlinkError(f"--rate-schedule {text}: the {'burst' if kind == 'bursts' else kind}'s length must be > 0")
    if kind == "bursts":
        if at <= length:
            raise KlinkError(f"--rate-schedule {text}: the period ({_format_ms(at)}) must be longer than the burst "
                             f"({_format_ms(length)})")
        return RateSchedule("bursts", factor, 0, length, duration_ms_, period_ms=at)
    if at + length > duration_ms_:
        raise KlinkError(f"--rate-schedule {text}: the surge ends at {_format_ms(at + length)}, after the "
                         f"run's {_format_ms(duration_ms_)} (--duration)")
    return RateSchedule("surge", factor, at, length, duration_ms_)


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
