"""The rate of a TaskManager's shuffle link (`klinkctl up --tm-link-rate 2=20mbit`), as people write it: bits per
second (`20mbit`, `20Mbit/s`) or bytes per second (`2.5MB/s`, `512KiB/s`). A unit is required: a bare number could
be either, off by a factor of 8."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from klinkctl.netem.relay import PIECE
from klinkctl.stack.per_taskmanager import BadValue, per_taskmanager

#: Bits per second, written in any case, `/s` optional (tc's spelling: kbit, mbit, gbit).
BIT_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
#: Bytes per second, written exactly so (B, not b): decimal and binary multiples.
BYTE_UNITS = {"B/s": 1, "kB/s": 1e3, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "KiB/s": 2**10, "MiB/s": 2**20,
              "GiB/s": 2**30}
#: The relay sends in pieces (klinkctl.netem.relay.PIECE): below this one piece takes over a second.
MIN_BYTES_PER_S = 12_500  # 100 kbit/s
EXAMPLE = "2=20mbit or 2=20mbit,3=2.5MB/s"
UNITS_HELP = ("bits per second as bit, kbit, mbit, gbit, or bytes per second as B/s, kB/s, MB/s, GB/s, KiB/s, MiB/s, "
              "GiB/s")
_RATE = re.compile(r"^([-+]?[0-9.]+)\s*(\S*)$")


@dataclass(frozen=True)
class LinkRate:
    bytes_per_s: float
    written: str  # normalised: `20mbit`, `2.5MB/s`

    def __str__(self) -> str:
        return self.written


def parse_rate(text: str) -> LinkRate:
    """One rate; ValueError if it is not a number and a word, BadValue (saying why) if it is not a rate."""
    match = _RATE.match(text)
    if not match:
        raise ValueError(text)
    digits, unit = match.group(1).lstrip("+"), match.group(2)
    number = float(digits)
    if not math.isfinite(number):
        raise ValueError(text)
    if number <= 0:
        raise BadValue("a link's rate must be more than 0 (leave the TaskManager out for an unshaped link)")
    if not unit:
        raise BadValue(f"a rate needs a unit: write {digits}mbit (bits per second) or {digits}MB/s (bytes per second)")
    factor, canonical = _unit(unit)
    rate = LinkRate(number * factor, digits + canonical)  # the digits as written: read back exactly
    if rate.bytes_per_s < MIN_BYTES_PER_S:
        raise BadValue(f"a link's rate must be at least 100kbit: the relay sends in pieces of up to "
                       f"{PIECE // 1024} KiB, and a slower link takes over a second for one")
    return rate


def parse_link_rates(text: str, option: str) -> dict[int, LinkRate]:
    """'2=20mbit,3=2.5MB/s' -> the rate of each TaskManager named, by number."""
    return per_taskmanager(text, option, parse_rate, EXAMPLE)


def _unit(unit: str) -> tuple[float, str]:
    """(bytes per second of one unit, the unit as written back)."""
    if unit in BYTE_UNITS:
        return BYTE_UNITS[unit], unit
    bits = unit.lower().removesuffix("/s")
    if bits in BIT_UNITS:
        return BIT_UNITS[bits] / 8, bits
    raise BadValue(f"unknown unit {unit!r}; use {UNITS_HELP}")
