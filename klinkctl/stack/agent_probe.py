"""Does every TaskManager of a cluster carry klink-agent, and do the agents reach klinkctl? Asked two ways:

- Flink's REST API: a TaskManager's thread dump holds the agent's `klink-scheduler` thread when the agent was loaded
  with a control channel (io.klink.agent.SchedulerThread), whoever started the cluster;
- klinkctl's control channel, opened for a few seconds: every agent polls `GET /control` once a second, naming its
  stack token, host and pid (klinkctl.run.control_channel). The probe answers as an idle klinkctl does (nothing
  to run), and remembers who asked with which token.
"""

from __future__ import annotations

import errno
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from klinkctl.errors import KlinkError

SCHEDULER_THREAD = "klink-scheduler"
#: Agents poll once a second (SchedulerThread.POLL_MS); a few polls make a missing one a fact, not bad luck.
PROBE_S = 5.0


@dataclass
class AgentCheck:
    """What the probe found: TaskManagers (by Flink resource id), whether each runs the agent's thread (None: its
    thread dump could not be read), and the agents (host:pid) that asked, with the stack token each named."""

    taskmanagers: list[str]
    loaded: dict[str, bool | None]
    heard: dict[str, str] = field(default_factory=dict)
    token: str = ""
    control_url: str = ""
    waited_s: float = PROBE_S

    @property
    def answered(self) -> list[str]:
        """The agents that named this stack's token."""
        return sorted(agent for agent, token in self.heard.items() if token == self.token)

    @property
    def without_agent(self) -> list[str]:
        return [tm for tm in self.taskmanagers if self.loaded.get(tm) is False]

    def problem(self) -> str | None:
        """One line saying what is missing, or None when every TaskManager's agent answered with this token."""
        total = len(self.taskmanagers)
        if self.without_agent:
            return (f"klink-agent is not loaded on {len(self.without_agent)} of {total} TaskManager(s) "
                    f"({', '.join(self.without_agent)}): the cluster operator must add it, as printed above")
        if len(self.answered) >= total:
            return None
        others = sorted({token for token in self.heard.values() if token != self.token})
        if others:
            return (f"the cluster's agents name stack token {', '.join(others)}, not {self.token!r}: attach with "
                    f"--stack-token {others[0]}, or have the operator set stack={self.token} in their -javaagent "
                    "options")
        return (f"{len(self.answered)} of {total} TaskManagers' agents reached klinkctl at {self.control_url} within "
                f"{self.waited_s:.0f} s: their -javaagent option control= must name this address and they must be "
                "able to reach it (--host, --control-port), as printed above")


def check(rest_url: str, taskmanagers: list[str], host: str, port: int, token: str,
          wait_s: float = PROBE_S) -> AgentCheck:
    """Thread dumps first (quick), then the control channel until every TaskManager's agent asked or wait_s."""
    loaded = {tm: has_agent_thread(rest_url, tm) for tm in taskmanagers}
    result = AgentCheck(taskmanagers, loaded, token=token, control_url=f"http://{host}:{port}", waited_s=wait_s)
    result.heard = listen(host, port, token, len(taskmanagers), wait_s)
    return result


def has_agent_thread(rest_url: str, taskmanager: str, timeout_s: float = 5.0) -> bool | None:
    """Whether the TaskManager runs the agent's scheduler thread; None if Flink gave no thread dump."""
    url = f"{rest_url}/taskmanagers/{urllib.parse.quote(taskmanager, safe='')}/thread-dump"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            threads = json.loads(response.read()).get("threadInfos", [])
    except (OSError, ValueError, AttributeError):
        return None
    return any(thread.get("threadName") == SCHEDULER_THREAD for thread in threads)


def listen(host: str, port: int, token: str, expected: int, wait_s: float) -> dict[str, str]:
    """Serve GET /control on host:port until `expected` agents named `token`, or wait_s passed; closed on return."""
    server = _bind(host, port, token)
    threading.Thread(target=server.serve_forever, name="agent-probe", daemon=True).start()
    try:
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and sum(t == token for t in server.heard.values()) < expected:
            time.sleep(0.1)
    finally:
        server.shutdown()
        server.server_close()
    with server.lock:
        return dict(server.heard)


class _ProbeServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], token: str) -> None:
        self.token = token
        self.heard: dict[str, str] = {}
        self.lock = threading.Lock()
        super().__init__(address, _ProbeHandler)


class _ProbeHandler(BaseHTTPRequestHandler):
    server: _ProbeServer

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        url = urllib.parse.urlsplit(self.path)
        query = {key: values[0] for key, values in urllib.parse.parse_qs(url.query).items()}
        if url.path != "/control":
            self._send(HTTPStatus.NOT_FOUND, f"no GET {url.path} here")
            return
        stack = query.get("stack", "")
        with self.server.lock:
            self.server.heard[query.get("agent", "unknown")] = stack
        if stack != self.server.token:  # as the control channel refuses another stack's agents
            self._send(HTTPStatus.CONFLICT, f"this is another stack's klinkctl (stack {stack!r})")
        else:
            self._send(HTTPStatus.OK, "")  # what an idle klinkctl means: plain Flink, nothing to run

    def do_POST(self) -> None:  # noqa: N802
        self._send(HTTPStatus.CONFLICT, "no run is on: klinkctl is only checking which agents answer")

    def _send(self, status: HTTPStatus, text: str) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - agents poll every second
        pass


def _bind(host: str, port: int, token: str) -> _ProbeServer:
    try:
        return _ProbeServer((host, port), token)
    except OSError as error:
        taken = error.errno in (errno.EADDRINUSE, errno.EACCES)
        raise KlinkError(f"cannot listen on {host}:{port} for the TaskManagers' agents ({error.strerror}): "
                         + ("a klinkctl run holds it; wait for it to end, or choose another --control-port"
                            if taken else "check --host (an address of this machine the TaskManagers reach)")
                         ) from None
