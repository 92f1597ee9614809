"""The rides combiner's part of the control channel (docs/combiner.md, "The controller and the actuator").

AdCom has one controller for all parallel instances of a query's combiner (seed adcom-edbt21.txt §3.1: "the
actuator periodically sends signals, i.e. the new mini-batch interval, to the parallel instances of AdCom"). The
controller runs in the combiner's subtask 0 (io.klink.workloads.rides.BufferMonitor), the instances anywhere in
the cluster; they meet here, on klinkctl's control channel (klinkctl.run.control_channel):

- ``POST /combiner/interval?run=&query=``: the controller's interval for one period,
  ``{"period", "intervalMs", "fromMs"}``; the relay keeps each query's latest.
- ``GET /combiner/interval?run=&query=&seen=``: an instance asks for the query's latest interval if its period is
  not ``seen`` (the last one it took); the answer waits up to INTERVAL_WAIT_S for one, else is empty.
- ``POST /combiner/rows?run=``: the controller's rows of combiner.csv, its header first.

Every instance switches at ``fromMs`` (wall clock), a little after the controller decided, so all of them switch
at the same instant however late each one heard of it.
"""

from __future__ import annotations

import json
import threading

#: The table the combiner's controller writes, one row per period and query; klinkctl writes its header.
COMBINER_TABLE = "combiner.csv"
#: io.klink.workloads.rides.CombinerChannel.COLUMNS.
COMBINER_COLUMNS = "time_ms,query,period,rho,rho_avg,saturated,error,interval_ms,mode"
#: How long an instance's request waits for a new interval (its client waits longer: CombinerChannel).
INTERVAL_WAIT_S = 2.0
INTERVAL_KEYS = ("period", "intervalMs", "fromMs")


class Intervals:
    """Each query's latest interval, from its controller to the instances that wait for it."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._latest: dict[str, tuple[int, str]] = {}  # query -> (period, the interval as relayed)

    def publish(self, query: str, body: str) -> None:
        """Raises ValueError (one line) for anything but a well-formed interval."""
        period, text = parse_interval(body)
        with self._changed:
            self._latest[query] = (period, text)
            self._changed.notify_all()

    def await_change(self, query: str, seen: int, wait_s: float = INTERVAL_WAIT_S) -> str:
        """The query's latest interval if its period is not `seen` (a restarted controller counts from 1 again),
        waiting up to `wait_s` for one; "" if none came."""
        with self._changed:
            changed = self._changed.wait_for(lambda: self._period(query, seen) != seen, wait_s)
            return self._latest[query][1] if changed else ""

    def longest_ms(self) -> int:
        """The longest of the queries' latest intervals (0 before any): how long a combiner may still hold a
        partial after its input ended."""
        with self._changed:
            return max((json.loads(text)["intervalMs"] for _, text in self._latest.values()), default=0)

    def _period(self, query: str, default: int) -> int:
        return self._latest[query][0] if query in self._latest else default


def parse_interval(body: str) -> tuple[int, str]:
    """The interval's period and its text as relayed (its keys only); ValueError if malformed."""
    try:
        interval = json.loads(body)
    except json.JSONDecodeError as error:
        raise ValueError(f"an interval is JSON, not {body[:40]!r} ({error.msg})") from None
    if not isinstance(interval, dict) or set(interval) != set(INTERVAL_KEYS):
        raise ValueError(f"an interval has exactly the keys {', '.join(INTERVAL_KEYS)}")
    if not all(type(interval[key]) is int for key in INTERVAL_KEYS):
        raise ValueError(f"an interval's {', '.join(INTERVAL_KEYS)} are whole numbers")
    if interval["period"] < 1 or interval["intervalMs"] < 1:
        raise ValueError("an interval's period and intervalMs are at least 1")
    return interval["period"], json.dumps({key: interval[key] for key in INTERVAL_KEYS})
