"""A token bucket for a relay's rate limit (klinkctl.netem.relay): pure arithmetic on a clock, nothing sleeps here."""

from __future__ import annotations

import time
from collections.abc import Callable


class TokenBucket:
    """`rate` bytes per second on average, and after a pause at most `depth` bytes at once.

    A sender reserves the bytes it is about to send and waits the time reserve() returns before sending them. The
    bucket may go into debt: a reservation is granted at once and its wait grows with the debt, so senders sharing
    one bucket (a relay's connections, one direction) queue up in the order they asked and together never exceed
    the rate, however many there are."""

    def __init__(self, rate: float, depth: float, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or depth <= 0:
            raise ValueError(f"a token bucket needs a rate and a depth above 0, got {rate} and {depth}")
        self.rate, self.depth, self.clock = float(rate), float(depth), clock
        self.tokens, self.updated = self.depth, clock()

    def reserve(self, size: int) -> float:
        """Takes `size` bytes' tokens; returns the seconds to wait before sending them (0 if the bucket held them)."""
        now = self.clock()
        self.tokens = min(self.depth, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        self.tokens -= size
        return max(0.0, -self.tokens / self.rate)
