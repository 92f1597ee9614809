"""Delay models (DESIGN.md §4): the generator sends each event at event_time + a sampled network delay,
and spaces a topic's events by inter-event generation gaps.

One spec syntax on the CLI and in configs, `<model>:<parameters>`; the generator (Java,
`io.klink.generator.DelayModels`, `Gaps`, whose forms and examples reach klinkctl through its catalog) parses
the same spec and samples from it, rounding delays to whole ms. This module validates a spec before anything
starts and gives the requested distribution (SciPy) against which observed delays are tested. `preset:<name>` names a network + inter-event pair of
the Aion thesis (Ch. 4 experiments).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
from scipy import stats

from klinkctl import catalog
from klinkctl.errors import KlinkError
from klinkctl.units import duration_ms

EXPECTED_FORMS = ", ".join([*(f"{kind.form} ({kind.example})" for kind in catalog.delay_kinds()),
                            "preset:<CC|GG|EC|EG> (preset:EG); durations in whole ms, with their unit"])
GAP_FORMS = "const, gamma:<k> (gamma:2; the mean gap is always 1/rate), or gamma:<k>:<theta> with k·theta = 1/rate"


@dataclass(frozen=True)
class Preset:
    """A thesis delay setting: network delay model + inter-event generation gap model, as the thesis gives
    them (its streams run at 1000 events/s, so a 1 ms mean gap); klinkctl keeps the gap's shape and scales
    it to --rate."""

    network: str
    inter_event: str

    @property
    def inter_event_shape(self) -> str:
        """The gap model without its scale (`gamma:2`, `const`), to be applied at any --rate."""
        kind, _, params = self.inter_event.partition(":")
        return kind if kind == "const" else f"{kind}:{params.split(':')[0]}"


#: Aion thesis, Ch. 4 setup: C = constant, G = gamma, E = exponential; network first, then inter-event.
PRESETS = {
    "CC": Preset(network="const:150ms", inter_event="const:1ms"),
    "GG": Preset(network="gamma:60:4ms", inter_event="gamma:2:0.5ms"),
    "EC": Preset(network="exp:240ms", inter_event="const:1ms"),
    "EG": Preset(network="exp:240ms", inter_event="gamma:2:0.5ms"),
}


@dataclass(frozen=True)
class DelayModel:
    spec: str
    kind: str
    distribution: object  # a frozen scipy.stats distribution of the delay in ms (before rounding)
    discrete: bool

    @property
    def mean_ms(self) -> float:
        return float(self.distribution.mean())

    def quantile_ms(self, q: float) -> float:
        return float(self.distribution.ppf(q))

    def sample_ms(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """`size` delays in whole ms, as the generator sends them (rounded), by inversion of uniform draws:
        a discrete model through its CDF over its (finite) support, which is far faster than SciPy's generic
        sampler for zipfian."""
        uniform = rng.random(size)
        if not self.discrete:
            return np.round(self.distribution.ppf(uniform))
        low, high = self.distribution.support()
        if not math.isfinite(high):
            high = self.quantile_ms(1 - 1e-12)
        support = np.arange(low, high + 1)
        return support[np.minimum(np.searchsorted(self.distribution.cdf(support), uniform), support.size - 1)]


class _Bad(ValueError):
    pass


def _args(params: str, count: int) -> list[str]:
    parts = params.split(":")
    if len(parts) != count or not all(parts):
        raise _Bad(f"needs {count} argument(s)")
    return parts


def _ms(text: str, positive: bool = False) -> int:
    try:
        value = duration_ms(text, "a delay")
    except KlinkError as error:
        raise _Bad(str(error) if "no unit" in str(error) else f"{text!r} is not a duration") from None
    if positive and value <= 0:
        raise _Bad(f"{text!r} must be > 0")
    return value


def _fractional_ms(text: str) -> float:
    """A positive scale in ms that may be a fraction (gamma:2:0.5ms); the unit is required."""
    if not text.endswith("ms"):
        raise _Bad(f"{text!r} needs its unit, ms (e.g. {text}ms)")
    return _number(text.removesuffix("ms"))


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _Bad(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise _Bad(f"{text!r} must be > 0")
    return value


def _range(text: str) -> tuple[int, int]:
    low, dash, high = text.partition("-")
    if not dash or not low or not high:
        raise _Bad(f"{text!r} is not a range like 0-2s")
    unit = re.sub(r"^[0-9.]+", "", high.strip())
    lo, hi = _ms(low + (unit if re.fullmatch(r"[0-9.]+", low.strip()) else "")), _ms(high)
    if lo > hi:
        raise _Bad(f"range {text!r} has its lower end above its upper end")
    return lo, hi


def _const(params: str) -> DelayModel:
    (d,) = _args(params, 1)
    value = _ms(d)
    return DelayModel(f"const:{value}ms", "const", stats.rv_discrete(values=([value], [1.0])), True)


def _uniform(params: str) -> DelayModel:
    lo, hi = _range(params)
    return DelayModel(f"uniform:{lo}ms-{hi}ms", "uniform", stats.randint(lo, hi + 1), True)


def _normal(params: str) -> DelayModel:
    mean, sigma = _args(params, 2)
    mu, sd = _ms(mean), _ms(sigma, positive=True)
    return DelayModel(f"normal:{mu}ms:{sd}ms", "normal", stats.truncnorm(-mu / sd, np.inf, loc=mu, scale=sd), False)


def _exp(params: str) -> DelayModel:
    (mean,) = _args(params, 1)
    mu = _ms(mean, positive=True)
    return DelayModel(f"exp:{mu}ms", "exp", stats.expon(scale=mu), False)


def _gamma(params: str) -> DelayModel:
    k, theta = _args(params, 2)
    shape, scale = _number(k), _fractional_ms(theta)
    return DelayModel(f"gamma:{shape:g}:{scale:g}ms", "gamma", stats.gamma(shape, scale=scale), False)


def _lognormal(params: str) -> DelayModel:
    median, sigma = _args(params, 2)
    m, s = _ms(median, positive=True), _number(sigma)
    return DelayModel(f"lognormal:{m}ms:{s:g}", "lognormal", stats.lognorm(s, scale=m), False)


def _pareto(params: str) -> DelayModel:
    scale, shape = _args(params, 2)
    xm, alpha = _ms(scale, positive=True), _number(shape)
    return DelayModel(f"pareto:{xm}ms:{alpha:g}", "pareto", stats.pareto(alpha, scale=xm), False)


def _zipf(params: str) -> DelayModel:
    s, span = _args(params, 2)
    exponent, (lo, hi) = _number(s), _range(span)
    # delay = lo + (k - 1) ms, P(k) ∝ k^-s for k = 1..hi-lo+1 (the generator's zipf)
    return DelayModel(f"zipf:{exponent:g}:{lo}ms-{hi}ms", "zipf",
                      stats.zipfian(exponent, hi - lo + 1, loc=lo - 1), True)


#: The distribution of each delay model the generator samples (the catalog's delay kinds; the contract test
#: checks they are the same set).
DISTRIBUTIONS = {"const": _const, "uniform": _uniform, "normal": _normal, "exp": _exp, "gamma": _gamma,
                 "lognormal": _lognormal, "pareto": _pareto, "zipf": _zipf}


def _model(kind: str, params: str) -> DelayModel:
    if kind not in DISTRIBUTIONS:
        raise _Bad("unknown model")
    return DISTRIBUTIONS[kind](params)


def preset(spec: str) -> Preset | None:
    """The preset a `preset:<name>` spec names (None for any other spec); unknown names are an error."""
    kind, _, name = str(spec).strip().partition(":")
    if kind != "preset":
        return None
    if name.upper() not in PRESETS:
        raise KlinkError(f"unknown delay preset {name!r}; valid: {', '.join('preset:' + p for p in PRESETS)}")
    return PRESETS[name.upper()]


def parse_delay(spec: str) -> DelayModel:
    """The network delay model of a spec; a preset gives its network part."""
    named = preset(spec)
    if named is not None:
        return parse_delay(named.network)
    kind, colon, params = str(spec).strip().partition(":")
    if not colon or not params:
        raise KlinkError(f"malformed delay spec {spec!r}; expected one of {EXPECTED_FORMS}")
    try:
        model = _model(kind, params)
    except _Bad as problem:
        raise KlinkError(f"malformed delay spec {spec!r} ({problem}); expected one of {EXPECTED_FORMS}") from None
    return _bounded(model, spec)


#: A run waits for its late events (up to the delay's p99.9, bench.drain_ms): past this it would wait for hours.
MAX_DELAY_P999_MS = 10 * 60 * 1000


def _bounded(model: DelayModel, spec: str) -> DelayModel:
    """Refuse models a run cannot wait out: an infinite or undefined mean, or a tail beyond MAX_DELAY_P999_MS."""
    if not math.isfinite(model.mean_ms):
        raise KlinkError(f"delay spec {spec!r} has no finite mean (e.g. pareto needs a shape above 1, "
                         "gamma and lognormal positive parameters); pick other parameters")
    tail = model.quantile_ms(0.999)
    if not math.isfinite(tail) or tail > MAX_DELAY_P999_MS:
        raise KlinkError(f"delay spec {spec!r} puts 0.1 % of events more than {MAX_DELAY_P999_MS // 60000} minutes "
                         "late, and every run waits for them; pick a lighter tail (e.g. a smaller sigma or a larger "
                         "pareto shape)")
    return model


def fit_report(model: DelayModel, delays_ms: np.ndarray, counts: np.ndarray | None = None) -> dict:
    """How well observed whole-ms delays (each with a count, default 1) match the requested model: mean
    and p99 requested vs observed, and a Kolmogorov–Smirnov test. Continuous models are compared after
    the generator's rounding to whole ms (F(x + 0.5) at the observed values); for discrete ones the
    statistic is exact and the p-value conservative. With millions of events any systematic deviation,
    even a few ms of generator lag, gives a tiny p-value: read the statistic (largest CDF gap) first."""
    values = np.asarray(delays_ms, dtype=float)
    weights = np.ones_like(values) if counts is None else np.asarray(counts, dtype=float)
    order = np.argsort(values)
    values, weights = values[order], weights[order]
    n = float(weights.sum())
    if n == 0:
        return {"samples": 0}
    support, first = np.unique(values, return_index=True)
    cumulative = np.cumsum(weights)
    upper = cumulative[np.r_[first[1:] - 1, len(values) - 1]] / n  # empirical CDF at each support point
    lower = np.r_[0.0, upper[:-1]]  # just below it
    dist = model.distribution
    cdf = dist.cdf(support if model.discrete else support + 0.5)
    below = dist.cdf(support - 1 if model.discrete else support - 0.5)
    statistic = float(max(np.max(np.abs(upper - cdf)), np.max(np.abs(lower - below))))
    p99 = float(support[np.searchsorted(upper, 0.99)])
    return {"samples": int(n), "requested_mean_ms": model.mean_ms,
            "observed_mean_ms": float(np.dot(values, weights) / n),
            "requested_p99_ms": model.quantile_ms(0.99), "observed_p99_ms": p99,
            "ks_statistic": statistic, "ks_pvalue": float(stats.kstwo(int(n)).sf(statistic))}


@dataclass(frozen=True)
class GapModel:
    """Inter-event generation gaps of a topic at a given rate; mean gap = 1 / rate."""

    spec: str  # e.g. gamma:2:0.5ms (absolute, for the record)
    generator_arg: str  # what the generator's --gaps takes: const or gamma:<k> (it scales to --rate itself)
    distribution: object  # frozen scipy.stats distribution of one gap in ms

    @property
    def mean_ms(self) -> float:
        return float(self.distribution.mean())


def parse_inter_event(spec: str, rate: int) -> GapModel:
    """`const`, `gamma:<k>`, or an absolute `const:<gap>` / `gamma:<k>:<theta>` whose mean must be 1/rate."""
    mean_gap_ms = 1000.0 / rate
    kind, _, params = str(spec).strip().partition(":")
    try:
        shape = _gap_shape(kind, params, mean_gap_ms)
    except _Bad as problem:
        raise KlinkError(f"malformed inter-event spec {spec!r} ({problem}); expected {GAP_FORMS}") from None
    if shape is None:
        return GapModel(f"const:{mean_gap_ms:g}ms", "const", stats.rv_discrete(values=([mean_gap_ms], [1.0])))
    theta = mean_gap_ms / shape
    return GapModel(f"gamma:{shape:g}:{theta:g}ms", f"gamma:{shape:g}", stats.gamma(shape, scale=theta))


def _gap_shape(kind: str, params: str, mean_gap_ms: float) -> float | None:
    """The gamma shape k of a gap spec, None for constant gaps; absolute forms must match the rate."""
    if kind == "const":
        if params:
            _same_mean(_fractional_ms(params), mean_gap_ms, f"const:{params}")
        return None
    if kind != "gamma" or not params:
        raise _Bad("unknown model")
    parts = params.split(":")
    if len(parts) > 2 or not all(parts):
        raise _Bad("needs gamma:<k> or gamma:<k>:<theta>")
    shape = _number(parts[0])
    if len(parts) == 2:
        _same_mean(shape * _fractional_ms(parts[1]), mean_gap_ms, f"gamma:{params}")
    return shape


def _same_mean(gap_ms: float, mean_gap_ms: float, spec: str) -> None:
    if not np.isclose(gap_ms, mean_gap_ms, rtol=1e-6):
        raise _Bad(f"{spec} has a mean gap of {gap_ms:g} ms = {1000 / gap_ms:g} events/s, but --rate asks for "
                   f"{1000 / mean_gap_ms:g}; give the shape only (const, gamma:<k>) to follow --rate")
