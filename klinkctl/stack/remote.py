"""The remote backend: attach to an existing Kafka + Flink session cluster (`klinkctl up --backend remote`).

It starts nothing. `up` checks Flink's REST API (its version, its TaskManagers) and Kafka (metadata), then asks
whether every TaskManager carries klink-agent and reaches klinkctl's control channel (klinkctl.stack.agent_probe);
when one does not, it prints what the cluster's operator must add (the -javaagent line, the jars for lib/) and
fails in one line. On success it records the cluster in <state_dir>/remote-stack.json, with the stack token the
agents must name (kept from then on, whatever happens to the state dir's path), and writes a Flink client conf
dir there so that jobs are submitted to the cluster's REST address (`flink run`, klinkctl.flink_jobs). `down`
forgets the record; `status` asks the cluster.
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.parse
from pathlib import Path
from typing import Any

import yaml
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from klinkctl import FLINK_VERSION, artifacts, prereqs
from klinkctl.errors import KlinkError, StackNotRunning
from klinkctl.files import read_yaml, write_json
from klinkctl.options import from_user
from klinkctl.stack import agent_probe, flink, kafka
from klinkctl.stack.base import ComponentStatus, Endpoints, Progress, StackBackend, no_progress
from klinkctl.stack.local import mark_state_dir, purge_state_dir
from klinkctl.stack.ports import ensure_free
from klinkctl.stack.spec import STACK_OPTIONS, StackSpec, option_name

RECORD_FILE = "remote-stack.json"
#: Where the operator's instructions (and deploy/kubernetes) put the agent on the TaskManagers.
CLUSTER_AGENT_PATH = "/opt/flink/klink/klink-agent.jar"
SETUP_FILE = "remote-agent-setup.txt"
REST_TIMEOUT_S = 5.0
KAFKA_TIMEOUT_S = 5.0
#: The options the remote backend honours: where the existing cluster is, and klinkctl's own control channel.
HONOURED = ("host", "control_port", "flink_rest", "kafka_bootstrap", "token")


class AgentsMissing(StackNotRunning):
    """Some TaskManager has no agent, or its agent does not reach klinkctl; `details` says what to add."""

    def __init__(self, problem: str, details: str) -> None:
        super().__init__(problem)
        self.details = details


def refuse_unhonoured(spec: StackSpec) -> None:
    """Options given on the command line that size, pin or place what this backend does not start: one line."""
    given = [option_name(o.name) for o in STACK_OPTIONS if o.name in spec.model_fields_set and o.name not in HONOURED]
    if given:
        raise KlinkError(f"{' and '.join(given)}: the remote backend cannot honour "
                         f"{'it' if len(given) == 1 else 'them'} (it starts nothing; the existing cluster's "
                         "operator sets its sizes, cores and ports); leave "
                         f"{'it' if len(given) == 1 else 'them'} out")
    if not spec.remote:
        raise KlinkError("--backend remote attaches to an existing cluster: give its --flink-rest http://HOST:PORT "
                         "and --kafka-bootstrap HOST:PORT")


def refuse_remote_options(backend: str, spec: StackSpec) -> None:
    """--flink-rest and --kafka-bootstrap name a cluster another backend would not use: refused, never ignored."""
    if spec.remote and backend != "remote":
        raise KlinkError(f"--flink-rest and --kafka-bootstrap attach to an existing cluster, which the {backend} "
                         "backend does not do: add --backend remote (or leave them out to start a stack)")


def read_cluster_file(path: Path) -> dict[str, Any]:
    """`up --cluster FILE`: the existing cluster as its operator describes it, keys as `up`'s options
    (flink-rest, kafka-bootstrap, stack-token, host, control-port); the command line wins over it."""
    raw = read_yaml(path, f"the cluster file {path}")
    if not isinstance(raw, dict):
        raise KlinkError(f"the cluster file {path} must be a mapping like `flink-rest: http://HOST:PORT`, "
                         f"got {type(raw).__name__}")
    return from_user(raw, STACK_OPTIONS, f"the cluster file {path}")


class RemoteBackend(StackBackend):
    name = "remote"

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.record_path = state_dir / RECORD_FILE

    # --- the record --------------------------------------------------------------------------
    def _load(self) -> dict | None:
        if not self.record_path.is_file():
            return None
        return json.loads(self.record_path.read_text())

    def recorded_spec(self) -> StackSpec | None:
        record = self._load()
        return StackSpec.from_dict(record["spec"]) if record else None

    # --- up ----------------------------------------------------------------------------------
    def up(self, spec: StackSpec, progress: Progress = no_progress) -> bool:
        refuse_unhonoured(spec)
        recorded = self.recorded_spec()
        if recorded is not None and (recorded.rest_url, recorded.bootstrap_servers) != (spec.rest_url,
                                                                                        spec.bootstrap_servers):
            raise KlinkError(f"{self.state_dir} is attached to Flink {recorded.rest_url} and Kafka "
                             f"{recorded.bootstrap_servers}; run `klinkctl down` there first, or use another "
                             "--state-dir")
        ensure_free(spec.host, spec.ports())  # the control channel's port, before anything is asked
        # A token made from the state dir would change with its path: recorded as given from now on.
        spec = spec.model_copy(update={"token": (recorded.stack_token if recorded and not spec.token
                                                 else spec.stack_token)})
        progress(f"asking Flink at {spec.rest_url}")
        taskmanagers = cluster_taskmanagers(spec)
        progress(f"asking Kafka at {spec.bootstrap_servers}")
        check_kafka(spec)
        jars = client_artifacts(progress)
        mark_state_dir(self.state_dir)
        write_client_dirs(spec, jars)
        progress(f"asking the agents of {len(taskmanagers)} TaskManager(s) to call {spec.control_url}")
        found = agent_probe.check(spec.rest_url, taskmanagers, spec.host, spec.control_port, spec.stack_token)
        problem = found.problem()
        if problem:
            raise AgentsMissing(problem, self._write_setup(spec, jars, agent_loaded=not found.without_agent))
        spec = spec.model_copy(update={"taskmanagers": len(taskmanagers)})
        write_json(self.record_path, {"backend": self.name, "spec": spec.to_dict(), "taskmanagers": taskmanagers,
                                      "agents": found.answered})
        return True

    def _write_setup(self, spec: StackSpec, jars: artifacts.Artifacts, agent_loaded: bool) -> str:
        text = operator_instructions(spec, jars, agent_loaded)
        path = self.state_dir / SETUP_FILE
        path.write_text(text + "\n")
        return f"{text}\n(also in {path})"

    # --- down --------------------------------------------------------------------------------
    def down(self, purge: bool = False, progress: Progress = no_progress) -> list[str]:
        """Forgets the cluster (it stops nothing: it started nothing). Returns nothing stopped."""
        self.record_path.unlink(missing_ok=True)
        if purge:
            (self.state_dir / SETUP_FILE).unlink(missing_ok=True)
            purge_state_dir(self.state_dir)
        return []

    # --- status ------------------------------------------------------------------------------
    def status(self) -> list[ComponentStatus]:
        record = self._load()
        if record is None:
            return []
        spec = StackSpec.from_dict(record["spec"])
        overview = rest_json(spec, "/overview")
        now = taskmanager_ids(spec) if overview is not None else []
        rest_port = urllib.parse.urlsplit(spec.rest_url).port
        statuses = [
            ComponentStatus("kafka", kafka.is_ready(spec), port=int(spec.bootstrap_servers.split(",")[0]
                                                                     .rsplit(":", 1)[1]),
                            detail=f"remote {spec.bootstrap_servers}"),
            ComponentStatus("jobmanager", overview is not None, port=rest_port,
                            detail=f"remote {spec.rest_url}" + (f", Flink {overview.get('flink-version')}"
                                                                 if overview else "")),
        ]
        for tm in sorted({*record.get("taskmanagers", []), *now}):
            statuses.append(ComponentStatus(component_name(tm), tm in now, detail=_agent_detail(spec, tm, now)))
        return statuses

    def endpoints(self) -> Endpoints:
        spec = self.recorded_spec()
        if spec is None:
            raise StackNotRunning(f"no remote cluster recorded in {self.state_dir}")
        return Endpoints(spec.bootstrap_servers, spec.rest_url)

    def notes(self) -> list[str]:
        record = self._load() or {}
        spec = self.recorded_spec()
        if spec is None:
            return []
        return [f"agents:          {len(record.get('agents', []))} of {spec.taskmanagers} TaskManager(s) answered "
                f"on {spec.control_url} with stack token {spec.stack_token} (nothing was started here)"]


def component_name(taskmanager: str) -> str:
    """A TaskManager's component name: its Flink resource id, named as a TaskManager."""
    return taskmanager if taskmanager.startswith("taskmanager") else f"taskmanager {taskmanager}"


def _agent_detail(spec: StackSpec, taskmanager: str, registered: list[str]) -> str:
    if taskmanager not in registered:
        return "no longer registered with the JobManager"
    loaded = agent_probe.has_agent_thread(spec.rest_url, taskmanager)
    return {True: "klink-agent loaded", False: "klink-agent NOT loaded", None: ""}[loaded]


# --- the checks -------------------------------------------------------------------------------------
def rest_json(spec: StackSpec, path: str) -> dict | None:
    """Flink's answer to a REST GET, None when it does not answer."""
    try:
        return flink.rest_get(spec, path, timeout=REST_TIMEOUT_S)
    except (OSError, ValueError):
        return None


def cluster_taskmanagers(spec: StackSpec) -> list[str]:
    """The TaskManagers' resource ids; raises in one line if Flink does not answer, runs another release or has
    no TaskManager."""
    try:
        overview = flink.rest_get(spec, "/overview", timeout=REST_TIMEOUT_S)
    except (OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        raise StackNotRunning(f"Flink's REST API does not answer at {spec.rest_url} ({reason}); check --flink-rest "
                              "and that this machine reaches it") from None
    version = str(overview.get("flink-version", "unknown"))
    if version.split(".")[:2] != FLINK_VERSION.split(".")[:2]:
        raise KlinkError(f"the cluster at {spec.rest_url} runs Flink {version}, and klinkctl's jobs and jars are "
                         f"built for Flink {FLINK_VERSION}: attach to a {'.'.join(FLINK_VERSION.split('.')[:2])} "
                         "cluster")
    ids = taskmanager_ids(spec)
    if not ids:
        raise StackNotRunning(f"no TaskManager is registered with the JobManager at {spec.rest_url}")
    return ids


def taskmanager_ids(spec: StackSpec) -> list[str]:
    answer = rest_json(spec, "/taskmanagers") or {}
    return sorted(str(tm["id"]) for tm in answer.get("taskmanagers", []) if "id" in tm)


def check_kafka(spec: StackSpec) -> None:
    """Raises in one line unless a broker answers a metadata request at the bootstrap servers."""
    admin = AdminClient({"bootstrap.servers": spec.bootstrap_servers, "logger": kafka.QUIET_CLIENT_LOGGER})
    try:
        brokers = admin.list_topics(timeout=KAFKA_TIMEOUT_S).brokers
    except KafkaException as error:
        brokers, reason = {}, error.args[0].str() if error.args else str(error)
    else:
        reason = "no broker in the metadata"
    if not brokers:
        raise StackNotRunning(f"Kafka does not answer at {spec.bootstrap_servers} ({reason}); check "
                              "--kafka-bootstrap and that this machine reaches it")


# --- the client side: conf and lib dirs `flink run` uses ------------------------------------------------
def client_artifacts(progress: Progress) -> artifacts.Artifacts:
    """Our jars (built if stale) and the connector: on the client's classpath, and what the cluster needs."""
    prereqs.check_java()
    prereqs.check_maven()
    built = artifacts.build_java_udfs(progress)
    return artifacts.Artifacts(kafka_libs=Path(), connector_jar=artifacts.connector_jar(progress),
                               agent_jar=artifacts.AGENT_JAR,
                               udf_jars=tuple(j for j in built if j not in artifacts.NOT_ON_CLUSTER_CLASSPATH))


def client_config(spec: StackSpec, home: Path) -> dict[str, object]:
    """The Flink client's config for the cluster: its REST address; the cluster's own settings are left alone."""
    address = urllib.parse.urlsplit(spec.rest_url)
    tmp = flink.flink_dir(spec) / "tmp"
    return {
        "rest.address": address.hostname,
        "rest.port": address.port,
        "io.tmp.dirs": str(tmp),
        "env.java.opts.all": f"{flink.shipped_java_opts(home)} -Djava.io.tmpdir={tmp}".strip(),
        "python.client.executable": sys.executable,
    }


def write_client_dirs(spec: StackSpec, jars: artifacts.Artifacts) -> None:
    """flink.conf_dir and flink.lib_dir for `flink run` (klinkctl.flink_jobs), aimed at the cluster."""
    home = flink.flink_home()
    conf = flink.conf_dir(spec)
    conf.mkdir(parents=True, exist_ok=True)
    for shipped in (home / "conf").glob("log4j*.properties"):
        (conf / shipped.name).write_text(shipped.read_text())
    (conf / "config.yaml").write_text(yaml.safe_dump(client_config(spec, home), sort_keys=False))
    flink.write_lib_dir(spec, jars)


def cluster_jars(jars: artifacts.Artifacts) -> list[Path]:
    """The jars every JobManager and TaskManager of the cluster needs in lib/ for klinkctl's jobs."""
    python_jar = sorted((flink.flink_home() / "opt").glob("flink-python-*.jar"))
    return [*python_jar, jars.connector_jar, *jars.udf_jars]


def agent_java_option(spec: StackSpec, agent_path: str = CLUSTER_AGENT_PATH) -> str:
    return f"-javaagent:{agent_path}=control={spec.control_url},stack={spec.stack_token}"


def operator_instructions(spec: StackSpec, jars: artifacts.Artifacts, agent_loaded: bool = False) -> str:
    """What the cluster's operator adds so that klinkctl can run on it (deploy/kubernetes does it for Kubernetes);
    with the agent loaded everywhere already, only its options."""
    option = [f"     env.java.opts.taskmanager: {agent_java_option(spec)}",
              f"  The TaskManagers must reach {spec.control_url} (this machine: --host, --control-port); this "
              f"stack's token stays {spec.stack_token} (--stack-token {spec.stack_token})."]
    if agent_loaded:
        return "\n".join(["Every TaskManager runs klink-agent, but not with this stack's options. The cluster's "
                          "operator must set (keeping the agent's path), then restart the TaskManagers:", *option])
    lib = [f"     {jar}" for jar in cluster_jars(jars)]
    return "\n".join([
        "The cluster's operator must add klink-agent to every TaskManager, then restart them:",
        f"  1. copy {jars.agent_jar} to {CLUSTER_AGENT_PATH} on every TaskManager;",
        "  2. put these jars into lib/ of the JobManager and of every TaskManager (flink-python from Flink's opt/):",
        *lib,
        "  3. add to the Flink config (config.yaml; after any options already there):",
        *option,
    ])
