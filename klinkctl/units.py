"""Durations as people write them: 300ms, 1.5s, 2m. A bare number (but 0) is refused: seconds and milliseconds
are both plausible, and a wrong guess is off by a factor of 1000."""

from __future__ import annotations

import re

from klinkctl.errors import KlinkError

_DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h)?\s*$")
_FACTORS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}


def duration_ms(text: str | int | float, what: str) -> int:
    """A duration in whole milliseconds; `what` names the option (or the part of a spec) in the error."""
    written = str(text).strip()
    match = None if isinstance(text, bool) else _DURATION.match(written)
    if not match:
        raise KlinkError(f"{what} must be a duration like 300ms, 10s or 2m, got {text!r}")
    number, unit = match.groups()
    if unit is None:
        if float(number) == 0:
            return 0
        raise KlinkError(f"{what} {written} has no unit; write {written}ms or {written}s")
    return round(float(number) * _FACTORS_MS[unit])
