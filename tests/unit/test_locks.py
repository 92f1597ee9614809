"""One klinkctl per stack and per sweep directory: the second is refused in one line naming the first."""

import subprocess
import sys
import textwrap

import pytest

from klinkctl import locks
from klinkctl.errors import KlinkError

HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from klinkctl import locks
    locks.hold(Path(sys.argv[1]), "the stack")
    print("held", flush=True)
    time.sleep(30)
""")


@pytest.fixture
def held_elsewhere(tmp_path):
    path = tmp_path / locks.STACK_LOCK
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), "bench"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    yield path, holder
    holder.kill()
    holder.wait()


def test_a_second_holder_is_refused_with_the_first_ones_pid(held_elsewhere):
    path, holder = held_elsewhere
    with pytest.raises(KlinkError) as refused:
        locks.hold(path, "the stack in /x")
    message = str(refused.value)
    assert "\n" not in message and f"pid {holder.pid}" in message and "the stack in /x" in message


def test_a_killed_holder_releases_the_lock(held_elsewhere):
    path, holder = held_elsewhere
    holder.kill()
    holder.wait()
    locks.hold(path, "the stack")
    locks.release(path)


def test_holding_twice_in_one_process_is_fine(tmp_path):
    path = tmp_path / "x.lock"
    locks.hold(path, "x")
    locks.hold(path, "x")
    locks.release(path)


def test_a_second_resume_of_a_running_sweep_is_refused(tmp_path):
    from click.testing import CliRunner

    from klinkctl.cli import main
    from klinkctl.run import sweep_directory, sweep_plan
    from tests.unit.test_sweep import GRID_2X3, sweep_file

    sweep = sweep_directory.create_sweep(*sweep_plan.read_sweep_file(sweep_file(tmp_path, GRID_2X3)), tmp_path / "results")
    lock = sweep.directory / locks.SWEEP_LOCK
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        result = CliRunner().invoke(main, ["sweep", "--resume", str(sweep.directory),
                                           "--state-dir", str(tmp_path / "state")])
        assert result.exit_code == 2
        assert f"sweep {sweep.directory} is in use by pid {holder.pid}" in result.output
        assert not (tmp_path / "state").exists()  # refused before any stack was looked for
    finally:
        holder.kill()
        holder.wait()
