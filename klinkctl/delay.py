"""Network delay models (DESIGN.md §4): the generator sends each event at event_time + a sampled delay.

One spec syntax on the CLI and in configs, `<model>:<parameters>`; the generator (Java) parses the same
spec and samples from it. This module validates a spec before anything starts.
"""

from __future__ import annotations

from dataclasses import dataclass

from klinkctl.errors import KlinkError
from klinkctl.units import duration_ms

EXPECTED_FORMS = "const:<duration> (e.g. const:300ms, const:0)"


@dataclass(frozen=True)
class DelayModel:
    spec: str
    kind: str
    mean_ms: float


def parse_delay(spec: str) -> DelayModel:
    kind, _, params = spec.strip().partition(":")
    if kind == "const" and params:
        try:
            delay = duration_ms(params, "the constant delay")
        except KlinkError:
            raise KlinkError(f"malformed delay spec {spec!r}; expected {EXPECTED_FORMS}") from None
        return DelayModel(f"const:{delay}ms", "const", float(delay))
    raise KlinkError(f"malformed or unknown delay spec {spec!r}; expected {EXPECTED_FORMS}")
