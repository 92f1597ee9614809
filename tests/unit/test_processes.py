import dataclasses
import os
import sys
import time

import psutil

from klinkctl.stack.processes import is_running, resource_usage, spawn, stop


def test_stop_ends_the_whole_process_group_including_children(tmp_path):
    # A parent that starts a child and ignores SIGTERM: stop() must escalate and take both down.
    script = "import signal, subprocess, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); " \
             "subprocess.Popen(['sleep', '300']); time.sleep(300)"
    managed = spawn("stubborn", [sys.executable, "-c", script], dict(os.environ), tmp_path / "out.log")
    time.sleep(0.5)
    child_pids = [c.pid for c in psutil.Process(managed.pid).children()]
    assert is_running(managed) and child_pids
    rss, uptime = resource_usage(managed)
    assert rss > 0 and uptime >= 0

    forced = stop(managed, grace_s=0.5)

    assert forced
    assert not is_running(managed)
    assert resource_usage(managed) is None
    assert not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
                   for pid in child_pids)


def test_a_reused_pid_is_not_mistaken_for_our_process(tmp_path):
    managed = spawn("sleeper", ["sleep", "30"], dict(os.environ), tmp_path / "out.log")
    impostor = dataclasses.replace(managed, create_time=managed.create_time - 1000)
    assert is_running(managed) and not is_running(impostor)
    assert stop(managed) is False  # SIGTERM was enough
