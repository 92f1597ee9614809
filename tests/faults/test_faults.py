"""A run that meets a fault ends cleanly (issue 20, item 4): each test starts a YSB run on a stack of this module's
own, breaks one thing while windows fire, then checks what the run recorded, that no process of the run is left,
and that the stack can be brought back. docs/reliability.md has the table of these faults.

The module's tests share one stack (starting one costs ~30 s): a test that kills a part of it brings it back
itself (`assert_comes_back`, as it checks), and a test that left it broken (failed half-way) gets it started
afresh for the next, so every test starts on a running, healthy stack."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import psutil
import pytest

from tests.integration.conftest import PORTS_PER_STACK, Klinkctl, free_ports

pytestmark = pytest.mark.integration

UP_OPTIONS = ("--tm-memory", "1024m", "--jm-memory", "768m")


def start_bench(cli, results: Path, duration: str = "60s") -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "klinkctl", "bench", "ysb", "--results", str(results),
                             "--state-dir", str(cli.state_dir), "--rate", "500", "--duration", duration,
                             "--warmup", "1s", "--window", "1s"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_firings(results: Path, count: int, timeout_s: float = 90) -> Path:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for latency in results.glob("*/latency.csv"):
            if len(latency.read_text().splitlines()) > count:
                return latency.parent
        time.sleep(0.5)
    raise AssertionError("no windows fired in time")


def component_pid(cli, name: str) -> int:
    components = json.loads((cli.state_dir / "stack.json").read_text())["components"]
    return next(c["pid"] for c in components if c["name"] == name)


def run_processes(run_dir: Path) -> list[psutil.Process]:
    """Processes started for this run (the generator carries the run directory on its command line)."""
    return [p for p in psutil.process_iter(["cmdline"]) if str(run_dir) in " ".join(p.info["cmdline"] or [])]


def cmdline_of(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:  # ended meanwhile
        return []


def running_jobs(cli) -> list[str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{cli.ports[3]}/jobs/overview", timeout=5) as response:
            return [job["name"] for job in json.loads(response.read())["jobs"] if job["state"] == "RUNNING"]
    except (OSError, ValueError, KeyError):
        return []


def ended(process: subprocess.Popen, timeout_s: float = 180) -> tuple[str, str]:
    stdout, stderr = process.communicate(timeout=timeout_s)
    assert "Traceback" not in stderr, stderr
    return stdout, stderr


def summary_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def assert_comes_back(cli) -> None:
    assert cli("down").returncode == 0
    leftovers = [p for p in psutil.process_iter(["cmdline"]) if str(cli.state_dir) in " ".join(p.info["cmdline"] or [])]
    assert leftovers == []
    again = cli.up(*UP_OPTIONS)
    assert again.returncode == 0, again.stderr


@pytest.fixture(scope="module")
def module_stack(tmp_path_factory):
    cli = Klinkctl(tmp_path_factory.mktemp("klink-faults"), free_ports(PORTS_PER_STACK))
    yield cli
    cli("down")  # whatever the last test left running is stopped, even when it failed half-way


@pytest.fixture
def stack(module_stack):
    """The module's stack, running with every component healthy (`klinkctl status` exits 0 only then); after the
    test, a bench it left running (it failed before the bench ended) is stopped, so that it cannot disturb the next."""
    cli = module_stack
    if cli("status").returncode != 0:  # not started yet, or left broken by a test that failed half-way
        cli("down")
        result = cli.up(*UP_OPTIONS)
        assert result.returncode == 0, result.stderr
    yield cli
    benches = [p for p in psutil.Process().children() if "klinkctl" in cmdline_of(p)]
    for bench in benches:
        bench.terminate()  # SIGTERM: the run ends interrupted, stopping its generator and job
    for bench in psutil.wait_procs(benches, timeout=180)[1]:
        bench.kill()  # what it left, the next run on the stack stops (test_a_killed_bench_leaves_nothing...)


@pytest.mark.parametrize("component", ["taskmanager-1", "jobmanager", "kafka"])
def test_a_killed_component_fails_the_run_with_its_rows_and_a_reason(stack, tmp_path, component):
    process = start_bench(stack, tmp_path)
    run_dir = wait_for_firings(tmp_path, 2)
    os.killpg(component_pid(stack, component), signal.SIGKILL)  # the component's whole process group
    ended(process)
    assert process.returncode != 0
    summary = summary_of(run_dir)
    assert summary["status"] == "failed" and summary["reason"], summary
    assert len(pd.read_csv(run_dir / "latency.csv")) >= 2
    if component == "kafka":  # not waited out for the dead broker's answers
        assert "deleting the run's topics: skipped, the Kafka broker had stopped" in summary["teardown_problems"]
    assert run_processes(run_dir) == []
    assert_comes_back(stack)


def test_a_killed_bench_leaves_nothing_the_next_run_does_not_clean_up(stack, tmp_path):
    first = start_bench(stack, tmp_path / "first")
    run_dir = wait_for_firings(tmp_path / "first", 2)
    first.kill()
    first.wait()
    assert run_processes(run_dir) != [] and run_dir.name in running_jobs(stack)  # what the kill left behind
    second = start_bench(stack, tmp_path / "second", duration="5s")
    _, stderr = ended(second)
    assert second.returncode == 0, stderr
    assert run_processes(run_dir) == [] and run_dir.name not in running_jobs(stack)


def test_two_interrupts_still_end_with_a_summary_and_nothing_running(stack, tmp_path):
    process = start_bench(stack, tmp_path)
    run_dir = wait_for_firings(tmp_path, 2)
    process.send_signal(signal.SIGINT)
    time.sleep(1.0)  # the run is tearing down now
    process.send_signal(signal.SIGINT)
    ended(process)
    assert process.returncode != 0
    assert summary_of(run_dir)["status"] == "interrupted"
    assert run_processes(run_dir) == [] and run_dir.name not in running_jobs(stack)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_a_full_disk_ends_the_run_in_one_line_and_stops_everything(stack, tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)], check=True)
    try:
        (disk / "filler").write_bytes(b"\0" * (4 * 1024 * 1024 - 96 * 1024))
        process = start_bench(stack, disk / "results", duration="40s")
        _, stderr = ended(process)
        assert process.returncode != 0
        assert stderr.strip().splitlines()[-1].startswith("error:")
        run_dirs = list((disk / "results").iterdir())
        assert len(run_dirs) == 1 and run_processes(run_dirs[0]) == []
        assert running_jobs(stack) == []
    finally:
        subprocess.run(["umount", str(disk)], check=False)
