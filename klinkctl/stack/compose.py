"""The compose backend: the same stack in containers (`klinkctl up --backend compose`).

Kafka (apache/kafka) + a Flink session cluster built from compose/Dockerfile, driven through
`docker compose` (start/stop) and the Docker SDK (engine check, health, status). It needs a Docker
engine: without one it fails before touching anything. Files: compose/docker-compose.yml, the image
build context compose/build/jars/ (filled from the jars klinkctl already has; nothing is downloaded
here), and <state_dir>/compose-stack.json (the spec it was started with, so status/down need no options).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from klinkctl.errors import ComponentFailed, KlinkError
from klinkctl.paths import PROJECT_ROOT
from klinkctl.stack.base import ComponentStatus, Endpoints, Progress, StackBackend, no_progress
from klinkctl.stack.docker_engine import (SERVICE_LABEL, container_status, docker_client, require_compose_cli,
                                          status_order)
from klinkctl.stack.ports import ensure_free
from klinkctl.stack.spec import StackSpec, option_name
from klinkctl.files import write_json

if TYPE_CHECKING:
    import docker

    from klinkctl import artifacts

COMPOSE_DIR = PROJECT_ROOT / "compose"
COMPOSE_FILE = COMPOSE_DIR / "docker-compose.yml"
BUILD_JARS_DIR = COMPOSE_DIR / "build" / "jars"
RECORD_FILE = "compose-stack.json"
DEFAULT_PROJECT = "klink"
AGENT_JAR_NAME = "klink-agent.jar"
DEFAULT_AGENT_ARGS = "statusDir=/tmp/klink-agent"
PROJECT_LABEL = "com.docker.compose.project"
#: StackSpec.ports() names of the ports compose publishes on the host (the others stay in the network).
PUBLISHED_PORTS = ("Kafka broker", "Flink REST")

ComposeAction = Literal["up", "down", "purge"]


@dataclass(frozen=True)
class ComposeArtifacts:
    """The jars the image needs, built or downloaded elsewhere (the local backend's artifact code)."""

    connector_jar: Path
    agent_jar: Path
    extra_jars: tuple[Path, ...] = ()

    @classmethod
    def from_artifacts(cls, jars: artifacts.Artifacts) -> ComposeArtifacts:
        return cls(jars.connector_jar, jars.agent_jar, tuple(jars.udf_jars))

    @classmethod
    def ensure(cls, progress: Progress = no_progress) -> ComposeArtifacts:
        """Build java-udfs if stale and fetch the connector, with klinkctl.artifacts (Kafka's jars are not needed)."""
        from klinkctl import artifacts

        built = artifacts.build_java_udfs(progress)
        extras = tuple(jar for jar in built if jar not in artifacts.NOT_ON_CLUSTER_CLASSPATH)
        return cls(artifacts.connector_jar(progress), artifacts.AGENT_JAR, extras)

    def files(self) -> dict[str, Path]:
        """Build-context file name -> source; the agent always lands as klink-agent.jar."""
        named = {p.name: p for p in (self.connector_jar, *self.extra_jars)}
        return {**named, AGENT_JAR_NAME: self.agent_jar}


def prepare_build_context(artifacts: ComposeArtifacts, jars_dir: Path = BUILD_JARS_DIR) -> list[Path]:
    """Replace jars_dir's content with the artifacts' jars; returns the files written."""
    missing = [str(src) for src in artifacts.files().values() if not src.is_file()]
    if missing:
        raise KlinkError(
            f"jar(s) for the compose image not found: {', '.join(missing)}; "
            "build them first (mvn -q -f java-udfs/pom.xml package) or run klinkctl up once with the local backend"
        )
    if jars_dir.exists():
        shutil.rmtree(jars_dir)
    jars_dir.mkdir(parents=True)
    return [Path(shutil.copy2(src, jars_dir / name)) for name, src in sorted(artifacts.files().items())]


def compose_environment(spec: StackSpec, agent_args: str = DEFAULT_AGENT_ARGS) -> dict[str, str]:
    """The variables docker-compose.yml interpolates (and nothing else)."""
    extra = "\n".join(f"{key}: {_yaml_scalar(value)}" for key, value in sorted(spec.flink_config.items()))
    return {
        "KAFKA_PORT": str(spec.kafka_port),
        "REST_PORT": str(spec.rest_port),
        "TASK_SLOTS": str(spec.slots),
        "JM_MEMORY": spec.jobmanager_memory,
        "TM_MEMORY": spec.taskmanager_memory,
        "KAFKA_HEAP": spec.kafka_heap,
        "KLINK_AGENT_ARGS": agent_args,
        "FLINK_EXTRA_PROPERTIES": extra,
    }


def _yaml_scalar(value: object) -> str:
    """A config value as FLINK_PROPERTIES' YAML reads it back (`true`, not Python's `True`)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def compose_command(
    spec: StackSpec,
    action: ComposeAction,
    project: str = DEFAULT_PROJECT,
    compose_file: Path = COMPOSE_FILE,
) -> list[str]:
    """The `docker compose` argv for up (build + scale), down, or purge (down -v: also Kafka's volume)."""
    base = ["docker", "compose", "-f", str(compose_file), "-p", project]
    if action == "up":
        return [*base, "up", "-d", "--build", "--scale", f"taskmanager={spec.taskmanagers}"]
    if action == "down":
        return [*base, "down"]
    if action == "purge":
        return [*base, "down", "-v"]
    raise ValueError(f"unknown compose action {action!r}")


#: Options the compose backend cannot honour, and why: refused in one line, never ignored (issue 21, item 4).
_APART = "it scales one taskmanager service, whose replicas it cannot tell apart"
_NO_CPU_MAPPING = "container cpusets and CPU quotas are not mapped yet"
LOCAL_ONLY = {"taskmanager_quotas": _APART, "taskmanager_interference": _APART,
              "taskmanager_cpus": _NO_CPU_MAPPING, "taskmanager_cpu_quota": _NO_CPU_MAPPING,
              "taskmanager_cgroup_parent": _NO_CPU_MAPPING,
              "jobmanager_rpc_port": "that port stays inside the compose network",
              "kafka_controller_port": "that port stays inside the compose network"}


def refuse_local_only(spec: StackSpec) -> None:
    """The options given (not at their defaults) that compose cannot honour, grouped by reason."""
    given: dict[str, list[str]] = {}
    for name, why in LOCAL_ONLY.items():
        if getattr(spec, name) != StackSpec.model_fields[name].default:
            given.setdefault(why, []).append(option_name(name))
    if given:
        why, names = next(iter(given.items()))
        raise KlinkError(f"{' and '.join(names)}: the compose backend cannot honour "
                         f"{'it' if len(names) == 1 else 'them'} ({why}); use --backend local")


def flink_taskmanagers(rest_url: str, timeout_s: float = 2.0) -> int | None:
    """TaskManagers registered according to Flink's REST /overview; None while it does not answer."""
    try:
        with urllib.request.urlopen(f"{rest_url}/overview", timeout=timeout_s) as response:
            return int(json.load(response).get("taskmanagers", 0))
    except (OSError, ValueError):
        return None


def wait_until(check: Callable[[], bool], timeout_s: float, interval_s: float = 1.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while True:
        if check():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval_s)


class ComposeBackend(StackBackend):
    """Kafka + Flink JM + N TMs as a docker compose project (default project name "klink")."""

    name = "compose"

    def __init__(
        self,
        state_dir: Path,
        artifacts: ComposeArtifacts | None = None,
        project: str = DEFAULT_PROJECT,
        compose_file: Path = COMPOSE_FILE,
        jars_dir: Path = BUILD_JARS_DIR,
        ready_timeout_s: float = 240.0,
    ) -> None:
        self.state_dir = Path(state_dir)
        self.artifacts = artifacts
        self.project = project
        self.compose_file = compose_file
        self.jars_dir = jars_dir
        self.ready_timeout_s = ready_timeout_s

    # -- the StackBackend interface -------------------------------------------------------------

    def up(self, spec: StackSpec, progress: Progress = no_progress) -> bool:
        refuse_local_only(spec)
        client = docker_client()  # first: without an engine nothing is checked, written or started
        require_compose_cli()
        if spec.host != "127.0.0.1":
            raise KlinkError(f"the compose backend publishes its ports on 127.0.0.1 only, not {spec.host}")
        if self._already_running(client, spec):
            progress("compose stack already running")
            return False
        ensure_free(spec.host, [p for p in spec.ports() if p.name in PUBLISHED_PORTS])
        jars = self.artifacts or ComposeArtifacts.ensure(progress)
        progress(f"preparing the image build context ({self.jars_dir})")
        prepare_build_context(jars, self.jars_dir)
        self._save(spec)
        try:
            self._start(client, spec, progress)
        except BaseException:
            progress("start failed; removing the containers (docker compose down)")
            self._run_compose(spec, "down", check=False)
            self.state_file.unlink(missing_ok=True)
            raise
        return True

    def down(self, purge: bool = False, progress: Progress = no_progress) -> list[str]:
        spec = self._load()
        if spec is None:
            return []
        client = docker_client()
        stopped = [s.name for s in self._statuses(client, spec, stats=False) if s.running]
        progress("removing the compose stack" + (" and its Kafka volume" if purge else ""))
        self._run_compose(spec, "purge" if purge else "down")
        self.state_file.unlink(missing_ok=True)
        return stopped

    def status(self) -> list[ComponentStatus]:
        spec = self._load()
        if spec is None:
            return []
        return self._statuses(docker_client(), spec)

    def endpoints(self) -> Endpoints:
        spec = self.recorded_spec() or StackSpec(state_dir=self.state_dir)
        return Endpoints(bootstrap_servers=spec.bootstrap_servers, rest_url=spec.rest_url)

    def recorded_spec(self) -> StackSpec | None:
        return self._load()

    # -- helpers -------------------------------------------------------------------------------

    @property
    def state_file(self) -> Path:
        return self.state_dir / RECORD_FILE

    @property
    def log_file(self) -> Path:
        return self.state_dir / "logs" / "compose.log"

    def _start(self, client: docker.DockerClient, spec: StackSpec, progress: Progress) -> None:
        progress(
            f"building the Flink image and starting kafka, jobmanager, {spec.taskmanagers} taskmanager(s) "
            "(docker compose up; the first build takes several minutes)"
        )
        self._run_compose(spec, "up")
        progress("waiting for Kafka's healthcheck")
        self._wait_kafka(client)
        progress(f"waiting for {spec.taskmanagers} TaskManager(s) on {spec.rest_url}/overview")
        self._wait_flink(client, spec)
        progress(f"ready: Kafka {spec.bootstrap_servers}, Flink {spec.rest_url}")

    def _wait_kafka(self, client: docker.DockerClient) -> None:
        def healthy() -> bool:
            containers = self._containers(client, "kafka")
            state = containers[0].attrs.get("State", {}) if containers else {}
            health = (state.get("Health") or {}).get("Status")
            if health == "unhealthy" or state.get("Status") in {"exited", "dead"}:
                raise self._failed("kafka", f"container is {health or state['Status']}")
            return health == "healthy"

        if not wait_until(healthy, self.ready_timeout_s):
            raise self._failed("kafka", f"not healthy after {self.ready_timeout_s:.0f} s")

    def _wait_flink(self, client: docker.DockerClient, spec: StackSpec) -> None:
        def ready() -> bool:
            for container in self._containers(client, "jobmanager"):
                if container.attrs["State"].get("Status") in {"exited", "dead"}:
                    raise self._failed("jobmanager", f"container is {container.attrs['State']['Status']}")
            return (flink_taskmanagers(spec.rest_url) or 0) >= spec.taskmanagers

        if wait_until(ready, self.ready_timeout_s):
            return
        registered = flink_taskmanagers(spec.rest_url)
        waited = f"after {self.ready_timeout_s:.0f} s"
        if registered is None:
            raise self._failed("jobmanager", f"REST API {spec.rest_url} not answering {waited}")
        raise self._failed("taskmanager", f"{registered}/{spec.taskmanagers} TaskManagers registered {waited}")

    def service_containers(self, service: str) -> list[Any]:
        """The running containers of a compose service (for netem)."""
        return [c for c in self._containers(docker_client(), service) if c.status == "running"]

    def container_by_name(self, name: str) -> Any:
        return docker_client().containers.get(name)

    def _failed(self, service: str, reason: str) -> ComponentFailed:
        return ComponentFailed(service, reason, f"docker compose -p {self.project} logs {service}")

    def _containers(self, client: docker.DockerClient, service: str | None = None) -> list[Any]:
        labels = [f"{PROJECT_LABEL}={self.project}"] + ([f"{SERVICE_LABEL}={service}"] if service else [])
        return client.containers.list(all=True, filters={"label": labels})

    def _statuses(self, client: docker.DockerClient, spec: StackSpec, stats: bool = True) -> list[ComponentStatus]:
        found = [container_status(c, spec, stats) for c in self._containers(client)]
        return sorted(found, key=status_order)

    def _already_running(self, client: docker.DockerClient, spec: StackSpec) -> bool:
        recorded = self._load()
        if recorded is None:
            return False
        statuses = self._statuses(client, recorded, stats=False)
        if not statuses or not all(s.running for s in statuses):
            return False
        if recorded.to_dict() != spec.to_dict():
            raise KlinkError("the compose stack is already running with other settings; run klinkctl down first")
        return True

    def _run_compose(self, spec: StackSpec, action: ComposeAction, check: bool = True) -> None:
        argv = compose_command(spec, action, self.project, self.compose_file)
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        with self.log_file.open("a") as log:
            log.write(f"$ {' '.join(argv)}\n")
            log.flush()
            env = {**os.environ, **compose_environment(spec)}
            code = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, env=env, check=False).returncode
        if check and code != 0:
            raise KlinkError(f"`docker compose {action}` failed (exit {code}): {_last_line(self.log_file)} "
                             f"(see {self.log_file})")

    def _save(self, spec: StackSpec) -> None:
        record = {"backend": self.name, "project": self.project, "spec": spec.to_dict()}
        write_json(self.state_file, record)

    def _load(self) -> StackSpec | None:
        try:
            record = json.loads(self.state_file.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise KlinkError(f"cannot read {self.state_file} ({exc}); remove it and run klinkctl down again")
        self.project = record.get("project", self.project)  # status/down follow the recorded project
        return StackSpec.from_dict(record["spec"])


def _last_line(path: Path) -> str:
    lines = [line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()]
    return lines[-1][:200] if lines else "no output"
