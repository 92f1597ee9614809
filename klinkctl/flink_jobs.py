"""Submitting PyFlink jobs to the session cluster and following them over Flink's REST API."""

from __future__ import annotations

import re
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from klinkctl.errors import KlinkError
from klinkctl.stack import flink
from klinkctl.stack.spec import StackSpec

JOB_ID = re.compile(r"JobID ([0-9a-f]{32})")
TERMINAL_STATES = {"FAILED", "CANCELED", "FINISHED"}
#: The name every bench job runs under: its run id, <workload>-<policy>-<yyyymmdd-hhmmss>[-n] (run/bench.py).
RUN_JOB_NAME = re.compile(r"^[a-z]+-[a-z0-9-]+-\d{8}-\d{6}(-\d+)?$")


def submit_python_job(spec: StackSpec, script: Path, args: list[str]) -> str:
    """`flink run -d -py`: the client builds the plan with the venv's python, the cluster runs it.

    The client uses the stack's conf and lib dirs, so the Kafka connector and our jars are on its
    classpath exactly as on the cluster's (no pipeline.jars juggling, DESIGN.md §3).
    """
    log_dir = flink.component_log_dir(spec, "client")
    log_dir.mkdir(parents=True, exist_ok=True)
    argv = ["bash", str(flink.flink_home() / "bin" / "flink"), "run", "-d", "-py", str(script), *args]
    result = subprocess.run(argv, env=flink.script_env(spec, log_dir), capture_output=True, text=True,
                            check=False, timeout=300)
    (log_dir / f"submit-{script.stem}.out").write_text(result.stdout + result.stderr)
    match = JOB_ID.search(result.stdout)
    if result.returncode != 0 or match is None:
        reason = _first_error(result.stdout + result.stderr)
        raise KlinkError(f"submitting {script.name} failed: {reason} (see {log_dir / f'submit-{script.stem}.out'})")
    return match.group(1)


def _first_error(output: str) -> str:
    for line in output.splitlines():
        if "Exception" in line or "Error" in line:
            return line.strip()[:300]
    return "no JobID in the client output"


def job_state(spec: StackSpec, job_id: str) -> str:
    return str(flink.rest_get(spec, f"/jobs/{job_id}")["state"])


def job_failure(spec: StackSpec, job_id: str) -> str:
    """The root exception of a failed job, first line only."""
    try:
        root = flink.rest_get(spec, f"/jobs/{job_id}/exceptions").get("exceptionHistory", {})
        entries = root.get("entries") or []
        return failure_line(entries[0]) if entries else "no exception recorded"
    except (urllib.error.URLError, OSError, KeyError, IndexError):
        return "could not read the job's exceptions"


def failure_line(entry: dict) -> str:
    """An exception history entry in one line: its root cause, the stack trace's last "Caused by:" line
    ("<class>: <message>"; Flink wraps a task's failure in "JobException: Recovery is suppressed by ..."), else
    its first line, with the class once (e.g. AION's operator refusing a disk too full for its p-buckets)."""
    lines = entry.get("stacktrace", "").splitlines()
    causes = [line.removeprefix("Caused by: ").strip() for line in lines if line.startswith("Caused by: ")]
    if causes:
        return causes[-1]
    name, first = entry.get("exceptionName", ""), (lines[0].strip() if lines else "")
    return first if first.startswith(name) else f"{name}: {first}"


def wait_running(spec: StackSpec, job_id: str, timeout_s: float = 60) -> None:
    """Until every task of the job is RUNNING (sources reading), or raise with the job's failure."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            job = flink.rest_get(spec, f"/jobs/{job_id}")
        except (TimeoutError, urllib.error.URLError):
            continue  # a JobManager busy deploying the job answers late (seen on a loaded 2-core machine)
        if job["state"] in TERMINAL_STATES:
            raise KlinkError(f"job {job_id} ended as {job['state']}: {job_failure(spec, job_id)}")
        vertices = job.get("vertices", [])
        if vertices and all(v["status"] == "RUNNING" for v in vertices):
            return
        time.sleep(0.5)
    raise KlinkError(f"job {job_id} did not reach RUNNING within {timeout_s:.0f} s")


def cancel(spec: StackSpec, job_id: str) -> None:
    request_cancel(spec, job_id)
    await_ended(spec, job_id)


def request_cancel(spec: StackSpec, job_id: str) -> None:
    """Ask the JobManager to cancel the job; returns at once (a job already gone is fine)."""
    request = urllib.request.Request(f"{spec.rest_url}/jobs/{job_id}?mode=cancel", method="PATCH")
    try:
        urllib.request.urlopen(request, timeout=5).read()
    except urllib.error.HTTPError as error:
        if error.code != 404:
            raise


def await_ended(spec: StackSpec, job_id: str, timeout_s: float = 30) -> None:
    """Until the job is in a terminal state (its slots free for the next run), at most `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and job_state(spec, job_id) not in TERMINAL_STATES:
        time.sleep(0.3)


def jobs_run(spec: StackSpec) -> int:
    """How many jobs the JobManager has run or runs (its /jobs/overview: jobs that ended more than
    `jobstore.expiration-time`, 1 h, ago are no longer listed)."""
    return len(flink.rest_get(spec, "/jobs/overview").get("jobs", []))


def cancel_leftover_runs(spec: StackSpec) -> list[str]:
    """Cancel the bench jobs still running on the stack, left by a klinkctl that was killed (kill -9, a crash);
    called while holding the stack's run lock, so no live klinkctl owns them. Jobs under any other name are
    the user's and are left alone. Returns the names cancelled."""
    try:
        jobs = flink.rest_get(spec, "/jobs/overview").get("jobs", [])
    except (urllib.error.URLError, OSError, ValueError):
        return []
    leftovers = [job for job in jobs if job.get("state") not in TERMINAL_STATES
                 and RUN_JOB_NAME.match(str(job.get("name", "")))]
    for job in leftovers:
        cancel(spec, job["jid"])
    return [job["name"] for job in leftovers]


def placement(spec: StackSpec, job_id: str) -> list[dict]:
    """Where each task of the job runs: vertex, subtask, taskmanager (its resource id, e.g. taskmanager-2)."""
    rows = []
    for vertex in flink.rest_get(spec, f"/jobs/{job_id}", timeout=10).get("vertices", []):
        detail = flink.rest_get(spec, f"/jobs/{job_id}/vertices/{vertex['id']}", timeout=10)
        rows += [{"vertex": vertex["name"], "subtask": task["subtask"], "taskmanager": task.get("taskmanager-id", "")}
                 for task in detail.get("subtasks", [])]
    return rows
