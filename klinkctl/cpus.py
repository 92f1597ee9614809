"""Pinning a component to CPU cores (Linux `taskset`): keeps the system under test off the cores of
Kafka and the generator when they share a small machine."""

from __future__ import annotations

import os
import shutil

from klinkctl.errors import KlinkError


def parse_cpu_list(text: str, option: str) -> tuple[int, ...]:
    """'1' or '0,2' or '2-3' -> the core numbers; each must be one this process may run on."""
    available = sorted(os.sched_getaffinity(0))
    cores: set[int] = set()
    try:
        for part in str(text).split(","):
            low, _, high = part.strip().partition("-")
            cores.update(range(int(low), int(high or low) + 1))
    except ValueError:
        raise KlinkError(f"{option} must be a list of cores like 1 or 0,2 or 2-3, got {text!r}") from None
    missing = sorted(cores - set(available))
    if not cores or missing:
        raise KlinkError(f"{option} names core(s) {missing or text} that this machine does not offer; "
                         f"available: {','.join(map(str, available))}")
    return tuple(sorted(cores))


def pinned(argv: list[str], cpus: str, option: str) -> list[str]:
    """argv run on the given cores (every thread it starts inherits them); argv itself if cpus is empty."""
    if not cpus:
        return argv
    cores = parse_cpu_list(cpus, option)
    if shutil.which("taskset") is None:
        raise KlinkError(f"{option} needs `taskset` (util-linux), which is not installed")
    return ["taskset", "-c", ",".join(map(str, cores)), *argv]
