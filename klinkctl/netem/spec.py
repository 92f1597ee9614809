"""A netem setting as the user gives it, and the exact tc command lines that apply, show and remove it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from klinkctl.errors import KlinkError
from klinkctl.units import duration_ms

#: netem's built-in delay distribution tables (iproute2 ships normal, pareto, paretonormal).
DISTRIBUTIONS = ("normal", "pareto", "paretonormal")
_PERCENT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*%?\s*$")


@dataclass(frozen=True)
class NetemSpec:
    delay_ms: int
    jitter_ms: int = 0
    distribution: str | None = None
    loss_percent: float = 0.0

    @classmethod
    def parse(cls, delay: str, jitter: str | None = None, distribution: str | None = None,
              loss: str | None = None) -> NetemSpec:
        spec = cls(delay_ms=duration_ms(delay, "--delay"),
                   jitter_ms=duration_ms(jitter, "--jitter") if jitter else 0,
                   distribution=distribution, loss_percent=_percent(loss) if loss else 0.0)
        return spec.validate()

    def validate(self) -> NetemSpec:
        if self.distribution is not None and self.distribution not in DISTRIBUTIONS:
            raise KlinkError(f"--distribution must be one of {', '.join(DISTRIBUTIONS)}, got {self.distribution!r}")
        if self.distribution and not self.jitter_ms:
            raise KlinkError("--distribution shapes the jitter: give --jitter too, e.g. --jitter 30ms")
        if self.jitter_ms > self.delay_ms:
            raise KlinkError(f"--jitter ({self.jitter_ms} ms) must not exceed --delay ({self.delay_ms} ms)")
        return self

    def qdisc(self) -> list[str]:
        """The qdisc part of a tc command: `netem delay 100ms 30ms distribution normal loss 0.1%`."""
        args = ["netem", "delay", f"{self.delay_ms}ms"]
        if self.jitter_ms:
            args.append(f"{self.jitter_ms}ms")
        if self.distribution:
            args += ["distribution", self.distribution]
        if self.loss_percent:
            args += ["loss", f"{self.loss_percent:g}%"]
        return args


def _percent(text: str) -> float:
    match = _PERCENT.match(str(text))
    if not match or not 0 <= float(match.group(1)) <= 100:
        raise KlinkError(f"--loss must be a percentage between 0 and 100 like 0.1%, got {text!r}")
    return float(match.group(1))


def tc_replace(device: str, qdisc: list[str]) -> list[str]:
    return ["tc", "qdisc", "replace", "dev", device, "root", *qdisc]


def tc_show(device: str) -> list[str]:
    return ["tc", "qdisc", "show", "dev", device]


def tc_delete(device: str) -> list[str]:
    return ["tc", "qdisc", "del", "dev", device, "root"]
