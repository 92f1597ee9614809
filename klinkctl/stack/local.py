"""The embedded local stack (default backend): Kafka + Flink JobManager + N TaskManagers as local processes."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from klinkctl import artifacts, prereqs
from klinkctl.errors import ComponentFailed, KlinkError
from klinkctl.generator import RUNNING_FILE as GENERATOR_RUNNING_FILE
from klinkctl.locks import STACK_LOCK
from klinkctl.netem.relay_process import is_listening
from klinkctl.stack import flink, interference, kafka, tm_links
from klinkctl.stack.base import ComponentStatus, Endpoints, Progress, StackBackend, no_progress
from klinkctl.stack.ports import ensure_free
from klinkctl.stack.processes import ManagedProcess, Spawn, is_running, resource_usage, spawn, stop
from klinkctl.stack.spec import StackSpec, refuse_unhonoured
from klinkctl.files import write_json

RECORD_FILE = "stack.json"
#: What `up` may create in the state dir. `down --purge` deletes those of them the marker lists.
OWNED_ENTRIES = (RECORD_FILE, "kafka", "flink", "logs", "agent", "tmp", STACK_LOCK, GENERATOR_RUNNING_FILE)
#: Written by the first `up` in a state dir: the entries it created there (not those that were there before).
MARKER_FILE = ".klinkctl-state.json"
KAFKA_READY_TIMEOUT_S = 60.0
FLINK_READY_TIMEOUT_S = 90.0
RELAY_READY_TIMEOUT_S = 15.0
#: Below this CPU share a TaskManager's start-up wait grows in proportion (two at 0.15 of a core each took > 90 s).
QUOTA_START_CORES = 0.5
#: A hog that has run this long has parsed its arguments and entered its cgroup: it is up.
HOG_SETTLE_S = 0.5


class LocalBackend(StackBackend):
    """Its components are processes of this machine; a subclass may start the same commands elsewhere (compose)."""

    name = "local"
    #: Pin and cap the TaskManagers here (taskset, our cgroups); False where the launcher places them itself.
    confines_taskmanagers = True
    #: Options given that this backend cannot honour, and why: refused in one line, never ignored.
    cannot_honour = {name: "only the compose backend runs images" for name in ("base_image", "debian_mirror")}

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.record_path = state_dir / RECORD_FILE

    # --- the record of what is running -------------------------------------------------------
    def _load(self) -> tuple[StackSpec, list[ManagedProcess]] | None:
        if not self.record_path.is_file():
            return None
        data = json.loads(self.record_path.read_text())
        if data.get("backend", "local") != self.name:
            raise KlinkError(f"the stack in {self.state_dir} was started with --backend {data['backend']}; "
                             "run `klinkctl down` first")
        return StackSpec.from_dict(data["spec"]), [ManagedProcess.from_dict(c) for c in data["components"]]

    def _save(self, spec: StackSpec, components: list[ManagedProcess]) -> None:
        data = {"backend": self.name, "spec": spec.to_dict(), "components": [c.to_dict() for c in components]}
        write_json(self.record_path, data)

    def recorded_spec(self) -> StackSpec | None:
        loaded = self._load()
        return loaded[0] if loaded else None

    def recorded_components(self) -> list[ManagedProcess]:
        loaded = self._load()
        return loaded[1] if loaded else []

    # --- up ----------------------------------------------------------------------------------
    def up(self, spec: StackSpec, progress: Progress = no_progress) -> bool:
        if self._already_running():
            return False
        self.check(spec)
        ensure_free(spec.host, spec.ports())
        jars = artifacts.ensure_all(progress)
        self.prepare(spec, jars, progress)
        self._mark_state_dir()
        started: list[ManagedProcess] = []
        try:
            self._start_all(spec, jars, started, progress)
        except BaseException:
            progress("start failed: stopping what was started")
            self._stop_all(started)
            flink.release_taskmanager_groups(spec)
            self.record_path.unlink(missing_ok=True)
            raise
        return True

    def check(self, spec: StackSpec) -> None:
        """What must hold before anything is written or started; one-line KlinkError otherwise."""
        refuse_unhonoured(spec, self.name, self.cannot_honour)
        prereqs.check_java()
        prereqs.check_maven()

    def prepare(self, spec: StackSpec, jars: artifacts.Artifacts, progress: Progress) -> None:
        """Whatever the components need beyond the jars (nothing here; the compose backend builds its image)."""

    def spawner(self, spec: StackSpec) -> Spawn:
        """How this backend starts one component."""
        return spawn

    def stop_component(self, component: ManagedProcess) -> None:
        stop(component)

    def _already_running(self) -> bool:
        loaded = self._load()
        if loaded is None:
            return False
        alive = [c.name for c in loaded[1] if is_running(c)]
        if len(alive) == len(loaded[1]):
            return True
        if alive:
            down = sorted({c.name for c in loaded[1]} - set(alive))
            raise KlinkError(
                f"the stack in {self.state_dir} is only partly running ({', '.join(down)} down); "
                "run `klinkctl down` first, then `klinkctl up`"
            )
        self._stop_all(loaded[1])  # all gone: a stale record (e.g. after a reboot); stray children too
        self.record_path.unlink()
        return False

    def _start_all(self, spec: StackSpec, jars: artifacts.Artifacts, started: list[ManagedProcess],
                   progress: Progress) -> None:
        def launch(component: ManagedProcess) -> ManagedProcess:
            started.append(component)
            self._save(spec, started)  # recorded at once, so `down` finds it even if `up` dies now
            return component

        # Kafka, the JobManager and the TaskManagers do not need each other to start (TaskManagers retry
        # registering until the JobManager answers), so all start at once and are then awaited in turn.
        flink.write_conf_dir(spec, jars)
        flink.write_lib_dir(spec, jars)
        progress("starting Kafka broker, Flink JobManager and TaskManager(s)")
        start = self.spawner(spec)
        broker = launch(kafka.start(spec, jars.kafka_libs, start))
        jobmanager = launch(flink.start_jobmanager(spec, start))
        link_ports = tm_links.pick_ports(spec)  # --tm-link-rate
        relays = [launch(relay) for relay in tm_links.start_relays(spec, link_ports)]
        taskmanagers = [launch(flink.start_taskmanager(spec, i, start, self.confines_taskmanagers,
                                                       tm_links.flink_properties(link_ports.get(i))))
                        for i in range(1, spec.taskmanagers + 1)]
        everything = [broker, jobmanager, *relays, *taskmanagers]
        if relays:
            _wait(spec, relays[0].name, lambda: all(map(is_listening, relays)), everything, RELAY_READY_TIMEOUT_S,
                  progress, "starting the shuffle link relay(s) (--tm-link-rate)")
        _wait(spec, "kafka", lambda: kafka.is_ready(spec), everything, KAFKA_READY_TIMEOUT_S, progress,
              "waiting for Kafka to answer metadata")
        _wait(spec, "jobmanager", lambda: flink.registered_taskmanagers(spec) is not None, everything,
              FLINK_READY_TIMEOUT_S, progress, "waiting for the Flink REST API")
        _wait(spec, "taskmanager-1", lambda: flink.registered_taskmanagers(spec) == spec.taskmanagers,
              everything, taskmanager_ready_timeout_s(spec), progress,
              f"waiting for {spec.taskmanagers} TaskManager(s) to register")
        if spec.jit_outside_quota:
            moved = flink.free_compiler_threads(spec, [tm.pid for tm in taskmanagers])
            progress(f"moved {moved} JIT compiler thread(s) out of the TaskManagers' CPU quota (--tm-jit-cpu)")
        if spec.hog_of:  # once Flink is up, so that they do not slow its start
            hogs = [launch(hog) for hog in interference.start_hogs(spec)]
            _wait(spec, hogs[0].name, lambda: time.time() - max(h.create_time for h in hogs) > HOG_SETTLE_S,
                  [*everything, *hogs], HOG_SETTLE_S + 10, progress, "starting the CPU hog(s) (--tm-interference)")

    def restart(self, progress: Progress = no_progress) -> dict[str, int]:
        """Stops the running stack and starts it again with the settings it was started with (Kafka's data kept),
        e.g. after a TaskManager ran out of heap; returns the components' new pids. The whole stack, not only the
        TaskManagers: a JobManager that lost a TaskManager kept serving that one's last metrics over REST after a
        new one registered under its name (measured, 2026-11-27)."""
        spec = self.recorded_spec()
        if spec is None:
            raise KlinkError(f"no stack runs in {self.state_dir}: nothing to restart")
        self.down(progress=progress)
        self.up(spec, progress)
        return {status.name: status.pid for status in self.status() if status.pid}

    def notes(self) -> list[str]:
        spec = self.recorded_spec()
        if self.confines_taskmanagers and spec is not None and spec.capped and not spec.jit_outside_quota:
            return ["note: the TaskManagers' JIT compilers share their CPU quota, which slows a fresh stack for many "
                    "minutes; `--tm-jit-cpu outside-quota` keeps them out of it (docs/capacity.md)"]
        return []

    # --- down --------------------------------------------------------------------------------
    def down(self, purge: bool = False, progress: Progress = no_progress) -> list[str]:
        loaded = self._load()
        stopped: list[str] = []
        if loaded is not None:
            stopped = self._stop_all(loaded[1], progress)
            flink.release_taskmanager_groups(loaded[0])
            self.record_path.unlink(missing_ok=True)
        if purge:
            self._purge()
        return stopped

    # --- what `up` made, and only that, for `down --purge` -------------------------------------
    def _mark_state_dir(self) -> None:
        mark_state_dir(self.state_dir)

    def _purge(self) -> None:
        purge_state_dir(self.state_dir)

    def _stop_all(self, components: list[ManagedProcess], progress: Progress = no_progress) -> list[str]:
        stopped = []
        for component in reversed(components):  # TaskManagers, then the JobManager, then Kafka
            progress(f"stopping {component.name}")
            self.stop_component(component)
            stopped.append(component.name)
        return stopped

    # --- status ------------------------------------------------------------------------------
    def status(self) -> list[ComponentStatus]:
        loaded = self._load()
        if loaded is None:
            return []
        spec, components = loaded
        return [self._component_status(spec, c) for c in components]

    def _component_status(self, spec: StackSpec, component: ManagedProcess) -> ComponentStatus:
        usage = resource_usage(component)
        if usage is None:
            return ComponentStatus(component.name, False, component.pid, component.port,
                                   detail=f"log: {component.log_file}")
        rss, uptime = usage
        detail = (interference.describe(spec, component.name) or tm_links.describe(spec, component.name)
                  or _agent_detail(spec, component))
        return ComponentStatus(component.name, True, component.pid, component.port, rss, uptime, detail=detail)

    def endpoints(self) -> Endpoints:
        spec = self.recorded_spec() or StackSpec(state_dir=self.state_dir)
        return Endpoints(spec.bootstrap_servers, spec.rest_url)


def mark_state_dir(state_dir: Path) -> None:
    """Record, once, which of OWNED_ENTRIES `up` is about to create (anything already there is the user's)."""
    marker = state_dir / MARKER_FILE
    if marker.is_file():
        return
    was_empty = not state_dir.exists() or not any(state_dir.iterdir())
    state_dir.mkdir(parents=True, exist_ok=True)
    entries = [entry for entry in OWNED_ENTRIES if not (state_dir / entry).exists()]
    write_json(marker, {"made_by": "klinkctl up", "remove_when_empty": was_empty, "entries": entries})


def purge_state_dir(state_dir: Path) -> None:
    """Delete the entries mark_state_dir recorded as made by `up`, and nothing else."""
    marker = state_dir / MARKER_FILE
    if not marker.is_file():
        if state_dir.is_dir():
            raise KlinkError(f"{state_dir} was not set up by `klinkctl up` (no {MARKER_FILE}); "
                             "refusing to delete anything in it")
        return
    try:
        data = json.loads(marker.read_text())
        entries = [entry for entry in data["entries"] if entry in OWNED_ENTRIES]
    except (ValueError, KeyError, TypeError) as error:
        raise KlinkError(f"{marker} is unreadable ({error}); refusing to purge; delete what you want by hand")
    for entry in entries:
        path = state_dir / entry
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
    marker.unlink()
    if data.get("remove_when_empty") and not any(state_dir.iterdir()):
        state_dir.rmdir()


def _agent_detail(spec: StackSpec, component: ManagedProcess) -> str:
    if not component.name.startswith("taskmanager"):
        return ""
    status_file = flink.agent_status_dir(spec) / f"{component.pid}.json"
    if not status_file.is_file():
        return "klink-agent not loaded"
    return f"klink-agent {json.loads(status_file.read_text())['version']}"


def taskmanager_ready_timeout_s(spec: StackSpec) -> float:
    """How long `up` waits for the TaskManagers to register: 90 s, longer in proportion when a quota leaves one of
    them less than half a core (its JVM then starts that much slower)."""
    cores = spec.least_taskmanager_cores
    return FLINK_READY_TIMEOUT_S * max(1.0, QUOTA_START_CORES / cores) if cores else FLINK_READY_TIMEOUT_S


def main_log(spec: StackSpec, component: str) -> Path:
    """The log file to read when a component misbehaves."""
    return kafka.log_file(spec) if component == "kafka" else flink.component_log(spec, component)


def _wait(spec: StackSpec, component: str, ready: Callable[[], bool], processes: list[ManagedProcess],
          timeout_s: float, progress: Progress, waiting_for: str) -> None:
    """Poll ready() until true; fail fast, naming the component and its log, if one of its processes dies."""
    progress(waiting_for)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        dead = [p.name for p in processes if not is_running(p)]
        if dead:
            raise ComponentFailed(dead[0], "the process exited during start-up", str(main_log(spec, dead[0])))
        if ready():
            return
        time.sleep(0.25)
    raise ComponentFailed(component, f"not ready after {timeout_s:.0f} s", str(main_log(spec, component)))
