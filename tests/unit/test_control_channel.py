"""klinkctl.run.control_channel over real loopback HTTP, with requests shaped as the agent's HarnessChannel sends
them (the agent's side against a real TaskManager: tests/integration/test_scheduler.py)."""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from klinkctl.errors import KlinkError
from klinkctl.run import scheduler_control
from klinkctl.run.combiner_relay import COMBINER_COLUMNS
from klinkctl.run.control_channel import ControlChannel
from klinkctl.stack.spec import StackSpec


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def spec(tmp_path: Path) -> StackSpec:
    return StackSpec(state_dir=tmp_path / "state", control_port=_free_port())


@pytest.fixture
def channel(spec: StackSpec, tmp_path: Path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    opened = scheduler_control.activate(spec, "rr", {"r": 80}, "run-1", run_dir)
    yield opened
    opened.end(wait_s=0)


def _call(spec: StackSpec, path: str, body: bytes | None = None, stack: str | None = None,
          agent: str | None = "tm1:7", **query: str) -> tuple[int, str]:
    """A request as an agent sends it; with agent None as the job's combiner does (io.klink.workloads.rides)."""
    who = {"agent": agent, "version": "0.1.0"} if agent else {}
    params = "&".join(f"{k}={v}" for k, v in {"stack": stack or spec.stack_token, **who, **query}.items())
    request = urllib.request.Request(f"{spec.control_url}{path}?{params}", data=body,
                                     method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_an_agent_of_this_stack_gets_the_runs_control_and_another_stacks_is_refused(spec, channel):
    status, text = _call(spec, "/control")
    assert status == 200 and json.loads(text) == {"policy": "rr", "params": {"r": "80"}, "run": "run-1"}
    status, text = _call(spec, "/control", stack="0123456789ab")
    assert status == 409 and "another stack" in text


def test_rows_of_every_taskmanager_land_under_one_header_and_only_in_the_runs_files(spec, channel):
    _call(spec, "/control")
    assert _call(spec, "/rows", b"time,policy\n1,rr\n2,rr\n", run="run-1", file="scheduler.csv")[0] == 200
    assert _call(spec, "/rows", b"time,policy\n3,rr\n", agent="tm2:8", run="run-1", file="scheduler.csv")[0] == 200
    assert (channel.run_dir / "scheduler.csv").read_text() == "time,policy\n1,rr\n2,rr\n3,rr\n"

    assert _call(spec, "/rows", b"x\n1\n", run="run-1", file="../../etc/passwd")[0] == 400
    assert _call(spec, "/rows", b"time\n4\n", run="run-1", file="scheduler.csv")[0] == 400  # another header
    assert _call(spec, "/rows", b"time,policy\n4,rr\n", run="run-0", file="scheduler.csv")[0] == 409  # stale run
    assert sorted(p.name for p in channel.run_dir.iterdir()) == ["scheduler.csv"]


def test_the_end_serves_default_and_waits_for_every_agent_that_took_the_run(spec, channel):
    _call(spec, "/control")
    _call(spec, "/control", agent="tm2:8")
    ended: list[str] = []
    waiting = threading.Thread(target=lambda: ended.extend(channel.end(wait_s=10)))
    waiting.start()
    waiting.join(0.3)
    assert waiting.is_alive(), "both agents still owe their last rows"
    assert json.loads(_call(spec, "/control")[1]) == {"policy": "default"}
    _call(spec, "/rows", b"task\nq00:src#0\n", run="run-1", file="tasks.csv")
    _call(spec, "/done", b"", run="run-1")
    _call(spec, "/done", b"", agent="tm2:8", run="run-1")
    waiting.join(5)
    assert not waiting.is_alive() and ended == []
    assert json.loads((channel.run_dir / "agents.json").read_text()) == {
        "tm1:7": {"version": "0.1.0", "took_run": True, "done": True},
        "tm2:8": {"version": "0.1.0", "took_run": True, "done": True}}
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", spec.control_port), timeout=2)


def test_an_agent_that_never_came_or_never_finished_is_reported(spec, tmp_path):
    lonely = scheduler_control.activate(spec, "default", {}, "run-2", tmp_path)
    with pytest.raises(RuntimeError, match="no TaskManager agent fetched the run's control"):
        scheduler_control.deactivate(lonely)
    silent = scheduler_control.activate(spec, "default", {}, "run-3", tmp_path)
    _call(spec, "/control")
    assert silent.end(wait_s=0.2) == ["agent tm1:7 sent no end of run within 0 s: some of its rows may be missing"]


def test_a_port_already_taken_is_one_clear_error(spec, channel, tmp_path):
    with pytest.raises(KlinkError, match=r"another klinkctl run holds it .* --control-port"):
        ControlChannel(spec, scheduler_control.control("rr", {}, "run-9"), tmp_path)


def _combiner(spec: StackSpec, path: str, body: bytes | None = None, **query: str) -> tuple[int, str]:
    return _call(spec, path, body, agent=None, **{"run": "run-1", **query})


def test_the_controllers_interval_reaches_every_instance_that_waits_for_it(spec, channel):
    answers: list[tuple[int, str]] = []
    instances = [threading.Thread(target=lambda: answers.append(_combiner(spec, "/combiner/interval", query="q00",
                                                                          seen="0"))) for _ in range(2)]
    for instance in instances:
        instance.start()
    interval = {"period": 1, "intervalMs": 120, "fromMs": 1_700_000_000_100}
    assert _combiner(spec, "/combiner/interval", json.dumps(interval).encode(), query="q00") == (200, "")
    for instance in instances:
        instance.join(5)
    assert [(status, json.loads(text)) for status, text in answers] == [(200, interval)] * 2
    assert not channel.agents  # the job's operators are no agents: agents.json lists TaskManagers only


def test_the_combiners_rows_land_under_klinkctls_header_and_a_bad_request_is_one_line(spec, channel):
    (channel.run_dir / "combiner.csv").write_text(COMBINER_COLUMNS + "\n")
    row = "1700000000000,q00,1,0.1000;0.1000,0.1000,false,-0.4000,20,adcom\n"
    assert _combiner(spec, "/combiner/rows", (COMBINER_COLUMNS + "\n" + row).encode()) == (200, "")
    assert (channel.run_dir / "combiner.csv").read_text() == COMBINER_COLUMNS + "\n" + row

    assert _combiner(spec, "/combiner/rows", b"time_ms\n1\n")[0] == 400  # not klinkctl's header
    assert _combiner(spec, "/combiner/interval", b"{}", query="q00") == (
        400, "an interval has exactly the keys period, intervalMs, fromMs")
    assert _combiner(spec, "/combiner/interval", b'{"period": 1, "intervalMs": 5, "fromMs": 0}')[0] == 400  # no query
    assert _combiner(spec, "/combiner/interval", query="q00", run="run-0", seen="0")[0] == 409  # another run
    assert _call(spec, "/combiner/interval", agent=None, stack="0123456789ab", run="run-1", query="q00")[0] == 409
    assert _combiner(spec, "/combiner/other", b"")[0] == 404


def test_a_caller_gone_before_its_answer_leaves_no_traceback(spec, channel, capfd):
    """A cancelled combiner task drops its long poll; klinkctl's answer then meets a reset connection."""
    caller = socket.create_connection(("127.0.0.1", spec.control_port))
    caller.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close = reset
    caller.sendall(f"GET /combiner/interval?stack={spec.stack_token}&run=run-1&query=q00&seen=0 HTTP/1.1\r\n"
                   f"Host: x\r\n\r\n".encode())
    time.sleep(0.2)
    caller.close()
    interval = {"period": 1, "intervalMs": 120, "fromMs": 1_700_000_000_100}
    assert _combiner(spec, "/combiner/interval", json.dumps(interval).encode(), query="q00") == (200, "")
    time.sleep(0.3)
    assert "Traceback" not in capfd.readouterr().err
