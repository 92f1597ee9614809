"""Durations as people write them: 300ms, 1.5s, 2m; a bare number means seconds."""

from __future__ import annotations

import re

from klinkctl.errors import KlinkError

_DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h)?\s*$")
_FACTORS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}


def duration_ms(text: str | int | float, what: str, default_unit: str = "s") -> int:
    """Parse a duration into milliseconds; `what` names the option in the error; a bare number is in
    `default_unit` (seconds on the command line, milliseconds inside delay specs, as the generator reads them)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = str(text)
    match = _DURATION.match(str(text))
    if not match:
        raise KlinkError(f"{what} must be a duration like 300ms, 10s or 2m, got {text!r}")
    return round(float(match.group(1)) * _FACTORS_MS[match.group(2) or default_unit])
