"""Least privilege for real (issue 20, item 6): a non-root user with only the capability a feature needs, made
with setpriv (util-linux) from root. What klinkctl concludes must match what the kernel then allows."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

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


@pytest.fixture
def readable_privileges():
    """klinkctl's capability check alone, where another user can read it (the clone may sit in a 0700 dir)."""
    directory = Path(tempfile.mkdtemp(prefix="klink-privileges-"))
    directory.chmod(0o755)
    package = directory / "klinkctl"
    package.mkdir()
    for name in ("__init__.py", "privileges.py", "errors.py"):
        (package / name).write_text((REPO / "klinkctl" / name).read_text() if name != "__init__.py" else "")
    yield directory
    shutil.rmtree(directory)


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
    grant = [f"--inh-caps={capabilities}", f"--ambient-caps={capabilities}"] if capabilities else []
    done = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *grant,
                           SYSTEM_PYTHON, "-c", RENICE_AND_BACK], capture_output=True, text=True, timeout=60,
                          cwd=readable_privileges, env={"PATH": os.environ.get("PATH", ""),
                                                        "PYTHONPATH": str(readable_privileges)}, check=False)
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
