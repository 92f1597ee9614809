"""Least privilege for real (issue 20, item 6): a non-root user with only the capability a feature needs, made
with setpriv (util-linux) from root. What klinkctl concludes must match what the kernel then allows."""

from __future__ import annotations

import importlib.util
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from klinkctl import jit
from klinkctl.netem import control
from klinkctl.netem.links import on_host

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="granting single capabilities needs root")
NOBODY = 65534
REPO = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"


def as_root_with_only(capabilities: str, code: str) -> subprocess.CompletedProcess:
    """Runs python `code` as root whose capabilities are cut down to `capabilities` (e.g. "+net_admin", or ""
    for none), as in a container that was granted only those."""
    return subprocess.run(["setpriv", f"--bounding-set=-all{',' + capabilities if capabilities else ''}",
                           "--inh-caps=-all", sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=REPO, check=False)


#: What the stack spec's checks import besides the standard library (another user runs them with the system
#: Python, the same 3.11 as the venv's, which cannot read the venv when the clone sits in a 0700 dir).
SPEC_DEPENDENCIES = ("pydantic", "pydantic_core", "annotated_types", "typing_extensions", "typing_inspection", "click")


@pytest.fixture
def readable_privileges():
    """klinkctl's capability and cgroup checks (and the stack spec that runs them, with its third-party
    packages), copied where another user can read them."""
    directory = Path(tempfile.mkdtemp(prefix="klink-privileges-"))
    directory.chmod(0o755)
    # the whole package (source only): the spec's imports grow, and a list of its modules here went stale
    shutil.copytree(REPO / "klinkctl", directory / "klinkctl", ignore=shutil.ignore_patterns("__pycache__"))
    for package in SPEC_DEPENDENCIES:
        found = importlib.util.find_spec(package)
        if found.submodule_search_locations:
            shutil.copytree(next(iter(found.submodule_search_locations)), directory / package)
        else:
            shutil.copy(found.origin, directory)
    for path in directory.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644 | (path.stat().st_mode & 0o111))
    yield directory
    shutil.rmtree(directory)


def as_user(uid: int, code: str, readable: Path, *args: str,
            grant: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """Runs python `code` as user `uid` with no capabilities but those `grant`ed (setpriv options)."""
    return subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *grant,
                           SYSTEM_PYTHON, "-c", code, *args], capture_output=True, text=True, timeout=60,
                          cwd=readable, env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(readable)},
                          check=False)


RENICE_AND_BACK = """
import os
from klinkctl import privileges
print(privileges.children_get("CAP_SYS_NICE"))
os.setpriority(os.PRIO_PROCESS, 0, 19)
try:
    os.setpriority(os.PRIO_PROCESS, 0, 0)
    print("raised back")
except PermissionError:
    print("refused")
"""


@pytest.mark.parametrize("capabilities, expected", [("+sys_nice", ["True", "raised back"]), ("", ["False", "refused"])])
def test_cap_sys_nice_is_detected_exactly_when_a_demoted_thread_can_be_raised_back(readable_privileges, capabilities,
                                                                                   expected):
    """Another user, with the capability in its ambient set or without it."""
    grant = (f"--inh-caps={capabilities}", f"--ambient-caps={capabilities}") if capabilities else ()
    done = as_user(NOBODY, RENICE_AND_BACK, readable_privileges, grant=grant)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == expected


@pytest.fixture
def veth():
    """A veth pair this test creates (and removes): the only interface it touches."""
    name = f"klp{uuid.uuid4().hex[:8]}"
    assert on_host(["ip", "link", "add", name, "type", "veth", "peer", "name", f"{name}p"])[0] == 0
    on_host(["ip", "link", "set", name, "up"])
    yield name
    on_host(["ip", "link", "del", name])


def root_qdisc(device: str) -> dict:
    return next(q for q in json.loads(on_host(["tc", "-j", "qdisc", "show", "dev", device])[1]) if q.get("root"))


def test_net_admin_alone_applies_a_qdisc_to_a_named_interface_and_clear_restores_the_previous_one(tmp_path, veth):
    assert on_host(["tc", "qdisc", "replace", "dev", veth, "root", "handle", "7:", "pfifo", "limit", "77"])[0] == 0
    control_call = "from klinkctl.netem import control; print(control.{})".format
    apply = control_call(f"apply_local({str(tmp_path)!r}, {veth!r}, ['pfifo', 'limit', '5'], None)")
    refused = as_root_with_only("", apply)
    assert refused.returncode != 0 and "netem on a host interface needs CAP_NET_ADMIN" in refused.stderr
    assert root_qdisc(veth)["options"]["limit"] == 77  # untouched
    applied = as_root_with_only("+net_admin", apply)
    assert applied.returncode == 0, applied.stderr
    assert root_qdisc(veth)["options"]["limit"] == 5
    cleared = as_root_with_only("+net_admin", control_call(f"clear({str(tmp_path)!r})"))
    assert cleared.returncode == 0, cleared.stderr
    assert "previous qdisc pfifo 7: restored" in cleared.stdout
    restored = root_qdisc(veth)
    assert (restored["kind"], restored["handle"], restored["options"]) == ("pfifo", "7:", {"limit": 77})


def test_clear_gives_an_interface_its_kernel_default_back(tmp_path, veth):
    before = root_qdisc(veth)
    control.apply_local(tmp_path, veth, ["pfifo", "limit", "5"], None)
    assert root_qdisc(veth)["kind"] == "pfifo"
    assert control.clear(tmp_path) == [f"{veth} ({veth}, the kernel's default qdisc back)"]
    assert root_qdisc(veth)["kind"] == before["kind"]


# --- --tm-cpu-quota without root, in a cgroup (v1) an admin delegated to the user ------------------------

CPU_HIERARCHY = Path("/sys/fs/cgroup/cpu")
needs_v1_cpu = pytest.mark.skipif(not (CPU_HIERARCHY / "cpu.cfs_quota_us").is_file(),
                                  reason="needs the cgroup v1 cpu hierarchy at /sys/fs/cgroup/cpu")


@pytest.fixture
def throwaway_uid() -> int:
    """A user id no account has: a user with nothing (no groups, home or capabilities) and nothing to remove."""
    taken = {entry.pw_uid for entry in pwd.getpwall()}
    return next(uid for uid in range(54321, 65000) if uid not in taken)


@pytest.fixture
def lab_cgroup():
    """A cpu cgroup this test makes (not yet delegated); removed at the end with the groups and processes
    left in it."""
    lab = CPU_HIERARCHY / f"klink-test-{uuid.uuid4().hex[:8]}"
    lab.mkdir()
    yield lab
    for group in [child for child in lab.iterdir() if child.is_dir()] + [lab]:
        for pid in (group / "cgroup.procs").read_text().split():
            os.kill(int(pid), signal.SIGKILL)
        for _ in range(50):  # a killed process leaves its group a moment later
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)


def delegate(group: Path, uid: int) -> None:
    """What an admin does: `chown -R user group`."""
    for path in [group, *group.iterdir()]:
        os.chown(path, uid, -1)


#: `up` and `down` at the cgroup level as the user: the spec's checks, the group, a process started in it.
QUOTA_UP = """
import subprocess, sys
from pathlib import Path
from klinkctl import cpus
from klinkctl.errors import KlinkError
from klinkctl.stack.spec import StackSpec
try:
    spec = StackSpec(state_dir=Path(sys.argv[1]), taskmanager_cpu_quota=0.3, taskmanager_cgroup_parent=sys.argv[2])
except KlinkError as error:
    sys.exit(f"error: {error}")
procs = cpus.cpu_quota_group(spec.taskmanager_cgroup, spec.taskmanager_cpu_quota, "--tm-cpu-quota",
                             spec.delegated_cgroup)
taskmanager = subprocess.Popen(cpus.in_group(["sleep", "120"], procs), start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(procs.parent, taskmanager.pid)
"""
QUOTA_DOWN = """
import sys
from pathlib import Path
from klinkctl import cpus
from klinkctl.stack.spec import StackSpec
spec = StackSpec.from_dict({"state_dir": sys.argv[1], "taskmanager_cpu_quota": 0.3,  # as `down` reads its record
                            "taskmanager_cgroup_parent": sys.argv[2]})
cpus.release_cpu_quota_group(spec.taskmanager_cgroup, spec.delegated_cgroup)
"""


def in_group(procs: Path, pid: int, expected: bool = True) -> bool:
    """Whether `pid` is in the group, once it has had 10 s to enter (or leave) it."""
    deadline = time.monotonic() + 10
    while (str(pid) in procs.read_text().split()) != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    return str(pid) in procs.read_text().split()


@needs_v1_cpu
def test_a_user_makes_and_enters_the_quota_group_inside_the_cgroup_delegated_to_it(readable_privileges, lab_cgroup,
                                                                                   throwaway_uid, tmp_path):
    delegate(lab_cgroup, throwaway_uid)
    up = as_user(throwaway_uid, QUOTA_UP, readable_privileges, str(tmp_path), str(lab_cgroup))
    assert up.returncode == 0, up.stderr
    group, pid = Path(up.stdout.split()[0]), int(up.stdout.split()[1])
    assert group.parent == lab_cgroup and group.stat().st_uid == throwaway_uid
    assert (group / "cpu.cfs_quota_us").read_text() == "3000\n"
    assert (group / "cpu.cfs_period_us").read_text() == "10000\n"
    assert in_group(group / "cgroup.procs", pid)  # the command entered it itself, then became the process
    assert f":cpu:/{lab_cgroup.name}/{group.name}\n" in Path(f"/proc/{pid}/cgroup").read_text()
    os.kill(pid, signal.SIGKILL)
    assert not in_group(group / "cgroup.procs", pid, expected=False)
    down = as_user(throwaway_uid, QUOTA_DOWN, readable_privileges, str(tmp_path), str(lab_cgroup))
    assert down.returncode == 0, down.stderr
    assert not group.exists() and lab_cgroup.is_dir()  # only the group klinkctl made is gone


@needs_v1_cpu
def test_without_delegation_the_user_is_refused_in_one_line_with_nothing_made(readable_privileges, lab_cgroup,
                                                                              throwaway_uid, tmp_path):
    refused = as_user(throwaway_uid, QUOTA_UP, readable_privileges, str(tmp_path), str(lab_cgroup))
    assert refused.returncode != 0
    assert refused.stderr == (f"error: --tm-cgroup: {lab_cgroup} is not writable by user {throwaway_uid}; an admin "
                              f"delegates the group with `sudo chown -R {throwaway_uid} {lab_cgroup}`\n")
    assert not [child for child in lab_cgroup.iterdir() if child.is_dir()]
    memory = Path("/sys/fs/cgroup/memory")  # a cgroup, but of a hierarchy without the cpu controller
    if memory.is_dir():
        refused = as_user(throwaway_uid, QUOTA_UP, readable_privileges, str(tmp_path), str(memory))
        assert refused.stderr.startswith(f"error: --tm-cgroup {memory} is not a cgroup directory with the cpu ")


@needs_v1_cpu
def test_up_starts_the_taskmanager_in_a_group_inside_the_named_cgroup_and_down_removes_only_that(klinkctl_factory,
                                                                                                lab_cgroup):
    """The whole path through a real stack (as root here: the user's side is tested above without a JVM, since
    this machine's JDK, Python and jar cache sit in root's home)."""
    cli = klinkctl_factory()
    started = cli.up("--tm-cpu-quota", "0.5", "--tm-cgroup", str(lab_cgroup), "--tm-memory", "1024m",
                     "--jm-memory", "768m", "--tm-jit-cpu", "outside-quota")
    assert started.returncode == 0, started.stderr
    record = json.loads((cli.state_dir / "stack.json").read_text())
    assert record["spec"]["taskmanager_cgroup_parent"] == str(lab_cgroup)  # what `down` releases
    group, jit_group = sorted(child for child in lab_cgroup.iterdir() if child.is_dir())
    assert jit_group.name == group.name + "-jit"
    taskmanager = next(c["pid"] for c in record["components"] if c["name"] == "taskmanager-1")
    assert in_group(group / "cgroup.procs", taskmanager)
    assert (group / "cpu.cfs_quota_us").read_text() == "5000\n"
    # --tm-jit-cpu outside-quota: the compiler threads, and only they, in the uncapped group beside the quota's
    compilers = set(map(str, jit.compiler_threads_cpu_s(taskmanager)))
    assert compilers and set((jit_group / "tasks").read_text().split()) == compilers
    assert compilers.isdisjoint((group / "tasks").read_text().split())
    assert (jit_group / "cpu.cfs_quota_us").read_text() == "-1\n"
    stopped = cli("down")
    assert stopped.returncode == 0, stopped.stderr
    assert not group.exists() and not jit_group.exists() and lab_cgroup.is_dir()
