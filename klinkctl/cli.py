"""The klinkctl command line: parses, calls the library, prints. Nothing else lives here."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from klinkctl import __version__, locks, prereqs
from klinkctl.errors import KlinkError
from klinkctl.paths import resolve_state_dir
from klinkctl.netem import control as netem_control
from klinkctl.options import click_options
from klinkctl.run.declared import OPTIONS
from klinkctl.netem.cli import container_finder, netem
from klinkctl.results.archive import archive_command
from klinkctl.results.compare_cli import compare
from klinkctl.run.capacity_cli import capacity_command
from klinkctl.run.sweep_cli import sweep
from klinkctl.results.report_cli import report
from klinkctl.stack import backends
from klinkctl.stack.base import ComponentStatus
from klinkctl.stack.spec import StackSpec

console = Console(stderr=True)
# Piped output (scripts, tests) must not be cut to 80 columns: give tables room when not on a terminal.
out = Console() if Console().is_terminal else Console(width=200)


def printable(text: str) -> str:
    """A message as one printable line: control characters a user's value may carry are shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class KlinkGroup(click.Group):
    """Turns KlinkError (and an OS error: a full disk, a permission) into one line on stderr and a non-zero
    exit, never a traceback."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["klinkctl.argv"] = list(args)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context):
        try:
            if any("\x00" in arg for arg in ctx.meta.get("klinkctl.argv", ())):  # no path or value holds one
                raise KlinkError("an argument contains a NUL byte (\\x00), which no path or value may hold; remove it")
            return super().invoke(ctx)
        except KlinkError as error:
            click.echo(f"error: {printable(str(error))}", err=True)
            sys.exit(error.exit_code)
        except click.UsageError as error:  # a command's option of the wrong type or choice: one line too
            click.echo(f"error: {printable(error.format_message())}", err=True)
            sys.exit(error.exit_code)
        except OSError as error:  # a full disk, a permission, a vanished file: the OS's words, in one line
            where = f" ({error.filename})" if getattr(error, "filename", None) else ""
            click.echo(f"error: {printable((error.strerror or str(error)) + where)}", err=True)
            sys.exit(KlinkError.exit_code)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)


state_dir_option = click.option(
    "--state-dir", type=click.Path(path_type=Path), default=None, envvar="KLINK_STATE_DIR",
    help="Where config, logs, pids and data live (default ./.klink).")


@click.group(cls=KlinkGroup)
@click.version_option(__version__, prog_name="klinkctl")
def main() -> None:
    """Latency experiments for scheduling and sampling policies on a real Flink + Kafka stack."""
    prereqs.check_python()


@main.command()
@state_dir_option
@click.option("--backend", type=click.Choice(backends.NAMES), default="local", show_default=True,
              help="local: processes on this machine (no Docker); compose: docker compose.")
@click.option("--taskmanagers", type=int, default=1, show_default=True, help="Number of TaskManagers.")
@click.option("--slots", type=int, default=4, show_default=True, help="Task slots per TaskManager.")
@click.option("--jm-memory", default="1024m", show_default=True, help="JobManager process memory.")
@click.option("--tm-memory", default="1536m", show_default=True, help="TaskManager process memory.")
@click.option("--kafka-heap", default="512m", show_default=True, help="Kafka broker JVM heap.")
@click.option("--tm-cpus", default="", help="Pin the TaskManagers to these cores, e.g. 1 or 2-3 (taskset); "
              "keeps Flink off the cores Kafka and the generator use. [not pinned]")
@click.option("--tm-cpu-quota", type=float, default=0.0, help="Cap the CPU time of all TaskManagers together at "
              "this many cores, e.g. 0.4 (cgroup CPU bandwidth; root, or --tm-cgroup): overloads Flink at rates the "
              "generator and Kafka keep easily on a small machine. [0 = no cap]")
@click.option("--tm-cgroup", type=click.Path(resolve_path=True), default=None, metavar="DIR",
              help="Make the --tm-cpu-quota group inside this cgroup, delegated to you (e.g. `sudo mkdir "
              "/sys/fs/cgroup/cpu/lab && sudo chown -R $USER /sys/fs/cgroup/cpu/lab`), so no root is needed; `down` "
              "removes only that group. [the hierarchy's root]")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address every service binds to. Anything but loopback exposes Flink's job-running REST API.")
@click.option("--kafka-port", type=int, default=9092, show_default=True)
@click.option("--kafka-controller-port", type=int, default=9093, show_default=True)
@click.option("--rpc-port", type=int, default=6123, show_default=True, help="Flink JobManager RPC port.")
@click.option("--rest-port", type=int, default=8081, show_default=True, help="Flink REST/web port.")
def up(state_dir: Path | None, backend: str, taskmanagers: int, slots: int, jm_memory: str, tm_memory: str,
       kafka_heap: str, tm_cpus: str, tm_cpu_quota: float, tm_cgroup: str | None, host: str, kafka_port: int,
       kafka_controller_port: int, rpc_port: int, rest_port: int) -> None:
    """Start Kafka + Flink (JobManager and TaskManagers) and wait until they are ready."""
    spec = StackSpec(
        state_dir=resolve_state_dir(state_dir), host=host, kafka_port=kafka_port,
        kafka_controller_port=kafka_controller_port, jobmanager_rpc_port=rpc_port, rest_port=rest_port,
        taskmanagers=taskmanagers, slots=slots, jobmanager_memory=jm_memory, taskmanager_memory=tm_memory,
        kafka_heap=kafka_heap, taskmanager_cpus=tm_cpus, taskmanager_cpu_quota=tm_cpu_quota,
        taskmanager_cgroup_parent=tm_cgroup or "",
    ).validate()
    warning = spec.exposure()
    if warning:
        click.echo(f"warning: {warning}", err=True)
    stack = backends.create(backend, spec.state_dir)
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
    click.echo(_health_line(statuses))


def _health_line(statuses: list[ComponentStatus]) -> str:
    running = sum(s.running for s in statuses)
    rss = sum(s.rss_bytes or 0 for s in statuses)
    state = "healthy" if running == len(statuses) else "DEGRADED"
    return f"{state}: {running}/{len(statuses)} components running, {rss / 2**20:.0f} MiB RSS in total"


@main.command()
@state_dir_option
def status(state_dir: Path | None) -> None:
    """Each component's state, pid, port, RSS and uptime. Exit 1 if anything is down."""
    stack = backends.detect(resolve_state_dir(state_dir))
    statuses = stack.status() if stack else []
    if not statuses:
        click.echo(f"no stack recorded in {resolve_state_dir(state_dir)}; start one with `klinkctl up`")
        sys.exit(1)
    table = Table("component", "state", "pid", "port", "rss", "uptime", "detail")
    for s in statuses:
        table.add_row(s.name, "running" if s.running else "DOWN", str(s.pid or "-"), str(s.port or "-"),
                      f"{s.rss_bytes / 2**20:.0f} MiB" if s.rss_bytes else "-",
                      f"{s.uptime_s:.0f} s" if s.uptime_s is not None else "-", s.detail)
    out.print(table)
    click.echo(_health_line(statuses))
    if not all(s.running for s in statuses):
        sys.exit(1)


@main.command()
@state_dir_option
@click.option("--purge", is_flag=True, help="Also delete the Kafka data, logs and configs `up` created in the state dir (nothing else).")
def down(state_dir: Path | None, purge: bool) -> None:
    """Stop everything `up` started (gracefully, then forcefully). Keeps data unless --purge."""
    resolved = resolve_state_dir(state_dir)
    stack = backends.detect(resolved) or backends.create("local", resolved)
    if netem_control.NetemState(resolved).load():  # the relays and namespace would outlive the broker
        click.echo(f"removed netem from {', '.join(netem_control.clear(resolved, container_finder(resolved)))}")
    with console.status("stopping stack") as spinner:
        stopped = stack.down(purge=purge, progress=lambda line: spinner.update(line))
    click.echo(f"stopped {', '.join(stopped)}" if stopped else f"nothing was running in {resolved}")
    if purge:
        click.echo(f"purged stack data in {resolved}")


def _ensure_stack(state_dir: Path | None) -> tuple[StackSpec, dict[str, int]]:
    """The running stack's spec and component pids; brings up the default local stack when none runs."""
    resolved = resolve_state_dir(state_dir)
    locks.hold(resolved / locks.STACK_LOCK, f"the stack in {resolved}")
    stack = backends.detect(resolved)
    if stack is None or not all(s.running for s in stack.status()):
        stack = backends.create("local", resolved)
        with console.status("no stack running: starting the local stack") as spinner:
            stack.up(StackSpec(resolved).validate(), progress=lambda line: spinner.update(line))
    spec = stack.recorded_spec()
    if spec is None:
        raise KlinkError(f"no stack record in {resolved}; run `klinkctl up`")
    return spec, {s.name: s.pid for s in stack.status() if s.pid}


@main.command()
@state_dir_option
@click.option("--results", "results_dir", type=click.Path(path_type=Path), default=Path("results"),
              show_default=True, help="Where the run directory is written.")
def smoke(state_dir: Path | None, results_dir: Path) -> None:
    """Prove Kafka -> Flink -> Kafka works: a windowed PyFlink job checked against exact counts."""
    from klinkctl.smoke import run_smoke

    spec, _ = _ensure_stack(state_dir)
    with console.status("smoke job") as spinner:
        result = run_smoke(spec, results_dir, progress=lambda line: spinner.update(line))
    click.echo(f"windows expected {len(result.expected)}, received {len(result.received)}, "
               f"missing {len(result.missing)}, wrong {len(result.wrong)} -> {result.run_dir}")
    if not result.passed:
        raise KlinkError(f"smoke job output does not match the expected windows (see {result.run_dir}/windows.csv)")
    click.echo("smoke: PASSED (Kafka -> Flink event-time window -> Kafka)")


results_option = click.option("--results", "results_dir", type=click.Path(path_type=Path), default=Path("results"),
                              show_default=True, help="Where run directories are written.")


@main.command()
@click.argument("workload")
@state_dir_option
@results_option
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False),
              help="YAML file of bench settings (same names as these options); options given here win.")
@click_options(OPTIONS, skip=["workload"])
def bench(workload: str, state_dir: Path | None, results_dir: Path, config_file: Path | None, **options) -> None:
    """Run a benchmark WORKLOAD (ysb, nyt, lrb, kmeans) on the stack and write results/<run-id>/."""
    from klinkctl.run.bench import run_bench
    from klinkctl.run.config import resolve

    config = resolve(config_file, {"workload": workload, **options})  # every value checked before anything starts
    spec, processes = _ensure_stack(state_dir)
    with console.status(f"{workload} run") as spinner:
        outcome = run_bench(spec, config, results_dir, processes, progress=lambda line: spinner.update(line))
    _print_summary(outcome.summary)
    click.echo(f"results: {outcome.run_dir}")
    if outcome.summary["status"] != "completed":
        raise KlinkError(f"run {outcome.summary['status']}: {outcome.summary['reason']}")


def _print_window_census(summary: dict) -> None:
    expected, censored = summary.get("windows_expected"), summary.get("windows_censored_total")
    if not expected:
        return
    exact = "" if summary.get("windows_expected_exact") else "at least "
    line = f"windows: {summary['windows_measured']} measured of {exact}{expected} expected"
    if censored:
        line += f"; {censored} CENSORED (never fired): the latency statistics are a lower bound"
    drain = summary.get("drain") or {}
    if drain.get("waited_ms") is not None:
        line += f"; waited {drain['waited_ms'] / 1000:.1f} s after the end for the last windows"
    click.echo(line)


def _print_summary(summary: dict) -> None:
    table = Table("metric", "count", "mean", "p50", "p90", "p95", "p99", "max", title=f"{summary['run']}")
    for label, key in (("SWM latency (ms)", "swm_latency_ms"), ("marker latency (ms)", "marker_latency_ms"),
                       ("watermark propagation (ms)", "watermark_propagation_ms")):
        stats = summary[key]
        table.add_row(label, str(stats["count"]),
                      *[f"{stats[k]:.0f}" if stats[k] is not None else "-"
                        for k in ("mean", "p50", "p90", "p95", "p99", "max")])
    out.print(table)
    throughput, gen = summary["throughput"], summary["generator"]
    rate = throughput.get("generator_events_per_s")
    flink_rate = throughput.get("flink_source_records_per_s")
    click.echo(f"throughput: generator {rate or 0:.0f} events/s, Flink sources {flink_rate or 0:.0f} records/s")
    behind = gen.get("behind_fraction")
    click.echo(f"generator: {gen.get('events_sent')} events sent, behind schedule "
               f"{(behind or 0):.2%} of events; late events dropped by windows: {summary['late_dropped']}")
    _print_window_census(summary)
    delay = summary.get("delay") or {}
    if delay.get("samples"):
        click.echo(f"network delay {delay['model']}: mean {delay['observed_mean_ms']:.1f} ms sent vs "
                   f"{delay['requested_mean_ms']:.1f} requested, p99 {delay['observed_p99_ms']:.0f} vs "
                   f"{delay['requested_p99_ms']:.0f}; KS D = {delay['ks_statistic']:.4f}")
    scheduler = summary.get("scheduler") or {}
    if scheduler.get("cycles"):
        click.echo(f"scheduler: {scheduler['cycles']} cycles, {scheduler['mean_cycle_us']:.0f} µs per cycle "
                   f"(p99 {scheduler['p99_cycle_us']:.0f} µs)")
    prioritised = summary.get("os_priority") or {}
    if prioritised.get("periods") is not None:
        unmapped = prioritised.get("unmapped_vertices") or []
        click.echo(f"os-priority: {prioritised['periods']} periods, {prioritised['threads_touched']} task threads "
                   f"re-niced (nice {', '.join(map(str, prioritised['nice_levels_used']))})"
                   + (f"; no thread found for {', '.join(unmapped)}" if unmapped else ""))
    for name, acc in (summary.get("estimator") or {}).items():
        if acc.get("swms"):
            click.echo(f"estimator {name}: {acc['inside_fraction']:.0%} of {acc['swms']} SWMs inside the predicted "
                       f"{acc['confidence']:.0%} interval (median width {acc['median_width_ms']:.0f} ms), mean |error| "
                       f"{acc['mean_abs_error_ms']:.0f} ms; skipped {_skipped_text(acc.get('skipped') or {})}")
    acc = summary.get("accuracy") or {}
    if acc.get("windows"):
        click.echo(f"accuracy ({summary.get('sampler', 'none')}): mean error {acc['mean_error']:.2%}, p95 "
                   f"{acc['p95_error']:.2%}, max {acc['max_error']:.2%}; {acc['within_target_fraction']:.0%} of "
                   f"{acc['windows']} windows within {acc['error_target']:.0%}; sampling rate "
                   f"{acc['mean_sampling_rate']:.0%}; stragglers dropped by the sampler: {acc['sampler_dropped_late']}")
    for flag in summary["flags"]:
        click.echo(f"FLAG: {flag}")
    click.echo(f"status: {summary['status']}" + (f" ({summary['reason']})" if summary["reason"] else ""))


def _skipped_text(skipped: dict[str, int]) -> str:
    """`3 (no_history 2, run_ended 1)`, or `0`."""
    reasons = ", ".join(f"{reason} {count}" for reason, count in skipped.items())
    return f"{sum(skipped.values())} ({reasons})" if skipped else "0"


main.add_command(archive_command)
main.add_command(capacity_command(bench))
main.add_command(compare)
main.add_command(netem)
main.add_command(report)
main.add_command(sweep)
