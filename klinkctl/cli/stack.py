"""`klinkctl up | status | down | smoke`: the Kafka + Flink stack."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from klinkctl.cli.options import format_option, state_dir_option
from klinkctl.cli.output import console, out
from klinkctl.errors import RunNotCompleted, StackNotRunning
from klinkctl.netem import control as netem_control
from klinkctl.options import click_options
from klinkctl.paths import resolve_state_dir
from klinkctl.stack import backends, running
from klinkctl.stack.base import ComponentStatus
from klinkctl.stack.spec import STACK_OPTIONS, StackSpec


@click.command()
@state_dir_option
@click.option("--backend", type=click.Choice(backends.NAMES), default="local", show_default=True,
              help="local: processes on this machine (no Docker); compose: docker compose; remote: attach to "
                   "an existing cluster (--flink-rest, --kafka-bootstrap), starting nothing.")
@click.option("--cluster", "cluster_file", type=click.Path(path_type=Path, dir_okay=False),
              help="--backend remote: a YAML file describing the existing cluster with these options' names "
                   "(flink-rest, kafka-bootstrap, stack-token, host, control-port); the command line wins.")
@click_options(STACK_OPTIONS)
def up(state_dir: Path | None, backend: str, cluster_file: Path | None, **options: Any) -> None:
    """Start Kafka + Flink (JobManager and TaskManagers) and wait until they are ready."""
    given = {name: value for name, value in options.items() if value is not None}
    if cluster_file is not None:
        from klinkctl.stack.remote import read_cluster_file

        given = {**read_cluster_file(cluster_file), **given}
    spec = StackSpec.build(state_dir=resolve_state_dir(state_dir), **given)  # checked before anything starts
    warning = spec.exposure()
    if warning:
        click.echo(f"warning: {warning}", err=True)
    stack = backends.create(backend, spec.state_dir)
    backends.refuse_mixed(backend, spec)
    with console.status("starting stack") as spinner:
        started = stack.up(spec, progress=lambda line: spinner.update(line))
    if not started:
        click.echo(f"stack in {spec.state_dir} is already running; nothing changed")
    _print_ready(stack)


def _print_ready(stack: backends.StackBackend) -> None:
    endpoints = stack.endpoints()
    statuses = stack.status()
    click.echo(f"kafka bootstrap: {endpoints.bootstrap_servers}")
    click.echo(f"flink rest:      {endpoints.rest_url}")
    for note in stack.notes():
        click.echo(note)
    click.echo(_health_line(statuses))


def _health_line(statuses: list[ComponentStatus]) -> str:
    running = sum(s.running for s in statuses)
    rss = sum(s.rss_bytes or 0 for s in statuses)
    state = "healthy" if running == len(statuses) else "DEGRADED"
    memory = f", {rss / 2**20:.0f} MiB RSS in total" if rss else ""  # none known of an attached cluster's
    return f"{state}: {running}/{len(statuses)} components running{memory}"


@click.command()
@state_dir_option
@format_option
def status(state_dir: Path | None, fmt: str) -> None:
    """Each component's state, pid, port, RSS and uptime. Exit 5 if no stack runs or anything is down."""
    resolved = resolve_state_dir(state_dir)
    stack = backends.detect(resolved)
    statuses = stack.status() if stack else []
    healthy = bool(statuses) and all(s.running for s in statuses)
    if fmt == "json":
        click.echo(json.dumps({"state_dir": str(resolved), "healthy": healthy,
                               "components": [asdict(s) for s in statuses]}, indent=2))
    elif statuses:
        _print_status_table(statuses)
    if not statuses:
        raise StackNotRunning(f"no stack recorded in {resolved}; start one with `klinkctl up`")
    if not healthy:
        raise StackNotRunning(f"the stack in {resolved} is degraded: "
                              f"{', '.join(s.name for s in statuses if not s.running)} down")


def _print_status_table(statuses: list[ComponentStatus]) -> None:
    table = Table("component", "state", "pid", "port", "rss", "uptime", "detail")
    for s in statuses:
        table.add_row(s.name, "running" if s.running else "DOWN", str(s.pid or "-"), str(s.port or "-"),
                      f"{s.rss_bytes / 2**20:.0f} MiB" if s.rss_bytes else "-",
                      f"{s.uptime_s:.0f} s" if s.uptime_s is not None else "-", s.detail)
    out.print(table)
    click.echo(_health_line(statuses))


@click.command()
@state_dir_option
@click.option("--purge", is_flag=True, help="Also delete the Kafka data, logs and configs `up` created in the state dir (nothing else).")
def down(state_dir: Path | None, purge: bool) -> None:
    """Stop everything `up` started (gracefully, then forcefully). Keeps data unless --purge."""
    resolved = resolve_state_dir(state_dir)
    stack = backends.detect(resolved) or backends.create("local", resolved)
    if netem_control.NetemState(resolved).load():  # the relays and namespace would outlive the broker
        cleared = netem_control.clear(resolved, netem_control.container_finder(resolved))
        click.echo(f"removed netem from {', '.join(cleared)}")
    attached = stack.recorded_spec() if stack.name == "remote" else None
    with console.status("stopping stack") as spinner:
        stopped = stack.down(purge=purge, progress=lambda line: spinner.update(line))
    if attached is not None:
        click.echo(f"detached from the cluster at {attached.rest_url} (klinkctl started nothing there: nothing stopped)")
    else:
        click.echo(f"stopped {', '.join(stopped)}" if stopped else f"nothing was running in {resolved}")
    if purge:
        click.echo(f"purged stack data in {resolved}")


def running_stack(state_dir: Path | None) -> tuple[StackSpec, dict[str, int]]:
    """The stack to run on (klinkctl.stack.running.ensure_stack), with a spinner while it starts."""
    with console.status("checking the stack") as spinner:
        return running.ensure_stack(state_dir, progress=lambda line: spinner.update(line))


@click.command()
@state_dir_option
@click.option("--results", "results_dir", type=click.Path(path_type=Path), default=Path("results"),
              show_default=True, help="Where the run directory is written.")
def smoke(state_dir: Path | None, results_dir: Path) -> None:
    """Prove Kafka -> Flink -> Kafka works: a windowed PyFlink job checked against exact counts."""
    from klinkctl.smoke import run_smoke

    spec, _ = running_stack(state_dir)
    with console.status("smoke job") as spinner:
        result = run_smoke(spec, results_dir, progress=lambda line: spinner.update(line))
    click.echo(f"windows expected {len(result.expected)}, received {len(result.received)}, "
               f"missing {len(result.missing)}, wrong {len(result.wrong)} -> {result.run_dir}")
    if not result.passed:
        raise RunNotCompleted(f"smoke job output does not match the expected windows "
                              f"(see {result.run_dir}/windows.csv)")
    click.echo("smoke: PASSED (Kafka -> Flink event-time window -> Kafka)")
