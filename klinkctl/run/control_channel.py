"""klinkctl's end of the control channel to the TaskManagers' agents (java-udfs/klink-agent, HarnessChannel).

While a run is on, klinkctl listens on the stack's control address (``--host``, ``--control-port``); every agent
fetches the run's control from it once a second and posts its rows back, so the same code works wherever the
TaskManagers run, as long as they can reach that address (docs/scheduler.md, "Control"):

- ``GET /control``: ``{"policy", "params", "run"}``; nobody listening, as between runs, means plain Flink.
- ``POST /rows?run=&file=``: a batch of one of the run's files, its header first; appended to the run directory.
- ``POST /snapshots?run=``: that agent's task snapshots (distributed Klink, io.klink.agent.ForwardedTasks); the
  answer is every other agent's latest ones, relayed as they came.
- ``POST /done?run=``: that agent has sent everything of the run.
- ``/combiner/...?run=``: the rides combiner's interval and combiner.csv rows (klinkctl.run.combiner_relay); they
  come from the job's operators, not from an agent.

Every request names its stack (``stack``, StackSpec.stack_token): a stack's agents polling a port another stack's
run holds are refused, never obeyed. Every request also names its agent (host:pid) and version: ``agents.json``.
"""

from __future__ import annotations

import errno
import json
import sys
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from klinkctl.errors import KlinkError
from klinkctl.run.combiner_relay import COMBINER_TABLE, Intervals
from klinkctl.stack.spec import StackSpec

#: The files an agent may write into a run's directory, and nothing else.
RUN_FILES = ("scheduler.csv", "estimator.csv", "tasks.csv")
#: The agents poll once a second (SchedulerThread.POLL_MS); an ended run waits this long for their last rows.
END_WAIT_S = 5.0
MAX_BODY_BYTES = 16 << 20
AGENTS_FILE = "agents.json"


@dataclass
class Agent:
    version: str
    took_run: bool = False
    done: bool = False


class Refused(Exception):
    """A request the channel answers with an error status and a one-line reason."""

    def __init__(self, status: HTTPStatus, reason: str) -> None:
        super().__init__(reason)
        self.status = status


class ControlChannel:
    """One run's control, served until `end`; rows the agents post land in `run_dir`."""

    def __init__(self, spec: StackSpec, control: dict, run_dir: Path) -> None:
        self.url = spec.control_url
        self.run = control["run"]
        self.run_dir = Path(run_dir)
        self.agents: dict[str, Agent] = {}
        self._snapshots: dict[str, str] = {}
        self._headers: dict[str, str] = {}  # each run file's header, once written
        self._intervals = Intervals()
        self._token = spec.stack_token
        self._control = json.dumps(control)
        self._ended = False
        self._lock = threading.Lock()
        self._server = _listen(spec, self)
        threading.Thread(target=self._server.serve_forever, name="control-channel", daemon=True).start()

    def combiner_hold_ms(self) -> int:
        """How long the run's combiners may hold a partial: the longest interval their controllers last set."""
        return self._intervals.longest_ms()

    def answer(self, method: str, target: str, body: bytes) -> str:
        """The reply to one request; raises Refused for anything but a well-formed request of this stack's run."""
        url = urlsplit(target)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        if query.get("stack") != self._token:
            raise Refused(HTTPStatus.CONFLICT, f"this is another stack's klinkctl (stack {query.get('stack')!r})")
        if url.path.startswith("/combiner/"):
            self._check_run(query)
            return self._combiner(method, url.path, query, body.decode())
        agent = query.get("agent", "unknown")
        with self._lock:
            known = self.agents.setdefault(agent, Agent(query.get("version", "unknown")))
            if (method, url.path) == ("GET", "/control"):
                known.took_run |= not self._ended
                return json.dumps({"policy": "default"}) if self._ended else self._control
            self._check_run(query)
            if (method, url.path) == ("POST", "/rows"):
                self._append(_run_file(query.get("file", "")), body.decode())
                return ""
            if (method, url.path) == ("POST", "/snapshots"):
                self._snapshots[agent] = body.decode()
                return "".join(text for other, text in self._snapshots.items() if other != agent)
            if (method, url.path) == ("POST", "/done"):
                known.done = True
                return ""
        raise Refused(HTTPStatus.NOT_FOUND, f"no {method} {url.path} here")

    def _check_run(self, query: dict[str, str]) -> None:
        if query.get("run") != self.run:
            raise Refused(HTTPStatus.CONFLICT, f"run {query.get('run')!r} is not klinkctl's run {self.run}")

    def _combiner(self, method: str, path: str, query: dict[str, str], body: str) -> str:
        """The rides combiner's requests (klinkctl.run.combiner_relay); the relay waits without holding the lock."""
        if (method, path) == ("POST", "/combiner/rows"):
            with self._lock:
                self._append(COMBINER_TABLE, body)
            return ""
        if path != "/combiner/interval" or method not in ("GET", "POST"):
            raise Refused(HTTPStatus.NOT_FOUND, f"no {method} {path} here")
        if not (name := query.get("query", "")):
            raise Refused(HTTPStatus.BAD_REQUEST, f"{path} names no query")
        try:
            if method == "POST":
                self._intervals.publish(name, body)
                return ""
            return self._intervals.await_change(name, int(query.get("seen", "0")))
        except ValueError as error:
            raise Refused(HTTPStatus.BAD_REQUEST, str(error)) from None

    def _append(self, name: str, text: str) -> None:
        header, _, rows = text.partition("\n")
        path = self.run_dir / name
        if name not in self._headers and path.is_file() and path.stat().st_size:  # read once: we write the rest
            self._headers[name] = path.open().readline().rstrip("\n")
        existing = self._headers.get(name)
        if existing is not None and existing != header:
            raise Refused(HTTPStatus.BAD_REQUEST, f"{name} has the header {existing!r}, not {header!r}")
        with path.open("a") as out:
            out.write(rows if existing is not None else text)
        self._headers[name] = header

    def end(self, wait_s: float = END_WAIT_S) -> list[str]:
        """Back to plain Flink: answers `default` until every agent that took the run said it is done (or
        `wait_s` passed), then stops listening. Returns what went missing, one line each."""
        with self._lock:
            self._ended = True
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and not self._all_done():
            time.sleep(0.05)
        self._server.shutdown()
        self._server.server_close()
        (self.run_dir / AGENTS_FILE).write_text(json.dumps(
            {name: vars(agent) for name, agent in sorted(self.agents.items())}, indent=1) + "\n")
        return self._problems(wait_s)

    def _all_done(self) -> bool:
        with self._lock:
            return all(agent.done for agent in self.agents.values() if agent.took_run)

    def _problems(self, wait_s: float) -> list[str]:
        if not any(agent.took_run for agent in self.agents.values()):
            return [f"no TaskManager agent fetched the run's control from {self.url}: the stack was started by an "
                    "older klinkctl (klinkctl down, then klinkctl up) or its TaskManagers cannot reach that address"]
        return [f"agent {name} sent no end of run within {wait_s:.0f} s: some of its rows may be missing"
                for name, agent in sorted(self.agents.items()) if agent.took_run and not agent.done]


def _run_file(name: str) -> str:
    if name not in RUN_FILES:
        raise Refused(HTTPStatus.BAD_REQUEST, f"file {name!r} is none of {', '.join(RUN_FILES)}")
    return name


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._reply(b"")

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"at most {MAX_BODY_BYTES} bytes a post")
            return
        self._reply(self.rfile.read(length))

    def _reply(self, body: bytes) -> None:
        try:
            self._send(HTTPStatus.OK, self.server.channel.answer(self.command, self.path, body))
        except ConnectionError:
            return  # the caller left before the answer (a cancelled task's long poll): nobody to tell
        except Refused as refused:
            self._send(refused.status, str(refused))
        except (OSError, UnicodeDecodeError) as error:
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, f"klinkctl could not take it: {error}")

    def _send(self, status: HTTPStatus, text: str) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if text.startswith("{") else "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the agents poll every second
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], channel: ControlChannel) -> None:
        self.channel = channel
        super().__init__(address, _Handler)

    def handle_error(self, request: object, client_address: object) -> None:
        """A caller gone mid-answer (its task cancelled) is not worth the traceback socketserver prints."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _listen(spec: StackSpec, channel: ControlChannel) -> _Server:
    try:
        return _Server((spec.host, spec.control_port), channel)
    except OSError as error:
        taken = error.errno in (errno.EADDRINUSE, errno.EACCES)
        raise KlinkError(f"cannot listen on {spec.host}:{spec.control_port} for the TaskManagers' agents "
                         f"({error.strerror}): "
                         + ("another klinkctl run holds it (on this stack or one started with the same "
                            "--control-port); wait for it, or start this stack with another --control-port"
                            if taken else "check --host")) from None
