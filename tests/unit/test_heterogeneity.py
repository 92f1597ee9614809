"""--tm-quota (a CPU cap for single TaskManagers, each in its own cgroup nested in the --tm-cpu-quota one) and
--tm-interference (a CPU hog beside single TaskManagers): parsing, validation, the groups, the hog; `up`'s one-line
refusals also for --tm-link-rate (the rest of it: test_tm_link_rate.py)."""

import os
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from klinkctl import cpus
from klinkctl.cli import main
from klinkctl.errors import KlinkError
from klinkctl.run.bench import write_resolved_config
from klinkctl.run.config import RunSpec
from klinkctl.stack import compose, flink, hog, interference
from klinkctl.stack.spec import StackSpec


def spec(**overrides) -> StackSpec:
    return StackSpec.build(**{"state_dir": Path("/tmp/state"), "taskmanagers": 3, **overrides})


def test_values_are_read_per_taskmanager_and_recorded_one_way():
    valid = spec(taskmanager_quotas=" 3=.25, 2=0.5", taskmanager_interference="1=1")
    assert valid.quota_of == {2: 0.5, 3: 0.25} and valid.hog_of == {1: 1.0}
    assert (valid.taskmanager_quotas, valid.taskmanager_interference) == ("2=0.5,3=0.25", "1=1.0")
    assert valid.taskmanager_subgroups == ["taskmanager-1", "taskmanager-2", "taskmanager-3"]
    assert StackSpec.from_dict(valid.to_dict()) == valid
    assert spec().quota_of == spec().hog_of == {} and spec().taskmanager_subgroups == []
    assert spec(taskmanager_interference="2=0.5").taskmanager_subgroups == []  # a hog alone needs no group


@pytest.mark.parametrize("overrides, message", [
    ({"taskmanager_quotas": "4=0.5"},
     "--tm-quota names taskmanager-4, but there are taskmanager-1..3 (--taskmanagers 3)"),
    ({"taskmanager_quotas": "0=0.5"}, "--tm-quota names taskmanager-0"),
    ({"taskmanager_interference": "-1=0.5"}, "--tm-interference names taskmanager--1"),
    ({"taskmanager_quotas": "2=0.5,2=0.3"}, "--tm-quota gives taskmanager-2 twice"),
    ({"taskmanager_interference": "1=0.1, 1=0.2"}, "--tm-interference gives taskmanager-1 twice"),
    ({"taskmanager_quotas": "2=0"}, "--tm-quota 2=0: a TaskManager's quota must be between 0.1 cores"),
    ({"taskmanager_quotas": "2=-1"}, "--tm-quota 2=-1: a TaskManager's quota must be between 0.1 cores"),
    ({"taskmanager_quotas": "2=0.05"}, "kernel's smallest: 1 ms per 10 ms period"),
    ({"taskmanager_quotas": f"2={(os.cpu_count() or 1) + 0.5}"}, f"and this machine's {os.cpu_count()} cores"),
    ({"taskmanager_quotas": "2=0.5", "taskmanager_cpu_quota": 0.4}, "--tm-quota 2=0.5 is more than --tm-cpu-quota 0.4"),
    ({"taskmanager_interference": "1=0"}, "--tm-interference 1=0: the hog's share of one core must be more than 0"),
    ({"taskmanager_interference": "1=1.5"}, "and at most 1"),
    ({"taskmanager_interference": "1=nan"}, "--tm-interference must be TaskManager=value pairs like 2=0.5"),
    ({"taskmanager_quotas": "2"}, "--tm-quota must be TaskManager=value pairs"),
    ({"taskmanager_quotas": "2=0.5,"}, "--tm-quota must be TaskManager=value pairs"),
    ({"taskmanager_quotas": "two=0.5"}, "--tm-quota must be TaskManager=value pairs"),
])
def test_bad_values_are_refused_naming_the_option(overrides, message):
    with pytest.raises(KlinkError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        spec(**overrides)


def test_a_recorded_quota_beyond_this_machine_still_loads_for_down():
    record = spec().to_dict() | {"taskmanager_quotas": "2=4096.0"}
    assert StackSpec.from_dict(record).quota_of == {2: 4096.0}


@pytest.mark.parametrize("args", [["--tm-quota", "3=0.5"], ["--tm-interference", "1=2"],
                                  ["--tm-quota", "1=0.2,1=0.3"], ["--tm-quota", "1=0"], ["--tm-link-rate", "3=20mbit"],
                                  ["--tm-link-rate", "2=20"], ["--tm-link-rate", "2=0kbit"]])
def test_up_refuses_in_one_line_before_anything_starts(tmp_path, args):
    state = tmp_path / "state"
    result = CliRunner().invoke(main, ["up", "--state-dir", str(state), "--taskmanagers", "2", *args])
    assert result.exit_code == KlinkError.exit_code
    assert len(result.output.strip().splitlines()) == 1 and result.output.startswith(f"error: {args[0]}")
    assert not state.exists()


def test_compose_refuses_interference_before_it_looks_for_docker(tmp_path, monkeypatch):
    monkeypatch.setattr(compose, "docker_client", lambda: pytest.fail("docker was asked"))
    backend = compose.ComposeBackend(tmp_path)
    with pytest.raises(KlinkError, match="^--tm-interference: the compose backend cannot honour it"):
        backend.up(spec(taskmanager_quotas="1=0.5", taskmanager_interference="2=0.5", state_dir=tmp_path))


def test_the_run_config_shows_them(tmp_path):
    stack = spec(state_dir=tmp_path, taskmanager_quotas="2=0.5", taskmanager_interference="1=0.3")
    write_resolved_config(tmp_path, "run-1", RunSpec(), stack)
    recorded = yaml.safe_load((tmp_path / "config.yaml").read_text())["stack"]
    assert (recorded["taskmanager_quotas"], recorded["taskmanager_interference"]) == ("2=0.5", "1=0.3")


# --- the groups: each TaskManager its own, nested in the all-TaskManager group -------------------------------

@pytest.fixture
def v1(tmp_path, monkeypatch):
    monkeypatch.setattr(cpus, "CGROUP_ROOT", tmp_path)
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    return tmp_path / "cpu"


def quota_us(group: Path) -> int:
    return int((group / "cpu.cfs_quota_us").read_text())


def test_with_tm_quota_every_taskmanager_has_a_group_inside_the_shared_one(v1, tmp_path):
    stack = spec(state_dir=tmp_path, taskmanagers=2, taskmanager_quotas="2=0.2")
    first, second = (flink.taskmanager_group(stack, i) for i in (1, 2))
    outer = v1 / stack.taskmanager_cgroup
    assert (first, second) == (outer / "taskmanager-1" / "cgroup.procs", outer / "taskmanager-2" / "cgroup.procs")
    assert (quota_us(outer), quota_us(first.parent), quota_us(second.parent)) == (-1, -1, 2000)
    assert (second.parent / "cpu.cfs_period_us").read_text() == "10000\n"
    for file in [path for path in outer.rglob("*") if path.is_file()]:
        file.unlink()  # a cgroup's files go with it; these stand-ins would keep the directories
    flink.release_taskmanager_groups(stack)
    assert not outer.exists() and sorted(v1.iterdir()) == [v1 / "cpu.cfs_quota_us"]


def test_tm_cpu_quota_caps_the_shared_group_and_without_tm_quota_holds_the_taskmanagers_itself(v1, tmp_path):
    both = spec(state_dir=tmp_path, taskmanagers=2, taskmanager_quotas="1=0.3", taskmanager_cpu_quota=0.5)
    assert quota_us(flink.taskmanager_group(both, 1).parent.parent) == 5000
    shared = spec(state_dir=tmp_path, taskmanagers=2, taskmanager_cpu_quota=0.5)
    assert flink.taskmanager_group(shared, 2) == v1 / shared.taskmanager_cgroup / "cgroup.procs"
    assert flink.taskmanager_group(spec(state_dir=tmp_path, taskmanager_interference="1=0.5"), 1) is None


def test_a_v2_subgroup_enables_cpu_for_the_children_of_its_group(tmp_path, monkeypatch):
    monkeypatch.setattr(cpus, "CGROUP_ROOT", tmp_path)
    for directory in (tmp_path, tmp_path / "outer"):
        directory.mkdir(exist_ok=True)
        (directory / "cgroup.controllers").write_text("cpu memory\n")
        (directory / "cgroup.subtree_control").write_text("cpu\n" if directory == tmp_path else "")
    outer = cpus.cpu_quota_group("outer", None, "--tm-quota")
    inner = cpus.cpu_quota_subgroup(outer, "taskmanager-2", 0.25, "--tm-quota")
    assert (tmp_path / "outer" / "cpu.max").read_text() == "max 10000\n"
    assert (tmp_path / "outer" / "cgroup.subtree_control").read_text() == "+cpu\n"
    assert (inner.parent / "cpu.max").read_text() == "2500 10000\n"


# --- the hog --------------------------------------------------------------------------------------------------

def test_the_hog_runs_where_its_taskmanager_runs_and_names_klinkctl(v1, tmp_path, monkeypatch):
    started = {}
    monkeypatch.setattr(interference, "spawn", lambda name, argv, env, log: started.update(name=name, argv=argv))
    stack = spec(state_dir=tmp_path, taskmanagers=2, taskmanager_quotas="1=0.5", taskmanager_interference="1=0.3",
                 taskmanager_cpus="0")
    interference.start_hogs(stack)
    argv = started["argv"]
    assert started["name"] == "interference-1" and argv[:3] == ["taskset", "-c", "0"]
    assert str(v1 / stack.taskmanager_cgroup / "taskmanager-1" / "cgroup.procs") in argv
    assert argv[-6:] == [sys.executable, str(interference.HOG_SCRIPT), "--fraction", "0.3", "--beside",
                         "taskmanager-1"]
    assert "klinkctl" in str(interference.HOG_SCRIPT)  # what ../shared/tools/leftovers looks for
    assert interference.describe(stack, "interference-1") == "CPU hog: 0.3 of a core beside taskmanager-1"
    assert interference.describe(stack, "taskmanager-1") is None


def test_the_hog_burns_about_its_fraction_of_one_core():
    before, start = time.process_time(), time.monotonic()
    hog.burn(0.3, seconds=0.6)
    used = (time.process_time() - before) / (time.monotonic() - start)
    assert 0.1 < used < 0.45  # loose: this machine is shared


def test_the_hog_refuses_a_fraction_outside_zero_to_one(capsys):
    with pytest.raises(SystemExit):
        hog.main(["--fraction", "1.5"])
    assert "--fraction must be in (0, 1]" in capsys.readouterr().err
