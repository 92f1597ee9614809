"""Pinning a component to CPU cores (Linux `taskset`) or capping its CPU time (cgroups): keeps the system
under test off the cores of Kafka and the generator when they share a small machine, and gives it less than
a core where the machine is too small to overload it otherwise."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

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


CGROUP_ROOT = Path("/sys/fs/cgroup")
#: CPU bandwidth period: short, so a capped component is throttled in many small steps rather than
#: stalled for tens of ms at a time (the 100 ms default would add up to 60 ms pauses to latencies).
QUOTA_PERIOD_US = 10_000


def cpu_quota_group(name: str, cores: float, option: str) -> Path:
    """A cgroup whose processes together may use `cores` cores' worth of CPU time (CFS bandwidth control,
    cgroup v2 `cpu.max` or v1 `cpu.cfs_quota_us`); returns its `cgroup.procs` file. Needs root."""
    quota = max(1000, round(cores * QUOTA_PERIOD_US))
    try:
        if (CGROUP_ROOT / "cgroup.controllers").is_file():  # unified hierarchy (v2)
            if "cpu" not in (CGROUP_ROOT / "cgroup.subtree_control").read_text().split():
                raise KlinkError(f"{option} needs the cgroup v2 cpu controller enabled for child groups "
                                 f"(echo +cpu > {CGROUP_ROOT}/cgroup.subtree_control)")
            group = CGROUP_ROOT / name
            group.mkdir(exist_ok=True)
            (group / "cpu.max").write_text(f"{quota} {QUOTA_PERIOD_US}\n")
        elif (CGROUP_ROOT / "cpu" / "cpu.cfs_quota_us").is_file():  # v1 cpu hierarchy
            group = CGROUP_ROOT / "cpu" / name
            group.mkdir(exist_ok=True)
            (group / "cpu.cfs_period_us").write_text(f"{QUOTA_PERIOD_US}\n")
            (group / "cpu.cfs_quota_us").write_text(f"{quota}\n")
        else:
            raise KlinkError(f"{option} needs the cgroup cpu controller under {CGROUP_ROOT}, which this machine "
                             f"does not offer; use --tm-cpus to pin cores instead")
    except PermissionError:
        raise KlinkError(f"{option} creates a cgroup under {CGROUP_ROOT}, which needs root") from None
    return group / "cgroup.procs"


def release_cpu_quota_group(name: str) -> None:
    """Removes the group once its processes are gone (best effort: a group still in use stays)."""
    for group in (CGROUP_ROOT / name, CGROUP_ROOT / "cpu" / name):
        try:
            group.rmdir()
        except OSError:
            pass


def in_group(argv: list[str], procs: Path | None) -> list[str]:
    """argv started inside the cgroup whose `cgroup.procs` is given (its children stay in it); argv if None."""
    if procs is None:
        return argv
    return ["sh", "-c", 'echo $$ > "$1" && shift && exec "$@"', "klink-cpu-quota", str(procs), *argv]
