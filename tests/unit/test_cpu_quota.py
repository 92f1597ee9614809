"""--tm-cpu-quota: a cgroup caps the TaskManagers' CPU time (v1 or v2), entered before the JVM starts; with
--tm-cgroup, inside a cgroup delegated to the user."""

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from klinkctl import cpus
from klinkctl.cli import main
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
        StackSpec(state_dir=tmp_path, taskmanager_cpu_quota=999)
    assert StackSpec(state_dir=tmp_path, taskmanager_cpu_quota=0.5).taskmanager_cgroup.startswith("klink-")


def test_the_jit_leaves_the_quota_only_where_there_is_one_and_only_on_cgroup_v1(tmp_path, monkeypatch):
    with pytest.raises(KlinkError, match="^--tm-jit-cpu outside-quota .*give --tm-cpu-quota or --tm-quota too$"):
        StackSpec(state_dir=tmp_path, taskmanager_jit_cpu="outside-quota")
    monkeypatch.setattr(cpus, "CGROUP_ROOT", tmp_path)
    (tmp_path / "cgroup.controllers").write_text("cpu\n")
    with pytest.raises(KlinkError, match="^--tm-jit-cpu outside-quota needs cgroup v1"):
        StackSpec(state_dir=tmp_path, taskmanager_cpu_quota=0.5, taskmanager_jit_cpu="outside-quota")
    (tmp_path / "cgroup.controllers").unlink()
    spec = StackSpec(state_dir=tmp_path, taskmanager_cpu_quota=0.5, taskmanager_jit_cpu="outside-quota")
    assert spec.jit_cgroup == spec.taskmanager_cgroup + "-jit"


def test_a_thread_that_ended_before_its_move_is_skipped(tmp_path, monkeypatch):
    written = []

    def write_text(path, text):
        if text == "2\n":
            raise ProcessLookupError
        written.append((path.name, text))

    monkeypatch.setattr(Path, "write_text", write_text)
    assert cpus.move_threads([1, 2, 3], tmp_path / "jit" / "cgroup.procs") == 2
    assert written == [("tasks", "1\n"), ("tasks", "3\n")]  # per thread (cgroup v1 `tasks`), not per process


# --- --tm-cgroup: the quota group inside a cgroup delegated to the user ---------------------------------

@pytest.fixture
def hierarchy(tmp_path, monkeypatch):
    """A stand-in cgroup root (which a delegated group must leave alone) and, inside it, the delegated 'lab'."""
    monkeypatch.setattr(cpus, "CGROUP_ROOT", tmp_path)
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    lab = tmp_path / "cpu" / "lab"
    lab.mkdir()
    (lab / "cpu.cfs_quota_us").write_text("-1\n")
    return lab


def v2_group(directory, subtree="cpu"):
    directory.mkdir(exist_ok=True)
    (directory / "cgroup.controllers").write_text("cpu memory\n")
    (directory / "cgroup.subtree_control").write_text(f"{subtree}\n")
    return directory


def refuse_writes_to(monkeypatch, *paths):
    """os.access as a user who may not write `paths` (the tests may run as root, who may write anything)."""
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) not in paths)


def test_a_delegated_v1_group_gets_the_quota_group_inside_it_and_nothing_elsewhere(hierarchy):
    before = sorted(hierarchy.parent.iterdir())
    procs = cpus.cpu_quota_group("klink-x-taskmanagers", 0.4, "--tm-cpu-quota", hierarchy)
    assert procs == hierarchy / "klink-x-taskmanagers" / "cgroup.procs"
    assert (procs.parent / "cpu.cfs_quota_us").read_text() == "4000\n"
    assert sorted(hierarchy.parent.iterdir()) == before


def test_a_delegated_v2_group_needs_cpu_enabled_for_its_children(tmp_path):
    lab = v2_group(tmp_path / "lab", subtree="memory")
    with pytest.raises(KlinkError, match=rf"echo \+cpu > {lab}/cgroup.subtree_control"):
        cpus.cpu_quota_group("g", 0.5, "--tm-cpu-quota", lab)
    v2_group(lab)
    assert (cpus.cpu_quota_group("g", 0.5, "--tm-cpu-quota", lab).parent / "cpu.max").read_text() == "5000 10000\n"


@pytest.mark.parametrize("files", [{}, {"cgroup.procs": ""}])  # a plain dir; a group of another controller (memory)
def test_a_directory_that_is_no_cpu_cgroup_is_refused(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(KlinkError, match=f"--tm-cgroup {tmp_path} is not a cgroup directory with the cpu controller"):
        cpus.check_delegated(tmp_path, "g")


def test_an_undelegated_group_is_refused_naming_the_file_and_the_chown_that_delegates_it(hierarchy, monkeypatch):
    refuse_writes_to(monkeypatch, hierarchy)
    with pytest.raises(KlinkError, match=rf"{hierarchy} is not writable by user \S+; an admin delegates the group "
                                         rf"with `sudo chown -R \S+ {hierarchy}`"):
        cpus.check_delegated(hierarchy, "g")
    group = hierarchy / "g"  # left by an earlier run of another user: its own files are checked
    group.mkdir()
    refuse_writes_to(monkeypatch, group / "cpu.cfs_quota_us")
    with pytest.raises(KlinkError, match=f"{group}/cpu.cfs_quota_us is not writable"):
        cpus.check_delegated(hierarchy, "g")


def test_v2_needs_the_procs_file_of_the_group_holding_both_klinkctl_and_the_delegated_one(tmp_path, monkeypatch):
    lab = v2_group(tmp_path / "lab")
    monkeypatch.setattr(os.path, "ismount", lambda path: Path(path) == tmp_path)
    monkeypatch.setattr(cpus, "SELF_CGROUP", tmp_path / "self")
    (tmp_path / "self").write_text("0::/lab/shell\n")
    refuse_writes_to(monkeypatch, tmp_path / "cgroup.procs")
    cpus.check_delegated(lab, "g")  # klinkctl runs inside lab: lab/cgroup.procs is what counts
    (tmp_path / "self").write_text("0::/user.slice/session-1.scope\n")
    with pytest.raises(KlinkError, match=rf"through {tmp_path}/cgroup.procs, which user \S+ may not .*systemd-run"):
        cpus.check_delegated(lab, "g")


def test_release_removes_only_the_group_in_the_delegated_one(hierarchy):
    for parent in (hierarchy, hierarchy.parent):
        (parent / "g").mkdir()
    cpus.release_cpu_quota_group("g", hierarchy)
    assert not (hierarchy / "g").exists() and (hierarchy.parent / "g").is_dir() and hierarchy.is_dir()


def test_the_spec_checks_the_delegated_group_and_records_it_for_down(hierarchy, tmp_path):
    with pytest.raises(KlinkError, match="give one of them too"):
        StackSpec(state_dir=tmp_path, taskmanager_cgroup_parent=str(hierarchy))
    spec = StackSpec(state_dir=tmp_path, taskmanager_cpu_quota=0.5, taskmanager_cgroup_parent=str(hierarchy))
    assert StackSpec.from_dict(spec.to_dict()).delegated_cgroup == hierarchy
    assert StackSpec(state_dir=tmp_path).delegated_cgroup is None


@pytest.mark.parametrize("args, message", [
    (["--tm-cgroup", "{lab}"],
     "error: --tm-cgroup names where the --tm-cpu-quota and --tm-quota groups go; give one of them too"),
    (["--tm-cgroup", "{plain}", "--tm-cpu-quota", "0.5"], "error: --tm-cgroup {plain} is not a cgroup directory"),
])
def test_up_refuses_a_bad_tm_cgroup_in_one_line_before_anything_starts(hierarchy, tmp_path, args, message):
    state, plain = tmp_path / "state", tmp_path / "plain"
    plain.mkdir()
    result = CliRunner().invoke(main, ["up", "--state-dir", str(state),
                                       *(arg.format(lab=hierarchy, plain=plain) for arg in args)])
    assert result.exit_code == KlinkError.exit_code
    assert len(result.output.strip().splitlines()) == 1  # no traceback
    assert result.output.startswith(message.format(plain=plain))
    assert not state.exists()


def test_up_points_at_the_option_when_the_compilers_share_the_quota(tmp_path):
    from klinkctl.stack.local import LocalBackend

    backend = LocalBackend(tmp_path)
    capped = StackSpec(state_dir=tmp_path, taskmanager_cpu_quota=0.5)
    backend._save(capped, [])
    assert "`--tm-jit-cpu outside-quota`" in backend.notes()[0]
    backend._save(capped.model_copy(update={"taskmanager_jit_cpu": "outside-quota"}), [])
    assert backend.notes() == []
    backend._save(StackSpec(state_dir=tmp_path), [])  # no quota, nothing to share
    assert backend.notes() == []
