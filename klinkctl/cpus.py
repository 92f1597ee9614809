"""Pinning a component to CPU cores (Linux `taskset`) or capping its CPU time (cgroups): keeps the system
under test off the cores of Kafka and the generator when they share a small machine, and gives it less than
a core where the machine is too small to overload it otherwise."""

from __future__ import annotations

import os
import pwd
import shutil
from collections.abc import Iterable
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
SELF_CGROUP = Path("/proc/self/cgroup")
#: CPU bandwidth period: short, so a capped component is throttled in many small steps rather than
#: stalled for tens of ms at a time (the 100 ms default would add up to 60 ms pauses to latencies).
QUOTA_PERIOD_US = 10_000


def cpu_quota_group(name: str, cores: float | None, option: str, delegated: Path | None = None) -> Path:
    """A cgroup whose processes together may use `cores` cores' worth of CPU time (CFS bandwidth control,
    cgroup v2 `cpu.max` or v1 `cpu.cfs_quota_us`; None: no cap of its own); returns its `cgroup.procs` file. The
    group is made inside `delegated` (a cgroup this user may write, --tm-cgroup) or else at the top of the
    hierarchy (root)."""
    parent = delegated or root_parent()
    return _make_group(parent / name, quota_version(parent, option, delegated is not None), cores, option, delegated)


def cpu_quota_subgroup(procs: Path, name: str, cores: float | None, option: str,
                       delegated: Path | None = None) -> Path:
    """A group inside the one cpu_quota_group made (its `cgroup.procs` given) with a quota of its own (None:
    only the outer one's); returns its `cgroup.procs`. The kernel enforces both: its processes get at most its
    quota, and together with the outer group's other processes at most the outer quota. On cgroup v2 the outer
    group must then hold no processes itself (only subgroups), and lets its children use the cpu controller."""
    outer = procs.parent
    version = "v2" if (outer / "cgroup.controllers").is_file() else "v1"
    return _make_group(outer / name, version, cores, option, delegated, enable_in=outer if version == "v2" else None)


def _make_group(group: Path, version: str, cores: float | None, option: str, delegated: Path | None,
                enable_in: Path | None = None) -> Path:
    quota_us = None if cores is None else max(1000, round(cores * QUOTA_PERIOD_US))
    try:
        if enable_in is not None and "cpu" not in (enable_in / "cgroup.subtree_control").read_text().split():
            (enable_in / "cgroup.subtree_control").write_text("+cpu\n")
        group.mkdir(exist_ok=True)
        for file, value in quota_settings(version, quota_us).items():
            (group / file).write_text(value)
    except PermissionError as error:
        if delegated is None:
            raise KlinkError(f"{option} creates a cgroup under {CGROUP_ROOT}, which needs root "
                             f"(or a cgroup delegated to this user: --tm-cgroup)") from None
        refused = Path(error.filename) if group.is_dir() else delegated  # mkdir names the group it could not make
        raise KlinkError(not_writable(refused, delegated)) from None
    except OSError as error:  # e.g. v1 refuses a quota above one the delegated group itself has
        raise KlinkError(f"{option}: cannot set the CPU quota of {group}: {error.strerror}") from None
    return group / "cgroup.procs"


def root_parent() -> Path:
    return CGROUP_ROOT if (CGROUP_ROOT / "cgroup.controllers").is_file() else CGROUP_ROOT / "cpu"


def quota_version(parent: Path, option: str, delegated: bool) -> str:
    """'v2' or 'v1': which files give a child group of `parent` its CPU quota; a KlinkError if none can."""
    if (parent / "cgroup.controllers").is_file():
        if "cpu" not in (parent / "cgroup.subtree_control").read_text().split():
            raise KlinkError(f"{option} needs the cgroup v2 cpu controller enabled for child groups "
                             f"(echo +cpu > {parent}/cgroup.subtree_control)")
        return "v2"
    if (parent / "cpu.cfs_quota_us").is_file():
        return "v1"
    if delegated:
        raise KlinkError(f"--tm-cgroup {parent} is not a cgroup directory with the cpu controller (cgroup v1: "
                         f"one under {CGROUP_ROOT}/cpu; v2: one whose cgroup.controllers lists cpu)")
    raise KlinkError(f"{option} needs the cgroup cpu controller under {CGROUP_ROOT}, which this machine "
                     f"does not offer; use --tm-cpus to pin cores instead")


def quota_settings(version: str, quota_us: int | None) -> dict[str, str]:
    """The files that give a group its CPU quota (None: none), and what to write to them, in order."""
    if version == "v2":
        return {"cpu.max": f"{'max' if quota_us is None else quota_us} {QUOTA_PERIOD_US}\n"}
    quota = -1 if quota_us is None else quota_us
    return {"cpu.cfs_period_us": f"{QUOTA_PERIOD_US}\n", "cpu.cfs_quota_us": f"{quota}\n"}


def check_threads_movable(delegated: Path | None, option: str) -> None:
    """Single threads of a process can be put in a group of their own only on cgroup v1 (v2's threaded groups
    stay inside their process's domain, and so inside its quota)."""
    parent = delegated or root_parent()
    if (parent / "cgroup.controllers").is_file():
        raise KlinkError(f"{option} needs cgroup v1 (this machine's {parent} is v2, where a process's threads "
                         f"share its CPU quota); leave it out")


def move_threads(thread_ids: Iterable[int], procs: Path) -> int:
    """Moves single threads into the (cgroup v1) group whose `cgroup.procs` is given; returns how many moved
    (a thread that ended meanwhile is skipped). Threads they start later start there too."""
    moved = 0
    for thread_id in thread_ids:
        try:
            (procs.parent / "tasks").write_text(f"{thread_id}\n")
            moved += 1
        except ProcessLookupError:
            pass
    return moved


def check_delegated(delegated: Path, name: str) -> None:
    """Before anything starts: `delegated` is a cpu cgroup in which this user can make and enter group `name`."""
    version = quota_version(delegated, "--tm-cgroup", delegated=True)
    group = delegated / name
    files = [*quota_settings(version, 0), "cgroup.procs"]
    needed = [group / file for file in files] if group.is_dir() else [delegated]
    for path in needed:
        if not os.access(path, os.W_OK):
            raise KlinkError(not_writable(path, delegated))
    if version == "v2":
        check_v2_move(delegated)


def not_writable(path: Path, delegated: Path) -> str:
    user = user_name()
    return (f"--tm-cgroup: {path} is not writable by user {user}; an admin delegates the group with "
            f"`sudo chown -R {user} {delegated}`")


def check_v2_move(delegated: Path) -> None:
    """cgroup v2 lets a process move only by writing the cgroup.procs of the nearest group that holds both
    where it is and where it goes, and the TaskManager starts where klinkctl is."""
    mount = delegated
    while not os.path.ismount(mount) and mount != mount.parent:
        mount = mount.parent
    here = next(line[3:] for line in SELF_CGROUP.read_text().splitlines() if line.startswith("0::"))
    common = os.path.commonpath(["/" + str(delegated.relative_to(mount)), here])
    procs = mount / common.lstrip("/") / "cgroup.procs"
    if not os.access(procs, os.W_OK):
        raise KlinkError(f"--tm-cgroup: cgroup v2 moves the TaskManager into {delegated} through {procs}, which "
                         f"user {user_name()} may not write; run klinkctl from a group inside {delegated}'s "
                         f"delegated subtree (e.g. under `systemd-run --user --scope -p Delegate=yes`)")


def user_name() -> str:
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:  # a uid without a passwd entry
        return str(os.geteuid())


def release_cpu_quota_group(name: str, delegated: Path | None = None, subgroups: Iterable[str] = ()) -> None:
    """Removes the group, and first the given subgroups of it (cpu_quota_subgroup's), once their processes are
    gone (best effort: a group still in use stays). Nothing else: only groups klinkctl made are named."""
    candidates = [delegated / name] if delegated else [CGROUP_ROOT / name, CGROUP_ROOT / "cpu" / name]
    for group in candidates:
        for path in [*(group / sub for sub in subgroups), group]:
            try:
                path.rmdir()
            except OSError:
                pass


def in_group(argv: list[str], procs: Path | None) -> list[str]:
    """argv started inside the cgroup whose `cgroup.procs` is given (its children stay in it); argv if None."""
    if procs is None:
        return argv
    return ["sh", "-c", 'echo $$ > "$1" && shift && exec "$@"', "klink-cpu-quota", str(procs), *argv]
