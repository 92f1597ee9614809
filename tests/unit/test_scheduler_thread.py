"""The agent's scheduler thread is set to the top nice value by klinkctl (klinkctl.stack.scheduler_thread)."""

import os
import subprocess
import sys

import pytest

from klinkctl.stack import scheduler_thread

NAMED_LIKE_THE_AGENT = ("import sys, time; open('/proc/self/comm', 'w').write(sys.argv[1]); print('named', flush=True); "
                        "time.sleep(60)")


@pytest.fixture
def stand_in_taskmanager():
    """A process whose main thread is named like the agent's scheduler thread (its tid is its pid)."""
    proc = subprocess.Popen([sys.executable, "-c", NAMED_LIKE_THE_AGENT, scheduler_thread.SCHEDULER_THREAD],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "named"
    yield proc.pid
    proc.kill()
    proc.wait()


def test_the_scheduler_thread_is_found_by_name(stand_in_taskmanager):
    assert scheduler_thread.scheduler_tids(stand_in_taskmanager) == [stand_in_taskmanager]
    assert scheduler_thread.scheduler_tids(os.getpid()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="lowering a nice value needs CAP_SYS_NICE (root here)")
def test_the_scheduler_thread_gets_the_top_nice_value(stand_in_taskmanager):
    assert os.getpriority(os.PRIO_PROCESS, stand_in_taskmanager) == 0
    nices = scheduler_thread.prioritize({"taskmanager-1": stand_in_taskmanager, "taskmanager-2": os.getpid()})
    assert nices == {"taskmanager-1": scheduler_thread.SCHEDULER_NICE, "taskmanager-2": None}
    assert os.getpriority(os.PRIO_PROCESS, stand_in_taskmanager) == scheduler_thread.SCHEDULER_NICE


def test_a_taskmanager_that_is_gone_has_no_scheduler_thread():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert scheduler_thread.prioritize({"taskmanager-1": proc.pid}) == {"taskmanager-1": None}
