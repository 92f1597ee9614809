"""The compose backend (`klinkctl up --backend compose`): the local stack's components, each in a container.

Kafka, the JobManager and every TaskManager run in containers of their own on one Docker engine, driven through the
Docker SDK (no `docker compose` plugin needed). They run the very commands the local backend runs, from the same
distribution, jars and state dir, which the containers mount at the same paths (read-only, but for the state dir).
So everything the rest of klinkctl needs holds unchanged (docs/backends.md):

- host networking: every service binds to --host as locally, the agents reach the control channel, and jobs,
  the generator and netem use the same addresses;
- the host's pid namespace: a component's pid is the one procfs sampling, `--policy os-priority` and the agent's
  status file know;
- the containers run as the calling user, so the state dir stays theirs.

The engine places the TaskManagers: --tm-cpus is each container's cpuset, --tm-quota its CPU quota (10 ms period,
as locally), and --tm-cpu-quota a cgroup of klinkctl's that all TaskManager containers are made inside.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING

import psutil

from klinkctl import artifacts
from klinkctl.cpus import CGROUP_ROOT, QUOTA_PERIOD_US, cpu_quota_group
from klinkctl.errors import ComponentFailed, KlinkError
from klinkctl.stack import flink
from klinkctl.stack.base import Progress, no_progress
from klinkctl.stack.container_image import ensure_image, first_line
from klinkctl.stack.docker_engine import docker_client
from klinkctl.stack.local import LocalBackend
from klinkctl.stack.processes import ManagedProcess, Spawn, is_running, stop
from klinkctl.stack.spec import StackSpec

if TYPE_CHECKING:
    import docker

STACK_LABEL = "io.klink.stack"
COMPONENT_LABEL = "io.klink.component"
CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
STOP_GRACE_S = 15

#: Options the compose backend cannot honour, and why: refused in one line, never ignored (issue 21, item 4).
COMPOSE_CANNOT = {
    "taskmanager_interference": "a CPU hog is a local process in the TaskManager's cgroup",
    "taskmanager_cgroup_parent": "the engine makes the containers' cgroups under its own root",
    "taskmanager_jit_cpu": "the engine caps each container as a whole",
    "taskmanager_link_rates": "its relays are processes of this machine, not containers, and untried there",
}


class ComposeBackend(LocalBackend):
    """The local backend's components and record (stack.json, `"backend": "compose"`), started in containers."""

    name = "compose"
    confines_taskmanagers = False  # the engine does: cpuset and quota per container
    cannot_honour = COMPOSE_CANNOT

    def __init__(self, state_dir: Path) -> None:
        super().__init__(state_dir)
        self._client: docker.DockerClient | None = None
        self._image = ""
        self._jars: artifacts.Artifacts | None = None

    @property
    def client(self) -> docker.DockerClient:
        if self._client is None:
            self._client = docker_client()
        return self._client

    def check(self, spec: StackSpec) -> None:
        super().check(spec)
        _ = self.client  # without an engine nothing is written or started

    def prepare(self, spec: StackSpec, jars: artifacts.Artifacts, progress: Progress) -> None:
        self._image = ensure_image(self.client, spec, progress)
        self._jars = jars
        self._remove_leftovers(spec)

    def spawner(self, spec: StackSpec) -> Spawn:
        assert self._jars is not None, "prepare() first"
        return ContainerLauncher(self.client, spec, self._image, _mounts(spec, self._jars))

    def down(self, purge: bool = False, progress: Progress = no_progress) -> list[str]:
        spec = self.recorded_spec()
        stopped = super().down(purge, progress)
        if spec is not None:
            _remove_engine_groups(spec)
        return stopped

    def stop_component(self, component: ManagedProcess) -> None:
        if component.container is None:
            stop(component)
            return
        from docker.errors import NotFound

        try:
            container = self.client.containers.get(component.container)
        except NotFound:
            return
        except KlinkError:  # the engine is gone (its containers usually with it): stop what still runs directly
            if is_running(component):
                os.kill(component.pid, signal.SIGKILL)
            return
        container.stop(timeout=STOP_GRACE_S)
        container.remove(force=True)

    def _remove_leftovers(self, spec: StackSpec) -> None:
        """Containers of this stack that no record names any more (a klinkctl killed during `up`)."""
        for container in self.client.containers.list(all=True, filters={"label": f"{STACK_LABEL}={spec.stack_token}"}):
            container.remove(force=True)


class ContainerLauncher:
    """Starts one component's command in a container of its own (processes.Spawn), as the local backend would."""

    def __init__(self, client: docker.DockerClient, spec: StackSpec, image: str, mounts: dict[str, dict]) -> None:
        self.client, self.spec, self.image, self.mounts = client, spec, image, mounts

    def __call__(self, name: str, argv: list[str], env: dict[str, str], log_file: Path,
                 port: int | None = None) -> ManagedProcess:
        from docker.errors import DockerException

        log_file.parent.mkdir(parents=True, exist_ok=True)
        home = self.spec.state_dir / "tmp"
        home.mkdir(parents=True, exist_ok=True)
        command = ["sh", "-c", 'exec "$@" >>"$0" 2>&1', str(log_file), *argv]
        try:
            container = self.client.containers.run(
                self.image, command, name=f"klinkctl-{self.spec.stack_token}-{name}", detach=True,
                network_mode="host", pid_mode="host", user=f"{os.getuid()}:{os.getgid()}",
                environment=container_env(env, home), volumes=self.mounts, working_dir=str(self.spec.state_dir),
                labels={STACK_LABEL: self.spec.stack_token, COMPONENT_LABEL: name},
                **placement(self.spec, name))
            container.reload()
        except DockerException as error:
            raise ComponentFailed(name, f"the engine did not start its container: {first_line(error)}",
                                  str(log_file)) from None
        pid = container.attrs["State"].get("Pid") or 0
        try:
            created = psutil.Process(pid).create_time() if pid else None
        except psutil.NoSuchProcess:
            created = None
        if created is None:
            raise ComponentFailed(name, "its container exited at once", str(log_file))
        return ManagedProcess(name, pid, created, str(log_file), port, container.id)


def container_env(env: dict[str, str], home: Path) -> dict[str, str]:
    """What the command needs of the environment the local backend would give it: Flink's variables, no more."""
    return {**{k: v for k, v in env.items() if k.startswith("FLINK_")}, "PATH": CONTAINER_PATH, "HOME": str(home)}


def placement(spec: StackSpec, name: str) -> dict[str, object]:
    """The engine's CPU settings for a component: a TaskManager's cpuset, its quota, the group of them all."""
    if not name.startswith("taskmanager-"):
        return {}
    index = int(name.rpartition("-")[2])
    settings: dict[str, object] = {}
    if spec.taskmanager_cpus:
        settings["cpuset_cpus"] = spec.taskmanager_cpus
    own = spec.quota_of.get(index) or (spec.taskmanager_cpu_quota if spec.taskmanagers == 1 else 0)
    if own:
        settings.update(cpu_period=QUOTA_PERIOD_US, cpu_quota=max(1000, round(own * QUOTA_PERIOD_US)))
    if spec.taskmanager_cpu_quota and spec.taskmanagers > 1:
        cpu_quota_group(spec.taskmanager_cgroup, spec.taskmanager_cpu_quota, "--tm-cpu-quota")
        settings["cgroup_parent"] = "/" + spec.taskmanager_cgroup
    return settings


def _remove_engine_groups(spec: StackSpec) -> None:
    """The empty groups the engine made for --tm-cpu-quota's cgroup_parent in cgroup v1's other hierarchies
    (the local backend's release removed the cpu one); a group still in use or not there is left alone."""
    for group in CGROUP_ROOT.glob(f"*/{spec.taskmanager_cgroup}"):
        try:
            group.rmdir()
        except OSError:
            pass


def _mounts(spec: StackSpec, jars: artifacts.Artifacts) -> dict[str, dict]:
    """The host paths the commands use, at the same paths: the state dir (writable), Flink and the jars (read-only).

    The lib dir links Flink's and the connector's jars from where they are cached; those directories are mounted."""
    read_only = {flink.flink_home(), jars.kafka_libs}
    read_only |= {link.resolve().parent for link in flink.lib_dir(spec).iterdir() if link.is_symlink()}
    mounts = {str(path): {"bind": str(path), "mode": "ro"} for path in read_only}
    state = spec.state_dir.resolve()
    mounts[str(state)] = {"bind": str(state), "mode": "rw"}
    return mounts
