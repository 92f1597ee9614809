"""Integration fixtures: a real local stack (Kafka + Flink) on free loopback ports in a temp state dir."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from klinkctl.stack.ports import port_is_free


def free_ports(count: int) -> list[int]:
    """Free loopback ports: any the OS gives, or with KLINK_TEST_PORTS=FIRST-LAST (e.g. 47100-47999: several people
    testing on one machine, each in a range of their own) only ports in that range."""
    if os.environ.get("KLINK_TEST_PORTS"):
        return _free_ports_in(count, *map(int, os.environ["KLINK_TEST_PORTS"].split("-")))
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


_GIVEN: set[int] = set()  # handed out in this session: a stack not started yet holds none of its ports


def _free_ports_in(count: int, first: int, last: int) -> list[int]:
    candidates = [port for port in range(first, last + 1) if port not in _GIVEN]
    random.shuffle(candidates)  # two sessions in one range rarely pick the same ports
    found = [port for port in candidates[:200] if port_is_free("127.0.0.1", port)][:count]
    assert len(found) == count, f"fewer than {count} free ports in KLINK_TEST_PORTS={first}-{last}"
    _GIVEN.update(found)
    return found


#: Kafka, its controller, the JobManager's RPC, Flink's REST and klinkctl's control channel (Klinkctl.port_options).
PORTS_PER_STACK = 5


@dataclass
class Klinkctl:
    """Runs the real `klinkctl` command line against one state dir and one set of ports."""

    state_dir: Path
    ports: list[int]

    @property
    def port_options(self) -> list[str]:
        kafka, controller, rpc, rest, control = self.ports
        return ["--kafka-port", str(kafka), "--kafka-controller-port", str(controller),
                "--rpc-port", str(rpc), "--rest-port", str(rest), "--control-port", str(control)]

    def __call__(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "klinkctl", *args, "--state-dir", str(self.state_dir)],
                              capture_output=True, text=True, timeout=timeout, check=False)

    def up(self, *extra: str) -> subprocess.CompletedProcess:
        return self("up", *self.port_options, *extra)


@pytest.fixture
def klinkctl_factory(tmp_path_factory):
    created: list[Klinkctl] = []

    def make() -> Klinkctl:
        cli = Klinkctl(tmp_path_factory.mktemp("klink-state"), free_ports(PORTS_PER_STACK))
        created.append(cli)
        return cli

    yield make
    for cli in created:  # whatever a test left running is stopped, even when it failed half-way
        cli("down")


@pytest.fixture(scope="session")
def running_stack(tmp_path_factory):
    """One stack with two TaskManagers shared by every test that needs a plain running stack, stopped at the end
    of the session: starting one per module cost ~30 s each. Tests must leave it as they found it (running, no
    job of theirs left); tests that change a stack (caps, kills, down) start their own with `klinkctl_factory`."""
    cli = Klinkctl(tmp_path_factory.mktemp("klink-stack"), free_ports(PORTS_PER_STACK))
    result = cli.up("--taskmanagers", "2", "--tm-memory", "1024m", "--jm-memory", "768m")
    assert result.returncode == 0, result.stderr
    yield cli
    cli("down")


def run_late_state_bench(stack, results: Path, workload: str, args: tuple[str, ...], late_state: str, *extra: str,
                         timeout: int) -> tuple[Path, dict]:
    """One completed late-event bench run (average, bigrams, lrb-segments) into the empty ``results``: its directory
    and the summary's ``late_state`` section."""
    result = stack("bench", workload, "--results", str(results), *args, "--late-state", late_state, *extra,
                   timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    (run_dir,) = results.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "completed", summary["reason"]
    return run_dir, summary["late_state"]


def cleaned_up_windows(report: dict) -> list[int]:
    """The windows AION cleaned up before the run ended: under a planned trigger only they had their last
    execution (the last at cleanup), so only their final results can be compared."""
    return [w["window_end"] for w in report["staleness"]["per_window"]]


def assert_aion_kept_late_windows_on_disk(stack, run_dir: Path, report: dict, windows: int, min_late: int) -> None:
    """AION's run: ``windows`` checked windows all exact, more than ``min_late`` late events accepted and
    re-executed, expired windows destaged to p-buckets under the TaskManager's io.tmp.dirs and the run id (each
    instance deleted its own on close), the heap sampled over the measured span."""
    assert windows >= 3 and report["all_checked_equal"] and report["windows_checked"] == windows
    assert report["late_accepted"] > min_late and report["aion"]["re_executions"] > 0
    assert report["aion"]["destaged"] > 0 and report["max_p_bucket_bytes"] > 0
    assert not (stack.state_dir / "flink" / "tmp" / "klink-p-buckets" / run_dir.name).exists()
    assert report["memory_span"] == "measured" and len(pd.read_csv(run_dir / "late-state.csv")) >= 5


def assert_flink_kept_late_windows(report: dict, windows: int, min_late: int) -> None:
    """Flink's window operator's run: every checked window exact, late events accepted, nothing of AION's."""
    assert windows >= 5 and report["all_checked_equal"] and report["windows_checked"] == windows
    assert report["late_accepted"] > min_late and report["aion"] == {} and report["max_p_bucket_bytes"] == 0
    assert report["staleness"] == {}


WINDOW_KEY = ["query", "window_end", "key"]


def exact_final_results(run_dir: Path, workload, only=None) -> pd.DataFrame:
    """Recomputed here from results.csv (each window's and key's last execution) and exact.csv, not by klinkctl's
    comparison: every checked window (of those `only` lists; default all) has exactly the exact table's keys, and
    each of the late-event `workload` module's CHECKS fields equals its exact column. Returns those keys' final
    fields (workload.FIELDS) beside the exact columns (each prefixed `exact_`)."""
    results = pd.read_csv(run_dir / "results.csv", dtype={"key": str})
    results = results[~results["key"].str.startswith("#")]
    fields = pd.DataFrame(results["fields"].map(json.loads).tolist(), columns=workload.FIELDS, index=results.index)
    results = pd.concat([results[WINDOW_KEY], fields], axis=1)
    final = results.sort_values("execution").groupby(WINDOW_KEY).last().reset_index()
    exact = pd.read_csv(run_dir / "exact.csv", dtype={"key": str}, float_precision="round_trip")  # exact means
    checked = exact[exact["checked"] & (exact["window_end"].isin(only) if only is not None else True)]
    checked = checked.rename(columns={c: f"exact_{c}" for c in checked.columns if c not in WINDOW_KEY})
    both = checked.merge(final, on=WINDOW_KEY, how="left")
    assert both["execution"].notna().all(), both[both["execution"].isna()]  # no key of a checked window missing
    for field, column in workload.CHECKS.items():
        assert (both[field] == both[f"exact_{column}"]).all(), both[both[field] != both[f"exact_{column}"]]
    extra = final.merge(checked, on=WINDOW_KEY, how="left", indicator=True)
    extra = extra[extra["window_end"].isin(checked["window_end"]) & (extra["_merge"] == "left_only")]
    assert extra.empty, extra  # nor an emitted key the input lacks
    return both
