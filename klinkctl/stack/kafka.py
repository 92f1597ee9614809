"""The Kafka broker of the local stack: a single KRaft node (broker + controller) on loopback."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from klinkctl.errors import ComponentFailed
from klinkctl.stack.processes import ManagedProcess, Spawn, spawn
from klinkctl.stack.spec import StackSpec

CLUSTER_ID_FILE = "cluster.id"

# librdkafka logs every refused connection while the broker starts; those are expected, not news.
QUIET_CLIENT_LOGGER = logging.getLogger("klinkctl.kafka-client")
QUIET_CLIENT_LOGGER.addHandler(logging.NullHandler())
QUIET_CLIENT_LOGGER.propagate = False


def kafka_dir(spec: StackSpec) -> Path:
    return spec.state_dir / "kafka"


def log_file(spec: StackSpec) -> Path:
    return spec.state_dir / "logs" / "kafka.log"


def server_properties(spec: StackSpec) -> dict[str, str]:
    listener = f"PLAINTEXT://{spec.host}:{spec.kafka_port}"
    return {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.bootstrap.servers": f"{spec.host}:{spec.kafka_controller_port}",
        "listeners": f"{listener},CONTROLLER://{spec.host}:{spec.kafka_controller_port}",
        "advertised.listeners": listener,
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "log.dirs": str(kafka_dir(spec) / "data"),
        "num.partitions": "1",
        # The harness creates every topic of a run explicitly; auto-create is left on only for the
        # generator's throw-away warm-up topics (it rehearses a run until the JIT settles, then deletes them).
        "auto.create.topics.enable": "true",
        "offsets.topic.replication.factor": "1",
        "offsets.topic.num.partitions": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
        "delete.topic.enable": "true",
    }


def log4j2_properties(spec: StackSpec) -> str:
    return "\n".join([
        "status = warn",
        "appender.file.type = File",
        "appender.file.name = file",
        f"appender.file.fileName = {log_file(spec)}",
        "appender.file.layout.type = PatternLayout",
        "appender.file.layout.pattern = [%d] %p %m (%c)%n",
        "rootLogger.level = INFO",
        "rootLogger.appenderRef.file.ref = file",
        "logger.kafka.name = kafka",
        "logger.kafka.level = INFO",
        "logger.controller.name = state.change.logger",
        "logger.controller.level = WARN",
        "",
    ])


def write_config(spec: StackSpec) -> Path:
    directory = kafka_dir(spec)
    directory.mkdir(parents=True, exist_ok=True)
    properties = directory / "server.properties"
    properties.write_text("".join(f"{k}={v}\n" for k, v in server_properties(spec).items()))
    (directory / "log4j2.properties").write_text(log4j2_properties(spec))
    return properties


def _java(libs: Path, *args: str) -> list[str]:
    return ["java", "-cp", f"{libs}/*", *args]


def format_storage_once(spec: StackSpec, libs: Path) -> None:
    """KRaft needs its storage formatted with a cluster id, once; later `up`s reuse the data."""
    directory = kafka_dir(spec)
    if (directory / "data" / "meta.properties").is_file():
        return
    id_file = directory / CLUSTER_ID_FILE
    if not id_file.is_file():
        cluster_id = _run(_java(libs, "kafka.tools.StorageTool", "random-uuid"), spec).strip()
        id_file.write_text(cluster_id + "\n")
    cluster_id = id_file.read_text().strip()
    _run(_java(libs, "kafka.tools.StorageTool", "format", "--standalone", "-t", cluster_id,
               "-c", str(directory / "server.properties")), spec)


def _run(argv: list[str], spec: StackSpec) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        log = log_file(spec)
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a") as out:
            out.write(result.stdout + result.stderr)
        last = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ComponentFailed("kafka", f"storage format failed: {last[0]}", str(log))
    return result.stdout


def start(spec: StackSpec, libs: Path, start_process: Spawn = spawn) -> ManagedProcess:
    properties = write_config(spec)
    format_storage_once(spec, libs)
    tmp = spec.state_dir / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    argv = ["java", f"-Xmx{spec.kafka_heap}", f"-Xms{spec.kafka_heap}",
            f"-Dlog4j2.configurationFile={kafka_dir(spec) / 'log4j2.properties'}",
            f"-Djava.io.tmpdir={tmp}",
            "-cp", f"{libs}/*", "kafka.Kafka", str(properties)]
    return start_process("kafka", argv, dict(os.environ), spec.state_dir / "logs" / "kafka.out", spec.kafka_port)


def is_ready(spec: StackSpec) -> bool:
    """The broker answers a metadata request."""
    admin = AdminClient({"bootstrap.servers": spec.bootstrap_servers, "logger": QUIET_CLIENT_LOGGER})
    try:
        return bool(admin.list_topics(timeout=1.0).brokers)
    except KafkaException:
        return False
