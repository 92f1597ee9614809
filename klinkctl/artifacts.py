"""Jars the stack needs: third-party ones fetched through Maven into the user cache, ours built from java-udfs."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from klinkctl import FLINK_KAFKA_CONNECTOR_VERSION, KAFKA_VERSION
from klinkctl.errors import KlinkError
from klinkctl.paths import JAVA_UDFS_DIR, PACKAGE_DIR, cache_dir
from klinkctl.progress import Progress, no_progress

RUNTIME_DEPS_POM = PACKAGE_DIR / "maven" / "runtime-deps.pom.xml"
AGENT_JAR = JAVA_UDFS_DIR / "klink-agent" / "target" / "klink-agent.jar"
GENERATOR_JAR = JAVA_UDFS_DIR / "klink-generator" / "target" / "klink-generator.jar"
SCHEDULER_JAR = JAVA_UDFS_DIR / "klink-scheduler" / "target" / "klink-scheduler.jar"
SIM_JAR = JAVA_UDFS_DIR / "klink-sim" / "target" / "klink-sim.jar"
#: Built jars that never go on Flink's classpath: the agent is attached with -javaagent (and carries the
#: scheduler core, so one copy of its classes is on the TaskManager's system classpath), the generator
#: runs as its own process (and bundles kafka-clients, which must not meet the connector's copy), and so does the
#: simulator (klinkctl simulate).
NOT_ON_CLUSTER_CLASSPATH = (AGENT_JAR, GENERATOR_JAR, SCHEDULER_JAR, SIM_JAR)
#: What klinkctl.catalog reads: the Java side's policies, samplers, delay models, workloads and limits, written by
#: the build (java-udfs/klink-catalog) next to the jars.
CATALOG_FILE = JAVA_UDFS_DIR / "klink-catalog" / "target" / "klink-catalog.json"
COMPLETE_MARKER = ".complete"


@dataclass(frozen=True)
class Artifacts:
    kafka_libs: Path  # directory of broker jars (the broker's classpath is libs/*)
    connector_jar: Path
    agent_jar: Path
    udf_jars: tuple[Path, ...]  # java-udfs jars for the cluster classpath (metrics, workloads, ...)


def _fetch(profile: str, target: Path, progress: Progress) -> Path:
    """Copy a Maven profile's dependencies into target once; a marker file makes partial copies retry."""
    if (target / COMPLETE_MARKER).is_file():
        return target
    progress(f"fetching {profile} jars through Maven into {target}")
    target.mkdir(parents=True, exist_ok=True)
    command = [
        "mvn", "-q", "-B", "-f", str(RUNTIME_DEPS_POM), "dependency:copy-dependencies",
        f"-P{profile}", f"-DoutputDirectory={target}",
        f"-Dkafka.version={KAFKA_VERSION}",
        f"-Dflink.kafka.connector.version={FLINK_KAFKA_CONNECTOR_VERSION}",
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = (result.stdout + result.stderr).strip().splitlines()[-1:] or ["no output"]
        raise KlinkError(f"Maven could not fetch the {profile} jars: {tail[0]} (command: {' '.join(command)})")
    (target / COMPLETE_MARKER).write_text("ok\n")
    return target


def kafka_libs(progress: Progress = no_progress) -> Path:
    return _fetch("kafka-broker", cache_dir() / f"kafka-{KAFKA_VERSION}" / "libs", progress)


def connector_jar(progress: Progress = no_progress) -> Path:
    target = _fetch("flink-kafka-connector", cache_dir() / f"flink-connector-kafka-{FLINK_KAFKA_CONNECTOR_VERSION}", progress)
    jars = sorted(target.glob("flink-sql-connector-kafka-*.jar"))
    if not jars:
        raise KlinkError(f"no flink-sql-connector-kafka jar in {target}; delete that directory and retry")
    return jars[0]


def _newest_mtime(paths: list[Path]) -> float:
    return max((p.stat().st_mtime for p in paths), default=0.0)


def java_sources() -> list[Path]:
    return [p for p in JAVA_UDFS_DIR.rglob("*") if p.is_file() and "target" not in p.relative_to(JAVA_UDFS_DIR).parts]


def built_jars() -> list[Path]:
    return sorted(p for p in JAVA_UDFS_DIR.glob("*/target/*.jar") if not p.name.startswith("original-"))


def built_outputs() -> list[Path]:
    """The jars and the catalog, each rewritten by every build."""
    return built_jars() + ([CATALOG_FILE] if CATALOG_FILE.is_file() else [])


def java_udfs_stale() -> bool:
    outputs = built_outputs()
    if any(output not in outputs for output in (*NOT_ON_CLUSTER_CLASSPATH, CATALOG_FILE)):
        return True
    oldest_output = min(p.stat().st_mtime for p in outputs)
    return _newest_mtime(java_sources()) > oldest_output


def build_java_udfs(progress: Progress = no_progress, force: bool = False) -> list[Path]:
    """`mvn package` of java-udfs when a jar is missing or older than the sources."""
    if force or java_udfs_stale():
        progress("building java-udfs with Maven (jars missing or older than sources)")
        command = ["mvn", "-q", "-B", "-f", str(JAVA_UDFS_DIR / "pom.xml"), "package", "-DskipTests"]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            lines = [line for line in (result.stdout + result.stderr).splitlines() if "ERROR" in line]
            raise KlinkError(f"building java-udfs failed: {(lines or ['see mvn output'])[0].strip()} "
                             f"(run: {' '.join(command)})")
        for output in built_outputs():  # mvn leaves untouched jars with old mtimes; mark the build as current
            output.touch()
    return built_jars()


def ensure_all(progress: Progress = no_progress) -> Artifacts:
    jars = build_java_udfs(progress)
    return Artifacts(
        kafka_libs=kafka_libs(progress),
        connector_jar=connector_jar(progress),
        agent_jar=AGENT_JAR,
        udf_jars=tuple(j for j in jars if j not in NOT_ON_CLUSTER_CLASSPATH),
    )


if __name__ == "__main__":  # `python -m klinkctl.artifacts`: prepare every jar ahead of `klinkctl up`
    ready = ensure_all(progress=print)
    print(f"kafka broker jars: {ready.kafka_libs}\nflink kafka connector: {ready.connector_jar}\n"
          f"klink agent: {ready.agent_jar}")
