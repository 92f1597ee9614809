"""The Flink session cluster of the local stack, run from the PyFlink distribution with our own conf and lib dirs."""

from __future__ import annotations

import filecmp
import importlib.util
import json
import os
import shutil
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import yaml

from klinkctl import artifacts as java_artifacts, privileges
from klinkctl.artifacts import Artifacts
from klinkctl.errors import KlinkError
from klinkctl.cpus import (cpu_quota_group, cpu_quota_subgroup, in_group, move_threads, pinned,
                          release_cpu_quota_group)
from klinkctl.jit import compiler_threads_cpu_s
from klinkctl.stack.processes import ManagedProcess, Spawn, spawn
from klinkctl.stack.spec import GC_FLAGS, JIT_FLAGS, StackSpec, taskmanager_name


def flink_home() -> Path:
    """The pip-installed Flink distribution (pyflink ships bin/, lib/, opt/, conf/)."""
    found = importlib.util.find_spec("pyflink")
    if found is None or not found.submodule_search_locations:
        raise KlinkError(f"apache-flink is not installed in {sys.executable}; run `pip install -e .`")
    return Path(list(found.submodule_search_locations)[0])


def flink_dir(spec: StackSpec) -> Path:
    return spec.state_dir / "flink"


def conf_dir(spec: StackSpec) -> Path:
    return flink_dir(spec) / "conf"


def lib_dir(spec: StackSpec) -> Path:
    return flink_dir(spec) / "lib"


def agent_status_dir(spec: StackSpec) -> Path:
    return spec.state_dir / "agent"


def agent_args(spec: StackSpec, status_dir: Path | str) -> str:
    """klink-agent's options (io.klink.agent.AgentOptions): where it says it loaded, and klinkctl's control channel."""
    return f"statusDir={status_dir},control={spec.control_url},stack={spec.stack_token}"


def component_log_dir(spec: StackSpec, component: str) -> Path:
    return spec.state_dir / "logs" / component


def shipped_java_opts(home: Path) -> str:
    shipped = yaml.safe_load((home / "conf" / "config.yaml").read_text()) or {}
    return str(shipped.get("env", {}).get("java", {}).get("opts", {}).get("all", ""))


def cluster_config(spec: StackSpec, artifacts: Artifacts, home: Path) -> dict[str, object]:
    """Flat Flink config keys. Every listener on spec.host; every write inside the state dir."""
    state = flink_dir(spec)
    tmp = state / "tmp"
    config: dict[str, object] = {
        "jobmanager.rpc.address": spec.host,
        "jobmanager.rpc.port": spec.jobmanager_rpc_port,
        "jobmanager.bind-host": spec.host,
        "taskmanager.bind-host": spec.host,
        "taskmanager.host": spec.host,
        "rest.address": spec.host,
        "rest.bind-address": spec.host,
        "rest.port": spec.rest_port,
        "taskmanager.numberOfTaskSlots": spec.slots,
        "parallelism.default": 1,
        "jobmanager.memory.process.size": spec.jobmanager_memory,
        "taskmanager.memory.process.size": spec.taskmanager_memory,
        "jobmanager.execution.failover-strategy": "region",
        # With several TaskManagers a job's slots are spread over all of them, not packed into the first: a
        # pipeline's parallel tasks then run on every TaskManager, as a heterogeneity study needs.
        "taskmanager.load-balance.mode": "SLOTS",
        # REST metrics are snapshots the JobManager fetches from TaskManagers; the 10 s default is too
        # coarse for the per-second throughput table a run writes.
        "metrics.fetcher.update-interval": 1000,
        "env.pid.dir": str(state / "pid"),
        "io.tmp.dirs": str(tmp),
        "web.tmpdir": str(tmp / "web"),
        "blob.storage.directory": str(tmp / "blob"),
        "env.stdout-err.redirect-to-file": True,
        "env.java.opts.all": f"{shipped_java_opts(home)} -Djava.io.tmpdir={tmp}".strip(),
        "env.java.opts.taskmanager": " ".join([
            f"-javaagent:{installed_agent_jar(spec)}={agent_args(spec, agent_status_dir(spec))}",
            GC_FLAGS[spec.taskmanager_gc], *JIT_FLAGS[spec.taskmanager_jit], *_jit_thread_opts(spec),
            *_PRIORITY_OPTS]),
        "python.executable": sys.executable,
        "python.client.executable": sys.executable,
    }
    config.update(spec.flink_config)
    return config


# Thread.setPriority is ignored by HotSpot on Linux unless ThreadPriorityPolicy=1, which needs root (or
# CAP_SYS_NICE). Java priority 2 then maps to nice 19 and every other one to nice 0, so that only the task
# threads the scheduler's `--enforce priority` demotes to priority 2 change (klink-agent Enforcement). Not 1:
# Flink's metric query service runs at priority 1, and at nice 19 it starves under overload (no throughput
# samples). Without CAP_SYS_NICE the JVM would warn at start and ignore the priorities; with it (root, or an
# ambient capability for another user) it warns that the policy "may require" root and applies them.
def priority_opts(can_renice: bool) -> list[str]:
    if not can_renice:
        return []
    return ["-XX:ThreadPriorityPolicy=1", "-XX:JavaPriority2_To_OSPriority=19",
            *(f"-XX:JavaPriority{p}_To_OSPriority=0" for p in range(1, 11) if p != 2)]


_PRIORITY_OPTS = priority_opts(can_renice=privileges.children_get("CAP_SYS_NICE"))


def write_conf_dir(spec: StackSpec, artifacts: Artifacts) -> Path:
    home = flink_home()
    conf = conf_dir(spec)
    conf.mkdir(parents=True, exist_ok=True)
    for shipped in (home / "conf").glob("log4j*.properties"):
        target = conf / shipped.name
        target.write_text(shipped.read_text())
    (conf / "config.yaml").write_text(yaml.safe_dump(cluster_config(spec, artifacts, home), sort_keys=False))
    return conf


def installed_agent_jar(spec: StackSpec) -> Path:
    return flink_dir(spec) / "agent" / "klink-agent.jar"


def write_lib_dir(spec: StackSpec, artifacts: Artifacts) -> Path:
    """One classpath for JobManager, TaskManagers and client: Flink's lib, flink-python, the connector, our jars.

    Our own jars (and the agent) are copied, not linked: a JVM reads classes from its jars lazily, so
    rebuilding java-udfs while the stack runs would otherwise change them under the running TaskManagers
    (seen: NoClassDefFoundError for a policy class first used after a rebuild)."""
    home = flink_home()
    lib = lib_dir(spec)
    lib.mkdir(parents=True, exist_ok=True)
    for stale in lib.iterdir():
        stale.unlink()
    for jar in [*sorted((home / "lib").glob("*.jar")), *sorted((home / "opt").glob("flink-python-*.jar")),
                artifacts.connector_jar]:
        (lib / jar.name).symlink_to(jar)
    for jar in artifacts.udf_jars:
        shutil.copy2(jar, lib / jar.name)
    agent = installed_agent_jar(spec)
    agent.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(artifacts.agent_jar, agent)
    return lib


def outdated_copies(spec: StackSpec) -> list[str]:
    """Our jars (and the agent) whose copy in the stack's lib dir differs from the one java-udfs holds now, i.e.
    was rebuilt since `up` (write_lib_dir): a run would silently use the old code. Jars not built are skipped."""
    copies = {jar: lib_dir(spec) / jar.name for jar in java_artifacts.built_jars()}
    copies[java_artifacts.AGENT_JAR] = installed_agent_jar(spec)
    return sorted(built.name for built, copy in copies.items()
                  if built.is_file() and copy.is_file() and not filecmp.cmp(built, copy, shallow=False))


def script_env(spec: StackSpec, log_dir: Path) -> dict[str, str]:
    """Environment for Flink's bin/ scripts: our conf + lib, logs in the component's own dir."""
    env = dict(os.environ)
    env.update({
        "FLINK_CONF_DIR": str(conf_dir(spec)),
        "FLINK_LIB_DIR": str(lib_dir(spec)),
        "FLINK_LOG_DIR": str(log_dir),
        "FLINK_IDENT_STRING": "klink",
    })
    env.pop("FLINK_HOME", None)  # the scripts then locate the distribution from their own path
    return env


def _start(spec: StackSpec, component: str, script: str, extra_args: list[str], port: int | None,
           start: Spawn, confine: Callable[[list[str]], list[str]] = list) -> ManagedProcess:
    log_dir = component_log_dir(spec, component)
    log_dir.mkdir(parents=True, exist_ok=True)
    argv = confine(["bash", str(flink_home() / "bin" / script), "start-foreground", *extra_args])
    # start-foreground execs the JVM, so the pid we record is the JobManager/TaskManager itself.
    return start(component, argv, script_env(spec, log_dir), log_dir / "launcher.out", port)


def start_jobmanager(spec: StackSpec, start: Spawn = spawn) -> ManagedProcess:
    return _start(spec, "jobmanager", "jobmanager.sh", [], spec.rest_port, start)


def start_taskmanager(spec: StackSpec, index: int, start: Spawn = spawn, confined_here: bool = True,
                      properties: dict[str, object] | None = None) -> ManagedProcess:
    """confined_here: pin and cap it with taskset and our cgroups; False when `start` places it (a container).
    properties: Flink settings of this TaskManager alone, over the shared config.yaml."""
    name = taskmanager_name(index)
    confine = (lambda argv: as_taskmanager(spec, index, argv)) if confined_here else list
    own = {"taskmanager.resource-id": name, **(properties or {})}
    dynamic = [arg for key, value in own.items() for arg in ("-D", f"{key}={value}")]
    return _start(spec, name, "taskmanager.sh", dynamic, None, start, confine)


def as_taskmanager(spec: StackSpec, index: int, argv: list[str]) -> list[str]:
    """argv run where TaskManager `index` runs: in its cgroup (if any), on its --tm-cpus cores (if pinned)."""
    return pinned(in_group(argv, taskmanager_group(spec, index)), spec.taskmanager_cpus, "--tm-cpus")


def taskmanager_group(spec: StackSpec, index: int) -> Path | None:
    """The `cgroup.procs` of the group TaskManager `index` runs in, None if it runs in none.

    --tm-cpu-quota alone: all TaskManagers share one group with that cap. With --tm-quota each TaskManager has a
    group of its own (capped by --tm-quota or not at all), *nested* in that shared group (which then has no cap
    of its own unless --tm-cpu-quota gives one) rather than beside it: so --tm-cpu-quota still caps all
    TaskManagers together, whatever their own caps (a sibling group would escape it), cgroup v2's rule that a
    group with subgroups holds no processes is kept, and `down` finds every group under one name."""
    option = "--tm-cpu-quota" if spec.taskmanager_cpu_quota else "--tm-quota"
    if not spec.taskmanager_subgroups:
        return (cpu_quota_group(spec.taskmanager_cgroup, spec.taskmanager_cpu_quota, option, spec.delegated_cgroup)
                if spec.taskmanager_cpu_quota else None)
    outer = cpu_quota_group(spec.taskmanager_cgroup, spec.taskmanager_cpu_quota or None, option,
                            spec.delegated_cgroup)
    return cpu_quota_subgroup(outer, taskmanager_name(index), spec.quota_of.get(index), "--tm-quota",
                              spec.delegated_cgroup)


def _jit_thread_opts(spec: StackSpec) -> list[str]:
    """--tm-jit-cpu outside-quota: every compiler thread exists from the JVM's start, instead of HotSpot adding
    and ending them as its queue changes, so that all of them are moved out of the quota once."""
    return ["-XX:-UseDynamicNumberOfCompilerThreads"] if spec.jit_outside_quota else []


def free_compiler_threads(spec: StackSpec, taskmanager_pids: list[int]) -> int:
    """--tm-jit-cpu outside-quota: moves the TaskManagers' JIT compiler threads into a group beside their quota
    group, without a cap of its own (their cores stay the --tm-cpus ones: a thread keeps its affinity). Returns
    how many moved; a KlinkError if none could be found."""
    procs = cpu_quota_group(spec.jit_cgroup, None, "--tm-jit-cpu", spec.delegated_cgroup)
    moved = sum(move_threads(compiler_threads_cpu_s(pid) or {}, procs) for pid in taskmanager_pids)
    if not moved:
        raise KlinkError("--tm-jit-cpu outside-quota found no JIT compiler threads in the TaskManagers "
                         "(a JVM started with -Xint?); leave the option out")
    return moved


def release_taskmanager_groups(spec: StackSpec) -> None:
    """Removes the groups taskmanager_group and free_compiler_threads made (once their processes are gone), and
    no others."""
    release_cpu_quota_group(spec.taskmanager_cgroup, spec.delegated_cgroup, spec.taskmanager_subgroups)
    if spec.jit_outside_quota:
        release_cpu_quota_group(spec.jit_cgroup, spec.delegated_cgroup)


def component_log(spec: StackSpec, component: str) -> Path:
    """The component's main log file (Flink names it flink-<ident>-<service>-<n>-<host>.log)."""
    log_dir = component_log_dir(spec, component)
    logs = sorted(log_dir.glob("*.log"), key=lambda p: p.stat().st_mtime)
    return logs[-1] if logs else log_dir / "launcher.out"


def rest_get(spec: StackSpec, path: str, timeout: float = 2.0) -> dict:
    with urllib.request.urlopen(f"{spec.rest_url}{path}", timeout=timeout) as response:
        return json.loads(response.read())


def registered_taskmanagers(spec: StackSpec) -> int | None:
    """TaskManagers registered with the JobManager, or None while the REST API does not answer."""
    try:
        return int(rest_get(spec, "/overview").get("taskmanagers", 0))
    except (urllib.error.URLError, OSError, ValueError):
        return None
