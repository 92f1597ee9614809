"""The CPU hog of `klinkctl up --tm-interference N=F`: a noisy neighbour of TaskManager N that busy-loops for
F of every 10 ms period (wall clock) and sleeps the rest, i.e. it wants F of one core, in small steps like
the TaskManagers' own 10 ms CPU quota periods. Run as a script by the local backend, from its path (so that
its command line names klinkctl, for ../shared/tools/leftovers): standard library only, nothing to import."""

from __future__ import annotations

import argparse
import time

PERIOD_S = 0.010


def burn(fraction: float, period_s: float = PERIOD_S, seconds: float | None = None) -> None:
    """Busy for fraction × period_s, idle for the rest, period after period (for `seconds`, or until killed).
    A period it falls behind in (preempted, or throttled by its cgroup) is not made up for: like a real
    neighbour it wants its share from now on, not a burst."""
    end = None if seconds is None else time.monotonic() + seconds
    start = time.monotonic()
    while end is None or start < end:
        busy_until = start + fraction * period_s
        while time.monotonic() < busy_until:
            pass
        start += period_s
        idle = start - time.monotonic()
        if idle > 0:
            time.sleep(idle)
        else:
            start = time.monotonic()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fraction", type=float, required=True, help="share of one core, in (0, 1]")
    parser.add_argument("--beside", default="", help="the TaskManager it disturbs (shown in ps; not used)")
    args = parser.parse_args(argv)
    if not 0 < args.fraction <= 1:
        parser.error(f"--fraction must be in (0, 1], got {args.fraction}")
    print(f"CPU hog beside {args.beside or '?'}: {args.fraction} of one core, {PERIOD_S * 1000:g} ms periods",
          flush=True)
    burn(args.fraction)


if __name__ == "__main__":
    main()
