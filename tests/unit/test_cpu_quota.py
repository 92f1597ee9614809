"""--tm-cpu-quota: a cgroup caps the TaskManagers' CPU time (v1 or v2), entered before the JVM starts."""

import subprocess

import pytest

from klinkctl import cpus
from klinkctl.errors import KlinkError
from klinkctl.stack.spec import StackSpec


def test_a_v2_group_gets_cpu_max_over_a_10_ms_period(tmp_path, monkeypatch):
    monkeypatch.setattr(cpus, "CGROUP_ROOT", tmp_path)
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory\n")
    (tmp_path / "cgroup.subtree_control").write_text("cpu memory\n")
    procs = cpus.cpu_quota_group("klink-x-taskmanagers", 0.4, "--tm-cpu-quota")
    assert procs == tmp_path / "klink-x-taskmanagers" / "cgroup.procs"
    assert (procs.parent / "cpu.max").read_text() == "4000 10000\n"


def test_a_v1_group_gets_period_and_quota(tmp_path, monkeypatch):
    monkeypatch.setattr(cpus, "CGROUP_ROOT", tmp_path)
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    procs = cpus.cpu_quota_group("g", 1.5, "--tm-cpu-quota")
    assert (procs.parent / "cpu.cfs_period_us").read_text() == "10000\n"
    assert (procs.parent / "cpu.cfs_quota_us").read_text() == "15000\n"


def test_without_a_cpu_controller_the_error_says_what_to_use_instead(tmp_path, monkeypatch):
    monkeypatch.setattr(cpus, "CGROUP_ROOT", tmp_path)
    with pytest.raises(KlinkError, match="needs the cgroup cpu controller.*use --tm-cpus"):
        cpus.cpu_quota_group("g", 0.5, "--tm-cpu-quota")
    (tmp_path / "cgroup.controllers").write_text("memory\n")
    (tmp_path / "cgroup.subtree_control").write_text("memory\n")
    with pytest.raises(KlinkError, match=r"echo \+cpu"):
        cpus.cpu_quota_group("g", 0.5, "--tm-cpu-quota")


def test_the_command_enters_the_group_itself_and_then_becomes_the_component(tmp_path):
    procs = tmp_path / "cgroup.procs"
    result = subprocess.run(cpus.in_group(["sh", "-c", "echo $$"], procs), capture_output=True, text=True, check=True)
    assert procs.read_text().strip() == result.stdout.strip()  # exec: the pid written is the component's
    assert cpus.in_group(["java"], None) == ["java"]


def test_a_quota_beyond_the_machine_is_refused(tmp_path):
    with pytest.raises(KlinkError, match="--tm-cpu-quota must be between 0"):
        StackSpec(state_dir=tmp_path, taskmanager_cpu_quota=999).validate()
    assert StackSpec(state_dir=tmp_path, taskmanager_cpu_quota=0.5).validate().taskmanager_cgroup.startswith("klink-")
