"""deploy/kubernetes, checked statically (no Kubernetes here): it says what klinkctl's remote backend expects."""

from __future__ import annotations

import re

import yaml

from klinkctl.paths import PROJECT_ROOT
from klinkctl.stack.remote import CLUSTER_AGENT_PATH

DEPLOY = PROJECT_ROOT / "deploy" / "kubernetes"


def _session() -> dict:
    return yaml.safe_load((DEPLOY / "flink-session.yaml").read_text())


def test_the_session_cluster_loads_the_agent_where_klinkctl_tells_operators_to_put_it():
    session = _session()
    assert (session["kind"], "job" in session["spec"]) == ("FlinkDeployment", False)  # a session cluster
    option = session["spec"]["flinkConfiguration"]["env.java.opts.taskmanager"]
    assert re.fullmatch(rf"-javaagent:{re.escape(CLUSTER_AGENT_PATH)}=control=http://[A-Z_]+:\d+,stack=[\w.-]+",
                        option)
    mounts = {m["mountPath"] for m in session["spec"]["podTemplate"]["spec"]["containers"][0]["volumeMounts"]}
    assert {"/opt/flink/lib", CLUSTER_AGENT_PATH.rsplit("/", 1)[0]} <= mounts


def test_the_init_containers_bring_flink_python_our_jars_and_the_agent():
    commands = " ".join(" ".join(c["command"]) for c in _session()["spec"]["podTemplate"]["spec"]["initContainers"])
    assert "/opt/flink/opt/flink-python-*.jar" in commands and "/opt/flink/lib/*.jar" in commands
    assert "/jars/lib/*.jar" in commands and "/jars/klink-agent.jar" in commands
    assert "COPY jars/ /jars/" in (DEPLOY / "Dockerfile.jars").read_text()


def test_the_python_job_runs_through_python_driver_on_that_session_cluster():
    job = yaml.safe_load((DEPLOY / "smoke-session-job.yaml").read_text())
    assert job["spec"]["deploymentName"] == _session()["metadata"]["name"]
    assert job["spec"]["job"]["entryClass"] == "org.apache.flink.client.python.PythonDriver"
    assert job["spec"]["job"]["args"][:2] == ["-py", "/opt/flink/usrlib/smoke.py"]


def test_the_cluster_file_names_the_control_address_and_token_the_agents_are_given():
    from klinkctl.stack.remote import read_cluster_file

    values = read_cluster_file(DEPLOY / "klink-cluster.yaml")
    option = _session()["spec"]["flinkConfiguration"]["env.java.opts.taskmanager"]
    assert f"control=http://{values['host']}:{values['control_port']},stack={values['token']}" in option
