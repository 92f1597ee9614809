"""Processes the local backend starts: spawn detached, recognise again by pid + start time, stop for sure."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import psutil


@dataclass(frozen=True)
class ManagedProcess:
    name: str
    pid: int
    create_time: float  # psutil's start time: tells our process from a later one that reused the pid
    log_file: str
    port: int | None = None
    container: str | None = None  # the container it runs in (compose backend), None for a local process

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ManagedProcess:
        return cls(**data)


def launch(name: str, argv: list[str], env: dict[str, str], log_file: Path,
           port: int | None = None) -> tuple[subprocess.Popen, ManagedProcess]:
    """Start argv in its own session (so `stop` can signal its whole process group), output to log_file."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "ab") as log:
        proc = subprocess.Popen(
            argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    return proc, ManagedProcess(name, proc.pid, psutil.Process(proc.pid).create_time(), str(log_file), port)


def spawn(name: str, argv: list[str], env: dict[str, str], log_file: Path, port: int | None = None) -> ManagedProcess:
    """launch() for processes that outlive this one (stack components): only the record is kept."""
    return launch(name, argv, env, log_file, port)[1]


#: How a backend starts a stack component: spawn() here, or in a container of its own (compose.ContainerLauncher).
Spawn = Callable[[str, list[str], dict[str, str], Path, "int | None"], ManagedProcess]


def _process(managed: ManagedProcess) -> psutil.Process | None:
    try:
        process = psutil.Process(managed.pid)
        if abs(process.create_time() - managed.create_time) > 0.01 or process.status() == psutil.STATUS_ZOMBIE:
            return None
        return process
    except psutil.NoSuchProcess:
        return None


def pid_alive(pid: int) -> bool:
    """The process exists and is not a zombie (for pids recorded without a start time)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def is_running(managed: ManagedProcess) -> bool:
    return _process(managed) is not None


def resource_usage(managed: ManagedProcess) -> tuple[int, float] | None:
    """(RSS bytes, uptime seconds) of a running process, None if it is gone."""
    process = _process(managed)
    if process is None:
        return None
    try:
        return process.memory_info().rss, time.time() - process.create_time()
    except psutil.NoSuchProcess:
        return None


def _reap(pid: int) -> None:
    """Collect the exit status if the process is our child (tests spawn and stop in one process)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def _signal_group(managed: ManagedProcess, sig: signal.Signals) -> None:
    try:
        os.killpg(managed.pid, sig)  # pgid == pid: spawn() started a new session
    except ProcessLookupError:
        pass


def _group_alive(pgid: int) -> bool:
    for process in psutil.process_iter(["pid"]):
        try:
            if os.getpgid(process.pid) == pgid and process.status() != psutil.STATUS_ZOMBIE:
                return True
        except (ProcessLookupError, psutil.NoSuchProcess):
            continue
    return False


def stop(managed: ManagedProcess, grace_s: float = 15.0) -> bool:
    """SIGTERM the process group, wait up to grace_s, then SIGKILL. Returns True if it had to force."""
    if _process(managed) is None and not _group_alive(managed.pid):
        return False
    _signal_group(managed, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        _reap(managed.pid)
        if _process(managed) is None and not _group_alive(managed.pid):
            return False
        time.sleep(0.1)
    _signal_group(managed, signal.SIGKILL)
    for _ in range(50):
        _reap(managed.pid)
        if not _group_alive(managed.pid):
            break
        time.sleep(0.1)
    return True


def thread_names(pid: int) -> dict[int, str]:
    """tid -> comm of every thread of a process ({} once it is gone)."""
    names = {}
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return {}
    for task in tasks:
        try:
            names[int(task.name)] = (task / "comm").read_text().rstrip("\n")
        except (OSError, ValueError):
            continue  # the thread ended meanwhile
    return names


def taskmanagers_of(stack_processes: dict[str, int]) -> dict[str, int]:
    """The TaskManagers (name -> pid) among a stack's processes."""
    return {name: pid for name, pid in stack_processes.items() if name.startswith("taskmanager")}
