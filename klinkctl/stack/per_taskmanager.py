"""`up` options that give some TaskManagers a value each, written NUMBER=VALUE,... (e.g. --tm-quota 2=0.5,3=0.25)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

from klinkctl.errors import KlinkError

Value = TypeVar("Value")


class BadValue(ValueError):
    """A value that reads as one but is not allowed; its text says why (the caller names the option and pair)."""


def finite_number(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(text)
    return number


def per_taskmanager(text: str, option: str, value: Callable[[str], Value] = finite_number,
                    example: str = "2=0.5 or 2=0.5,3=0.25") -> dict[int, Value]:
    """'2=0.5,3=0.25' -> {2: 0.5, 3: 0.25}: a value for some TaskManagers (by number), each named once. `value`
    reads one value: a ValueError refuses the list as malformed, a BadValue names the pair and says why."""
    values: dict[int, Value] = {}
    for part in text.split(",") if text.strip() else ():
        number, equals, written = (piece.strip() for piece in part.partition("="))
        try:
            if not equals:
                raise ValueError(part)
            index, amount = int(number), value(written)
        except BadValue as why:
            raise KlinkError(f"{option} {number}={written}: {why}") from None
        except ValueError:
            raise KlinkError(f"{option} must be TaskManager=value pairs like {example}, got {text!r}") from None
        if index in values:
            raise KlinkError(f"{option} gives taskmanager-{index} twice ({text!r}); give each TaskManager once")
        values[index] = amount
    return values
